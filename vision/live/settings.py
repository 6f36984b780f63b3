"""`LiveSettings`: how the live view follows cards and when its count changes (seconds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LiveSettings:
    """Timings and bars of the live view; every time is in seconds of the picture's clock.

    Attributes:
        count_every_s: a frame is due to be counted (detected and named) once this long has
            passed since the last frame due, whatever the camera's frame rate: every second
            frame at 15 fps, every fourth at 30 fps (0: every frame). The settings below are
            tuned to that pace: counting twice as often or a third less often showed more
            wrong STEADY counts. The frames between show the cards where the tracker last
            saw them.
        appear_s: a new card counts once its track has lasted this long ...
        appear_min_hits: ... and was seen in at least this many counted frames ...
        appear_min_evidence: ... whose detection confidences add up to at least this much
            (a sure card's sightings are near 1 each; a box the detector is unsure of and
            finds now and then needs more of them before it counts; 0: off) ...
        appear_min_share: ... and was seen in at least this share of the counted frames
            from its first sighting to its last (a box the detector draws now and then, on
            a card already counted or on none, gathers hits slowly but stays rare; a card
            of the table is seen in most frames).
        miss_grace_s: a counted card unseen for longer than this makes the view SETTLING.
        gone_after_s: a counted card unseen for longer than this was taken away (a hand
            resting over cards for longer than this is taken as a change of the table).
        min_seen_share: a card seen in a share ``f`` of the counted frames since it appeared
            may go unseen ``1 / max(f, min_seen_share)`` times longer before SETTLING (and
            ``1 / max(f, 2 * min_seen_share)`` before gone): a card hard to see does not
            come and go.
        pending_min_hits: a new track seen this many times makes the view SETTLING (one
            stray box does not).
        hold_s: the steady count changes only to a count that has held this long while
            nothing was settling (the view is SETTLING meanwhile): a count that one card
            seen now and then makes for a moment is not shown.
        refresh_s: the steady count's boxes are made again this often while its cards stay.
        double_distance, double_together: two tracks whose cards lie closer than
            ``double_distance`` of a card's long side and that were seen together in at most
            ``double_together`` of the frames that saw the rarer one are one card (a box the
            detector draws now one way, now another); 0 turns this off.
        still_px: a frame due to be counted whose grey thumbnail (``still_thumb_px`` wide)
            differs from the last counted frame's by more than ``still_level`` grey levels
            in at most ``still_px`` pixels, once the mean change is taken off (exposure), is
            the same picture: while STEADY it is not counted again (``-1``: always count) ...
        still_thumb_px, still_level: ... (see ``still_px``) ...
        still_max_s: ... but a frame is counted at least this often.
        touch_share: a card is *touched* (`vision.live.motion.Touches`) when this share of
            its outline changed in a patch from one frame to the next, counted or not (a
            hand over it, a card laid or taken) ...
        touch_open_cells: ... a patch at least this many motion cells across (a thin line
            along an edge, the camera shaken by a pixel, is no touch).
        touch_drift: ... with the whole picture's shift since the frame before taken off
            first (`vision.live.motion.picture_shift`): a camera drifting over large faces
            touches nothing.
        touch_settling_s: the view is SETTLING from the frame that touches a counted card
            (a hand over the cards, even one that hides none of them) until a count of a
            frame this long after the touch has reached the table (a camera's counts come
            0.1-0.7 s after their frames); ``-1``: touches never make it SETTLING.
        touch_new_s: a new track seen once makes the view SETTLING when its place was
            touched at most this long before it was first seen (a card laid by a hand), not
            only once seen ``pending_min_hits`` times.
        decided_lead: the view is SETTLING while a counted back's deck is not yet known:
            until its leading deck's summed naming confidence leads the next deck's by this
            much (about as many frames), so a deck the first frames got wrong is not shown
            as STEADY and then changed (0: off) ...
        decide_max_s: ... or until the card was first seen this long ago ...
        decide_min_hits: ... and seen in at least this many counted frames (a counter slower
            than the camera gives fewer votes in ``decide_max_s``).
        could_be_min_share: a deck that won at least this share of a card's votes is one
            the card could be (widens the count ranges).
        part_max_share: with a counter slower than a count every ``count_every_s`` (a
            camera on 2 cores), a frame due to be counted is counted only in the part of it
            that needs a look, when that part is at most this share of the frame (0: always
            whole): the bounding box of the places touched since the last count's frame and
            of the cards not yet settled (new, out of sight, deck undecided), grown by a
            card's long side; the cards outside it are taken as still there. A count of a
            part takes the counter about that share of a whole count's time, so a hand's
            place is looked at again sooner ...
        part_whole_every_s: ... but a whole frame is counted at least this often (s).
        json_every_s: with nothing changing, ``--json`` prints one object this often.
        retry_every_s: a camera or stream that failed is opened again this often.
        frame_timeout_s: a live source that gives no frame for this long has stopped.
        track_high_confidence: detections at least this sure start and extend tracks
            (ByteTrack's ``track_high_thresh`` and ``new_track_thresh``).
        track_low_confidence: weaker detections (down to this) only extend tracks.
        track_match_cost: ByteTrack's ``match_thresh`` (1 - IoU, with the score fused).
        piles_frames: ``p`` reads the Dutch piles off this many STEADY frames and judges
            each pile over them (`vision.piles.frames`): a top one frame's noise leaves
            unread another frame reads ...
        piles_every_s: ... each at least this long after the one before, and each showing
            the first one's table (`StillCheck.same_table`: at most ``piles_calm_px``
            pixels of its thumbnail changed by more than ``piles_calm_level`` grey levels),
            else the reading starts again from it: a hand over the piles in most frames
            would hide a pile, and a pile seen in fewer than half the frames is dropped.
    """

    count_every_s: float = 0.125
    appear_s: float = 0.5
    appear_min_hits: int = 3
    appear_min_evidence: float = 0.0
    appear_min_share: float = 0.35
    miss_grace_s: float = 0.35
    gone_after_s: float = 1.5
    min_seen_share: float = 0.3
    pending_min_hits: int = 2
    hold_s: float = 0.0
    refresh_s: float = 1.0
    double_distance: float = 0.3
    double_together: float = 0.5
    still_px: int = 2
    still_thumb_px: int = 64
    still_level: float = 24.0
    still_max_s: float = 1.0
    touch_share: float = 0.5
    touch_open_cells: int = 3
    touch_drift: bool = True
    touch_settling_s: float = 0.2
    touch_new_s: float = 1.5
    could_be_min_share: float = 0.2
    decided_lead: float = 3.0
    decide_max_s: float = 2.0
    decide_min_hits: int = 10
    part_max_share: float = 0.5
    part_whole_every_s: float = 1.0
    json_every_s: float = 1.0
    retry_every_s: float = 3.0
    frame_timeout_s: float = 5.0
    track_high_confidence: float = 0.25
    track_low_confidence: float = 0.1
    track_match_cost: float = 0.8
    piles_frames: int = 3
    piles_every_s: float = 0.2
    piles_calm_px: int = 24
    piles_calm_level: float = 60.0

    def __post_init__(self) -> None:
        if self.piles_frames < 1:
            raise ValueError("piles_frames must be at least 1")
        for name in (
            "piles_every_s",
            "count_every_s",
            "appear_s",
            "miss_grace_s",
            "gone_after_s",
            "json_every_s",
            "hold_s",
            "refresh_s",
            "still_max_s",
            "decide_max_s",
            "touch_new_s",
            "part_whole_every_s",
        ):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0 seconds")
        if self.appear_min_evidence < 0 or self.decided_lead < 0:
            raise ValueError("appear_min_evidence and decided_lead must be >= 0")
        if not 0 <= self.part_max_share <= 1:
            raise ValueError("part_max_share must be in [0, 1]")
        if self.decide_min_hits < 0:
            raise ValueError("decide_min_hits must be >= 0")
        if not 0 <= self.appear_min_share <= 1:
            raise ValueError("appear_min_share must be in [0, 1]")
        if not 0 < self.min_seen_share <= 0.5:
            raise ValueError("min_seen_share must be in (0, 0.5]")
        if self.gone_after_s < self.miss_grace_s:
            raise ValueError("gone_after_s must be at least miss_grace_s")
        if not 0 <= self.track_low_confidence <= self.track_high_confidence <= 1:
            raise ValueError("track confidences must satisfy 0 <= low <= high <= 1")
        if not 0 <= self.double_together <= 1 or self.double_distance < 0:
            raise ValueError("double_together must be in [0, 1] and double_distance >= 0")
        if not 0 < self.touch_share <= 1:
            raise ValueError("touch_share must be in (0, 1]")
        if self.touch_open_cells < 1:
            raise ValueError("touch_open_cells must be at least 1")
        if self.still_thumb_px < 8 or self.still_px < -1 or self.still_level < 0:
            raise ValueError("still_thumb_px must be >= 8, still_px >= -1, still_level >= 0")


@dataclass(frozen=True)
class TallySettings:
    """When a card laid down counts; times in seconds of the picture's clock, tolerances as a
    share of the card's long side.

    Attributes:
        settle_s: a card resting at one place this long counts (a card laid down and taken
            back sooner does not).
        min_hits: sightings needed in that rest.
        min_rest_s: a resting card covered by a newer card counts if it rested this long ...
        cover_min_hits: ... and was seen this many times at rest.
        cover_share: share of a card's outline a newer card must lie on to cover it.
        cover_gap_s: the newer card must appear at most this long after the covered card was
            last seen (a card taken away earlier is not covered by the next one).
        rest_tolerance: a sighting this close to where its track came to rest is still at rest.
        place_tolerance: a sighting this close to a known card is that card (one sighting a
            card, the closest).
        present_tolerance: a sighting this close to a known card shows it is still there.
        gap_s: a known card unseen this long (a hand over it) is only that card again
            within ``restack_tolerance``.
        restack_tolerance: a resting card whose outline (median over its rest) is this close
            to a known card is that card, not a new one on top of it; a known card whose
            sightings over the last ``settle_s`` (spanning at least ``restack_span`` of it)
            agree on an outline further off than this has a new card on top of it.
        min_aspect, max_aspect: a sighting counts only with a whole card's proportions
            (long side / short side; a card is 1.55) ...
        size_tolerance: ... and a long side within this share of the usual one (the median
            of the last ``size_memory`` sightings): a sliver of a covered card is no card.
        vanish_s: a counted card unseen this long with no newer card over it was picked up.
        move_within_s: a card of its deck landing this soon after a picked-up card was last
            seen is that card, moved.
        forget_s: a track unseen this long is forgotten.
        motion_share: with motion (`vision.live.motion`), something passes over a place
            or a resting card when this share of its outline moved (a card resting counts
            only if something passed over it, from ``arrive_s`` before it was first seen) ...
        dwell_s: ... and a hand dwelt over a place when ``dwell_share`` of its outline
            moved this long (s) in one passing, and did not go on past it (beyond two
            opposite sides); a hand only passing over moves it more briefly, or goes on.
        calm_s: a passing ends when the place lay still this long.
        after_s: after a hand dwelt over a place, its top card seen still there this long
            (with ``cover_min_hits`` sightings) is a new card laid on it.
        dwell_share: the share of a place's outline that must move for ``dwell_s``.
        past_share: a hand went on past a place when this share of the places one card
            beyond two opposite sides of it moved in the passing.
        shift_tolerance: after something passed over a place (not dwelling), a top card
            seen lying this far (and agreeing) from where the card lay is a new card on it.
        dwelt_for_s: a hand that dwelt over a place whose card is not seen again this soon
            laid nothing there.
        within_share: with motion, a resting card this much of which lies within known
            cards is no new card (the detector's whole outline for a spread's covered
            cards); a new card on a spread reaches past them.
    """

    settle_s: float = 1.0
    min_hits: int = 3
    min_rest_s: float = 0.3
    cover_min_hits: int = 2
    cover_share: float = 0.25
    cover_gap_s: float = 0.6
    rest_tolerance: float = 0.1
    place_tolerance: float = 0.08
    present_tolerance: float = 0.16
    gap_s: float = 0.25
    restack_tolerance: float = 0.03
    restack_span: float = 0.7
    min_aspect: float = 1.3
    max_aspect: float = 1.85
    size_tolerance: float = 0.35
    size_memory: int = 200
    vanish_s: float = 0.5
    move_within_s: float = 4.0
    forget_s: float = 3.0
    motion_share: float = 0.25
    dwell_s: float = 0.15
    dwell_share: float = 0.5
    past_share: float = 0.25
    shift_tolerance: float = 0.05
    arrive_s: float = 0.5
    within_share: float = 0.97
    calm_s: float = 0.15
    after_s: float = 0.3
    dwelt_for_s: float = 2.0

    def __post_init__(self) -> None:
        if not 0 < self.motion_share <= 1:
            raise ValueError("motion_share must be in (0, 1]")
        if self.min_hits < 1 or self.cover_min_hits < 1:
            raise ValueError("min_hits and cover_min_hits must be at least 1")
        if not 0 <= self.min_rest_s <= self.settle_s:
            raise ValueError("min_rest_s must be in [0, settle_s]")
        if not 0 < self.cover_share <= 1:
            raise ValueError("cover_share must be in (0, 1]")
        if not 0 < self.restack_tolerance <= self.place_tolerance <= self.present_tolerance:
            raise ValueError("tolerances must satisfy 0 < restack <= place <= present")
