"""What the live window's keys take (a steady count, the tally) and what each key answers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.count.result import Count


@dataclass(frozen=True)
class Taken:
    """A steady count taken with a key: the count, the frame it was taken on."""

    count: Count
    image: Any  # BGR frame

    def detections(self) -> dict[str, Any]:
        """The evidence's detections: every card of the steady count."""
        return self.count.to_json()

    @property
    def model(self) -> str:
        """The name of the models that counted the frame."""
        return str(self.count.model.get("name", ""))


@dataclass(frozen=True)
class TallyTaken:
    """The tally taken as the Dutch counts (``d`` with ``--tally``), beside the still count
    of the finished spread on the frame it was taken on.

    Attributes:
        counts: the tally per deck.
        still: the still count of the frame.
        image: the frame (BGR).
        events: the tally's events so far (counted, moved, undone), as printed.
        differences: where the two disagree beyond the still count's range (flagged).
    """

    counts: dict[str, int]
    still: Count
    image: Any
    events: list[dict[str, Any]]
    differences: tuple[str, ...]

    def detections(self) -> dict[str, Any]:
        """The evidence's detections: the still count's cards, the tally and its events
        (every undo with the frame whose card it took back)."""
        return {**self.still.to_json(), "tally": {"counts": self.counts, "events": self.events}}

    @property
    def model(self) -> str:
        """The name of the models that counted the frame as a still photo."""
        return str(self.still.model.get("name", ""))


@dataclass(frozen=True)
class Reply:
    """What a key did: a line for the panel, whether it is a problem, whether to quit."""

    message: str
    error: bool = False
    quit: bool = False
