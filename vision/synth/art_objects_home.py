"""Household objects for card backs: each drawn from primitives, proportions from the rng.

Every function draws one object into a :class:`Sketch` (normalised box, y down); the rng
sets its proportions and details, so one name is a whole family of pictures.
"""

from __future__ import annotations

import numpy as np

from vision.synth.art_sketch import Sketch

Rng = np.random.Generator


def teapot(s: Sketch, r: Rng) -> None:
    w, top, bot = r.uniform(0.22, 0.3), r.uniform(0.36, 0.44), r.uniform(0.74, 0.8)
    s.curve([(0.5 + w * 0.9, 0.55), (0.88, 0.5), (0.9, r.uniform(0.3, 0.38))], 2.2)  # spout
    s.curve([(0.5 - w * 0.95, 0.45), (0.12, 0.4), (0.14, 0.6), (0.5 - w * 0.9, 0.66)], 1.6)
    s.lathe([(w * 0.55, top), (w, top + 0.12), (w * 1.05, 0.6), (w * 0.8, bot)], tone=0.5)
    s.ellipse((0.5, top), (w * 0.55, 0.03), 0.7)
    s.lathe([(0.03, top - 0.1), (w * 0.35, top - 0.04), (w * 0.5, top)], tone=0.6)
    s.ellipse((0.5, top - 0.11), (0.03, 0.025), 0.8)
    s.rect(0.5 - w * 0.6, bot, 0.5 + w * 0.6, bot + 0.03, 0.8)


def kettle(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.24, 0.32)
    s.arc((0.5, 0.42), (w * 0.8, r.uniform(0.16, 0.24)), 180, 360, 2.0)  # bail handle
    s.stroke([(0.5 + w * 0.85, 0.62), (0.86, 0.46)], 2.4)
    s.lathe([(w * 0.7, 0.42), (w, 0.55), (w * 1.05, 0.72), (w * 0.95, 0.82)], tone=0.6)
    s.ellipse((0.5, 0.42), (w * 0.7, 0.035), 0.8)
    s.ellipse((0.5, 0.38), (0.04, 0.03), 0.9)


def jug(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.16, 0.24)
    s.curve([(0.5 + w * 0.9, 0.3), (0.86, 0.32), (0.84, 0.62), (0.5 + w, 0.66)], 2.0)
    s.lathe(
        [(w * 0.7, 0.18), (w * 0.55, 0.3), (w * 1.2, 0.5), (w * 1.1, 0.78), (w * 0.8, 0.86)],
        tone=r.uniform(0.3, 0.6),
    )
    s.region([(0.5 - w * 0.7, 0.18), (0.5 - w * 1.1, 0.14), (0.5 - w * 0.5, 0.22)], 0.6)
    s.ellipse((0.5, 0.18), (w * 0.7, 0.025), 0.8)
    for y in r.uniform(0.45, 0.75, int(r.integers(0, 3))):
        s.stroke([(0.5 - w, y), (0.5 + w, y)], 0.6)


def cup(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.22, 0.3)
    s.ellipse((0.5, 0.78), (0.42, 0.07), 0.3)  # saucer
    s.curve([(0.5 + w * 0.9, 0.44), (0.88, 0.46), (0.86, 0.64), (0.5 + w * 0.7, 0.66)], 2.0)
    s.lathe([(w, 0.4), (w * 0.95, 0.55), (w * 0.62, 0.76)], tone=0.45)
    s.ellipse((0.5, 0.4), (w, 0.05), 0.2)
    for k in range(int(r.integers(0, 3))):  # steam
        x = 0.42 + 0.08 * k
        s.curve([(x, 0.32), (x - 0.05, 0.22), (x + 0.05, 0.14), (x, 0.06)], 0.6)


def bottle(s: Sketch, r: Rng) -> None:
    w, neck = r.uniform(0.13, 0.2), r.uniform(0.05, 0.07)
    sh = r.uniform(0.35, 0.5)
    s.lathe([(neck, 0.08), (neck, sh - 0.12), (w, sh), (w, 0.9)], tone=r.uniform(0.4, 0.8))
    s.rect(0.5 - neck * 1.2, 0.06, 0.5 + neck * 1.2, 0.11, 0.9)
    s.hole(
        [(0.5 - w * 0.8, 0.58), (0.5 + w * 0.8, 0.58), (0.5 + w * 0.8, 0.76), (0.5 - w * 0.8, 0.76)]
    )


