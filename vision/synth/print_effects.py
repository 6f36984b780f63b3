"""Paper, ink and wear: what turns an ink-coverage drawing into a printed, handled card."""

from __future__ import annotations

import cv2
import numpy as np


def rounded_rect_pts(
    x0: float, y0: float, x1: float, y1: float, r: float, n: int = 6
) -> np.ndarray:
    """Outline of a rounded rectangle, clockwise from the top-left arc, as float points."""
    out = []
    for cx, cy, a0 in (
        (x1 - r, y0 + r, -90),
        (x1 - r, y1 - r, 0),
        (x0 + r, y1 - r, 90),
        (x0 + r, y0 + r, 180),
    ):
        for t in np.deg2rad(np.linspace(a0, a0 + 90, n)):
            out.append((cx + r * np.cos(t), cy + r * np.sin(t)))
    return np.asarray(out, np.float64)


def card_alpha(w: int, h: int, radius_px: float) -> np.ndarray:
    """Anti-aliased rounded-corner mask (uint8, 255 inside) of a w x h card."""
    ss = 4
    m = np.zeros((h * ss, w * ss), np.uint8)
    pts = rounded_rect_pts(0, 0, w * ss, h * ss, radius_px * ss, 10)
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 255, cv2.LINE_8)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA)


def paper_color(rng: np.random.Generator) -> np.ndarray:
    """White to cream card stock, BGR float."""
    cream = rng.uniform(0, 1)
    b = 250 - 32 * cream
    g = 250 - 10 * cream
    r = 250 - 2 * cream
    return np.array([b, g, r], np.float32) * rng.uniform(0.93, 1.0)


def low_freq_noise(h: int, w: int, rng: np.random.Generator, cells: int = 6) -> np.ndarray:
    """Smooth noise in 0..1 (float32) with about ``cells`` blobs across."""
    g = rng.random((max(2, cells * h // max(h, w)) + 2, max(2, cells * w // max(h, w)) + 2))
    return cv2.resize(g.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def ink_on_paper(
    cov: np.ndarray,
    ink: np.ndarray,
    paper: np.ndarray,
    rng: np.random.Generator,
    wear: float | None = None,
) -> np.ndarray:
    """Print ``cov`` (0..1) in ``ink`` on ``paper``, then age it: fading, specks, scuffs."""
    h, w = cov.shape
    if wear is None:
        wear = float(rng.uniform(0, 0.5) ** 1.5)
    density = rng.uniform(0.85, 1.0)
    fade = 1.0 - wear * low_freq_noise(h, w, rng, int(rng.integers(3, 8)))
    c = (cov * density * fade).clip(0, 1)
    if wear > 0.05:  # ink dropouts
        specks = rng.random((h, w)) < wear * 0.04
        c[specks] *= 0.3
    c3 = c[..., None]
    img = paper[None, None, :] * (1 - c3) + ink[None, None, :] * c3
    # paper grain and handling grime
    img += rng.normal(0, 2.0, (h, w, 1)).astype(np.float32)
    grime = low_freq_noise(h, w, rng, 4)[..., None] * wear * 25
    img -= grime
    return np.clip(img, 0, 255).astype(np.uint8)


def edge_wear(img: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """Whitened, scuffed edges of a much-played card (face cards show it most)."""
    h, w = img.shape[:2]
    if amount <= 0.02:
        return img
    m = np.zeros((h, w), np.float32)
    band = max(1, int(2 + 4 * amount))
    m[:band] = 1
    m[-band:] = 1
    m[:, :band] = 1
    m[:, -band:] = 1
    m *= rng.random((h, w)).astype(np.float32) < amount
    m = cv2.GaussianBlur(m, (3, 3), 0)[..., None] * 0.8
    out = img.astype(np.float32) * (1 - m) + 235 * m
    return out.clip(0, 255).astype(np.uint8)


def grain(h: int, w: int, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Gaussian paper grain, float32 h x w x 1. OpenCV's generator (seeded from ``rng``, so
    the result depends on ``rng`` alone) is several times faster than numpy's here."""
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    out = np.empty((h, w, 1), np.float32)
    cv2.randn(out, 0.0, float(sigma))
    return out


def scuff_edges(img: np.ndarray, rng: np.random.Generator, amount: float) -> np.ndarray:
    """:func:`edge_wear` drawn only in the edge band (the same look, a fraction of the
    work): whitened, scuffed edges of a much-played card. BGR uint8 in and out."""
    h, w = img.shape[:2]
    if amount <= 0.02:
        return img
    band = max(1, int(2 + 4 * amount))
    out = img.copy()
    pad = band + 1  # the blur reaches one pixel further in
    for rows, cols in (
        (slice(0, pad), slice(0, w)),
        (slice(h - pad, h), slice(0, w)),
        (slice(pad, h - pad), slice(0, pad)),
        (slice(pad, h - pad), slice(w - pad, w)),
    ):
        sub = out[rows, cols]
        sh, sw = sub.shape[:2]
        m = np.zeros((sh + 2, sw + 2), np.float32)  # one pixel of context for the blur
        yy, xx = np.mgrid[
            rows.start - 1 : rows.start + sh + 1, cols.start - 1 : cols.start + sw + 1
        ]
        edge = (yy < band) | (yy >= h - band) | (xx < band) | (xx >= w - band)
        m[edge] = 1.0
        m *= rng.random(m.shape, dtype=np.float32) < amount
        m = cv2.GaussianBlur(m, (3, 3), 0)[1:-1, 1:-1, None] * 0.8
        sub[:] = (sub.astype(np.float32) * (1 - m) + 235 * m).clip(0, 255).astype(np.uint8)
    return out


def print_ink(
    cov: np.ndarray,
    ink: np.ndarray,
    paper: np.ndarray,
    rng: np.random.Generator,
    wear: float,
) -> np.ndarray:
    """:func:`ink_on_paper` for the family art: the same fading, dropouts, grain and grime,
    with float32 random numbers throughout (BGR uint8 out)."""
    h, w = cov.shape
    density = np.float32(rng.uniform(0.85, 1.0))
    fade = 1.0 - np.float32(wear) * low_freq_noise(h, w, rng, int(rng.integers(3, 8)))
    c = (cov * density * fade).clip(0, 1)
    if wear > 0.05:  # ink dropouts
        c[rng.random((h, w), dtype=np.float32) < wear * 0.04] *= 0.3
    c3 = c[..., None]
    img = paper.astype(np.float32) * (1 - c3) + ink.astype(np.float32) * c3
    img += grain(h, w, rng, 2.0)
    img -= low_freq_noise(h, w, rng, 4)[..., None] * np.float32(wear * 25)
    return np.clip(img, 0, 255).astype(np.uint8)
