"""Procedural table tops: wood, cloth, laminate and patterned tablecloths.

Each table is a seamless square tile laid on the table plane and seen through the camera
(``cv2.warpPerspective`` with wrap-around), so grain and patterns converge like a photo's.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.camera import Camera

TILE_PX = 512
KINDS = ("wood", "cloth", "laminate", "tablecloth")
KIND_P = (0.4, 0.2, 0.2, 0.2)  # how often each kind is drawn when none is asked for


def periodic_noise(
    n: int, rng: np.random.Generator, beta: float = 2.0, stretch: tuple[float, float] = (1.0, 1.0)
) -> np.ndarray:
    """Seamless 1/f^beta noise, n x n float32 scaled to 0..1; ``stretch`` elongates it."""
    fy = np.fft.fftfreq(n)[:, None] * stretch[1]
    fx = np.fft.rfftfreq(n)[None, :] * stretch[0]
    k = np.sqrt(fx**2 + fy**2)
    k[0, 0] = 1.0
    spec = (rng.normal(size=k.shape) + 1j * rng.normal(size=k.shape)) / k ** (beta / 2)
    spec[0, 0] = 0
    out = np.fft.irfft2(spec, s=(n, n)).astype(np.float32)
    out -= out.min()
    return out / max(float(out.max()), 1e-6)


def _hsv(
    rng: np.random.Generator, h: tuple[int, int], s: tuple[int, int], v: tuple[int, int]
) -> np.ndarray:
    px = np.uint8([[[rng.integers(*h), rng.integers(*s), rng.integers(*v)]]])
    return cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _wood(rng: np.random.Generator, n: int) -> np.ndarray:
    palette = [(10, 18), (8, 16), (12, 22), (14, 24)]
    hue = palette[int(rng.integers(len(palette)))]
    base = _hsv(rng, hue, (70, 200), (90, 235))
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    planks = int(rng.integers(2, 6))
    pw = n / planks
    warp = periodic_noise(n, rng, 3.0, (5.0, 1.0)) * rng.uniform(20, 80)
    fibre = periodic_noise(n, rng, 1.2, (12.0, 1.0))
    plank_id = (yy // pw).astype(np.int32)
    phase = rng.uniform(0, 2 * np.pi, planks)[plank_id]
    cycles = int(rng.integers(6, 20)) * planks
    ring = 0.5 + 0.5 * np.sin((yy + warp) * (2 * np.pi * cycles / n) + phase)
    ring = ring ** rng.uniform(1.5, 4)
    shade = 1 - rng.uniform(0.1, 0.35) * ring - rng.uniform(0.05, 0.2) * (fibre - 0.5)
    tint = rng.uniform(0.85, 1.12, planks)[plank_id]
    img = base[None, None, :] * (shade * tint)[..., None]
    gap = (np.abs(yy % pw) < rng.uniform(0.8, 2.5)).astype(np.float32)
    img *= (1 - 0.45 * cv2.GaussianBlur(gap, (3, 3), 0))[..., None]
    return img


def _weave(rng: np.random.Generator, n: int, strength: float) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    f = 2 * np.pi * int(rng.integers(60, 160)) / n
    w = np.sin(xx * f) * np.sin(yy * f)
    fuzz = periodic_noise(n, rng, 0.8)
    return 1 + strength * (0.6 * w + (fuzz - 0.5))


def _cloth(rng: np.random.Generator, n: int) -> np.ndarray:
    base = _hsv(rng, (0, 180), (20, 220), (30, 200))
    mottling = periodic_noise(n, rng, 3.0)
    img = (
        base[None, None, :]
        * (_weave(rng, n, rng.uniform(0.05, 0.15)) * (0.9 + 0.2 * mottling))[..., None]
    )
    return img


def _laminate(rng: np.random.Generator, n: int) -> np.ndarray:
    if rng.random() < 0.3:  # wood-effect laminate: flat, regular grain
        img = _wood(rng, n)
        mean = img.mean((0, 1), keepdims=True)
        return mean + (img - mean) * 0.4
    base = _hsv(rng, (0, 180), (0, 60), (60, 250))
    stone = periodic_noise(n, rng, 2.5)
    speck = rng.random((n, n)).astype(np.float32)
    shade = 0.94 + 0.1 * stone - 0.08 * (speck > 0.97)
    return base[None, None, :] * shade[..., None]


def _tablecloth(rng: np.random.Generator, n: int) -> np.ndarray:
    a = _hsv(rng, (0, 180), (60, 210), (90, 230))
    b = (
        _hsv(rng, (0, 180), (0, 40), (200, 250))
        if rng.random() < 0.7
        else _hsv(rng, (0, 180), (20, 120), (120, 230))  # a muted second colour
    )
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    reps = int(rng.integers(3, 14))
    period = n / reps
    kind = rng.integers(0, 4)
    if kind == 0:  # gingham
        sx = ((xx % period) < period / 2).astype(np.float32)
        sy = ((yy % period) < period / 2).astype(np.float32)
        t = 0.5 * sx + 0.5 * sy
    elif kind == 1:  # stripes
        t = ((xx % period) < period * rng.uniform(0.2, 0.6)).astype(np.float32)
    elif kind == 2:  # polka dots
        cx = (xx % period) - period / 2
        cy = (yy % period) - period / 2
        t = (np.hypot(cx, cy) < period * rng.uniform(0.12, 0.3)).astype(np.float32)
    else:  # flowers-ish blobs
        t = (periodic_noise(n, rng, 1.6) > rng.uniform(0.6, 0.75)).astype(np.float32)
    t = cv2.GaussianBlur(t, (3, 3), 0)
    img = a[None, None, :] * t[..., None] + b[None, None, :] * (1 - t[..., None])
    return img * _weave(rng, n, rng.uniform(0.03, 0.1))[..., None]


def make_tile(rng: np.random.Generator, kind: str | None = None, n: int = TILE_PX) -> np.ndarray:
    """One seamless table tile (n x n BGR uint8)."""
    if kind is None:
        kind = str(rng.choice(KINDS, p=list(KIND_P)))
    fn = {"wood": _wood, "cloth": _cloth, "laminate": _laminate, "tablecloth": _tablecloth}[kind]
    return np.clip(fn(rng, n), 0, 255).astype(np.uint8)


def render_table(tile: np.ndarray, cam: Camera, rng: np.random.Generator) -> np.ndarray:
    """The table seen by ``cam``: the tile repeated over the plane, in perspective."""
    tp = float(np.clip(cam.px_per_mm * rng.uniform(0.45, 1.1), 0.5, 4.0))  # tile px per mm
    level = tile
    # avoid aliasing where the tile is minified: use a smaller copy
    while tp > cam.px_per_mm * 1.4 and level.shape[0] > 64:
        level = cv2.pyrDown(level)
        tp /= 2
    a = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(a), np.sin(a)
    off = rng.uniform(0, 1000, 2)
    M = np.array([[c / tp, -s / tp, off[0]], [s / tp, c / tp, off[1]], [0, 0, 1]])
    Hd = (
        np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1]])
        @ cam.H
        @ M
        @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    )
    return cv2.warpPerspective(
        level, Hd, (cam.width, cam.height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP
    )


def table_edge(
    img: np.ndarray, cam: Camera, content_mm: np.ndarray, rng: np.random.Generator
) -> np.ndarray | None:
    """Cut the table off beyond a straight edge outside the cards; the floor shows past it.

    In place on the float image. The edge runs ``20..150`` mm beyond the cards at any angle.
    Returns the floor mask (None when the floor is out of the picture).
    """
    pts = np.asarray(content_mm, np.float64).reshape(-1, 2)
    ctr = pts.mean(0)
    a = rng.uniform(0, 2 * np.pi)
    nrm = np.array([np.cos(a), np.sin(a)])
    reach = float(((pts - ctr) @ nrm).max()) + rng.uniform(20, 150)
    base = ctr + nrm * reach
    along = np.array([-nrm[1], nrm[0]])
    p = cam.project(np.array([base - along * 100, base + along * 100, ctr]))
    d = p[1] - p[0]
    h, w = img.shape[:2]
    xs = np.arange(w, dtype=np.float32)[None, :] + 0.5
    ys = np.arange(h, dtype=np.float32)[:, None] + 0.5
    # signed distance in px to the projected edge line, positive on the floor side
    side = (d[0] * (ys - p[0][1]) - d[1] * (xs - p[0][0])) / np.float32(np.hypot(*d))
    if (d[0] * (p[2][1] - p[0][1]) - d[1] * (p[2][0] - p[0][0])) > 0:
        side = -side
    floor = side > 0
    if not floor.any():
        return None
    tone = _hsv(rng, (0, 180), (0, 120), (15, 90))
    shade = 0.75 + 0.5 * cv2.resize(rng.random((6, 8)).astype(np.float32), (w, h))
    img[floor] = (tone * shade[floor][:, None]).astype(np.float32)
    band = rng.uniform(2, 7)  # the table's edge, catching or losing the light
    rim = (side > -band) & (side <= 0)
    img[rim] *= np.float32(rng.uniform(0.45, 1.35))
    return floor


BARE_PX_PER_MM = (1.5, 4.0)  # at 640 px wide: a card 84-224 px long


def kinds_with_cloths(cloths: float) -> tuple[float, ...]:
    """`KIND_P` with tablecloths at the share ``cloths``, the other kinds as in `KIND_P`."""
    rest = sum(p for k, p in zip(KINDS, KIND_P, strict=True) if k != "tablecloth")
    return tuple(
        cloths if k == "tablecloth" else p * (1 - cloths) / rest
        for k, p in zip(KINDS, KIND_P, strict=True)
    )


def bare_table(
    rng: np.random.Generator,
    kind: str | None = None,
    width: int = 640,
    height: int = 480,
    px_per_mm: tuple[float, float] = BARE_PX_PER_MM,
) -> np.ndarray:
    """A table with nothing on it, seen from straight above at a card-table scale
    (``px_per_mm`` at 640 px wide, drawn evenly): a picture where no card may be found."""
    scale = float(rng.uniform(*px_per_mm)) * width / 640  # image px per table mm
    H = np.array([[scale, 0, width / 2], [0, scale, height / 2], [0, 0, 1]], np.float64)
    return render_table(make_tile(rng, kind), Camera(H, width, height, 0.0, 0.0, scale), rng)