def vase(s: Sketch, r: Rng) -> None:
    a, b, c = r.uniform(0.1, 0.16), r.uniform(0.2, 0.3), r.uniform(0.12, 0.18)
    s.lathe([(a, 0.12), (a * 0.8, 0.25), (b, 0.55), (c, 0.86), (c * 1.2, 0.9)], tone=0.5)
    s.ellipse((0.5, 0.12), (a * 1.2, 0.025), 0.7)
    for y in (0.4, 0.66):
        s.stroke([(0.5 - b * 0.8, y), (0.5 + b * 0.8, y)], 0.8)
    if r.random() < 0.5:  # flowers in it
        for k in range(3):
            x = 0.38 + 0.12 * k
            s.stroke([(0.5, 0.12), (x, 0.0)], 0.6)
            s.ellipse((x, -0.02), (0.04, 0.04), 0.6)


def lantern(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.16, 0.22)
    s.arc((0.5, 0.16), (0.08, 0.08), 180, 360, 1.4)  # ring
    s.region(
        [(0.5 - w * 0.5, 0.2), (0.5 + w * 0.5, 0.2), (0.5 + w * 1.1, 0.3), (0.5 - w * 1.1, 0.3)],
        0.8,
    )
    s.rect(0.5 - w, 0.3, 0.5 + w, 0.74, 0.1)  # glass
    s.lathe([(0.03, 0.42), (0.06, 0.52), (0.02, 0.62)], tone=0.3)  # flame
    for x in (0.5 - w, 0.5, 0.5 + w):
        s.stroke([(x, 0.3), (x, 0.74)], 0.9)
    s.rect(0.5 - w * 1.15, 0.74, 0.5 + w * 1.15, 0.8, 0.8)


def candle(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.05, 0.08)
    s.ellipse((0.5, 0.82), (r.uniform(0.22, 0.3), 0.05), 0.6)  # dish
    s.curve([(0.72, 0.82), (0.86, 0.76), (0.82, 0.66), (0.72, 0.7)], 1.4)
    s.rect(0.5 - w, r.uniform(0.28, 0.42), 0.5 + w, 0.8, 0.3)
    s.lathe([(0.0, 0.1), (0.04, 0.2), (0.03, 0.26), (0.005, 0.28)], tone=0.2)
    s.stroke([(0.5, 0.26), (0.5, 0.32)], 0.8)


def oil_lamp(s: Sketch, r: Rng) -> None:
    s.lathe([(0.06, 0.12), (0.1, 0.25), (0.12, 0.4), (0.07, 0.46)], tone=0.1)  # chimney
    s.lathe([(0.08, 0.46), (0.22, 0.56), (0.18, 0.66), (0.05, 0.72)], tone=0.6)
    s.lathe([(0.04, 0.72), (0.06, 0.82), (r.uniform(0.14, 0.2), 0.88)], tone=0.7)
    s.lathe([(0.0, 0.2), (0.03, 0.3), (0.0, 0.38)], tone=0.4)


def bell(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.28, 0.36)
    s.arc((0.5, 0.14), (0.06, 0.06), 180, 360, 1.6)
    s.lathe([(0.1, 0.16), (0.15, 0.3), (0.2, 0.55), (w, 0.74), (w + 0.04, 0.78)], tone=0.6)
    s.ellipse((0.5, 0.82), (0.05, 0.05), 0.9)
    s.stroke([(0.5 - w * 0.7, 0.66), (0.5 + w * 0.7, 0.66)], 0.8)


def clock(s: Sketch, r: Rng) -> None:
    rr = r.uniform(0.28, 0.36)
    if r.random() < 0.5:  # a mantel clock on feet
        s.region([(0.12, 0.86), (0.14, 0.5), (0.5, 0.12), (0.86, 0.5), (0.88, 0.86)], 0.6)
    s.ellipse((0.5, 0.52), (rr, rr), 0.7, 1.4)
    s.ellipse((0.5, 0.52), (rr * 0.85, rr * 0.85), 0.05)
    for k in range(12):
        a = np.pi * k / 6
        c, d = np.cos(a), np.sin(a)
        s.stroke(
            [(0.5 + c * rr * 0.7, 0.52 + d * rr * 0.7), (0.5 + c * rr * 0.8, 0.52 + d * rr * 0.8)],
            0.8,
        )
    a1, a2 = r.uniform(0, 2 * np.pi, 2)
    s.stroke([(0.5, 0.52), (0.5 + np.cos(a1) * rr * 0.6, 0.52 + np.sin(a1) * rr * 0.6)], 1.4)
    s.stroke([(0.5, 0.52), (0.5 + np.cos(a2) * rr * 0.4, 0.52 + np.sin(a2) * rr * 0.4)], 1.8)


