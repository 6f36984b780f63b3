"""Following cards from frame to frame with ultralytics' ByteTrack (oriented boxes).

The tracker is ultralytics' own (`ultralytics.trackers.byte_tracker.BYTETracker`, which
matches oriented boxes by their probabilistic IoU); this module only hands it the cards of
a frame and reads back which track each card belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from vision.core.cards import Cards
from vision.core.geometry import quads_to_xywhr
from vision.core.types import Array
from vision.live.settings import LiveSettings


@dataclass
class Detections:
    """What ByteTrack reads of a frame's cards: oriented boxes, scores and classes.

    Attributes:
        xywhr: ``(n, 5)`` centre x, y, width, height (pixels) and angle (radians).
        conf: ``(n,)`` detection confidence in [0, 1].
        cls: ``(n,)`` the side (0 back, 1 face).
    """

    xywhr: Array
    conf: Array
    cls: Array

    @classmethod
    def of(cls, cards: Cards) -> Detections:
        """The boxes of ``cards``, in their order."""
        if not len(cards):
            return cls(np.zeros((0, 5), np.float32), np.zeros(0, np.float32), np.zeros(0))
        return cls(
            quads_to_xywhr(cards.corners).astype(np.float32),
            cards.confidence.astype(np.float32),
            cards.side.astype(np.float32),
        )

    def __len__(self) -> int:
        return len(self.conf)

    def __getitem__(self, index: Any) -> Detections:
        return Detections(self.xywhr[index], self.conf[index], self.cls[index])


def _byte_tracker(settings: LiveSettings, buffer_updates: int) -> Any:
    from vision.detect.offline import import_ultralytics

    import_ultralytics(1)  # the tracker's IoU matrices are small; the counter keeps the cores
    from ultralytics.trackers.byte_tracker import BYTETracker

    args = SimpleNamespace(
        tracker_type="bytetrack",
        track_high_thresh=settings.track_high_confidence,
        track_low_thresh=settings.track_low_confidence,
        new_track_thresh=settings.track_high_confidence,
        track_buffer=buffer_updates,
        match_thresh=settings.track_match_cost,
        fuse_score=True,
    )
    return BYTETracker(args)


class CardTracker:
    """ByteTrack over the counted frames: which track each card of a frame belongs to.

    Args:
        settings: the live settings (confidence bars, match cost).
        buffer_updates: counted frames a lost track is kept for, to be found again (a hand
            over the cards); the steady table decides when a card is gone.
    """

    def __init__(self, settings: LiveSettings, buffer_updates: int = 300) -> None:
        if buffer_updates < 1:
            raise ValueError("buffer_updates must be at least 1")
        self._tracker = _byte_tracker(settings, buffer_updates)

    def update(self, cards: Cards) -> list[tuple[int, int]]:
        """``(track id, index of the card in cards)`` for every card matched to a track."""
        rows = np.asarray(self._tracker.update(Detections.of(cards)))
        if not rows.size:
            return []
        # OBB rows: x, y, w, h, angle, track id, score, class, detection index
        return [(int(r[5]), int(r[8])) for r in rows.reshape(-1, 9)]
