"""Line work: how a sketch is inked - outline, hatching, stippling, etching, solid cuts.

Every style reads the same :class:`~vision.synth.art_sketch.Sketch` and writes ink coverage
(float32, 0 paper .. 1 ink) on a canvas. Parts are painted in order, each first erasing what
lies behind it (or, for the solid styles, cutting a paper line around itself), so objects in
front hide those behind as on a real engraving.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.art_sketch import Part, Sketch

LINEWORKS: tuple[str, ...] = (
    "outline",
    "hatch",
    "crosshatch",
    "stipple",
    "etching",
    "silhouette",
    "woodcut",
    "engraving",
)
SOLID = frozenset({"silhouette", "woodcut"})
_SHIFT = 4  # cv2 fixed-point bits


@dataclass(frozen=True)
class LineWork:
    """A family's way of inking; lengths in px of the drawing canvas."""

    kind: str
    pen_px: float  # outline weight
    spacing_px: float  # hatch spacing at tone 0.5
    angle_deg: float  # main hatch direction
    light_rad: float  # where the light comes from (the shadow side is opposite)
    dot_px: float  # stipple dot radius
    wobble_px: float  # hand tremor of outlines


def random_linework(rng: np.random.Generator, ppm: float, kind: str | None = None) -> LineWork:
    """A line work with weights for a canvas of ``ppm`` px per card millimetre."""
    kind = kind or str(rng.choice(LINEWORKS))
    heavy = kind in SOLID or kind == "outline"
    return LineWork(
        kind=kind,
        pen_px=float(rng.uniform(0.25, 0.55 if not heavy else 0.8) * ppm),
        spacing_px=float(rng.uniform(0.7, 1.5) * ppm),
        angle_deg=float(rng.choice([-1, 1]) * rng.uniform(15, 75)),
        light_rad=float(rng.uniform(0, 2 * np.pi)),
        dot_px=float(rng.uniform(0.15, 0.3) * ppm),
        wobble_px=float(rng.uniform(0, 0.12) * ppm) if rng.random() < 0.5 else 0.0,
    )


def _fixed(p: np.ndarray) -> np.ndarray:
    return np.round(p * (1 << _SHIFT)).astype(np.int32).reshape(-1, 1, 2)


def _mask(shape: tuple[int, int], p: np.ndarray) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [_fixed(p)], 255, cv2.LINE_AA, _SHIFT)
    return m


def _polyline(shape: tuple[int, int], p: np.ndarray, closed: bool, thick: float) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.polylines(m, [_fixed(p)], closed, 255, max(1, int(round(thick))), cv2.LINE_AA, _SHIFT)
    return m


def hatch_layer(
    region: np.ndarray, angle_deg: float, spacing: float, thick: float, rng: np.random.Generator
) -> np.ndarray:
    """Parallel lines (uint8, 255 = line) clipped to ``region``, a uint8 mask."""
    out = np.zeros_like(region)
    x, y, w, h = cv2.boundingRect(region)
    if w == 0 or h == 0:
        return out
    a = np.deg2rad(angle_deg)
    d, nrm = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    ctr = np.array([x + w / 2, y + h / 2])
    reach = float(np.hypot(w, h)) / 2 + thick
    offs = np.arange(-reach, reach, max(1.5, spacing)) + rng.uniform(0, spacing)
    ends = np.stack(
        [ctr + offs[:, None] * nrm - d * reach, ctr + offs[:, None] * nrm + d * reach], 1
    )
    lines = np.round(ends * (1 << _SHIFT)).astype(np.int32)
    t = max(1, int(round(thick)))
    cv2.polylines(out, list(lines), False, 255, t, cv2.LINE_AA, _SHIFT)
    return cv2.bitwise_and(out, region)


def dot_layer(
    region: np.ndarray, density: float, radius: float, rng: np.random.Generator
) -> np.ndarray:
    """Stipple dots (uint8) inside ``region``: ``density`` dots per px^2 of region."""
    out = np.zeros_like(region)
    x, y, w, h = cv2.boundingRect(region)
    n = int(density * w * h)
    if n == 0:
        return out
    xs = rng.integers(x, x + w, n)
    ys = rng.integers(y, y + h, n)
    keep = region[ys, xs] > 127
    out[ys[keep], xs[keep]] = 255
    r = max(1, int(round(radius)))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    return cv2.dilate(out, k)


def _shadow_side(region: np.ndarray, p: np.ndarray, light: float) -> np.ndarray:
    """The half of ``region`` turned away from the light."""
    c = p.mean(0)
    d = -np.array([np.cos(light), np.sin(light)])
    h, w = region.shape
    big = 4.0 * (w + h)
    nrm = np.array([-d[1], d[0]])
    half = np.array(
        [c - nrm * big, c - nrm * big + d * big, c + nrm * big + d * big, c + nrm * big]
    )
    return cv2.bitwise_and(region, _mask(region.shape, half))