def hourglass(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.2, 0.26)
    s.rect(0.2, 0.08, 0.8, 0.14, 0.8)
    s.rect(0.2, 0.86, 0.8, 0.92, 0.8)
    s.region(
        [
            (0.5 - w, 0.14),
            (0.5 + w, 0.14),
            (0.53, 0.5),
            (0.5 + w, 0.86),
            (0.5 - w, 0.86),
            (0.47, 0.5),
        ],
        0.1,
    )
    s.region([(0.5 - w * 0.8, 0.86), (0.5, 0.62), (0.5 + w * 0.8, 0.86)], 0.7)  # sand
    s.region([(0.5 - w * 0.4, 0.3), (0.5 + w * 0.4, 0.3), (0.5, 0.46)], 0.7)
    for x in (0.25, 0.75):
        s.stroke([(x, 0.14), (x, 0.86)], 1.2)


def chair(s: Sketch, r: Rng) -> None:
    seat, back = r.uniform(0.52, 0.6), r.uniform(0.08, 0.18)
    s.rect(0.3, back, 0.34, 0.9, 0.7)
    s.rect(0.66, back, 0.7, 0.9, 0.7)
    for y in np.linspace(back + 0.06, seat - 0.08, int(r.integers(2, 5))):
        s.rect(0.34, y, 0.66, y + 0.035, 0.6)
    s.region([(0.22, seat), (0.78, seat), (0.74, seat + 0.06), (0.26, seat + 0.06)], 0.5)
    s.rect(0.22, seat + 0.06, 0.26, 0.92, 0.7)
    s.rect(0.74, seat + 0.06, 0.78, 0.92, 0.7)
    s.stroke([(0.24, 0.8), (0.76, 0.8)], 0.8)


def key(s: Sketch, r: Rng) -> None:
    rr = r.uniform(0.12, 0.17)
    s.ellipse((0.5, 0.2), (rr, rr), 0.6, 1.3)
    s.hole(
        [(0.5 + rr * 0.5 * np.cos(t), 0.2 + rr * 0.5 * np.sin(t)) for t in np.linspace(0, 6.28, 24)]
    )
    s.rect(0.47, 0.2 + rr, 0.53, 0.88, 0.6)
    for k in range(int(r.integers(2, 4))):
        y = 0.72 + 0.06 * k
        s.rect(0.53, y, 0.53 + r.uniform(0.08, 0.16), y + 0.04, 0.6)


def scissors(s: Sketch, r: Rng) -> None:
    a = r.uniform(0.12, 0.22)
    for sgn in (-1, 1):
        s.region(
            [
                (0.5, 0.5),
                (0.5 + sgn * a, 0.06),
                (0.5 + sgn * (a - 0.05), 0.06),
                (0.5 - sgn * 0.02, 0.5),
            ],
            0.4,
        )
        s.ellipse((0.5 - sgn * 0.14, 0.76), (0.1, 0.12), 0.6, 1.3)
        s.ellipse((0.5 - sgn * 0.14, 0.76), (0.06, 0.08), 0.0)
        s.stroke([(0.5, 0.5), (0.5 - sgn * 0.1, 0.66)], 2.2)
    s.ellipse((0.5, 0.5), (0.025, 0.025), 0.9)


def hammer(s: Sketch, r: Rng) -> None:
    s.rect(0.46, 0.26, 0.54, 0.92, 0.35)
    s.region([(0.22, 0.12), (0.7, 0.12), (0.78, 0.2), (0.7, 0.28), (0.22, 0.28)], 0.8)
    if r.random() < 0.5:  # a claw
        s.curve([(0.7, 0.14), (0.86, 0.12), (0.9, 0.04)], 2.0)


def umbrella(s: Sketch, r: Rng) -> None:
    w, h = r.uniform(0.36, 0.44), r.uniform(0.22, 0.3)
    t = np.linspace(np.pi, 2 * np.pi, 30)
    canopy = np.stack([0.5 + w * np.cos(t), 0.42 + h * np.sin(t)], 1)
    scallops = [(0.5 + w - 2 * w * k / 4, 0.42 + 0.03 * (k % 2)) for k in range(5)]
    s.region(np.vstack([canopy, scallops]), 0.5)
    for k in (1, 2, 3):
        s.curve(
            [(0.5, 0.42 - h), (0.5 - w + 2 * w * k / 4, 0.3), (0.5 - w + 2 * w * k / 4, 0.42)], 0.6
        )
    s.stroke([(0.5, 0.42), (0.5, 0.82)], 1.4)
    s.arc((0.44, 0.82), (0.06, 0.06), 0, 180, 1.4)


def top_hat(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.18, 0.24)
    s.region([(0.5 - w, 0.18), (0.5 + w, 0.18), (0.5 + w * 0.9, 0.68), (0.5 - w * 0.9, 0.68)], 0.7)
    s.ellipse((0.5, 0.7), (r.uniform(0.36, 0.44), 0.07), 0.8)
    s.rect(0.5 - w * 0.9, 0.56, 0.5 + w * 0.9, 0.64, 0.2)
    s.ellipse((0.5, 0.18), (w, 0.035), 0.5)


