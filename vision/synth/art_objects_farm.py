"""Farm and village objects for card backs, the world of the game's own four pictures.

Each function draws one object into a :class:`Sketch` (normalised box, y down) with
proportions from the rng. The classic four (pump, carriage, plow, pail) are here too, drawn
afresh, so a family may keep a real deck's object in a picture of its own.
"""

from __future__ import annotations

import numpy as np

from vision.synth.art_sketch import Sketch

Rng = np.random.Generator


def pump(s: Sketch, r: Rng) -> None:
    w, top = r.uniform(0.07, 0.11), r.uniform(0.22, 0.32)
    lever = r.uniform(-0.1, 0.08)
    s.stroke([(0.5, top), (0.16, top - 0.1 + lever)], 2.0)
    s.ellipse((0.16, top - 0.1 + lever), (0.03, 0.025), 0.8)
    s.rect(0.5 - w, top, 0.5 + w, 0.8, 0.55)
    s.region([(0.5 + w, 0.42), (0.82, 0.46), (0.84, 0.54), (0.5 + w, 0.5)], 0.6)
    s.lathe([(0.02, top - 0.08), (w * 1.2, top - 0.02), (w * 1.3, top)], tone=0.7)
    s.rect(0.28, 0.8, 0.72, 0.86, 0.8)
    if r.random() < 0.6:
        s.region([(0.6, 0.68), (0.9, 0.68), (0.86, 0.78), (0.64, 0.78)], 0.4)  # trough


def carriage(s: Sketch, r: Rng) -> None:
    hood = r.random() < 0.6
    s.region([(0.18, 0.44), (0.72, 0.44), (0.76, 0.62), (0.2, 0.62)], 0.55)
    if hood:
        s.region([(0.2, 0.44), (0.24, 0.2), (0.5, 0.16), (0.52, 0.44)], 0.7)
    s.stroke([(0.74, 0.5), (0.97, 0.44)], 1.2)
    s.wheel((0.3, 0.7), r.uniform(0.15, 0.2), int(r.integers(6, 11)))
    s.wheel((0.7, 0.72), r.uniform(0.1, 0.14), int(r.integers(5, 9)))


def plow(s: Sketch, r: Rng) -> None:
    hy = r.uniform(0.1, 0.22)
    s.stroke([(0.1, 0.5), (0.62, 0.64)], 2.2)
    s.stroke([(0.58, 0.62), (0.26, hy)], 1.6)
    s.stroke([(0.66, 0.6), (0.38, hy - 0.03)], 1.6)
    s.region([(0.54, 0.58), (0.74, 0.52), (0.92, 0.62), (0.82, 0.8), (0.6, 0.76)], 0.7)
    s.ellipse((0.1, 0.55), (0.05, 0.05), 0.6)
    s.ground(0.84, 0.04, 0.96)


def pail(s: Sketch, r: Rng) -> None:
    tw, bw = r.uniform(0.24, 0.3), r.uniform(0.17, 0.22)
    s.curve([(0.5 - tw, 0.38), (0.5, r.uniform(0.04, 0.14)), (0.5 + tw, 0.38)], 1.5)
    s.region([(0.5 - tw, 0.38), (0.5 + tw, 0.38), (0.5 + bw, 0.84), (0.5 - bw, 0.84)], 0.5)
    s.ellipse((0.5, 0.38), (tw, 0.05), 0.2)
    for y in (0.5, 0.74):
        ww = tw + (bw - tw) * (y - 0.38) / 0.46
        s.stroke([(0.5 - ww, y), (0.5 + ww, y)], 1.6)


def milk_can(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.2, 0.25)
    s.lathe([(0.08, 0.1), (0.09, 0.26), (w, 0.4), (w, 0.88)], tone=0.5)
    s.rect(0.5 - 0.11, 0.07, 0.5 + 0.11, 0.11, 0.8)
    for sgn in (-1, 1):
        s.arc((0.5 + sgn * 0.16, 0.34), (0.06, 0.04), 180, 360, 1.4)
    s.stroke([(0.5 - w, 0.62), (0.5 + w, 0.62)], 1.2)


