"""From a `Count` (what the camera saw in one photo) to the score sheet's `Tally`."""

from __future__ import annotations

from scoring.tally import Tally
from vision.count.result import Count


def tally_of(count: Count) -> Tally:
    """The counts per deck of one photo, with what casts doubt on them, as plain numbers."""
    return Tally(
        count.counts,
        count.unknown,
        tuple(count.uncertain),
        count.ranges,
        sum(1 for decks in count.possible_could_be if decks),
        len(count.spread),
        count.open_when_unsure and count.nothing_sure,
        count.expected,
    )
