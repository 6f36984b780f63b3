"""What the tally keeps: the backs it reads (`Sighting`), what it did (`TallyEvent`), the
cards lying still that it watches (`Rest`) and the cards it knows lie on the table (`Place`).

Outlines are ``(4, 2)`` image pixels; times are seconds of the picture's clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.core.types import Array

COUNTED = "counted"
MOVED = "moved"
UNDONE = "undone"


@dataclass(frozen=True)
class Sighting:
    """One back seen in a counted frame.

    Attributes:
        track: its ByteTrack id.
        outline: ``(4, 2)`` image pixels, as `vision.core.geometry.canonical_corners`.
        deck: the deck it was named, ``None`` for a back of no deck (not tallied).
        confidence: the naming confidence (its vote), in [0, 1].
    """

    track: int
    outline: Array
    deck: str | None
    confidence: float = 1.0


@dataclass(frozen=True)
class TallyEvent:
    """Something the tally did: a card ``counted``, ``moved`` (counted once) or ``undone``.

    Attributes:
        kind: ``counted``, ``moved`` or ``undone``.
        deck: the card's deck.
        card: the card's number in the tally (from 1, in the order counted).
        frame: the frame it happened on; ``t`` its time (s).
        covered: a counted card that was covered by the next one before it settled.
        undone_frame: for ``undone``, the frame on which the undone card was counted.
    """

    kind: str
    deck: str
    card: int
    frame: int
    t: float
    covered: bool = False
    undone_frame: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The event as ``watch --tally --json`` prints it."""
        out: dict[str, Any] = {
            "event": self.kind,
            "deck": self.deck,
            "card": self.card,
            "frame": self.frame,
            "t": round(self.t, 3),
        }
        if self.covered:
            out["covered"] = True
        if self.undone_frame is not None:
            out["undone_frame"] = self.undone_frame
        return out


@dataclass
class Rest:
    """A track while its card lies still: where it came to rest, since when, its votes."""

    id: int
    track: int
    first_s: float
    last_s: float
    outlines: list[Array] = field(default_factory=list)
    votes: dict[str, float] = field(default_factory=dict)
    stirred: bool = False  # something moved over it while it rested (or as it came)

    def add(self, t: float, s: Sighting) -> None:
        self.last_s = t
        self.outlines.append(np.asarray(s.outline, np.float64))
        if s.deck is not None:
            self.votes[s.deck] = self.votes.get(s.deck, 0.0) + s.confidence

    @property
    def hits(self) -> int:
        return len(self.outlines)

    def outline(self) -> Array:
        """The median outline of the rest (px)."""
        out: Array = np.median(np.stack(self.outlines), axis=0)
        return out

    def deck(self) -> str | None:
        return max(self.votes, key=lambda d: self.votes[d]) if self.votes else None


@dataclass
class Place:
    """A card known to lie on the table (seen land), counted or not."""

    number: int  # from 1, in the order the tally took them
    outline: Array
    votes: dict[str, float]
    landed_s: float
    last_s: float  # last seen where it lies (within place_tolerance, or restack after a gap)
    frame: int
    state: str = COUNTED
    present_s: float = 0.0  # last seen at least roughly where it lies (present_tolerance)
    # its sightings of the last settle_s: (time s, outline px, deck, naming confidence)
    recent: list[tuple[float, Array, str | None, float]] = field(default_factory=list)
    counted_s: float = 0.0  # when the tally took it
    # with motion: since when something moves over it (None: calm), the last time it
    # moved, how long a hand dwelt over it since then (s), and the hands that dwelt over it
    # since it was last seen calm (each may have laid a card on it)
    stir_s: float | None = None
    moved_s: float = -1e9
    dwell_s: float = 0.0
    dwelt: int = 0
    dwelt_s: float = 0.0  # when the last of them went
    sides: Array = field(default_factory=lambda: np.zeros(4))  # moved beside it, this passing
    passed: bool = False  # something passed over it since it was last seen calm
    under: bool = False  # a card counted after it lies on it (it takes no hands' dwell)

    def __post_init__(self) -> None:
        self.present_s = max(self.present_s, self.last_s)
        self.counted_s = max(self.counted_s, self.last_s)

    def deck(self) -> str:
        return max(self.votes, key=lambda d: self.votes[d])


def tally_differences(
    tally: dict[str, int],
    still: dict[str, int],
    ranges: dict[str, tuple[int, int]],
    labels: dict[str, str] | None = None,
) -> list[str]:
    """Where the tally and the still count of the finished spread disagree beyond the still
    count's range: one line per deck, for a person to look at (the tally wins, unflagged,
    where the still count's range reaches it)."""
    out = []
    for deck, n in tally.items():
        c = int(still.get(deck, 0))
        lo, hi = ranges.get(deck, (c, c))
        if not lo <= n <= hi:
            seen = f"{c}" if lo == hi else f"{c} ({lo}-{hi})"
            label = (labels or {}).get(deck, deck)
            out.append(f"{label}: tally {n}, still photo {seen}")
    return out
