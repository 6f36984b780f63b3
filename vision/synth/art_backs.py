"""Stand-in card backs: a cream card, a thin border and a single-ink etching of one object.

Each object (pump, carriage, plow, pail) has several drawings; every print also varies line
weight, ink shade, hatching, print offset and wear, so a class is a family of pictures.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.synth.decks import DECK_ART, INK_BGR
from vision.synth.etching import Pen, rect, ring
from vision.synth.print_effects import edge_wear, ink_on_paper, paper_color, rounded_rect_pts

Drawing = Callable[[Pen, np.random.Generator, float], None]


def _shade(pen: Pen, pts: object, rng: np.random.Generator, sp: float, cross: bool = False) -> None:
    pen.hatch(pen.mask(pts), rng.uniform(20, 70) * rng.choice([-1, 1]), sp, cross=cross)


# --- pump ------------------------------------------------------------------------------------
def _pump_pitcher(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    bw = rng.uniform(0.14, 0.2)
    x0, x1 = 0.5 - bw / 2, 0.5 + bw / 2
    body = [(x0, 0.3), (x1, 0.3), (x1 + 0.02, 0.74), (x0 - 0.02, 0.74)]
    pen.line(body, 1.3, closed=True)
    _shade(
        pen, [(x0 + bw * 0.55, 0.3), (x1, 0.3), (x1 + 0.02, 0.74), (x0 + bw * 0.55, 0.74)], rng, sp
    )
    pen.ellipse((0.5, 0.3), (bw / 2 + 0.02, 0.03), 1.2)
    pen.line([(0.46, 0.27), (0.5, 0.2), (0.54, 0.27)], 1.0)
    ang = rng.uniform(-0.15, 0.1)
    pen.line([(0.5, 0.22), (0.12, 0.1 + ang)], 1.6)
    pen.ellipse((0.12, 0.1 + ang), (0.025, 0.018), 1.0)
    sy = rng.uniform(0.38, 0.48)
    pen.line([(x1, sy), (0.8, sy + 0.02), (0.84, sy + 0.08)], 2.2)
    pen.line([(x1, sy + 0.05), (0.76, sy + 0.07), (0.79, sy + 0.1)], 1.0)
    pen.line(rect(0.3, 0.74, 0.7, 0.82), 1.2, closed=True)
    _shade(pen, rect(0.3, 0.78, 0.7, 0.82), rng, sp * 0.7)
    for _ in range(int(rng.integers(3, 7))):
        x = rng.uniform(0.1, 0.9)
        pen.line([(x, 0.88 + rng.uniform(-0.01, 0.01)), (x + rng.uniform(0.04, 0.12), 0.88)], 0.6)


def _pump_post(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    pen.line(rect(0.4, 0.18, 0.6, 0.86), 1.3, closed=True)
    _shade(pen, rect(0.52, 0.18, 0.6, 0.86), rng, sp)
    for y in np.linspace(0.3, 0.8, int(rng.integers(2, 5))):
        pen.line([(0.42, y), (0.58, y + rng.uniform(-0.01, 0.01))], 0.5)
    pen.line([(0.38, 0.18), (0.5, 0.1), (0.62, 0.18)], 1.2, closed=True)
    pen.line([(0.6, 0.4), (0.82, 0.42), (0.84, 0.5)], 2.0)
    pen.line([(0.45, 0.16), (0.18, 0.3 + rng.uniform(-0.08, 0.05))], 1.5)
    trough = [(0.62, 0.68), (0.92, 0.68), (0.88, 0.8), (0.66, 0.8)]
    pen.line(trough, 1.2, closed=True)
    _shade(pen, trough, rng, sp * 0.8, cross=bool(rng.random() < 0.4))
    pen.line([(0.08, 0.86), (0.92, 0.86)], 0.8)


def _pump_iron(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    body = ring((0.5, 0.5), (0.11, 0.24), 36)
    pen.line(body, 1.4, closed=True)
    pen.hatch(pen.mask(body), 90 + rng.uniform(-10, 10), sp, cross=bool(rng.random() < 0.5))
    pen.ellipse((0.5, 0.26), (0.14, 0.04), 1.3)
    pen.line([(0.5, 0.22), (0.48, 0.12), (0.2, 0.06)], 1.6)
    pen.line([(0.6, 0.45), (0.86, 0.36), (0.86, 0.44)], 2.2)
    pen.line(rect(0.34, 0.74, 0.66, 0.8), 1.2, closed=True)
    pen.line([(0.26, 0.8), (0.74, 0.8), (0.78, 0.86), (0.22, 0.86)], 1.0, closed=True)


# --- carriage --------------------------------------------------------------------------------
def _wheel(pen: Pen, c: tuple[float, float], r: float, spokes: int) -> None:
    pen.ellipse(c, (r, r), 1.4)
    pen.ellipse(c, (r * 0.85, r * 0.85), 0.6)
    pen.ellipse(c, (r * 0.15, r * 0.15), 1.0)
    for k in range(spokes):
        a = np.pi * k / spokes
        d = np.array([np.cos(a), np.sin(a)]) * r * 0.85
        pen.line([(c[0] - d[0], c[1] - d[1]), (c[0] + d[0], c[1] + d[1])], 0.7)


def _carriage_buggy(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    box = [(0.22, 0.42), (0.7, 0.42), (0.74, 0.6), (0.2, 0.6)]
    pen.line(box, 1.3, closed=True)
    _shade(pen, box, rng, sp)
    top = [(0.22, 0.42), (0.25, 0.2), (0.48, 0.16), (0.5, 0.42)]
    pen.line(top, 1.2)
    pen.hatch(pen.mask(top), rng.uniform(30, 60), sp * 0.8)
    _wheel(pen, (0.3, 0.66), rng.uniform(0.15, 0.2), int(rng.integers(6, 10)))
    _wheel(pen, (0.7, 0.7), rng.uniform(0.1, 0.14), int(rng.integers(5, 9)))
    pen.line([(0.72, 0.5), (0.96, 0.42)], 1.2)
    pen.line([(0.7, 0.54), (0.97, 0.48)], 0.8)


def _carriage_wagon(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    cover = [(0.18, 0.5), (0.2, 0.25), (0.35, 0.15), (0.6, 0.15), (0.76, 0.25), (0.8, 0.5)]
    pen.line(cover, 1.3, closed=True)
    for x in (0.35, 0.5, 0.65):
        pen.line([(x, 0.16), (x + rng.uniform(-0.02, 0.02), 0.5)], 0.6)
    pen.hatch(pen.mask(cover), rng.uniform(50, 80), sp * 1.2)
    box = rect(0.16, 0.5, 0.82, 0.62)
    pen.line(box, 1.3, closed=True)
    _shade(pen, box, rng, sp * 0.6, cross=True)
    r = rng.uniform(0.13, 0.17)
    _wheel(pen, (0.3, 0.7), r, 8)
    _wheel(pen, (0.7, 0.7), r * rng.uniform(0.8, 1.0), 8)
    pen.line([(0.82, 0.58), (0.98, 0.66)], 1.2)


def _carriage_coach(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    body = [(0.25, 0.28), (0.72, 0.28), (0.78, 0.46), (0.72, 0.62), (0.25, 0.62), (0.2, 0.46)]
    pen.line(body, 1.4, closed=True)
    win = rect(0.34, 0.33, 0.5, 0.46)
    pen.line(win, 1.0, closed=True)
    pen.line(rect(0.55, 0.33, 0.66, 0.58), 1.0, closed=True)
    m = pen.mask(body)
    m = cv2.subtract(m, pen.mask(win))
    pen.hatch(m, rng.uniform(-70, -30), sp, cross=bool(rng.random() < 0.3))
    pen.line([(0.22, 0.28), (0.5, 0.22), (0.76, 0.28)], 1.2)
    _wheel(pen, (0.28, 0.7), rng.uniform(0.13, 0.17), 10)
    _wheel(pen, (0.72, 0.72), rng.uniform(0.11, 0.14), 8)
    pen.line([(0.78, 0.5), (0.95, 0.55), (0.98, 0.5)], 1.0)


# --- plow ------------------------------------------------------------------------------------
def _plow_walking(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    pen.line([(0.12, 0.5), (0.62, 0.62)], 2.0)
    blade = [(0.55, 0.58), (0.72, 0.52), (0.9, 0.6), (0.82, 0.78), (0.62, 0.76)]
    pen.line(blade, 1.4, closed=True)
    pen.hatch(pen.mask(blade), rng.uniform(20, 50), sp * 0.7, cross=bool(rng.random() < 0.5))
    hy = rng.uniform(0.1, 0.2)
    pen.line([(0.6, 0.62), (0.25, hy)], 1.5)
    pen.line([(0.66, 0.6), (0.36, hy - 0.03)], 1.5)
    pen.line([(0.33, 0.33), (0.45, 0.3)], 0.8)
    pen.ellipse((0.12, 0.56), (0.05, 0.05), 1.1)
    pen.line([(0.05, 0.82), (0.95, 0.82)], 0.8)
    for k in range(4):
        x = 0.1 + 0.2 * k
        pen.curve([(x, 0.86), (x + 0.08, 0.83), (x + 0.16, 0.86)], 0.6)


def _plow_share(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    beam = [(0.1, 0.35), (0.7, 0.55), (0.7, 0.6), (0.1, 0.41)]
    pen.line(beam, 1.2, closed=True)
    _shade(pen, beam, rng, sp * 0.6)
    blade = [(0.62, 0.5), (0.85, 0.45), (0.92, 0.7), (0.7, 0.8), (0.58, 0.7)]
    pen.line(blade, 1.5, closed=True)
    pen.hatch(pen.mask(blade), rng.uniform(-60, -20), sp * 0.8)
    pen.line([(0.64, 0.56), (0.42, 0.12)], 1.6)
    pen.line([(0.42, 0.12), (0.36, 0.1)], 1.6)
    pen.line([(0.5, 0.38), (0.58, 0.36)], 0.8)
    pen.line([(0.1, 0.35), (0.04, 0.3)], 1.2)
    pen.ellipse((0.04, 0.29), (0.02, 0.02), 0.8)


def _plow_wheeled(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    _wheel(pen, (0.22, 0.62), rng.uniform(0.1, 0.14), 6)
    pen.line([(0.22, 0.62), (0.7, 0.5)], 1.8)
    blade = [(0.64, 0.48), (0.8, 0.46), (0.86, 0.66), (0.66, 0.7)]
    pen.line(blade, 1.4, closed=True)
    pen.hatch(pen.mask(blade), 45, sp * 0.7, cross=True)
    pen.line([(0.7, 0.5), (0.92, 0.16)], 1.4)
    pen.line([(0.72, 0.46), (0.8, 0.14)], 1.4)
    pen.line([(0.78, 0.3), (0.86, 0.32)], 0.8)
    pen.line([(0.05, 0.76), (0.95, 0.76)], 0.7)


# --- pail ------------------------------------------------------------------------------------
def _pail_wooden(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    tw, bw = rng.uniform(0.25, 0.3), rng.uniform(0.18, 0.23)
    body = [(0.5 - tw, 0.38), (0.5 + tw, 0.38), (0.5 + bw, 0.82), (0.5 - bw, 0.82)]
    pen.line(body, 1.4, closed=True)
    pen.ellipse((0.5, 0.38), (tw, 0.05), 1.2)
    for k in range(1, int(rng.integers(4, 8))):
        f = k / 7
        pen.line([(0.5 - tw + 2 * tw * f, 0.4), (0.5 - bw + 2 * bw * f, 0.82)], 0.5)
    for y in (0.48, 0.72):
        w = tw + (bw - tw) * (y - 0.38) / 0.44
        pen.line([(0.5 - w, y), (0.5 + w, y)], 1.6)
    _shade(
        pen,
        [(0.5 + tw * 0.3, 0.4), (0.5 + tw, 0.38), (0.5 + bw, 0.82), (0.5 + bw * 0.3, 0.82)],
        rng,
        sp,
    )
    pen.curve([(0.5 - tw, 0.38), (0.5, rng.uniform(0.02, 0.12)), (0.5 + tw, 0.38)], 1.3)


def _pail_tin(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    tw, bw = 0.27, 0.22
    body = [(0.5 - tw, 0.34), (0.5 + tw, 0.34), (0.5 + bw, 0.8), (0.5 - bw, 0.8)]
    pen.line(body, 1.3, closed=True)
    pen.ellipse((0.5, 0.34), (tw, 0.06), 1.3)
    pen.ellipse((0.5, 0.8), (bw, 0.04), 1.0, 0, 180)
    pen.hatch(pen.mask(body), 90, sp * rng.uniform(0.8, 1.4))
    pen.line([(0.5 - tw, 0.34), (0.2, 0.12), (0.5, 0.06), (0.8, 0.12), (0.5 + tw, 0.34)], 1.0)
    pen.line([(0.08, 0.86), (0.92, 0.86)], 0.8)


def _pail_milk(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    body = [(0.3, 0.3), (0.7, 0.3), (0.74, 0.5), (0.72, 0.84), (0.28, 0.84), (0.26, 0.5)]
    pen.line(body, 1.4, closed=True)
    pen.ellipse((0.5, 0.3), (0.2, 0.045), 1.2)
    pen.line([(0.66, 0.3), (0.8, 0.24)], 1.6)
    _shade(
        pen,
        [(0.55, 0.32), (0.7, 0.3), (0.74, 0.5), (0.72, 0.84), (0.55, 0.84)],
        rng,
        sp,
        cross=bool(rng.random() < 0.5),
    )
    pen.curve([(0.3, 0.3), (0.32, 0.06), (0.68, 0.06), (0.7, 0.3)], 1.2)
    pen.line([(0.27, 0.56), (0.73, 0.56)], 1.0)


def _pump_kitchen(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    bench = rect(0.12, 0.62, 0.88, 0.7)
    pen.line(bench, 1.3, closed=True)
    _shade(pen, bench, rng, sp * 0.7)
    pen.line([(0.18, 0.7), (0.18, 0.9)], 1.4)
    pen.line([(0.82, 0.7), (0.82, 0.9)], 1.4)
    sink = [(0.5, 0.55), (0.86, 0.55), (0.82, 0.62), (0.54, 0.62)]
    pen.line(sink, 1.1, closed=True)
    body = [(0.28, 0.3), (0.42, 0.3), (0.44, 0.62), (0.26, 0.62)]
    pen.line(body, 1.4, closed=True)
    pen.hatch(pen.mask(body), rng.uniform(60, 80), sp, cross=bool(rng.random() < 0.4))
    pen.curve([(0.42, 0.38), (0.6, 0.34), (0.66, 0.5)], 2.0)
    pen.curve([(0.34, 0.3), (0.3, 0.12), (0.08, 0.16)], 1.5)
    pen.ellipse((0.35, 0.28), (0.09, 0.025), 1.1)


def _carriage_cart(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    box = [(0.15, 0.38), (0.65, 0.38), (0.62, 0.58), (0.18, 0.58)]
    pen.line(box, 1.4, closed=True)
    for x in np.linspace(0.22, 0.58, int(rng.integers(3, 6))):
        pen.line([(x, 0.39), (x, 0.57)], 0.5)
    _shade(pen, box, rng, sp * 0.9)
    _wheel(pen, (0.4, 0.66), rng.uniform(0.17, 0.22), int(rng.integers(8, 13)))
    pen.line([(0.62, 0.48), (0.97, 0.58)], 1.3)
    pen.line([(0.6, 0.54), (0.96, 0.64)], 1.0)
    pen.line([(0.05, 0.88), (0.95, 0.88)], 0.7)


def _plow_furrows(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    # furrows running to the horizon under a walking plow
    for k in range(6):
        x = 0.05 + 0.18 * k
        pen.line([(x, 0.95), (0.45 + 0.02 * k, 0.62)], 0.6)
    pen.line([(0.0, 0.62), (1.0, 0.62)], 0.8)
    blade = [(0.45, 0.48), (0.66, 0.42), (0.78, 0.56), (0.66, 0.7), (0.48, 0.66)]
    pen.line(blade, 1.5, closed=True)
    pen.hatch(pen.mask(blade), rng.uniform(-70, -30), sp * 0.7, cross=bool(rng.random() < 0.5))
    pen.line([(0.06, 0.42), (0.58, 0.52)], 2.0)
    pen.line([(0.58, 0.5), (0.86, 0.12)], 1.5)
    pen.line([(0.62, 0.52), (0.94, 0.18)], 1.5)
    pen.line([(0.74, 0.3), (0.82, 0.34)], 0.8)


def _pail_ladle(pen: Pen, rng: np.random.Generator, sp: float) -> None:
    tw, bw = rng.uniform(0.24, 0.3), rng.uniform(0.18, 0.22)
    body = [(0.5 - tw, 0.4), (0.5 + tw, 0.4), (0.5 + bw, 0.84), (0.5 - bw, 0.84)]
    pen.line(body, 1.4, closed=True)
    pen.ellipse((0.5, 0.4), (tw, 0.05), 1.2)
    water = ring((0.5, 0.41), (tw * 0.85, 0.035), 24)
    pen.hatch(pen.mask(water), 0, sp * 0.6)
    for y in (0.52, 0.76):
        w = tw + (bw - tw) * (y - 0.4) / 0.44
        pen.line([(0.5 - w, y), (0.5 + w, y)], 1.8)
    _shade(pen, [(0.5, 0.42), (0.5 + tw, 0.4), (0.5 + bw, 0.84), (0.5, 0.84)], rng, sp)
    pen.line([(0.45, 0.42), (0.78, 0.08)], 1.4)
    pen.ellipse((0.4, 0.43), (0.07, 0.03), 1.1)
    pen.curve([(0.5 - tw, 0.4), (0.5, rng.uniform(0.05, 0.15)), (0.5 + tw, 0.4)], 1.0)


DRAWINGS: dict[str, tuple[Drawing, ...]] = {
    "pump": (_pump_pitcher, _pump_post, _pump_iron, _pump_kitchen),
    "carriage": (_carriage_buggy, _carriage_wagon, _carriage_coach, _carriage_cart),
    "plow": (_plow_walking, _plow_share, _plow_wheeled, _plow_furrows),
    "pail": (_pail_wooden, _pail_tin, _pail_milk, _pail_ladle),
}


def ink_shade(ink: str, rng: np.random.Generator) -> np.ndarray:
    """The deck's ink with a print-run shade jitter (BGR float)."""
    base = np.array(INK_BGR[ink], np.float32)
    shade = base * rng.uniform(0.8, 1.15) + rng.normal(0, 10, 3)
    return np.clip(shade, 0, 255)


