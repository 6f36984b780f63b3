"""The child on a face card, drawn from simple shapes with a family's own proportions.

A :class:`FigureSpec` fixes one family's boy and girl (hat, build, pose, how they are
painted); :func:`draw_figure` paints one onto a float BGR image.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BOY_HATS = ("cap", "brim", "none")
GIRL_HATS = ("bonnet", "braids", "scarf")
PAINT = ("flat", "silhouette", "white")


@dataclass(frozen=True)
class FigureSpec:
    """One family's child figures; lengths in units of the figure's width."""

    boy_hat: str
    girl_hat: str
    head: float  # head radius
    build: float  # body width factor
    arms: float  # arm angle, + raised
    paint: str  # "flat" (skin, clothes, shoes), "silhouette" (one dark ink), "white"
    skin: tuple[float, float, float]  # BGR


def random_figure(rng: np.random.Generator) -> FigureSpec:
    skin = np.array([150, 185, 230]) * rng.uniform(0.7, 1.05) + rng.normal(0, 6, 3)
    return FigureSpec(
        boy_hat=str(rng.choice(BOY_HATS)),
        girl_hat=str(rng.choice(GIRL_HATS)),
        head=float(rng.uniform(0.15, 0.21)),
        build=float(rng.uniform(0.85, 1.15)),
        arms=float(rng.uniform(-0.12, 0.18)),
        paint=str(rng.choice(PAINT, p=[0.6, 0.25, 0.15])),
        skin=tuple(float(v) for v in np.clip(skin, 0, 255)),
    )


class _Painter:
    """Fills shapes given in figure units (x 0..1, y 0..1.4) on ``img`` at (ox, oy), scale s."""

    def __init__(self, img: np.ndarray, ox: float, oy: float, s: float) -> None:
        self.img, self.ox, self.oy, self.s = img, ox, oy, s

    def poly(self, pts: list[tuple[float, float]], color: np.ndarray) -> None:
        p = np.asarray(pts, np.float64) * self.s + (self.ox, self.oy)
        cv2.fillPoly(self.img, [np.round(p * 16).astype(np.int32)], color.tolist(), cv2.LINE_AA, 4)

    def ell(self, c: tuple[float, float], r: tuple[float, float], color: np.ndarray) -> None:
        ctr = (int((c[0] * self.s + self.ox) * 16), int((c[1] * self.s + self.oy) * 16))
        ax = (max(1, int(r[0] * self.s * 16)), max(1, int(r[1] * self.s * 16)))
        cv2.ellipse(self.img, ctr, ax, 0, 0, 360, color.tolist(), -1, cv2.LINE_AA, 4)


def draw_figure(
    img: np.ndarray,
    spec: FigureSpec,
    boy: bool,
    base: np.ndarray,
    ox: float,
    oy: float,
    s: float,
    rng: np.random.Generator,
) -> None:
    """A boy or girl ``s`` px wide (1.4 s tall) with its top-left at (ox, oy); ``base`` is
    the card's colour (BGR float), which the clothes take a shade of."""
    dark = np.array([40, 35, 45], np.float32) * rng.uniform(0.8, 1.2)
    white = np.array([245, 245, 242], np.float32)
    skin = np.array(spec.skin, np.float32)
    cloth = np.clip(base * 0.7, 0, 255)
    if spec.paint == "silhouette":
        skin = cloth = dark = np.clip(base * 0.35, 0, 255)
        white = np.clip(base * 0.55, 0, 255)
    elif spec.paint == "white":
        skin = cloth = dark = white = np.clip(base + (255 - base) * 0.85, 0, 255)
    p = _Painter(img, ox, oy, s)
    b, hr, a = spec.build, spec.head, spec.arms
    hy = 0.2 + hr  # head centre
    neck = hy + hr * 0.9
    if boy:
        p.poly(
            [
                (0.5 - 0.2 * b, neck),
                (0.5 + 0.2 * b, neck),
                (0.5 + 0.24 * b, 0.95),
                (0.5 - 0.24 * b, 0.95),
            ],
            cloth,
        )
        p.poly([(0.5 - 0.22 * b, 0.92), (0.48, 0.92), (0.46, 1.3), (0.5 - 0.17 * b, 1.3)], dark)
        p.poly([(0.52, 0.92), (0.5 + 0.22 * b, 0.92), (0.5 + 0.17 * b, 1.3), (0.54, 1.3)], dark)
    else:
        p.poly(
            [
                (0.5 - 0.14 * b, neck),
                (0.5 + 0.14 * b, neck),
                (0.5 + 0.36 * b, 1.18),
                (0.5 - 0.36 * b, 1.18),
            ],
            cloth,
        )
        p.poly(
            [
                (0.5 - 0.11 * b, neck + 0.15),
                (0.5 + 0.11 * b, neck + 0.15),
                (0.5 + 0.2 * b, 1.12),
                (0.5 - 0.2 * b, 1.12),
            ],
            white,
        )
        for x in (0.42, 0.54):
            p.poly([(x, 1.16), (x + 0.05, 1.16), (x + 0.045, 1.3), (x + 0.005, 1.3)], dark)
    for sgn in (-1, 1):  # arms
        sx = 0.5 + sgn * (0.2 * b if boy else 0.13 * b)
        hx = 0.5 + sgn * 0.38
        hy2 = 0.86 - a
        p.poly(
            [
                (sx, neck + 0.02),
                (hx, hy2),
                (hx - sgn * 0.06, hy2 + 0.05),
                (sx - sgn * 0.04, neck + 0.12),
            ],
            cloth,
        )
        p.ell((hx - sgn * 0.02, hy2 + 0.03), (0.035, 0.035), skin)
    for x in (0.44, 0.56):  # clogs
        p.ell((x, 1.32), (0.07, 0.035), dark * 0.8)
    p.ell((0.5, hy), (hr, hr * 1.08), skin)
    hat = spec.boy_hat if boy else spec.girl_hat
    if hat == "cap":
        p.poly(
            [
                (0.5 - hr * 1.05, hy - hr * 0.3),
                (0.5 + hr * 1.05, hy - hr * 0.3),
                (0.5 + hr * 0.7, hy - hr * 1.1),
                (0.5 - hr * 0.7, hy - hr * 1.1),
            ],
            dark,
        )
        p.poly(
            [
                (0.5 - hr * 1.4, hy - hr * 0.3),
                (0.5 + hr * 0.2, hy - hr * 0.3),
                (0.5 + hr * 0.2, hy - hr * 0.15),
                (0.5 - hr * 1.4, hy - hr * 0.15),
            ],
            dark,
        )
    elif hat == "brim":
        p.ell((0.5, hy - hr * 0.55), (hr * 1.7, hr * 0.25), dark)
        p.poly(
            [
                (0.5 - hr * 0.8, hy - hr * 0.55),
                (0.5 + hr * 0.8, hy - hr * 0.55),
                (0.5 + hr * 0.65, hy - hr * 1.4),
                (0.5 - hr * 0.65, hy - hr * 1.4),
            ],
            dark,
        )
    elif hat == "none":
        p.poly(
            [
                (0.5 - hr, hy - hr * 0.2),
                (0.5 - hr * 0.6, hy - hr * 1.05),
                (0.5 + hr * 0.6, hy - hr * 1.05),
                (0.5 + hr, hy - hr * 0.2),
                (0.5, hy - hr * 0.6),
            ],
            dark,
        )
    elif hat == "bonnet":
        p.poly(
            [
                (0.5 - hr * 1.25, hy + hr * 0.4),
                (0.5 - hr * 1.1, hy - hr * 0.9),
                (0.5, hy - hr * 1.35),
                (0.5 + hr * 1.1, hy - hr * 0.9),
                (0.5 + hr * 1.25, hy + hr * 0.4),
                (0.5 + hr * 0.8, hy - hr * 0.5),
                (0.5 - hr * 0.8, hy - hr * 0.5),
            ],
            white,
        )
    elif hat == "braids":
        p.ell((0.5, hy - hr * 0.45), (hr * 1.02, hr * 0.7), dark)
        for sgn in (-1, 1):
            p.poly(
                [
                    (0.5 + sgn * hr * 0.9, hy),
                    (0.5 + sgn * hr * 1.25, hy + hr * 1.6),
                    (0.5 + sgn * hr * 1.05, hy + hr * 1.7),
                    (0.5 + sgn * hr * 0.7, hy + hr * 0.2),
                ],
                dark,
            )
    else:  # scarf
        p.poly(
            [
                (0.5 - hr * 1.15, hy + hr * 0.3),
                (0.5 - hr * 1.05, hy - hr * 0.8),
                (0.5, hy - hr * 1.2),
                (0.5 + hr * 1.05, hy - hr * 0.8),
                (0.5 + hr * 1.15, hy + hr * 0.3),
                (0.5, hy - hr * 0.55),
            ],
            cloth * 0.85,
        )
    if spec.paint == "flat":
        for sgn in (-1, 1):
            p.ell((0.5 + sgn * hr * 0.35, hy), (0.018, 0.02), dark)
