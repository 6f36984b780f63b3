"""`LiveSettings`: how the live view follows cards and when its count changes (seconds)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LiveSettings:
    """Timings and bars of the live view; every time is in seconds of the picture's clock.

    Attributes:
        detect_every_frames: count (detect and name) every Nth frame; the frames between
            show the cards where the tracker last saw them.
        appear_s: a new card counts once its track has lasted this long ...
        appear_min_hits: ... and was seen in at least this many counted frames.
        miss_grace_s: a counted card unseen for longer than this makes the view SETTLING.
        gone_after_s: a counted card unseen for longer than this was taken away (a hand
            resting over cards for longer than this is taken as a change of the table).
        min_seen_share: a card seen in a share ``f`` of the counted frames since it appeared
            may go unseen ``1 / max(f, min_seen_share)`` times longer before SETTLING (and
            ``1 / max(f, 2 * min_seen_share)`` before gone): a card hard to see does not
            come and go.
        pending_min_hits: a new track seen this many times makes the view SETTLING (one
            stray box does not).
        could_be_min_share: a deck that won at least this share of a card's votes is one
            the card could be (widens the count ranges).
        json_every_s: with nothing changing, ``--json`` prints one object this often.
        retry_every_s: a camera or stream that failed is opened again this often.
        frame_timeout_s: a live source that gives no frame for this long has stopped.
        track_high_confidence: detections at least this sure start and extend tracks
            (ByteTrack's ``track_high_thresh`` and ``new_track_thresh``).
        track_low_confidence: weaker detections (down to this) only extend tracks.
        track_match_cost: ByteTrack's ``match_thresh`` (1 - IoU, with the score fused).
    """

    detect_every_frames: int = 2
    appear_s: float = 0.5
    appear_min_hits: int = 3
    miss_grace_s: float = 0.35
    gone_after_s: float = 1.5
    min_seen_share: float = 0.3
    pending_min_hits: int = 2
    could_be_min_share: float = 0.2
    json_every_s: float = 1.0
    retry_every_s: float = 3.0
    frame_timeout_s: float = 5.0
    track_high_confidence: float = 0.25
    track_low_confidence: float = 0.1
    track_match_cost: float = 0.8

    def __post_init__(self) -> None:
        if self.detect_every_frames < 1:
            raise ValueError("detect_every_frames must be at least 1")
        for name in ("appear_s", "miss_grace_s", "gone_after_s", "json_every_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0 seconds")
        if not 0 < self.min_seen_share <= 0.5:
            raise ValueError("min_seen_share must be in (0, 0.5]")
        if self.gone_after_s < self.miss_grace_s:
            raise ValueError("gone_after_s must be at least miss_grace_s")
        if not 0 <= self.track_low_confidence <= self.track_high_confidence <= 1:
            raise ValueError("track confidences must satisfy 0 <= low <= high <= 1")