def draw_back(deck: str, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """One print of ``deck``'s back, ``h`` x ``w`` BGR uint8 (corners are cut later by alpha)."""
    obj, ink = DECK_ART[deck]
    ss = 2  # supersampling for clean thin lines
    cov = np.zeros((h * ss, w * ss), np.float32)
    ppm = w * ss / 56.0
    inset = rng.uniform(2.5, 4.5) * ppm
    # thin border, sometimes doubled
    border = rounded_rect_pts(inset, inset, w * ss - inset, h * ss - inset, 2.5 * ppm)
    bpen = Pen(cov, (0, 0, w * ss, h * ss), rng, rng.uniform(0.35, 0.9) * ppm)
    bpen._m = np.eye(2)
    bpen._c = np.zeros(2)
    bpen.line(border + 0.5, 1.0, closed=True)
    if rng.random() < 0.4:
        i2 = inset + rng.uniform(1.0, 1.8) * ppm
        bpen.line(
            rounded_rect_pts(i2, i2, w * ss - i2, h * ss - i2, 2 * ppm) + 0.5, 0.5, closed=True
        )
    # the etching: centred in the card with a print offset
    off = rng.normal(0, 1.2, 2) * ppm
    side = w * ss - 2 * inset - rng.uniform(3, 8) * ppm
    cy = h * ss / 2 + off[1] + rng.uniform(-4, 4) * ppm
    cx = w * ss / 2 + off[0]
    box = (cx - side / 2, cy - side * 0.62, cx + side / 2, cy + side * 0.62)
    pen = Pen(
        cov,
        box,
        rng,
        rng.uniform(0.3, 0.7) * ppm,
        mirror=bool(rng.random() < 0.5),
        tilt_deg=rng.normal(0, 2.5),
    )
    pen.wobble = rng.uniform(0, 0.25) * ppm
    if rng.random() < 0.3:  # an oval vignette around the picture, as on old labels
        pen.ellipse((0.5, 0.5), (0.48, 0.44), 0.8)
    drawings = DRAWINGS[obj]
    drawings[int(rng.integers(len(drawings)))](pen, rng, rng.uniform(0.65, 1.3) * ppm)
    cov = cv2.resize(cov, (w, h), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.2:  # plate tone: a faint film of ink left on the whole print
        cov = np.maximum(cov, np.float32(rng.uniform(0.03, 0.08)))
    wear = float(rng.uniform(0, 0.5) ** 1.5)
    out = ink_on_paper(cov, ink_shade(ink, rng), paper_color(rng), rng, wear)
    return edge_wear(out, rng, wear)
