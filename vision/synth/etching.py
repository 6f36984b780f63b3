"""A tiny pen for single-ink etchings: lines, shapes and hatching on an ink-coverage canvas.

Drawings are written in a normalised frame (0..1 across the art box) and land on a float
coverage canvas (0 = paper, 1 = full ink). A per-drawing affine jitter moves, scales and tilts
the picture a little, so no two prints of a class are the same bitmap.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

_SHIFT = 4  # cv2 fixed-point bits: sub-pixel precise strokes
_ONE = 1 << _SHIFT


class Pen:
    """Draws onto ``cov`` (float32, H x W, 0..1) through a normalised-to-pixel affine map."""

    def __init__(
        self,
        cov: np.ndarray,
        box: tuple[float, float, float, float],
        rng: np.random.Generator,
        weight_px: float,
        mirror: bool = False,
        tilt_deg: float = 0.0,
    ) -> None:
        self.cov = cov
        self.rng = rng
        x0, y0, x1, y1 = box
        sx, sy = x1 - x0, y1 - y0
        a = np.deg2rad(tilt_deg)
        ca, sa = np.cos(a), np.sin(a)
        mx = -1.0 if mirror else 1.0
        # normalised (u, v) -> centred, mirrored, tilted, scaled into the box
        self._m = np.array([[mx * sx * ca, -sy * sa], [mx * sx * sa, sy * ca]], np.float64)
        self._c = np.array([(x0 + x1) / 2, (y0 + y1) / 2], np.float64)
        self.weight = max(1.0, weight_px)
        self.wobble = 0.0

    def px(self, pts: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 2) - 0.5
        out = p @ self._m.T + self._c
        if self.wobble > 0:
            out = out + self.rng.normal(0, self.wobble, out.shape)
        return out

    def _fixed(self, pts: np.ndarray) -> np.ndarray:
        return np.round(pts * _ONE).astype(np.int32).reshape(-1, 1, 2)

    def _stroke_layer(self) -> np.ndarray:
        return np.zeros(self.cov.shape, np.uint8)

    def _merge(self, layer: np.ndarray, strength: float = 1.0) -> None:
        np.maximum(self.cov, layer.astype(np.float32) * (strength / 255.0), out=self.cov)

    def line(
        self,
        pts: Sequence[Sequence[float]],
        weight: float = 1.0,
        closed: bool = False,
        strength: float = 1.0,
    ) -> None:
        layer = self._stroke_layer()
        t = max(1, int(round(self.weight * weight)))
        cv2.polylines(layer, [self._fixed(self.px(pts))], closed, 255, t, cv2.LINE_AA, _SHIFT)
        self._merge(layer, strength)

    def curve(self, ctrl: Sequence[Sequence[float]], weight: float = 1.0, n: int = 24) -> None:
        """A quadratic/cubic Bezier through the control points (3 or 4 of them)."""
        self.line(bezier(ctrl, n), weight)

    def ellipse(
        self,
        c: Sequence[float],
        r: Sequence[float],
        weight: float = 1.0,
        a0: float = 0.0,
        a1: float = 360.0,
    ) -> None:
        t = np.deg2rad(np.linspace(a0, a1, max(8, int(abs(a1 - a0) / 8))))
        pts = np.stack([c[0] + r[0] * np.cos(t), c[1] + r[1] * np.sin(t)], 1)
        self.line(pts, weight, closed=abs(a1 - a0) >= 360)

    def mask(self, pts: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
        m = np.zeros(self.cov.shape, np.uint8)
        cv2.fillPoly(m, [self._fixed(self.px(pts))], 255, cv2.LINE_AA, _SHIFT)
        return m

    def fill(self, pts: Sequence[Sequence[float]] | np.ndarray, strength: float = 1.0) -> None:
        self._merge(self.mask(pts), strength)

    def hatch(
        self,
        region: np.ndarray,
        angle_deg: float,
        spacing_px: float,
        weight: float = 0.6,
        cross: bool = False,
    ) -> None:
        """Parallel lines clipped to ``region`` (a uint8 mask) - the shading of an etching."""
        x, y, w, h = cv2.boundingRect(region)
        if w == 0 or h == 0:
            return
        t = max(1, int(round(self.weight * weight)))
        sub = region[y : y + h, x : x + w]
        layer = np.zeros_like(sub)
        ctr = np.array([w / 2, h / 2])
        reach = float(np.hypot(h, w)) / 2 + t
        for ang in (angle_deg, angle_deg + 90.0) if cross else (angle_deg,):
            a = np.deg2rad(ang)
            d = np.array([np.cos(a), np.sin(a)])
            nrm = np.array([-d[1], d[0]])
            offs = np.arange(-reach, reach, max(1.5, spacing_px))
            offs = offs + self.rng.uniform(0, spacing_px)
            starts = ctr + offs[:, None] * nrm - d * reach
            ends = ctr + offs[:, None] * nrm + d * reach
            lines = np.round(np.stack([starts, ends], 1) * _ONE).astype(np.int32)
            cv2.polylines(layer, list(lines), False, 255, t, cv2.LINE_AA, _SHIFT)
        ink = cv2.bitwise_and(layer, sub).astype(np.float32) * (1 / 255.0)
        view = self.cov[y : y + h, x : x + w]
        np.maximum(view, ink, out=view)


def bezier(ctrl: Sequence[Sequence[float]], n: int = 24) -> np.ndarray:
    """Points along a Bezier curve with 2 to 4 control points."""
    c = np.asarray(ctrl, np.float64)
    t = np.linspace(0, 1, n)[:, None]
    if len(c) == 2:
        return (1 - t) * c[0] + t * c[1]
    if len(c) == 3:
        return (1 - t) ** 2 * c[0] + 2 * (1 - t) * t * c[1] + t**2 * c[2]
    return (
        (1 - t) ** 3 * c[0] + 3 * (1 - t) ** 2 * t * c[1] + 3 * (1 - t) * t**2 * c[2] + t**3 * c[3]
    )


def rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def ring(c: Sequence[float], r: Sequence[float], n: int = 40) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([c[0] + r[0] * np.cos(t), c[1] + r[1] * np.sin(t)], 1)