def churn(s: Sketch, r: Rng) -> None:
    s.stroke([(0.5, 0.02), (0.5, 0.2)], 1.8)
    s.ellipse((0.5, 0.03), (0.06, 0.02), 0.8)
    s.lathe([(0.15, 0.2), (0.19, 0.5), (r.uniform(0.22, 0.26), 0.88)], tone=0.45)
    for y in (0.3, 0.6, 0.8):
        s.stroke([(0.3, y), (0.7, y)], 1.2)


def wheelbarrow(s: Sketch, r: Rng) -> None:
    s.region([(0.2, 0.36), (0.7, 0.36), (0.62, 0.6), (0.28, 0.6)], 0.55)
    s.stroke([(0.2, 0.5), (0.04, 0.34)], 1.8)
    s.stroke([(0.64, 0.58), (0.78, 0.7)], 1.4)
    s.stroke([(0.36, 0.6), (0.32, 0.82)], 1.4)
    s.wheel((0.78, 0.7), r.uniform(0.12, 0.16), int(r.integers(6, 10)))


def cart_wheel(s: Sketch, r: Rng) -> None:
    s.wheel((0.5, 0.5), r.uniform(0.38, 0.44), int(r.integers(6, 13)))


def windmill(s: Sketch, r: Rng) -> None:
    s.region([(0.38, 0.9), (0.42, 0.42), (0.58, 0.42), (0.62, 0.9)], 0.5)
    s.region([(0.4, 0.44), (0.5, 0.32), (0.6, 0.44)], 0.8)
    s.hole([(0.47, 0.9), (0.47, 0.8), (0.53, 0.8), (0.53, 0.9)])
    a0 = r.uniform(0, np.pi / 2)
    for k in range(4):
        a = a0 + k * np.pi / 2
        d, n = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        c = np.array([0.5, 0.38])
        sail = [c + d * 0.08, c + d * 0.4, c + d * 0.4 + n * 0.08, c + d * 0.1 + n * 0.08]
        s.region(sail, 0.25)
        s.stroke([c, c + d * 0.42], 1.0)
    s.ellipse((0.5, 0.38), (0.025, 0.025), 0.9)


def barn(s: Sketch, r: Rng) -> None:
    s.region(
        [(0.14, 0.86), (0.14, 0.46), (0.5, r.uniform(0.16, 0.24)), (0.86, 0.46), (0.86, 0.86)], 0.5
    )
    s.rect(0.38, 0.58, 0.62, 0.86, 0.75)
    s.stroke([(0.38, 0.58), (0.62, 0.86)], 0.8)
    s.stroke([(0.62, 0.58), (0.38, 0.86)], 0.8)
    s.hole([(0.45, 0.38), (0.55, 0.38), (0.55, 0.46), (0.45, 0.46)])


def house(s: Sketch, r: Rng) -> None:
    wall, roof = r.uniform(0.46, 0.54), r.uniform(0.14, 0.24)
    s.rect(0.66, roof + 0.02, 0.72, wall - 0.04, 0.8)  # chimney
    s.region([(0.08, wall), (0.5, roof), (0.92, wall)], 0.7)
    s.rect(0.16, wall, 0.84, 0.88, 0.35)
    s.rect(0.44, wall + 0.14, 0.56, 0.88, 0.8)
    for x in (0.22, 0.64):
        s.hole([(x, wall + 0.1), (x + 0.14, wall + 0.1), (x + 0.14, wall + 0.22), (x, wall + 0.22)])


def pitchfork(s: Sketch, r: Rng) -> None:
    s.rect(0.48, 0.36, 0.52, 0.96, 0.35)
    s.curve([(0.36, 0.06), (0.36, 0.42), (0.64, 0.42), (0.64, 0.06)], 1.3)
    s.stroke([(0.5, 0.38), (0.5, 0.04)], 1.3)
    if r.random() < 0.5:
        s.stroke([(0.43, 0.37), (0.43, 0.05)], 1.1)
        s.stroke([(0.57, 0.37), (0.57, 0.05)], 1.1)


