"""The steady table: which cards lie on the table, by the evidence of their whole tracks.

A frame's count is a guess; the table is what the guesses agree on over time. A track
becomes a counted card once it has lasted ``appear_s`` (seen ``appear_min_hits`` times, in
at least ``appear_min_share`` of the counted frames from its first sighting to its last),
and stops being one once it has been unseen for ``gone_after_s``. A counted card unseen for
``miss_grace_s`` (a hand over it, or a card being taken), a counted card touched since
the frame the last count came from (`touch`: every frame's motion, so a camera whose counts
come late shows a hand at once), a new track that keeps being seen or was seen where a hand
just moved (a card being added) or a counted card whose deck the frames have not yet agreed
on (``decided_lead``) makes the view SETTLING; the steady count, the one shown and committed,
changes only when the view is STEADY again, and only to a count that has held for
``hold_s``. Until the view is first STEADY it shows the cards counted so far. A card's deck
is the one that won the most naming confidence over every frame of its track. Two tracks
on one spot that are seldom seen in the same frame are one card whose box the detector
draws now one way, now the other: it counts once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.core.cards import Cards
from vision.count.result import Count, reading_order
from vision.live.evidence import TrackEvidence
from vision.live.motion import Motion, Touches
from vision.live.settings import LiveSettings

# What keeps the view SETTLING (`TableView.waiting`), in the order they are told: the first
# counts still to come; something moving over counted cards (a hand); a counted card out of
# sight; a new card being seen (a card laid, or one box seen now and then); a counted back
# whose deck the frames have not yet agreed on; a new count that has not yet held ``hold_s``.
STARTING, TOUCHED, UNSEEN, NEW, UNDECIDED, HOLDING = (
    "starting", "touched", "unseen", "new", "undecided", "holding"
)  # fmt: skip
WAITING = (STARTING, TOUCHED, UNSEEN, NEW, UNDECIDED, HOLDING)
# A card whose last box comes this close (px) to an inner edge of a counted part is not
# looked at by that part's count (`SteadyTable.observe`).
PART_EDGE_PX = 4.0


@dataclass(frozen=True)
class TableView:
    """The table at one moment.

    Attributes:
        steady: whether nothing is changing (STEADY) or a change may be under way (SETTLING).
        count: the steady count: the table as it was when last STEADY (`vision.count.Count`);
            before the first STEADY, the cards counted so far.
        seen: the cards of the table seen lately, for drawing (may hold pending cards).
        since_s: when the view last turned STEADY (seconds), ``None`` if never.
        waiting: what keeps it SETTLING (`WAITING`, in that order); empty when STEADY.
    """

    steady: bool
    count: Count
    seen: Cards
    since_s: float | None
    waiting: tuple[str, ...] = ()


class SteadyTable:
    """The cards of the table, kept from the tracks of the counted frames.

    Args:
        decks: the profile's decks (each listed in the counts, 0 when absent).
        settings: the live settings' timings.
    """

    def __init__(self, decks: tuple[str, ...], settings: LiveSettings) -> None:
        self.decks = decks
        self.settings = settings
        self.tracks: dict[int, TrackEvidence] = {}
        self.frames = 0  # counted frames observed
        self._steady: Count | None = None
        self._since: float | None = None
        self._was_steady = False
        self._template: Count | None = None  # the last frame's count: its bars and size
        self._start: float | None = None  # the first counted frame (s)
        self._last_t: float | None = None  # when the last count reached the table (s)
        self._last_frame_t = -np.inf  # the picture's time of the last count's frame (s)
        # The count the counted tracks make now, when it was made and from which cards.
        self._candidate: Count | None = None
        self._candidate_key: tuple[tuple[int, str | None, int], ...] | None = None
        self._candidate_s = 0.0
        # A count unlike the steady one, and since when (s) it has held.
        self._pending: tuple[tuple[tuple[str, int], ...], float] | None = None
        self._seen_key: tuple[tuple[int, int], ...] | None = None
        self._seen_cards = Cards.empty()
        self.touches = Touches(settings.touch_open_cells)

    def observe(
        self,
        t: float,
        count: Count,
        matches: Sequence[tuple[int, int]],
        motion: Motion | None = None,
        frame_t: float | None = None,
        part: tuple[int, int, int, int] | None = None,
    ) -> None:
        """Add a counted frame's count, reaching the table at time ``t`` (s): the count,
        each ``(track, card index)``, the time of the frame it counted (``frame_t``; ``t``
        when ``None``: counted at once) and, where given, where the picture moved since the
        frame before (as `touch`). ``part``: only that box of the frame (x0, y0, x1, y1,
        px) was counted (`Counter.count_part`): a card lying partly or wholly outside it
        was not looked at, and one the count before saw (or took as there) is still there,
        with no evidence added."""
        before = self._last_t
        if self._start is None:
            self._start = t
        self._last_t = t
        self._last_frame_t = t if frame_t is None else frame_t
        looked = self._inside(part) if part is not None else None
        for tid, known in self.tracks.items():
            if looked is None or looked[tid]:
                known.chances += 1
            elif before is not None and known.last_s >= before:
                known.last_s = t
        for track_id, i in matches:
            card = count.cards[np.array([i])]
            could_be = count.could_be[i] if i < len(count.could_be) else ()
            if track_id not in self.tracks:
                self.tracks[track_id] = TrackEvidence(first_s=t, last_s=t, card=card, chances=1)
            self.tracks[track_id].add(t, card, could_be, self.frames)
        if motion is not None:
            self.touch(t, motion)
        self.frames += 1
        if part is None:
            self._template = count  # a part's count has the bars, not the frame's size

    def held(self, part: tuple[int, int, int, int]) -> Cards:
        """The cards a count of ``part`` does not look at and takes as still there (not
        wholly inside it, seen by the last count or taken as there by it), as last seen: the
        tracker is shown them so that it keeps following them."""
        inside = self._inside(part)
        now = self._last_t
        keep = [
            rec.card
            for tid, rec in self.tracks.items()
            if not inside[tid] and now is not None and rec.last_s >= now
        ]
        return Cards.concatenate(keep) if keep else Cards.empty()

    def _inside(self, box: tuple[int, int, int, int]) -> dict[int, bool]:
        """Whether each track's card lies wholly inside ``box`` (x0, y0, x1, y1, px), clear
        of its inner edges by `PART_EDGE_PX` (a part's count leaves out the cards its edges
        cut, and a card's box moves by a pixel or two from count to count)."""
        x0, y0, x1, y1 = box
        m = PART_EDGE_PX
        lo_x, lo_y = (x0 + m if x0 > 0 else x0), (y0 + m if y0 > 0 else y0)
        out = {}
        for tid, rec in self.tracks.items():
            q = rec.card.corners[0]
            out[tid] = bool(
                q[:, 0].min() >= lo_x and q[:, 1].min() >= lo_y
                and q[:, 0].max() <= x1 - m and q[:, 1].max() <= y1 - m
            )  # fmt: skip
        return out

    def needs_look(
        self, t: float, size: tuple[int, int], max_share: float
    ) -> tuple[int, int, int, int] | None:
        """The part of the frame (x0, y0, x1, y1, px; ``size``: w, h) a count at ``t`` (s)
        needs to look at: the places touched since ``touch_settling_s`` before the last
        count's frame and the cards not yet settled (new, out of sight, deck undecided),
        their bounding box grown by the cards' median long side; ``None`` when that is more
        than ``max_share`` of the frame, when nothing needs a look, or before any card."""
        s = self.settings
        w, h = size
        if not self.tracks or self._last_t is None:
            return None
        now = self._last_t
        pts = [
            np.asarray(rec.card.corners[0], np.float64)
            for rec in self.tracks.values()
            if self._unsettled(rec, t, now)
        ]
        touched = self.touches.touched_since(self._last_frame_t - s.touch_settling_s)
        if touched is not None:
            pts.append(touched)
        if not pts:
            return None
        every = np.concatenate(pts)
        grow = float(np.median([rec.card.long_side_px[0] for rec in self.tracks.values()]))
        x0 = max(0, int(np.floor(every[:, 0].min() - grow)))
        y0 = max(0, int(np.floor(every[:, 1].min() - grow)))
        x1 = min(w, int(np.ceil(every[:, 0].max() + grow)))
        y1 = min(h, int(np.ceil(every[:, 1].max() + grow)))
        if x1 <= x0 or y1 <= y0 or (x1 - x0) * (y1 - y0) > max_share * w * h:
            return None
        return x0, y0, x1, y1

    def touch(self, t: float, motion: Motion) -> None:
        """Where the picture moved up to the frame at ``t`` (s), counted or not: the view
        is SETTLING from a frame that touches a counted card until a count of a frame
        ``touch_settling_s`` after it has reached the table (a camera's frames come faster
        than its counts)."""
        self.touches.stamp(motion, t)

    def _touched(self) -> dict[int, float]:
        """When each track's place was last touched (s; ``-inf``: never)."""
        if self.settings.touch_settling_s < 0 or not self.tracks:
            return {}
        ids = list(self.tracks)
        outlines = np.stack([self.tracks[i].card.corners[0] for i in ids])
        at = self.touches.touched_at(outlines, self.settings.touch_share)
        return dict(zip(ids, at.tolist(), strict=True))

    def hold(self, t: float, since: int) -> bool:
        """The picture at time ``t`` (s) has not changed since counted frame ``since``: the
        cards seen in a counted frame since then are still there (nothing is counted, no
        evidence added; a card none of them saw goes on being unseen). Refused (False,
        nothing changed) while a card seen since then is not yet counted: it needs frames.
        """
        seen = [rec for rec in self.tracks.values() if rec.seen_frames >> since]
        if any(not rec.counted for rec in seen):
            return False
        for rec in seen:
            rec.last_s = t
        return True

    def view(self, t: float) -> TableView:
        """The table at time ``t`` (s): counted cards added and dropped, STEADY or SETTLING."""
        s = self.settings
        # A card is missed by the counts that did not see it: times unseen run on the
        # clock of the last count (a count made beside the camera reaches the table late).
        now = self._last_t if self._last_t is not None else t
        for track_id in list(self.tracks):
            rec = self.tracks[track_id]
            unseen = now - rec.last_s
            grace, gone = rec.unseen_bars(s)
            if unseen > gone:
                del self.tracks[track_id]  # taken away (or a stray box that never counted)
            elif (
                not rec.counted
                and rec.hits >= s.appear_min_hits
                and rec.confidence_sum >= s.appear_min_evidence
                and t - rec.first_s >= s.appear_s
                and unseen <= grace
                and rec.seen_share >= s.appear_min_share
            ):
                rec.counted = True
        # Until the first cards can have counted, nothing is known to be steady: from the
        # first count on (a count made beside the camera comes a while after the first frame).
        warming = self._start is None or t - self._start < s.appear_s
        waiting = self._waiting(t, now, warming)
        settling = bool(waiting)
        if not settling:
            settling = not self._settle(t)
            if settling:
                waiting = (HOLDING,)
            elif not self._was_steady:
                self._since = t
        self._was_steady = not settling
        if self._steady is not None:
            steady = self._steady
        elif not warming:
            steady = self._counted(t)  # not yet STEADY: the cards counted so far
        else:
            steady = self._count([])
        return TableView(not settling, steady, self._seen(t), self._since, waiting)

    def _waiting(self, t: float, now: float, warming: bool) -> tuple[str, ...]:
        """What keeps the view SETTLING at ``t`` (s; ``now``: the last count's time), in
        `WAITING` order; empty when nothing does."""
        s = self.settings
        found: set[str] = {STARTING} if warming else set()
        touched = self._touched()
        for tid, rec in self.tracks.items():
            at = touched.get(tid, -np.inf)
            if rec.counted and at >= self._last_frame_t - s.touch_settling_s:
                found.add(TOUCHED)
            for wait in self._unsettled(rec, t, now, skip=found):
                # A new card seen once keeps the view SETTLING only where a hand just was.
                if (
                    wait != NEW
                    or rec.hits >= s.pending_min_hits
                    or at >= rec.first_s - s.touch_new_s
                ):
                    found.add(wait)
        return tuple(w for w in WAITING if w in found)

    def _unsettled(
        self,
        rec: TrackEvidence,
        t: float,
        now: float,
        skip: set[str] | frozenset[str] = frozenset(),
    ) -> list[str]:
        """What the track still waits for at ``t`` (``now``: the last count's time): a
        counted card out of sight (`UNSEEN`) or whose deck is not yet known (`UNDECIDED`),
        a card not yet counted seen within ``miss_grace_s`` (`NEW`). A part of the frame
        (`needs_look`) looks again at every such card; the reasons in ``skip`` are not
        tested again (the deck's test is the costly one)."""
        s = self.settings
        if not rec.counted:
            return [NEW] if now - rec.last_s <= s.miss_grace_s else []
        waits = []
        if now - rec.last_s > rec.unseen_bars(s)[0]:
            waits.append(UNSEEN)
        if UNDECIDED not in skip and not rec.decided(t, s):
            waits.append(UNDECIDED)
        return waits

    def _settle(self, t: float) -> bool:
        """The counted tracks as the steady count, once their counts have held for
        ``hold_s``; whether the steady count stands (False: a new count is still holding)."""
        candidate = self._counted(t)
        counts = tuple(candidate.counts.items())
        if self._steady is None and self.settings.hold_s <= 0:
            self._steady = candidate
        if self._steady is not None and counts == tuple(self._steady.counts.items()):
            self._steady = candidate
            self._pending = None
            return True
        if self._pending is None or self._pending[0] != counts:
            self._pending = (counts, t)
        if t - self._pending[1] >= self.settings.hold_s:
            self._steady = candidate
            self._pending = None
            return True
        return False

    def _counted(self, t: float) -> Count:
        """The count of the counted tracks, one card per spot; made again when a card comes,
        goes or changes deck or side, or ``refresh_s`` after it was made (boxes drift)."""
        records = [(tid, r) for tid, r in self.tracks.items() if r.counted]
        key = tuple(
            (tid, r.settled_card().deck[0], int(r.settled_card().side[0])) for tid, r in records
        )
        fresh = t - self._candidate_s < self.settings.refresh_s
        if self._candidate is None or key != self._candidate_key or not fresh:
            self._candidate = self._count(one_per_spot([r for _, r in records], self.settings))
            self._candidate_key = key
            self._candidate_s = t
        return self._candidate

    def _seen(self, t: float) -> Cards:
        """The cards seen lately, numbered as a count numbers them (made again only when one
        of them was seen again or they changed)."""
        recent = t - self.settings.miss_grace_s
        seen = [(tid, r) for tid, r in self.tracks.items() if r.last_s >= recent]
        key = tuple((tid, r.hits) for tid, r in seen)
        if key != self._seen_key:
            cards = Cards.concatenate([r.settled_card() for _, r in seen])
            self._seen_cards = cards[reading_order(cards)] if len(cards) else cards
            self._seen_key = key
        return self._seen_cards

    def _count(self, records: list[TrackEvidence]) -> Count:
        """A `Count` of these tracks as cards, with the bars of the last frame's count."""
        cards = Cards.concatenate([r.settled_card() for r in records])
        could_be = tuple(r.settled_could_be(self.settings.could_be_min_share) for r in records)
        template = self._template
        if template is None:
            return Count("table", (0, 0), cards, self.decks, {}, could_be=could_be)
        order = [int(i) for i in reading_order(cards)]
        return dataclasses.replace(
            template,
            image="table",
            cards=cards[order] if len(cards) else cards,
            decks=self.decks,
            could_be=tuple(could_be[i] for i in order),
            possible=None,
            possible_could_be=(),
            timings_s={},
        )


def one_per_spot(records: list[TrackEvidence], settings: LiveSettings) -> list[TrackEvidence]:
    """The tracks without the doubles: of two tracks whose cards lie closer than
    ``double_distance`` of a card's long side and that were seen together in at most
    ``double_together`` of the frames that saw the rarer one, the one seen less often is
    the other's box drawn another way, not a card of its own."""
    if len(records) < 2 or settings.double_together <= 0:
        return records
    cards = Cards.concatenate([r.settled_card() for r in records])
    centres = cards.corners.mean(axis=1)
    near = settings.double_distance * np.maximum.outer(cards.long_side_px, cards.long_side_px)
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=-1)
    dropped: set[int] = set()
    order = sorted(range(len(records)), key=lambda i: -records[i].hits)
    for a_pos, a in enumerate(order):
        if a in dropped:
            continue
        for b in order[a_pos + 1 :]:
            if b in dropped or apart[a, b] >= near[a, b]:
                continue
            together = (records[a].seen_frames & records[b].seen_frames).bit_count()
            if together <= settings.double_together * records[b].hits:
                dropped.add(b)
    return [r for i, r in enumerate(records) if i not in dropped]
