"""Rectifying each card to a small upright picture, and such pictures as a network's input."""

from __future__ import annotations

import cv2
import numpy as np


class CardRectifier:
    """Warps card quads out of one image into ``(height_px, width_px)`` crops.

    Big cards are taken from a coarser level of an image pyramid first, so thin line work
    is averaged rather than aliased when a 500 px card becomes a 48 px crop.
    """

    def __init__(self, image_bgr: np.ndarray, width_px: int, height_px: int) -> None:
        self.levels = [image_bgr]
        self.width_px = width_px
        self.height_px = height_px
        self.target = np.array(
            [[0, 0], [width_px, 0], [width_px, height_px], [0, height_px]], np.float32
        )

    def _level(self, k: int) -> np.ndarray:
        while len(self.levels) <= k:
            prev = self.levels[-1]
            if min(prev.shape[:2]) < 8:
                break
            self.levels.append(cv2.pyrDown(prev))
        return self.levels[min(k, len(self.levels) - 1)]

    def crop(self, corners: np.ndarray) -> np.ndarray:
        """One ``(height_px, width_px, 3)`` crop of the quad ``corners`` (4, 2), image pixels."""
        corners = np.asarray(corners, np.float32)
        long_px = max(
            np.linalg.norm(corners[2] - corners[1]), np.linalg.norm(corners[3] - corners[0])
        )
        shrink = long_px / self.height_px
        k = int(np.floor(np.log2(shrink / 1.5))) + 1 if shrink > 1.5 else 0
        level = self._level(k)
        factor = level.shape[1] / self.levels[0].shape[1]
        m = cv2.getPerspectiveTransform(corners * np.float32(factor), self.target)
        return cv2.warpPerspective(
            level,
            m,
            (self.width_px, self.height_px),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )

    def crops(self, corners: np.ndarray) -> np.ndarray:
        """``(n, height_px, width_px, 3)`` uint8 crops of ``(n, 4, 2)`` quads."""
        corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
        out = np.empty((len(corners), self.height_px, self.width_px, 3), np.uint8)
        for i, quad in enumerate(corners):
            out[i] = self.crop(quad)
        return out


def to_blob(crops_bgr: np.ndarray) -> np.ndarray:
    """``(n, h, w, 3)`` uint8 BGR crops to the classifier's ``(n, 3, h, w)`` float32 input."""
    x = crops_bgr.astype(np.float32) * np.float32(1.0 / 255.0)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))
