"""Tally while sorting: count each card of a deck as it is laid down, so a card later
covered by the next one still counts.

`SortTally` remembers each card seen land as a *place* (its outline and deck) and counts
the places, from the backs of each counted frame with their ByteTrack ids: only whole
cards' shapes count; a sighting within ``place_tolerance`` of a place is that place's;
a track resting ``settle_s`` elsewhere becomes a place (a card taken back sooner never
counts); a resting card covered by a newer one after ``min_rest_s`` still counts; a
counted card that vanishes, and one of its deck landing within ``move_within_s``: moved,
counted once; `undo` takes back the last counted card (it stays a place).

With the watch loop's `Motion` (where the picture moved), a card counts only where something
moved over it, one lying within known cards is none (the detector's outline for a spread's
covered cards), and a card on a known card counts after a hand dwelt over it (not going on
past it) or after a passing that shifted its outline by ``shift_tolerance``; with nothing
passing over it a card is never counted again. Without motion, a known place whose recent
sightings agree on an outline ``restack_tolerance`` off it has a new card on top
(`docs/reference.md`).

Outlines are ``(4, 2)`` image pixels; tolerances are shares of the card's long side.
Nothing here knows of the detector or the tracker: tests drive it with hand-made tracks.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.core.geometry import covered_share, long_side, outline_distance
from vision.core.types import Array
from vision.live.motion import Motion, share_within
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
        self.with_motion = False  # motion was given: the rules of `vision.live.motion`
        self._first_s: float | None = None  # the first frame's time (s)
        self._motions: list[tuple[float, Motion]] = []  # those of the last arrive_s

    # -- reading frames --------------------------------------------------------------

    def observe(
        self,
        t: float,
        frame: int,
        sightings: Sequence[Sighting],
        motion: Motion | None = None,
    ) -> list[TallyEvent]:
        """Read one counted frame at ``t`` (s); the events it caused. With ``motion`` (where
        the picture moved since the last counted frame), a card counts only where something
        passed over it, and a card on a known card only after a hand dwelt over it."""
        before = len(self.events)
        if self._first_s is None:
            self._first_s = t
        sightings = [
            s if s.deck is None or s.deck in self.decks else Sighting(s.track, s.outline, None)
            for s in sightings
        ]
        sightings = [s for s in sightings if self._whole(s.outline)]
        if motion is not None:
            self.with_motion = True
            self._motions = [(u, m) for u, m in self._motions if t - u < self.settings.arrive_s]
            self._motions.append((t, motion))
            self._stir(t, motion)
        known = self._known(t, sightings)
        for k, s in enumerate(sightings):
            place = known[k]
            if place is not None:
                place.last_s = t
                if place.moved_s < t:  # seen lying still, no hand over it
                    rec = (t, np.asarray(s.outline, np.float64), s.deck, s.confidence)
                    place.recent.append(rec)
                rest_id = self._resting_on.get(s.track)
                if rest_id is not None:  # it was this card resting, not a new one
                    self._drop(self.rests[rest_id])
                continue
            self._rest(t, s)
        for place in list(self.places):
            if self.with_motion:
                self._laid_on(t, frame, place)
            else:
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

    def _stir(self, t: float, motion: Motion) -> None:
        """Follow what passes over each known card on top: a passing starts when
        ``motion_share`` of its outline moves and ends once it lies still ``calm_s``; a
        hand that moved over half of it for ``dwell_s`` or more dwelt there (and may have
        laid a card on it)."""
        st = self.settings
        for p in self.places:
            if p.state == MOVED or p.under:
                continue
            if motion.share(p.outline) >= st.motion_share:
                if p.stir_s is None:
                    p.stir_s, p.dwell_s, p.sides = t, 0.0, np.zeros(4)
                p.dwell_s += motion.dwell(p.outline, st.dwell_share)
                p.moved_s = t
                p.recent = []
            if p.stir_s is None:
                continue
            p.sides = np.maximum(p.sides, motion.sides(p.outline))
            if t - p.moved_s >= st.calm_s - 1e-9:
                # a hand that went on past it (beyond two opposite sides) laid nothing
                past = max(min(p.sides[0], p.sides[1]), min(p.sides[2], p.sides[3]))
                if p.dwell_s >= st.dwell_s - 1e-9 and past < st.past_share:
                    p.dwelt += 1
                    p.dwelt_s = t
                p.passed = True
                p.stir_s = None

    def _laid_on(self, t: float, frame: int, place: Place) -> None:
        """With motion: a known card over which a hand dwelt, seen lying still again for
        ``after_s``, has a new card on it (one a dwelling hand); with no hand, it is the
        same card, followed as the camera drifts."""
        st = self.settings
        place.recent = [r for r in place.recent if t - r[0] <= st.settle_s + 1e-9]
        if place.dwelt and t - place.dwelt_s > st.dwelt_for_s:
            place.dwelt = 0  # not seen again: the hand laid nothing there
        if place.stir_s is not None or len(place.recent) < st.cover_min_hits:
            return
        if place.recent[-1][0] != t or t - place.recent[0][0] < st.after_s - 1e-9:
            return
        median: Array = np.median(np.stack([r[1] for r in place.recent]), axis=0)
        scale = long_side(median)
        off = outline_distance(median, place.outline) / scale
        passed, place.passed = place.passed, False
        if not place.dwelt:
            # a passing that left the top card further off than the wobble laid a card
            spread = np.median([outline_distance(r[1], median) / scale for r in place.recent])
            if not (passed and off > st.shift_tolerance and spread <= st.restack_tolerance):
                if off <= st.place_tolerance:
                    place.outline = median  # the same card, as the camera drifts
                return
            place.dwelt = 1
        votes: dict[str, float] = {}
        for _, _, deck, conf in place.recent:
            if deck is not None:
                votes[deck] = votes.get(deck, 0.0) + conf
        if not votes:
            return
        first = place.recent[0][0]
        dwelt, place.dwelt, place.recent = place.dwelt, 0, []
        deck = max(votes, key=lambda d: votes[d])
        for _ in range(dwelt):
            moved = self._moved_from(deck, first, t, median)
            if moved is None:
                self._count(t, frame, median, votes, first, t)
                continue
            moved.state = MOVED
            new = Place(moved.number, median, dict(votes), first, t, frame)
            self._lay_over(new)
            self.places.append(new)
            self.events.append(TallyEvent(MOVED, new.deck(), new.number, frame, t))

    def _lay_over(self, new: Place) -> None:
        """A card newly on the table: the known cards it lies on take no more hands."""
        for p in self.places:
            if (
                p.state != MOVED
                and covered_share(p.outline, new.outline) >= self.settings.cover_share
            ):
                p.under, p.dwelt, p.recent = True, 0, []

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
        live = [p for p in self.places if p.state != MOVED and not (p.under and self.with_motion)]
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
        if not rest.stirred and (
            rest.first_s == self._first_s
            or any(m.share(s.outline) >= st.motion_share for _, m in self._motions)
        ):
            rest.stirred = True  # it came lately (or lay there before the first frame)

    def _resting(self, t: float, rest: Rest, for_s: float, hits: int) -> bool:
        """Whether ``rest`` is seen now and has lain still ``for_s`` with ``hits`` sightings."""
        return (
            rest.last_s == t
            and rest.hits >= hits
            and rest.last_s - rest.first_s >= for_s - 1e-9
            and rest.deck() is not None
            and (rest.stirred or not self.with_motion)
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
        if self.with_motion and (self._beneath(rest, outline) or self._within_known(outline)):
            return
        moved = self._moved_from(rest.deck(), rest.first_s, rest.last_s, outline)
        if moved is not None:
            moved.state = MOVED
            place = Place(moved.number, outline, dict(rest.votes), rest.first_s, t, frame)
            self.places.append(place)
            self.events.append(TallyEvent(MOVED, place.deck(), place.number, frame, t))
            return
        self._count(t, frame, outline, rest.votes, rest.first_s, t)

    def _within_known(self, outline: Array) -> bool:
        """Whether known cards cover ``within_share`` of ``outline``: a new card laid on a
        spread or beside it reaches past them; the detector's whole outline for cards of
        a spread covered by the next ones lies within them."""
        known = [p.outline for p in self.places if p.state != MOVED]
        return share_within(outline, known) >= self.settings.within_share

    def _beneath(self, rest: Rest, outline: Array) -> bool:
        """Whether a known card that lies on much of ``outline`` was still seen whole while
        this card rested: then it lies on this one (a card beneath, or the detector's
        whole outline for the covered cards of a spread), and this one is no new card."""
        st = self.settings
        return any(
            p.state != MOVED
            and p.landed_s < rest.first_s
            and p.last_s > rest.first_s + st.min_rest_s
            and covered_share(outline, p.outline) >= st.cover_share
            for p in self.places
        )

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
                and (r.stirred or not self.with_motion)
                and covered_share(r.outline(), outline) >= st.cover_share
                and not self._is_place(r.outline())
                and not (self.with_motion and self._within_known(r.outline()))
            ):
                out.append(r)
        return sorted(out, key=lambda r: r.first_s)

    def _moved_from(
        self, deck: str | None, first_s: float, last_s: float, outline: Array
    ) -> Place | None:
        """The counted card of ``deck`` picked up shortly before a card of it came to lie
        at ``outline`` (from ``first_s`` to ``last_s``), if any."""
        st = self.settings
        for p in sorted(self.places, key=lambda p: -p.present_s):
            if (
                p.state == COUNTED
                and p.deck() == deck
                and p.present_s < first_s
                and last_s - p.present_s >= st.vanish_s
                and first_s - p.present_s <= st.move_within_s
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
        self._lay_over(place)
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
