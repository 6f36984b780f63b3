"""Things that lie on a real table: coins, a phone, paper, pens and hands.

Each distractor is painted into a small patch (premultiplied colour + alpha) in image space,
so the scene can first test whether it would hide too much of a card before laying it down.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.camera import Camera, project
from vision.synth.print_effects import rounded_rect_pts


@dataclass
class Patch:
    """A painted object: ``color`` (h x w x 3 float32, premultiplied) and ``alpha`` (0..1)."""

    x0: int
    y0: int
    color: np.ndarray
    alpha: np.ndarray
    kind: str

    def composite(
        self, img: np.ndarray, shadow: tuple[float, float] = (0.0, 0.0), strength: float = 0.0
    ) -> None:
        """Lay the object on ``img``; a soft shadow offset by ``shadow`` px falls first."""
        h, w = self.alpha.shape
        if strength > 0:
            dx, dy = int(round(shadow[0])), int(round(shadow[1]))
            k = max(3, int(np.hypot(dx, dy)) | 1)
            pad = k + max(abs(dx), abs(dy))
            H, W = img.shape[:2]
            x0, y0 = max(0, self.x0 - pad), max(0, self.y0 - pad)
            x1, y1 = min(W, self.x0 + w + pad), min(H, self.y0 + h + pad)
            sh = np.zeros((y1 - y0, x1 - x0), np.float32)
            sx, sy = self.x0 + dx - x0, self.y0 + dy - y0
            # the part of the shifted alpha that lands inside the shadow canvas
            ax0, ay0 = max(0, -sx), max(0, -sy)
            ax1, ay1 = min(w, sh.shape[1] - sx), min(h, sh.shape[0] - sy)
            if ax1 > ax0 and ay1 > ay0:
                sh[sy + ay0 : sy + ay1, sx + ax0 : sx + ax1] = self.alpha[ay0:ay1, ax0:ax1]
                sh = cv2.blur(sh, (k, k))
                img[y0:y1, x0:x1] *= (1 - strength * sh)[..., None]
        roi = img[self.y0 : self.y0 + h, self.x0 : self.x0 + w]
        a = self.alpha[..., None]
        roi[:] = roi * (1 - a) + self.color


class _Canvas:
    """Paints polygons given in table mm into one patch around them."""

    def __init__(self, cam: Camera, outline_mm: np.ndarray, pad: int = 3) -> None:
        self.cam = cam
        p = project(cam.H, outline_mm)
        lo = np.floor(p.min(0)).astype(int) - pad
        hi = np.ceil(p.max(0)).astype(int) + pad
        lo = np.maximum(lo, 0)
        hi = np.minimum(hi, [cam.width, cam.height])
        self.x0, self.y0 = int(lo[0]), int(lo[1])
        self.w, self.h = max(1, int(hi[0] - lo[0])), max(1, int(hi[1] - lo[1]))
        self.color = np.zeros((self.h, self.w, 3), np.float32)
        self.alpha = np.zeros((self.h, self.w), np.float32)

    def _mask(self, pts_mm: np.ndarray) -> np.ndarray:
        p = project(self.cam.H, pts_mm) - (self.x0 + 0.5, self.y0 + 0.5)
        m = np.zeros((self.h, self.w), np.uint8)
        cv2.fillPoly(m, [np.round(p * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        return m.astype(np.float32) / 255

    def _line_mask(self, lines_mm: list[np.ndarray], thick_px: int) -> np.ndarray:
        """Mask of several polylines (each N x 2 table mm) drawn at once."""
        m = np.zeros((self.h, self.w), np.uint8)
        polys = [
            np.round((project(self.cam.H, p) - (self.x0 + 0.5, self.y0 + 0.5)) * 16).astype(
                np.int32
            )
            for p in lines_mm
        ]
        cv2.polylines(m, polys, False, 255, max(1, thick_px), cv2.LINE_AA, 4)
        return m.astype(np.float32) / 255

    def paint(
        self,
        m: np.ndarray,
        bgr: np.ndarray,
        shade: float = 0.0,
        angle: float = 0.0,
        opacity: float = 1.0,
    ) -> None:
        """Lay colour ``bgr`` where mask ``m`` is, with a linear ``shade`` along ``angle``."""
        x, y, w, h = cv2.boundingRect((m > 0).astype(np.uint8))
        if w == 0 or h == 0:
            return
        sub = (slice(y, y + h), slice(x, x + w))
        a = m[sub] * opacity
        col = np.empty((h, w, 3), np.float32)
        col[:] = np.asarray(bgr, np.float32)
        if shade:
            gx = (np.arange(x, x + w, dtype=np.float32) * np.float32(np.cos(angle)))[None, :]
            gy = (np.arange(y, y + h, dtype=np.float32) * np.float32(np.sin(angle)))[:, None]
            g = (gx + gy) / np.float32(max(self.w, self.h))
            col *= (1 - shade * (g - 0.5))[..., None]
        a3 = a[..., None]
        self.color[sub] = self.color[sub] * (1 - a3) + col * a3
        self.alpha[sub] = self.alpha[sub] * (1 - a) + a

    def patch(self, kind: str) -> Patch:
        return Patch(self.x0, self.y0, self.color, self.alpha, kind)


def _rot(pts: np.ndarray, a: float, c: np.ndarray) -> np.ndarray:
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return pts @ r.T + c


def _circle(r: float, n: int = 32) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([r * np.cos(t), r * np.sin(t)], 1)


def coin(cam: Camera, c: np.ndarray, rng: np.random.Generator) -> Patch:
    """A coin of 16-27 mm, copper, silver or brass, at ``c`` (table mm)."""
    r = rng.uniform(8, 13.5)
    metal = np.array([[90, 140, 190], [180, 180, 180], [60, 150, 200], [70, 110, 170]], np.float32)[
        int(rng.integers(4))
    ] * rng.uniform(0.7, 1.15)
    cv = _Canvas(cam, _circle(r) + c)
    cv.paint(cv._mask(_circle(r) + c), metal * 0.7)
    cv.paint(cv._mask(_circle(r * 0.86) + c), metal, shade=0.6, angle=rng.uniform(0, 6.3))
    for _ in range(3):
        q = rng.uniform(-0.5, 0.5, 2) * r + c
        cv.paint(cv._mask(_circle(r * rng.uniform(0.1, 0.3), 12) + q), metal * 1.15, opacity=0.5)
    return cv.patch("coin")


def phone(cam: Camera, c: np.ndarray, rng: np.random.Generator) -> Patch:
    """A phone, screen up (dark glass) or back up, at ``c``."""
    w, h = rng.uniform(68, 78), rng.uniform(140, 162)
    a = rng.uniform(0, np.pi)
    body = _rot(rounded_rect_pts(-w / 2, -h / 2, w / 2, h / 2, 8, 5), a, c)
    case = np.array(
        [[20, 20, 20], [40, 40, 45], [180, 180, 180], [120, 60, 30], [60, 60, 160]], np.float32
    )[int(rng.integers(5))]
    cv = _Canvas(cam, body)
    cv.paint(cv._mask(body), case, shade=0.3, angle=rng.uniform(0, 6.3))
    if rng.random() < 0.6:  # screen up: dark glass with a reflection
        scr = _rot(rounded_rect_pts(-w / 2 + 3, -h / 2 + 3, w / 2 - 3, h / 2 - 3, 6, 4), a, c)
        glass = np.array([25, 22, 20], np.float32) + rng.uniform(0, 60, 3).astype(np.float32)
        cv.paint(cv._mask(scr), glass, shade=rng.uniform(0.3, 1.2), angle=rng.uniform(0, 6.3))
    else:  # back up: a camera bump
        bump = _rot(rounded_rect_pts(-w / 2 + 5, -h / 2 + 5, -w / 2 + 30, -h / 2 + 32, 6, 4), a, c)
        cv.paint(cv._mask(bump), case * 0.6)
    return cv.patch("phone")


def paper(cam: Camera, c: np.ndarray, rng: np.random.Generator) -> Patch:
    """A sheet of paper (A5 or A4), often a ruled score sheet with scribbles."""
    w, h = (148, 210) if rng.random() < 0.5 else (210, 297)
    a = rng.uniform(0, np.pi)
    sheet = _rot(
        np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]), a, c
    )
    cv = _Canvas(cam, sheet)
    white = np.array([238, 243, 245], np.float32) * rng.uniform(0.85, 1.0)
    cv.paint(cv._mask(sheet), white, shade=0.1, angle=rng.uniform(0, 6.3))
    px = max(1, int(round(cam.px_per_mm * 0.3)))
    if rng.random() < 0.7:  # a ruled score sheet with some scribbles
        ink = np.array([180, 130, 110], np.float32)
        rules = [
            _rot(np.array([[-w / 2 + 5, yl], [w / 2 - 5, yl]]), a, c)
            for yl in np.arange(-h / 2 + 20, h / 2 - 5, rng.uniform(7, 10))
        ]
        cv.paint(cv._line_mask(rules, px), ink, opacity=0.6)
        pen = (
            np.array([110, 50, 30], np.float32)
            if rng.random() < 0.5
            else np.array([40, 40, 40], np.float32)
        )
        scribbles = []
        for _ in range(int(rng.integers(3, 15))):
            s = np.array(
                [rng.uniform(-w / 2 + 10, w / 2 - 30), rng.uniform(-h / 2 + 20, h / 2 - 10)]
            )
            scribbles.append(_rot(s + np.cumsum(rng.normal(0, 2.5, (8, 2)) + (2.5, 0), 0), a, c))
        cv.paint(cv._line_mask(scribbles, px + 1), pen, opacity=0.85)
    return cv.patch("paper")


def pen(cam: Camera, c: np.ndarray, rng: np.random.Generator) -> Patch:
    """A pen of 12-15 cm with its cap."""
    ln, r = rng.uniform(120, 150), rng.uniform(4, 5.5)
    a = rng.uniform(0, np.pi)
    body = _rot(rounded_rect_pts(-ln / 2, -r, ln / 2, r, r * 0.9, 5), a, c)
    col = np.array(
        [[30, 30, 30], [160, 60, 20], [30, 30, 170], [220, 220, 220], [40, 140, 40]], np.float32
    )[int(rng.integers(5))]
    cv = _Canvas(cam, body)
    cv.paint(cv._mask(body), col, shade=0.8, angle=a + np.pi / 2)
    cap = _rot(rounded_rect_pts(ln / 2 - 40, -r * 1.05, ln / 2, r * 1.05, r, 4), a, c)
    cv.paint(cv._mask(cap), col * 0.6, shade=0.8, angle=a + np.pi / 2)
    tip = _rot(np.array([[-ln / 2, -r * 0.6], [-ln / 2 - 10, 0], [-ln / 2, r * 0.6]]), a, c)
    cv.paint(cv._mask(tip), np.array([180, 180, 180], np.float32))
    return cv.patch("pen")


def _finger(length: float, width: float, n: int = 6) -> np.ndarray:
    """A finger pointing up from (0, 0): tapered sides and a round tip."""
    tip = width * 0.4
    t = np.linspace(0, np.pi, n)
    arc = np.stack([tip * np.cos(t), -length + tip - tip * np.sin(t)], 1)
    return np.vstack([[[width / 2, 0]], arc, [[-width / 2, 0]]])


def hand(cam: Camera, c: np.ndarray, rng: np.random.Generator, toward: float) -> Patch:
    """A hand reaching in along direction ``toward`` (radians), palm at ``c``, with a sleeve."""
    skin = np.array([[120, 160, 215], [95, 135, 190], [60, 95, 140], [45, 70, 100]], np.float32)[
        int(rng.integers(4))
    ] * rng.uniform(0.85, 1.1)
    s = rng.uniform(0.85, 1.15)
    t = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    palm = np.stack([44 * np.cos(t), 2 + 50 * np.sin(t)], 1) * s
    fingers, nails = [], []
    for k, (fx, fl) in enumerate(zip((-25, -8.5, 8.5, 25), (72, 82, 78, 62), strict=True)):
        spread = rng.normal(0, 0.08) + (k - 1.5) * 0.07
        length = fl * rng.uniform(0.55, 1.0) * s  # a bent finger looks shorter from above
        base = np.array([fx * s, (-22 - 8 * np.cos(fx / 30)) * s])
        up = np.array([np.sin(spread), -np.cos(spread)])
        fingers.append(_rot(_finger(length, 16.5 * s), spread, base))
        nails.append(_rot(_finger(12 * s, 10 * s), spread, base + up * (length - 15 * s)))
    thumb = _rot(_finger(58 * s, 20 * s), -1.0 + rng.normal(0, 0.25), np.array([-34 * s, 8 * s]))
    cuff = rng.uniform(45, 90)
    arm = np.array([[-38, 35], [38, 35], [44, cuff], [-44, cuff]]) * s
    sleeve = np.array([[-50, cuff], [50, cuff], [58, 300], [-58, 300]]) * s
    a = toward + np.pi / 2  # the hand is drawn reaching "up" (-y); turn it
    skin_parts = [_rot(p, a, c) for p in (arm, palm, thumb, *fingers)]
    cv = _Canvas(cam, np.vstack([*skin_parts, _rot(sleeve, a, c)]))
    ang = rng.uniform(0, 6.3)
    for p in skin_parts:
        cv.paint(cv._mask(p), skin, shade=0.35, angle=ang)
    px = max(1, int(round(cam.px_per_mm * 0.8)))
    # the gaps between the fingers
    outlines = [np.vstack([p, p[:1]]) for p in skin_parts[2:]]
    cv.paint(cv._line_mask(outlines, px), skin * 0.7, opacity=0.6)
    for nail in nails:
        cv.paint(cv._mask(_rot(nail, a, c)), np.minimum(skin * 1.15 + 25, 255), opacity=0.5)
    cv.paint(cv._mask(_rot(sleeve, a, c)), _hsv_color(rng), shade=0.5, angle=ang)
    cv.alpha = cv2.GaussianBlur(cv.alpha, (3, 3), 0)
    cv.color = cv2.GaussianBlur(cv.color, (3, 3), 0)
    return cv.patch("hand")


def _hsv_color(rng: np.random.Generator) -> np.ndarray:
    px = np.uint8([[[rng.integers(0, 180), rng.integers(0, 200), rng.integers(30, 220)]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