def _shade(
    region: np.ndarray, p: np.ndarray, tone: float, lw: LineWork, rng: np.random.Generator
) -> np.ndarray:
    """The ink (uint8) that ``lw`` puts inside one region of the given tone."""
    k, sp, th = lw.kind, lw.spacing_px, max(1.0, lw.pen_px * 0.55)
    if tone >= 0.85 and k != "engraving":
        return region  # the darkest parts print solid in every line work
    empty = np.zeros_like(region)
    if k == "outline":
        return empty
    if k == "hatch":
        return (
            hatch_layer(region, lw.angle_deg, sp / (0.4 + tone), th, rng) if tone > 0.25 else empty
        )
    if k == "crosshatch":
        out = hatch_layer(region, lw.angle_deg, sp, th, rng) if tone > 0.2 else empty
        if tone > 0.5:
            out = cv2.max(out, hatch_layer(region, lw.angle_deg + 90, sp, th, rng))
        if tone > 0.7:
            out = cv2.max(out, hatch_layer(region, lw.angle_deg + 45, sp * 1.3, th, rng))
        return out
    if k == "stipple":
        dens = 0.12 * tone / max(1.0, lw.dot_px) ** 2
        out = dot_layer(region, dens, lw.dot_px, rng)
        return cv2.max(out, dot_layer(_shadow_side(region, p, lw.light_rad), dens, lw.dot_px, rng))
    if k == "etching":
        shadow = _shadow_side(region, p, lw.light_rad)
        out = hatch_layer(shadow, lw.angle_deg, sp * 0.8, th, rng) if tone > 0.15 else empty
        if tone > 0.45:
            out = cv2.max(out, hatch_layer(region, lw.angle_deg + 70, sp * 1.2, th * 0.8, rng))
        if tone > 0.65:
            out = cv2.max(out, hatch_layer(shadow, lw.angle_deg - 50, sp, th, rng))
        return out
    if k == "engraving":  # even lines over everything, thicker where darker
        return hatch_layer(region, 0.0, sp * 0.9, max(1.0, sp * 0.9 * (0.15 + 0.6 * tone)), rng)
    raise ValueError(f"unknown line work {k!r}")


def _wobbled(p: np.ndarray, lw: LineWork, rng: np.random.Generator) -> np.ndarray:
    if lw.wobble_px <= 0:
        return p
    return p + rng.normal(0, lw.wobble_px, p.shape)


def ink_sketch(
    sketch: Sketch,
    cov: np.ndarray,
    box: tuple[float, float, float, float],
    lw: LineWork,
    rng: np.random.Generator,
) -> None:
    """Ink ``sketch`` into ``cov`` (float32, in place), its unit box mapped onto ``box``
    (x0, y0, x1, y1 px of the canvas)."""
    x0, y0, x1, y1 = box
    scale = np.array([x1 - x0, y1 - y0])
    if not sketch.parts:
        return
    # work on the part of the canvas the drawing can reach: every mask is that small
    reach = np.vstack([p.pts for p in sketch.parts]) * scale + (x0, y0)
    pad = int(lw.pen_px * 3 + lw.wobble_px * 5) + 4
    h, w = cov.shape
    bx0, by0 = (max(0, int(v) - pad) for v in reach.min(0))
    bx1, by1 = min(w, int(reach[:, 0].max()) + pad), min(h, int(reach[:, 1].max()) + pad)
    cov = cov[by0:by1, bx0:bx1]
    origin = np.array([x0 - bx0, y0 - by0])
    shape = cov.shape
    for part in sketch.parts:
        p = _wobbled(part.pts * scale + origin, lw, rng)
        if not part.closed:
            _stroke(cov, p, part, lw)
            continue
        m = _mask(shape, p)
        mf = m.astype(np.float32) * (1 / 255)
        if lw.kind in SOLID:
            if part.hole:
                cov *= 1 - mf
                continue
            np.maximum(cov, mf, out=cov)
            if lw.kind == "woodcut" and part.tone < 0.75:
                cut = hatch_layer(
                    m, lw.angle_deg, lw.spacing_px * (0.6 + part.tone), lw.pen_px * 0.5, rng
                )
                cov *= 1 - cut.astype(np.float32) * (1 / 255)
            # a paper line around each part keeps the shapes of a solid print apart
            edge = _polyline(shape, p, True, lw.pen_px * 0.45 * part.weight)
            cov *= 1 - edge.astype(np.float32) * (1 / 255)
            continue
        cov *= 1 - mf  # what this part hides
        if not part.hole:
            np.maximum(
                cov, _shade(m, p, part.tone, lw, rng).astype(np.float32) * (1 / 255), out=cov
            )
        thick = lw.pen_px * part.weight * (0.5 if lw.kind == "engraving" else 1.0)
        edge = _polyline(shape, p, True, thick)
        np.maximum(cov, edge.astype(np.float32) * (1 / 255), out=cov)


def _stroke(cov: np.ndarray, p: np.ndarray, part: Part, lw: LineWork) -> None:
    """An open line: ink on paper, or a paper cut where it crosses a solid print."""
    layer = _polyline(cov.shape, p, False, lw.pen_px * part.weight).astype(np.float32) * (1 / 255)
    if lw.kind in SOLID:
        on = layer > 0.5
        if on.any() and float(cov[on].mean()) > 0.6:
            cov *= 1 - layer * 0.9
            return
    np.maximum(cov, layer, out=cov)