def shovel(s: Sketch, r: Rng) -> None:
    s.rect(0.47, 0.16, 0.53, 0.58, 0.35)
    s.region([(0.4, 0.06), (0.6, 0.06), (0.56, 0.16), (0.44, 0.16)], 0.6)
    w = r.uniform(0.14, 0.2)
    s.region([(0.5 - w, 0.58), (0.5 + w, 0.58), (0.5 + w, 0.8), (0.5, 0.94), (0.5 - w, 0.8)], 0.6)


def rake(s: Sketch, r: Rng) -> None:
    s.rect(0.48, 0.24, 0.52, 0.96, 0.35)
    s.rect(0.18, 0.18, 0.82, 0.24, 0.7)
    for x in np.linspace(0.2, 0.8, int(r.integers(6, 11))):
        s.stroke([(x, 0.18), (x, 0.06)], 1.0)


def scythe(s: Sketch, r: Rng) -> None:
    s.curve([(0.62, 0.96), (0.56, 0.5), (0.5, 0.08)], 1.6)
    s.region([(0.5, 0.1), (0.2, 0.08), (0.06, 0.2), (0.3, 0.14), (0.5, 0.15)], 0.6)
    s.stroke([(0.55, 0.5), (0.68, 0.46)], 1.4)


def beehive(s: Sketch, r: Rng) -> None:
    s.lathe([(0.02, 0.1), (0.2, 0.2), (0.3, 0.45), (0.34, 0.8)], tone=0.45)
    for y in np.linspace(0.22, 0.76, 6):
        ww = np.interp(y, [0.1, 0.2, 0.45, 0.8], [0.02, 0.2, 0.3, 0.34])
        s.stroke([(0.5 - ww, y), (0.5 + ww, y)], 0.7)
    s.ellipse((0.5, 0.72), (0.05, 0.04), 0.95)
    s.rect(0.1, 0.8, 0.9, 0.86, 0.7)
    for _ in range(int(r.integers(1, 4))):
        x, y = r.uniform(0.1, 0.9), r.uniform(0.05, 0.3)
        s.ellipse((x, y), (0.025, 0.015), 0.9)


def birdhouse(s: Sketch, r: Rng) -> None:
    s.rect(0.47, 0.66, 0.53, 0.96, 0.5)
    s.region([(0.24, 0.36), (0.5, 0.12), (0.76, 0.36)], 0.75)
    s.rect(0.3, 0.36, 0.7, 0.66, 0.4)
    s.ellipse((0.5, 0.48), (0.06, 0.06), 0.95)
    s.stroke([(0.5, 0.58), (0.5, 0.62)], 1.4)


def sled(s: Sketch, r: Rng) -> None:
    s.region([(0.12, 0.44), (0.84, 0.44), (0.84, 0.5), (0.12, 0.5)], 0.55)
    for x in (0.24, 0.66):
        s.stroke([(x, 0.5), (x, 0.62)], 1.2)
    s.curve([(0.08, 0.62), (0.6, 0.64), (0.86, 0.64), (0.94, 0.54)], 1.6)
    s.stroke([(0.86, 0.47), (0.96, 0.3)], 0.8)


def rocking_horse(s: Sketch, r: Rng) -> None:
    s.curve([(0.08, 0.8), (0.5, 0.94), (0.92, 0.8)], 2.2)
    s.region([(0.26, 0.42), (0.66, 0.42), (0.66, 0.54), (0.26, 0.54)], 0.5)
    s.region([(0.62, 0.44), (0.72, 0.2), (0.86, 0.24), (0.74, 0.32), (0.7, 0.46)], 0.5)
    for x in (0.3, 0.62):
        s.stroke([(x, 0.54), (x - 0.06, 0.84)], 1.4)
        s.stroke([(x, 0.54), (x + 0.06, 0.84)], 1.4)
    s.curve([(0.26, 0.44), (0.14, 0.42), (0.1, 0.58)], 1.2)


def cow(s: Sketch, r: Rng) -> None:
    body = r.uniform(0.22, 0.28)
    for x in (0.28, 0.36, 0.62, 0.7):
        s.rect(x - 0.025, 0.58, x + 0.025, 0.82, 0.7)
    s.region([(0.2, 0.36), (0.76, 0.36), (0.78, 0.62), (0.2, 0.64)], 0.3)
    s.blob((0.46, 0.46), (body * 0.4, 0.07), r, 0.2, 0.9)
    s.region([(0.76, 0.38), (0.9, 0.34), (0.94, 0.46), (0.88, 0.52), (0.78, 0.5)], 0.35)
    s.stroke([(0.84, 0.34), (0.86, 0.28)], 1.0)
    s.curve([(0.2, 0.38), (0.12, 0.46), (0.14, 0.62)], 0.8)
    s.ellipse((0.64, 0.64), (0.04, 0.025), 0.6)
    s.ground(0.84)


