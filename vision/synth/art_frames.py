"""Frames and borders of a printed card back, drawn in the back's own single ink.

A family picks one :class:`FrameSpec` for all its decks, as a printer would: the same
border around eight different pictures.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.print_effects import rounded_rect_pts

FRAMES: tuple[str, ...] = (
    "none",
    "line",
    "double",
    "thick_thin",
    "dotted",
    "corners",
    "band",
    "oval",
    "zigzag",
)
_SHIFT = 4


@dataclass(frozen=True)
class FrameSpec:
    """A border; lengths in card millimetres."""

    kind: str
    inset_mm: float  # from the card edge to the outer line
    weight_mm: float  # main line weight
    radius_mm: float  # corner rounding
    corner: str  # ornament in the corners: "none", "diamond", "dot", "star"
    tint: float  # faint ink film inside the frame (0 = none), coverage 0..1


def random_frame(rng: np.random.Generator) -> FrameSpec:
    kind = str(rng.choice(FRAMES, p=[0.06, 0.2, 0.16, 0.12, 0.08, 0.12, 0.1, 0.08, 0.08]))
    return FrameSpec(
        kind=kind,
        inset_mm=float(rng.uniform(2.0, 5.0)),
        weight_mm=float(rng.uniform(0.25, 0.7)),
        radius_mm=float(rng.uniform(0.5, 4.0)),
        corner=str(rng.choice(["none", "diamond", "dot", "star"], p=[0.55, 0.2, 0.15, 0.1])),
        tint=float(rng.uniform(0.04, 0.1)) if rng.random() < 0.12 else 0.0,
    )


def _line(cov: np.ndarray, pts: np.ndarray, thick: float, closed: bool = True) -> None:
    layer = np.zeros(cov.shape, np.uint8)
    p = np.round(pts * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(layer, [p], closed, 255, max(1, int(round(thick))), cv2.LINE_AA, _SHIFT)
    np.maximum(cov, layer.astype(np.float32) * (1 / 255), out=cov)


def _fill(cov: np.ndarray, pts: np.ndarray, value: float = 1.0) -> None:
    layer = np.zeros(cov.shape, np.uint8)
    p = np.round(pts * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(layer, [p], 255, cv2.LINE_AA, _SHIFT)
    np.maximum(cov, layer.astype(np.float32) * (value / 255), out=cov)


def _rect(w: float, h: float, inset: float, radius: float) -> np.ndarray:
    return rounded_rect_pts(inset, inset, w - inset, h - inset, max(0.5, radius), 8)


def _resample(pts: np.ndarray, step: float) -> np.ndarray:
    """Points every ``step`` px along a closed outline."""
    closed = np.vstack([pts, pts[:1]])
    seg = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    s = np.r_[0, np.cumsum(seg)]
    t = np.arange(0, s[-1], max(step, 1.0))
    return np.stack([np.interp(t, s, closed[:, 0]), np.interp(t, s, closed[:, 1])], 1)


def draw_frame(cov: np.ndarray, spec: FrameSpec, ppm: float) -> tuple[float, float, float, float]:
    """Draw the frame on ``cov`` (float32 h x w, ``ppm`` px per mm); returns the inner box
    (x0, y0, x1, y1 px) the picture may use."""
    h, w = cov.shape
    inset, t, rad = spec.inset_mm * ppm, spec.weight_mm * ppm, spec.radius_mm * ppm
    outer = _rect(w, h, inset, rad)
    inner_inset = inset + t
    k = spec.kind
    if k == "line":
        _line(cov, outer, t)
    elif k == "double":
        _line(cov, outer, t)
        inner_inset = inset + t + 1.2 * ppm
        _line(cov, _rect(w, h, inner_inset, rad * 0.7), t * 0.6)
    elif k == "thick_thin":
        _line(cov, outer, t * 2.2)
        inner_inset = inset + t * 2 + 1.0 * ppm
        _line(cov, _rect(w, h, inner_inset, rad * 0.7), max(1.0, t * 0.5))
    elif k == "dotted":
        r = max(1, int(round(t * 0.9)))
        for x, y in _resample(outer, 2.2 * r + 1.2 * ppm):
            cv2.circle(cov, (int(x), int(y)), r, 1.0, -1, cv2.LINE_AA)
    elif k == "corners":
        _line(cov, outer, t * 0.8)
    elif k == "band":  # a solid ink border with a paper panel inside
        band = inset + 2.5 * ppm
        _fill(cov, _rect(w, h, inset, rad))
        layer = np.zeros(cov.shape, np.uint8)
        p = _rect(w, h, band, rad * 0.6)
        cv2.fillPoly(layer, [np.round(p * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
        cov *= 1 - layer.astype(np.float32) * (1 / 255)
        _line(cov, _rect(w, h, band + 0.8 * ppm, rad * 0.5), max(1.0, t * 0.5))
        inner_inset = band + 0.8 * ppm
    elif k == "oval":
        ctr = (w / 2, h / 2)
        axes = (w / 2 - inset - 1.5 * ppm, h / 2 - inset - 1.5 * ppm)
        _line(cov, outer, t * 0.7)
        tt = np.linspace(0, 2 * np.pi, 80, endpoint=False)
        _line(cov, np.stack([ctr[0] + axes[0] * np.cos(tt), ctr[1] + axes[1] * np.sin(tt)], 1), t)
    elif k == "zigzag":
        pts = _resample(_rect(w, h, inset + 0.8 * ppm, rad), 1.2 * ppm)
        c = np.array([w / 2, h / 2])
        d = pts - c
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        amp = 0.7 * ppm * np.where(np.arange(len(pts)) % 2 == 0, 1.0, -1.0)
        _line(cov, pts + d * amp[:, None], t * 0.7)
        _line(cov, outer, t * 0.5)
        inner_inset = inset + 2.2 * ppm
    if spec.corner != "none" and k != "none":
        _corners(cov, spec.corner, inner_inset + 1.2 * ppm, w, h, ppm)
    if spec.tint > 0:
        panel = np.zeros(cov.shape, np.float32)
        _fill(panel, _rect(w, h, inner_inset, rad), spec.tint)
        np.maximum(cov, panel, out=cov)
    m = inner_inset + 1.0 * ppm
    return (m, m, w - m, h - m)


def _corners(cov: np.ndarray, kind: str, d: float, w: int, h: int, ppm: float) -> None:
    s = 1.4 * ppm
    for cx, cy in ((d, d), (w - d, d), (w - d, h - d), (d, h - d)):
        if kind == "diamond":
            _fill(cov, np.array([(cx, cy - s), (cx + s, cy), (cx, cy + s), (cx - s, cy)]))
        elif kind == "dot":
            cv2.circle(cov, (int(cx), int(cy)), max(1, int(s * 0.6)), 1.0, -1, cv2.LINE_AA)
        else:
            a = -np.pi / 2 + np.pi * np.arange(10) / 5
            rr = np.where(np.arange(10) % 2 == 0, s, s * 0.45)
            _fill(cov, np.stack([cx + rr * np.cos(a), cy + rr * np.sin(a)], 1))