def boot(s: Sketch, r: Rng) -> None:
    toe = r.uniform(0.78, 0.9)
    s.region(
        [
            (0.3, 0.1),
            (0.56, 0.1),
            (0.56, 0.6),
            (toe, 0.7),
            (toe + 0.02, 0.82),
            (0.28, 0.82),
            (0.3, 0.5),
        ],
        0.6,
    )
    s.rect(0.26, 0.82, toe + 0.03, 0.88, 0.9)
    s.rect(0.26, 0.74, 0.36, 0.88, 0.9)  # heel
    for y in np.linspace(0.2, 0.5, 4):
        s.stroke([(0.5, y), (0.56, y + 0.02)], 0.7)
    s.rect(0.28, 0.1, 0.58, 0.15, 0.8)


def clog(s: Sketch, r: Rng) -> None:
    h = r.uniform(0.22, 0.3)
    s.region(
        [
            (0.08, 0.66),
            (0.18, 0.5 - h / 2),
            (0.52, 0.42),
            (0.86, 0.52),
            (0.94, 0.62),
            (0.86, 0.72),
            (0.14, 0.74),
        ],
        0.4,
    )
    s.ellipse((0.3, 0.52), (0.13, 0.05), 0.9)  # the opening
    s.curve([(0.5, 0.56), (0.62, 0.5), (0.76, 0.58)], 0.8)
    s.blob((0.66, 0.6), (0.05, 0.03), r, 0.2, 0.8)


def flat_iron(s: Sketch, r: Rng) -> None:
    s.region([(0.1, 0.8), (0.2, 0.56), (0.66, 0.5), (0.92, 0.8)], 0.7)
    s.rect(0.08, 0.8, 0.94, 0.85, 0.9)
    s.curve([(0.3, 0.54), (0.34, 0.28), (0.66, 0.28), (0.7, 0.52)], 2.4)


def cook_pot(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.28, 0.36)
    s.rect(0.5 - w, 0.4, 0.5 + w, 0.78, 0.6)
    s.ellipse((0.5, 0.78), (w, 0.04), 0.7)
    s.ellipse((0.5, 0.38), (w + 0.03, 0.05), 0.8)
    s.lathe([(0.03, 0.24), (0.12, 0.3), (w * 0.9, 0.36)], tone=0.5)
    s.rect(0.5 - w - 0.1, 0.44, 0.5 - w, 0.48, 0.9)
    s.rect(0.5 + w, 0.44, 0.5 + w + 0.1, 0.48, 0.9)


def watering_can(s: Sketch, r: Rng) -> None:
    s.stroke([(0.62, 0.66), (0.92, r.uniform(0.26, 0.36))], 2.4)
    s.ellipse((0.93, 0.28), (0.04, 0.03), 0.8)
    s.curve([(0.28, 0.34), (0.4, 0.16), (0.58, 0.16), (0.66, 0.34)], 2.0)
    s.region([(0.24, 0.36), (0.68, 0.36), (0.7, 0.84), (0.22, 0.84)], 0.5)
    s.ellipse((0.46, 0.36), (0.22, 0.03), 0.7)


def basket(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.32, 0.4)
    s.arc((0.5, 0.5), (w * 0.85, r.uniform(0.3, 0.4)), 180, 360, 2.2)
    s.region([(0.5 - w, 0.5), (0.5 + w, 0.5), (0.5 + w * 0.75, 0.86), (0.5 - w * 0.75, 0.86)], 0.45)
    for y in np.linspace(0.56, 0.8, 4):
        s.stroke([(0.5 - w * 0.95, y), (0.5 + w * 0.95, y)], 0.6)
    for x in np.linspace(-0.8, 0.8, 7):
        s.stroke([(0.5 + x * w, 0.5), (0.5 + x * w * 0.75, 0.86)], 0.5)


def barrel(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.24, 0.3)
    s.lathe([(w * 0.82, 0.14), (w, 0.5), (w * 0.82, 0.86)], tone=0.45)
    s.ellipse((0.5, 0.14), (w * 0.82, 0.04), 0.3)
    for y in (0.24, 0.4, 0.6, 0.76):
        s.stroke([(0.5 - w * 0.95, y), (0.5 + w * 0.95, y)], 1.4)
    for x in (-0.5, 0.0, 0.5):
        s.stroke([(0.5 + x * w, 0.18), (0.5 + x * w * 1.1, 0.5), (0.5 + x * w, 0.84)], 0.5)


OBJECTS = {
    f.__name__: f
    for f in (
        teapot, kettle, jug, cup, bottle, vase, lantern, candle, oil_lamp, bell, clock,
        hourglass, chair, key, scissors, hammer, umbrella, top_hat, boot, clog, flat_iron,
        cook_pot, watering_can, basket, barrel,
    )
}  # fmt: skip