def pig(s: Sketch, r: Rng) -> None:
    s.ellipse((0.48, 0.52), (0.3, r.uniform(0.15, 0.2)), 0.35)
    s.ellipse((0.78, 0.5), (0.05, 0.045), 0.5)
    s.region([(0.66, 0.36), (0.72, 0.28), (0.74, 0.38)], 0.7)
    for x in (0.3, 0.42, 0.56, 0.66):
        s.rect(x - 0.025, 0.64, x + 0.025, 0.8, 0.6)
    s.curve([(0.18, 0.48), (0.1, 0.44), (0.14, 0.38), (0.1, 0.34)], 0.9)
    s.ellipse((0.68, 0.46), (0.012, 0.012), 0.95)


def sheep(s: Sketch, r: Rng) -> None:
    for x in (0.32, 0.62):
        s.rect(x - 0.02, 0.6, x + 0.02, 0.82, 0.85)
    s.blob((0.48, 0.48), (0.28, r.uniform(0.15, 0.19)), r, 0.12, 0.15)
    s.ellipse((0.8, 0.42), (0.08, 0.06), 0.85)
    s.ground(0.84)


def hen(s: Sketch, r: Rng) -> None:
    s.region(
        [
            (0.2, 0.3),
            (0.36, 0.5),
            (0.62, 0.46),
            (0.7, 0.3),
            (0.74, 0.56),
            (0.52, 0.72),
            (0.3, 0.66),
        ],
        0.45,
    )
    s.ellipse((0.7, 0.26), (0.07, 0.07), 0.45)
    s.region([(0.76, 0.24), (0.84, 0.27), (0.76, 0.29)], 0.8)
    s.star((0.68, 0.18), 0.04, 0.02, 3, 0.85)
    for x in (0.44, 0.54):
        s.stroke([(x, 0.7), (x, 0.84), (x + 0.04, 0.86)], 1.0)
    s.ellipse((0.71, 0.25), (0.01, 0.01), 0.95)


def duck(s: Sketch, r: Rng) -> None:
    s.region([(0.14, 0.5), (0.3, 0.62), (0.72, 0.62), (0.8, 0.48), (0.6, 0.44), (0.26, 0.44)], 0.4)
    s.ellipse((0.72, 0.34), (0.08, 0.07), 0.4)
    s.region([(0.66, 0.42), (0.72, 0.4), (0.7, 0.5)], 0.4)
    s.region([(0.79, 0.33), (0.92, 0.36), (0.79, 0.38)], 0.8)
    s.curve([(0.06, 0.7), (0.3, 0.66), (0.5, 0.72), (0.94, 0.68)], 0.7)


def horseshoe(s: Sketch, r: Rng) -> None:
    t = np.linspace(np.deg2rad(-20), np.deg2rad(200), 30)
    o = np.stack([0.5 + 0.34 * np.cos(t), 0.54 - 0.36 * np.sin(t)], 1)
    i = np.stack([0.5 + 0.2 * np.cos(t[::-1]), 0.54 - 0.22 * np.sin(t[::-1])], 1)
    s.region(np.vstack([o, i]), 0.7)
    for a in np.linspace(10, 170, 6):
        q = np.deg2rad(a)
        s.ellipse((0.5 + 0.27 * np.cos(q), 0.54 - 0.29 * np.sin(q)), (0.015, 0.015), 0.0)


OBJECTS = {
    f.__name__: f
    for f in (
        pump, carriage, plow, pail, milk_can, churn, wheelbarrow, cart_wheel, windmill, barn,
        house, pitchfork, shovel, rake, scythe, beehive, birdhouse, sled, rocking_horse, cow,
        pig, sheep, hen, duck, horseshoe,
    )
}  # fmt: skip
