"""`StillCheck`: whether a frame is the picture last counted, from a small grey thumbnail.

A webcam on a stand over a table that nothing touches gives nearly the same picture frame
after frame; counting it again finds the same cards. The check compares a grey thumbnail
of each frame due to be counted with the one of the last frame counted: a card put down or
taken, a hand, or the camera moved changes many of its pixels by many grey levels, sensor
noise and a pixel of shake change few, and a change of exposure moves them all alike (the
mean change is taken off first).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.core.types import Array
from vision.live.settings import LiveSettings


class StillCheck:
    """Says whether a frame shows the picture of the still spell under way.

    A still spell begins with a frame unlike the one that began the last (its thumbnail is
    the reference) and lasts while the frames are like it; slow drift ends it once it adds
    up.

    Args:
        settings: ``still_px`` (pixels that may change; -1 turns the check off),
            ``still_thumb_px`` (thumbnail width, px), ``still_level`` (grey levels) and
            ``still_max_s`` (a frame is counted at least this often, seconds).
    """

    def __init__(self, settings: LiveSettings) -> None:
        self.settings = settings
        self._reference: Array | None = None
        self._counted_s = 0.0

    def thumbnail(self, image: Array) -> Array:
        """The frame as a grey thumbnail ``still_thumb_px`` wide (float32 grey levels)."""
        h, w = image.shape[:2]
        tw = min(self.settings.still_thumb_px, w)
        th = max(1, round(h * tw / w))
        small = cv2.resize(image, (tw, th), interpolation=cv2.INTER_AREA)
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        return small.astype(np.float32)

    @staticmethod
    def changed(thumb: Array, reference: Array, level: float) -> int:
        """Pixels of ``thumb`` that differ from ``reference`` by more than ``level`` grey
        levels, the mean change (exposure) taken off; all of them where the sizes differ."""
        if reference.shape != thumb.shape:
            return int(thumb.size)
        diff = thumb - reference
        diff -= float(diff.mean())
        return int(np.count_nonzero(np.abs(diff) > level))

    def alike(self, thumb: Array, reference: Array) -> bool:
        """Whether two thumbnails show the same picture: at most ``still_px`` pixels differ
        by more than ``still_level`` grey levels."""
        s = self.settings
        return s.still_px >= 0 and self.changed(thumb, reference, s.still_level) <= s.still_px

    def same_table(self, image: Array, other: Array) -> bool:
        """Whether two frames show the same table, nothing over it: at most
        ``piles_calm_px`` thumbnail pixels differ by more than ``piles_calm_level`` (a hand
        changes a patch by far more; shake, noise and exposure, which `alike` is strict
        about, hardly any by that much)."""
        s = self.settings
        level = s.piles_calm_level
        return self.changed(self.thumbnail(other), self.thumbnail(image), level) <= s.piles_calm_px

    def still(self, thumb: Array) -> bool:
        """Whether ``thumb`` shows the picture of the spell under way; if not, it begins a
        new spell."""
        if self._reference is not None and self.alike(thumb, self._reference):
            return True
        self._reference = thumb
        return False

    def due(self, t: float) -> bool:
        """Whether a still frame at ``t`` (s) is counted all the same (``still_max_s`` since
        the last frame counted)."""
        return t - self._counted_s >= self.settings.still_max_s

    def counted(self, t: float) -> None:
        """A frame was counted at ``t`` (s)."""
        self._counted_s = t
