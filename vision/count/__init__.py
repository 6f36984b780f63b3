"""Count: an image in, a `Count` out (every card numbered, the count per deck and its range).

`Counter` loads the models once and runs the stages (`vision.detect`, `vision.name`);
`Count` carries the cards in reading order with the doubts that widen each deck's range;
`tally_of` hands a `Count` to the score sheet as a `scoring.tally.Tally`; `CountAnnotator`
draws a count on its image.
"""

from vision.count.annotate import CountAnnotator
from vision.count.counter import Counter
from vision.count.result import Count
from vision.count.tally import tally_of

__all__ = ["Count", "CountAnnotator", "Counter", "tally_of"]
