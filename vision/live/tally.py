"""Tally while sorting: count each card of a deck as it is laid down, so a card later
covered by the next one still counts.

During the sort every card is seen whole at least once: when it lands, before the next
card covers it. `SortTally` remembers each card seen land as a *place* (its outline on the
table and its deck) and counts the places. It reads the backs of each counted frame, each
with the track ByteTrack gave it (`vision.live.tracking`):

- only sightings with a whole card's shape count (a sliver of a covered card is left out);
- a sighting within ``place_tolerance`` of a known place is that place's (one a place, the
  closest first); the others rest with their track;
- a track that rests at one place (within ``rest_tolerance`` of where it came to rest) for
  ``settle_s`` with ``min_hits`` sightings becomes a place and is counted, unless it is a
  known place again; a card laid down and taken back sooner never counts;
- a resting card covered by a newer card before ``settle_s`` still counts, if it rested
  ``min_rest_s`` and the newer card came within ``cover_gap_s`` of its last sighting;
- a known place whose sightings of the last ``settle_s`` agree on an outline more than
  ``restack_tolerance`` off it has a new card on top (a card laid on one of its deck at
  almost the same place);
- a counted card that goes unseen, with no newer card over its place, and a card of its
  deck that lands within ``move_within_s`` of its last sighting: the card was moved, and
  counts once;
- `undo` takes back the last counted card; it stays a place, so it is not counted again.

Outlines are ``(4, 2)`` image pixels; tolerances are shares of the card's long side.
Nothing here knows of the detector or the tracker: tests drive it with hand-made tracks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.core.geometry import covered_share, long_side, outline_distance
from vision.core.types import Array
from vision.live.motion import Motion
from vision.live.places import (
    COUNTED,
    MOVED,
    UNDONE,
    Place,
    Rest,
    Sighting,
    TallyEvent,
    tally_differences,
)
from vision.live.settings import TallySettings

__all__ = [
    "COUNTED",
    "MOVED",
    "UNDONE",
    "Motion",
    "Sighting",
    "SortTally",
    "TallyEvent",
    "TallySettings",
    "outline_distance",
    "tally_differences",
]


class SortTally:
    """The cards laid down per deck, from the backs of each counted frame.

    Args:
        decks: the decks tallied (each listed, 0 when none was laid).
        settings: when a card counts.
    """

    def __init__(self, decks: Sequence[str], settings: TallySettings | None = None) -> None:
        self.decks = tuple(decks)
        self.settings = settings or TallySettings()
        self.places: list[Place] = []
        self.rests: dict[int, Rest] = {}  # by rest id
        self._resting_on: dict[int, int] = {}  # track -> its rest's id
        self.events: list[TallyEvent] = []
        self._numbered = 0
        self._rest_ids = 0
        self._sizes: list[float] = []  # long sides of the whole cards seen lately (px)

    # -- reading frames --------------------------------------------------------------

    def observe(self, t: float, frame: int, sightings: Sequence[Sighting]) -> list[TallyEvent]:
        """Read one counted frame at ``t`` (s); the events it caused."""
        before = len(self.events)
        sightings = [
            s if s.deck is None or s.deck in self.decks else Sighting(s.track, s.outline, None)
            for s in sightings
        ]
        sightings = [s for s in sightings if self._whole(s.outline)]
        known = self._known(t, sightings)
        for k, s in enumerate(sightings):
            place = known[k]
            if place is not None:
                place.last_s = t
                place.recent.append((t, np.asarray(s.outline, np.float64), s.deck, s.confidence))
                rest_id = self._resting_on.get(s.track)
                if rest_id is not None:  # it was this card resting, not a new one
                    self._drop(self.rests[rest_id])
                continue
            self._rest(t, s)
        for place in list(self.places):
            self._restacked(t, frame, place)
        for rest in sorted(self.rests.values(), key=lambda r: r.first_s):
            if rest.id not in self.rests:
                continue  # counted above, as covered
            if self._resting(t, rest, self.settings.min_rest_s, self.settings.cover_min_hits):
                for below in self._covered_by(rest, rest.outline()):
                    self._count(
                        t, frame, below.outline(), below.votes, below.first_s, below.last_s, True
                    )
                    self._drop(below)
            if self._resting(t, rest, self.settings.settle_s, self.settings.min_hits):
                self._land(t, frame, rest)
        for rest in [r for r in self.rests.values() if t - r.last_s > self.settings.forget_s]:
            self._drop(rest)
        return self.events[before:]

    def _whole(self, outline: Array) -> bool:
        """Whether an outline has a whole card's shape: its sides in a card's proportion,
        its long side near the usual one (a sliver of a covered card is left out)."""
        q = np.asarray(outline, np.float64)
        a, b = float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1]))
        long, short = max(a, b), max(min(a, b), 1e-6)
        if not self.settings.min_aspect <= long / short <= self.settings.max_aspect:
            return False
        self._sizes.append(long)
        del self._sizes[: -self.settings.size_memory]
        usual = float(np.median(self._sizes))
        return len(self._sizes) < 10 or abs(long / usual - 1) <= self.settings.size_tolerance

    def _restacked(self, t: float, frame: int, place: Place) -> None:
        """Follow a known card's outline over its last ``settle_s`` of sightings: the same
        card (drifting with the camera), or a new card laid on it that stays: the
        sightings agree with each other, and lie more than ``restack_tolerance`` off it."""
        st = self.settings
        place.recent = [r for r in place.recent if t - r[0] <= st.settle_s + 1e-9]
        if len(place.recent) < st.min_hits or place.recent[-1][0] != t:
            return
        if t - place.recent[0][0] < st.settle_s * st.restack_span - 1e-9:
            return
        median: Array = np.median(np.stack([r[1] for r in place.recent]), axis=0)
        scale = long_side(median)
        if t - place.counted_s <= 2 * st.settle_s:
            place.outline = median  # settling in: where it lies once the hand has gone
            return
        if outline_distance(median, place.outline) / scale <= st.restack_tolerance:
            off = [outline_distance(r[1], place.outline) / scale for r in place.recent]
            if np.mean(np.array(off) <= st.restack_tolerance) >= 0.8:
                place.outline = median  # the same card, followed as the camera drifts
            return
        spread = np.median([outline_distance(r[1], median) / scale for r in place.recent])
        first = place.recent[0][0]
        if spread > st.restack_tolerance or self._is_place(median, since_s=first):
            return
        votes: dict[str, float] = {}
        for _, _, deck, conf in place.recent:
            if deck is not None:
                votes[deck] = votes.get(deck, 0.0) + conf
        if not votes:
            return
        place.recent = []
        for rest in list(self.rests.values()):  # the same card, seen resting on its own
            if outline_distance(rest.outline(), median) / scale <= st.place_tolerance:
                self._drop(rest)
        self._count(t, frame, median, votes, first, t)

    def _known(self, t: float, sightings: list[Sighting]) -> list[Place | None]:
        """Per sighting, the known card at its place (within ``place_tolerance``), if any.
        Each known card is one sighting's at most, the closest first. A known card is still
        there when its sighting is, or when a sighting that is no other card lies within
        ``present_tolerance`` of it."""
        st = self.settings
        live = [p for p in self.places if p.state != MOVED]
        near: list[list[tuple[float, int]]] = [[] for _ in sightings]
        pairs = []
        for k, s in enumerate(sightings):
            for j, p in enumerate(live):
                d = outline_distance(p.outline, s.outline) / long_side(p.outline)
                if d <= st.present_tolerance:
                    near[k].append((d, j))
                if d <= st.place_tolerance:
                    pairs.append((d, k, j))
        out: list[Place | None] = [None] * len(sightings)
        taken: set[int] = set()
        for _, k, j in sorted(pairs):
            if out[k] is not None or j in taken:
                continue
            taken.add(j)
            out[k] = live[j]
        for k in range(len(sightings)):
            place = out[k]
            if place is not None:
                place.present_s = t
            else:
                for _, j in near[k]:
                    live[j].present_s = t
        return out

    def _drop(self, rest: Rest) -> None:
        self.rests.pop(rest.id, None)
        if self._resting_on.get(rest.track) == rest.id:
            del self._resting_on[rest.track]

    def _unlink(self, track: int) -> None:
        """The track's card is no longer resting where it was: its rest stays (it may be
        covered by the next card) if it lay still long enough, else it is dropped."""
        rest_id = self._resting_on.pop(track, None)
        rest = self.rests.get(rest_id) if rest_id is not None else None
        if rest is None:
            return
        st = self.settings
        if rest.hits < st.cover_min_hits or rest.last_s - rest.first_s < st.min_rest_s - 1e-9:
            del self.rests[rest.id]

    def _rest(self, t: float, s: Sighting) -> None:
        st = self.settings
        rest_id = self._resting_on.get(s.track)
        rest = self.rests.get(rest_id) if rest_id is not None else None
        if rest is not None:
            ref = rest.outline()
            d = outline_distance(ref, s.outline) / long_side(ref)
            # moved (carried by a hand), or after a hand a new card on the same track
            if d > st.rest_tolerance or (t - rest.last_s > st.gap_s and d > st.restack_tolerance):
                self._unlink(s.track)
                rest = None
        if rest is None:
            self._rest_ids += 1
            rest = Rest(self._rest_ids, s.track, t, t)
            self.rests[rest.id] = rest
            self._resting_on[s.track] = rest.id
        rest.add(t, s)

    def _resting(self, t: float, rest: Rest, for_s: float, hits: int) -> bool:
        """Whether ``rest`` is seen now and has lain still ``for_s`` with ``hits`` sightings."""
        return (
            rest.last_s == t
            and rest.hits >= hits
            and rest.last_s - rest.first_s >= for_s - 1e-9
            and rest.deck() is not None
        )

    def _land(self, t: float, frame: int, rest: Rest) -> None:
        """A rest settled: the same card again, a move or a new card."""
        self._drop(rest)
        outline = rest.outline()
        scale = long_side(outline)
        for p in self.places:
            if p.state != MOVED and (
                outline_distance(p.outline, outline) / scale <= self.settings.restack_tolerance
            ):
                p.last_s, p.present_s, p.outline = t, t, outline  # that card again
                return
        if self._is_place(outline, since_s=rest.first_s):
            return  # taken already, from the sightings of the card it lies on
        moved = self._moved_from(rest, outline)
        if moved is not None:
            moved.state = MOVED
            place = Place(moved.number, outline, dict(rest.votes), rest.first_s, t, frame)
            self.places.append(place)
            self.events.append(TallyEvent(MOVED, place.deck(), place.number, frame, t))
            return
        self._count(t, frame, outline, rest.votes, rest.first_s, t)

    def _covered_by(self, rest: Rest, outline: Array) -> list[Rest]:
        """Resting cards, not yet counted, that this newer card came to lie on."""
        st = self.settings
        out = []
        for r in self.rests.values():
            if (
                r.first_s < rest.first_s
                and r.last_s < rest.last_s
                and r.hits >= st.cover_min_hits
                and r.last_s - r.first_s >= st.min_rest_s - 1e-9
                and rest.first_s - r.last_s <= st.cover_gap_s
                and r.deck() is not None
                and covered_share(r.outline(), outline) >= st.cover_share
                and not self._is_place(r.outline())
            ):
                out.append(r)
        return sorted(out, key=lambda r: r.first_s)

    def _moved_from(self, rest: Rest, outline: Array) -> Place | None:
        """The counted card of this deck picked up shortly before this one landed, if any."""
        st = self.settings
        deck = rest.deck()
        for p in sorted(self.places, key=lambda p: -p.present_s):
            if (
                p.state == COUNTED
                and p.deck() == deck
                and p.present_s < rest.first_s
                and rest.last_s - p.present_s >= st.vanish_s
                and rest.first_s - p.present_s <= st.move_within_s
                and not self._is_covered(p)
                and covered_share(p.outline, outline) < st.cover_share
            ):
                return p
        return None

    def _is_place(self, outline: Array, since_s: float | None = None) -> bool:
        """Whether a known card lies at ``outline`` (within ``restack_tolerance``; or, for
        one taken since ``since_s``, within ``place_tolerance``: the same landing)."""
        st = self.settings
        scale = long_side(outline)
        for p in self.places:
            if p.state == MOVED:
                continue
            d = outline_distance(p.outline, outline) / scale
            if d <= st.restack_tolerance:
                return True
            if since_s is not None and p.counted_s >= since_s and d <= st.place_tolerance:
                return True
        return False

    def _is_covered(self, place: Place) -> bool:
        """Whether a card that landed after ``place`` lies on it."""
        return any(
            q.landed_s > place.landed_s
            and q.state != MOVED
            and covered_share(place.outline, q.outline) >= self.settings.cover_share
            for q in self.places
        )

    def _count(
        self,
        t: float,
        frame: int,
        outline: Array,
        votes: dict[str, float],
        landed_s: float,
        last_s: float,
        covered: bool = False,
    ) -> None:
        self._numbered += 1
        place = Place(self._numbered, outline, dict(votes), landed_s, last_s, frame)
        self.places.append(place)
        self.events.append(TallyEvent(COUNTED, place.deck(), place.number, frame, t, covered))

    # -- what the players see and do -----------------------------------------------------

    def undo(self, t: float, frame: int) -> TallyEvent | None:
        """Take back the last counted card (``None`` when nothing is counted). The card stays
        known by its place, so seeing it again does not count it again."""
        counted = [p for p in self.places if p.state == COUNTED]
        if not counted:
            return None
        last = max(counted, key=lambda p: (p.frame, p.number))
        last.state = UNDONE
        event = TallyEvent(UNDONE, last.deck(), last.number, frame, t, undone_frame=last.frame)
        self.events.append(event)
        return event

    def counts(self) -> dict[str, int]:
        """Cards counted per deck (every deck listed)."""
        out = dict.fromkeys(self.decks, 0)
        for p in self.places:
            if p.state == COUNTED:
                out[p.deck()] = out.get(p.deck(), 0) + 1
        return out

    def outline_of(self, number: int) -> Array | None:
        """Where card ``number`` lies now (px), ``None`` if it no longer counts."""
        for p in self.places:
            if p.number == number and p.state == COUNTED:
                return p.outline
        return None
