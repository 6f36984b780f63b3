"""Plants, animals, sky, sea and town objects for card backs.

Each function draws one object into a :class:`Sketch` (normalised box, y down) with
proportions from the rng.
"""

from __future__ import annotations

import numpy as np

from vision.synth.art_sketch import Sketch

Rng = np.random.Generator


def tree(s: Sketch, r: Rng) -> None:
    s.region([(0.44, 0.9), (0.46, 0.5), (0.54, 0.5), (0.56, 0.9)], 0.7)
    for _ in range(int(r.integers(3, 6))):
        c = (r.uniform(0.3, 0.7), r.uniform(0.22, 0.5))
        s.blob(c, (r.uniform(0.14, 0.22), r.uniform(0.12, 0.18)), r, 0.15, r.uniform(0.3, 0.6))
    s.ground(0.9, 0.2, 0.8)


def pine(s: Sketch, r: Rng) -> None:
    s.rect(0.46, 0.78, 0.54, 0.92, 0.8)
    tiers = int(r.integers(3, 5))
    for k in range(tiers):
        y0 = 0.08 + 0.7 * k / tiers
        w = 0.16 + 0.24 * (k + 1) / tiers
        s.region(
            [(0.5, y0), (0.5 + w, y0 + 0.7 / tiers + 0.08), (0.5 - w, y0 + 0.7 / tiers + 0.08)], 0.6
        )


def tulip(s: Sketch, r: Rng) -> None:
    s.curve([(0.5, 0.42), (0.48, 0.7), (0.52, 0.94)], 1.4)
    s.region([(0.5, 0.9), (0.3, 0.66), (0.34, 0.56), (0.5, 0.8)], 0.6)  # leaf
    s.region([(0.5, 0.86), (0.72, 0.6), (0.66, 0.54), (0.52, 0.74)], 0.6)
    w = r.uniform(0.14, 0.2)
    s.region(
        [(0.5 - w, 0.16), (0.5 - w * 0.4, 0.26), (0.5, 0.12), (0.5 + w * 0.4, 0.26),
         (0.5 + w, 0.16), (0.5 + w, 0.34), (0.5, 0.44), (0.5 - w, 0.34)],
        0.55,
    )  # fmt: skip


def sunflower(s: Sketch, r: Rng) -> None:
    s.stroke([(0.5, 0.5), (0.52, 0.96)], 1.6)
    s.region([(0.52, 0.76), (0.74, 0.66), (0.56, 0.82)], 0.6)
    n = int(r.integers(10, 17))
    for k in range(n):
        a = 2 * np.pi * k / n
        c = (0.5 + 0.2 * np.cos(a), 0.36 + 0.2 * np.sin(a))
        s.ellipse(c, (0.06, 0.06), 0.3)
    s.ellipse((0.5, 0.36), (0.15, 0.15), 0.85)


def mushroom(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.32, 0.42)
    s.rect(0.42, 0.46, 0.58, 0.86, 0.2)
    t = np.linspace(np.pi, 2 * np.pi, 30)
    s.region(np.stack([0.5 + w * np.cos(t), 0.5 + r.uniform(0.28, 0.38) * np.sin(t)], 1), 0.7)
    for _ in range(int(r.integers(3, 7))):
        s.ellipse(
            (r.uniform(0.5 - w * 0.6, 0.5 + w * 0.6), r.uniform(0.28, 0.42)), (0.035, 0.03), 0.0
        )
    s.ground(0.86, 0.2, 0.8)


def apple(s: Sketch, r: Rng) -> None:
    s.region(
        [(0.5, 0.3), (0.7, 0.22), (0.86, 0.4), (0.8, 0.74), (0.6, 0.88), (0.5, 0.84), (0.4, 0.88),
         (0.2, 0.74), (0.14, 0.4), (0.3, 0.22)],
        0.5,
    )  # fmt: skip
    s.curve([(0.5, 0.3), (0.5, 0.18), (0.54, 0.08)], 1.4)
    s.region([(0.54, 0.16), (0.7, 0.06), (0.78, 0.12), (0.6, 0.2)], 0.7)
    s.arc((0.36, 0.48), (0.1, 0.14), 200, 260, 1.0)


def pear(s: Sketch, r: Rng) -> None:
    s.lathe(
        [(0.05, 0.14), (0.12, 0.3), (0.16, 0.46), (r.uniform(0.26, 0.32), 0.7), (0.18, 0.9)],
        tone=0.5,
    )
    s.stroke([(0.5, 0.15), (0.54, 0.04)], 1.4)
    s.region([(0.54, 0.1), (0.68, 0.04), (0.62, 0.14)], 0.7)


def acorn(s: Sketch, r: Rng) -> None:
    s.lathe([(0.2, 0.44), (0.22, 0.58), (0.16, 0.78), (0.02, 0.92)], tone=0.35)
    s.lathe([(0.04, 0.14), (0.18, 0.24), (0.28, 0.4), (0.26, 0.46)], tone=0.75)
    s.stroke([(0.5, 0.14), (0.52, 0.04)], 1.4)


def leaf(s: Sketch, r: Rng) -> None:
    w = r.uniform(0.18, 0.28)
    t = np.linspace(0, np.pi, 20)
    right = np.stack([0.5 + w * np.sin(t), 0.1 + 0.72 * (1 - np.cos(t)) / 2], 1)
    left = np.stack([0.5 - w * np.sin(t[::-1]), 0.1 + 0.72 * (1 - np.cos(t[::-1])) / 2], 1)
    s.region(np.vstack([right, left]), 0.45)
    s.stroke([(0.5, 0.1), (0.5, 0.94)], 1.1)
    for y in np.linspace(0.2, 0.7, 5):
        s.stroke([(0.5, y + 0.06), (0.5 + w * 0.7, y)], 0.6)
        s.stroke([(0.5, y + 0.06), (0.5 - w * 0.7, y)], 0.6)


def grapes(s: Sketch, r: Rng) -> None:
    s.stroke([(0.5, 0.18), (0.54, 0.04)], 1.4)
    s.region([(0.54, 0.12), (0.8, 0.06), (0.76, 0.2)], 0.6)
    rows = [4, 4, 3, 3, 2, 1]
    for j, n in enumerate(rows):
        for k in range(n):
            x = 0.5 + (k - (n - 1) / 2) * 0.13 + r.normal(0, 0.008)
            s.ellipse((x, 0.24 + j * 0.11), (0.07, 0.07), 0.55)


def sun(s: Sketch, r: Rng) -> None:
    n = int(r.integers(8, 17))
    s.star((0.5, 0.5), 0.46, 0.3, n, 0.5, r.uniform(0, 30))
    s.ellipse((0.5, 0.5), (0.24, 0.24), 0.15)
    if r.random() < 0.6:  # a face
        s.ellipse((0.42, 0.46), (0.025, 0.02), 0.9)
        s.ellipse((0.58, 0.46), (0.025, 0.02), 0.9)
        s.arc((0.5, 0.52), (0.1, 0.07), 20, 160, 1.0)


def moon(s: Sketch, r: Rng) -> None:
    t = np.linspace(-np.pi / 2, np.pi / 2, 30)
    outer = np.stack([0.5 + 0.36 * np.cos(t), 0.5 + 0.36 * np.sin(t)], 1)
    k = r.uniform(0.1, 0.22)
    inner = np.stack([0.5 + k * np.cos(t[::-1]), 0.5 + 0.36 * np.sin(t[::-1])], 1)
    s.region(np.vstack([outer, inner]) - (0.1, 0), 0.6)
    for _ in range(int(r.integers(1, 4))):
        s.star((r.uniform(0.2, 0.4), r.uniform(0.15, 0.85)), 0.05, 0.02, 5, 0.8)


def star(s: Sketch, r: Rng) -> None:
    s.star((0.5, 0.52), 0.44, r.uniform(0.16, 0.24), int(r.choice([5, 6, 8])), 0.55)


def heart(s: Sketch, r: Rng) -> None:
    t = np.linspace(0, 2 * np.pi, 60)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    s.region(np.stack([0.5 + x / 38, 0.48 + y / 38], 1), 0.55)


def crown(s: Sketch, r: Rng) -> None:
    n = int(r.integers(3, 6))
    pts = [(0.14, 0.74)]
    for k in range(n):
        x = 0.14 + 0.72 * k / (n - 1)
        pts += [(x, 0.26)] if k in (0, n - 1) else [(x - 0.72 / (n - 1) / 2, 0.5), (x, 0.22)]
    pts[-1:] = [(0.86 - 0.72 / (n - 1) / 2, 0.5), (0.86, 0.26), (0.86, 0.74)]
    s.region(pts, 0.6)
    s.rect(0.12, 0.74, 0.88, 0.82, 0.8)
    for k in range(n):
        s.ellipse((0.14 + 0.72 * k / (n - 1), 0.2), (0.03, 0.03), 0.8)


def anchor(s: Sketch, r: Rng) -> None:
    s.ellipse((0.5, 0.12), (0.06, 0.06), 0.6, 1.2)
    s.rect(0.47, 0.18, 0.53, 0.82, 0.6)
    s.rect(0.32, 0.26, 0.68, 0.3, 0.6)
    s.arc((0.5, 0.62), (0.3, 0.22), 10, 170, 2.2)
    for sgn in (-1, 1):
        x = 0.5 + sgn * 0.3 * np.cos(np.deg2rad(10))
        s.region([(x, 0.66), (x + sgn * 0.05, 0.58), (x - sgn * 0.02, 0.6)], 0.8)


def sailboat(s: Sketch, r: Rng) -> None:
    s.region([(0.14, 0.7), (0.86, 0.7), (0.74, 0.82), (0.24, 0.82)], 0.7)
    s.stroke([(0.5, 0.08), (0.5, 0.7)], 1.2)
    s.region([(0.52, 0.1), (0.52, 0.64), (r.uniform(0.78, 0.88), 0.64)], 0.2)
    s.region([(0.48, 0.2), (0.48, 0.64), (r.uniform(0.2, 0.3), 0.64)], 0.35)
    s.curve([(0.04, 0.88), (0.2, 0.84), (0.35, 0.9), (0.5, 0.86)], 0.7)
    s.curve([(0.5, 0.86), (0.65, 0.82), (0.8, 0.9), (0.96, 0.86)], 0.7)


def fish(s: Sketch, r: Rng) -> None:
    h = r.uniform(0.16, 0.24)
    t = np.linspace(0, np.pi, 20)
    top = np.stack([0.2 + 0.56 * (1 - np.cos(t)) / 2, 0.5 - h * np.sin(t)], 1)
    bot = np.stack([0.2 + 0.56 * (1 + np.cos(t)) / 2, 0.5 + h * 0.8 * np.sin(t)], 1)
    s.region([(0.74, 0.5), (0.92, 0.34), (0.88, 0.5), (0.92, 0.66)], 0.6)  # tail
    s.region(np.vstack([top, bot]), 0.45)
    s.ellipse((0.3, 0.46), (0.025, 0.025), 0.95)
    s.arc((0.36, 0.5), (0.06, h * 0.8), -70, 70, 0.8)
    for k in range(3):
        s.arc((0.48 + 0.08 * k, 0.5), (0.04, 0.05), -60, 60, 0.5)


def bird(s: Sketch, r: Rng) -> None:
    s.region([(0.16, 0.5), (0.4, 0.4), (0.66, 0.44), (0.72, 0.56), (0.5, 0.66), (0.3, 0.62)], 0.45)
    s.ellipse((0.7, 0.38), (0.08, 0.07), 0.45)
    s.region([(0.77, 0.36), (0.9, 0.39), (0.77, 0.42)], 0.8)
    s.region([(0.3, 0.5), (0.56, 0.48), (0.44, r.uniform(0.2, 0.32))], 0.7)  # wing
    s.region([(0.18, 0.5), (0.04, 0.4), (0.06, 0.56)], 0.6)
    s.stroke([(0.48, 0.64), (0.46, 0.8)], 0.8)
    s.stroke([(0.56, 0.62), (0.56, 0.8)], 0.8)
    s.stroke([(0.3, 0.8), (0.8, 0.8)], 1.4)  # branch


def cat(s: Sketch, r: Rng) -> None:
    s.curve([(0.7, 0.86), (0.9, 0.8), (0.92, 0.6), (0.84, 0.5)], 1.8)
    s.lathe([(0.1, 0.42), (0.2, 0.6), (0.26, 0.8), (0.22, 0.88)], tone=0.6)
    s.ellipse((0.5, 0.32), (0.14, 0.12), 0.6)
    for sgn in (-1, 1):
        s.region(
            [(0.5 + sgn * 0.13, 0.28), (0.5 + sgn * 0.12, 0.14), (0.5 + sgn * 0.04, 0.22)], 0.7
        )
        s.ellipse((0.5 + sgn * 0.05, 0.31), (0.02, 0.015), 0.0)


def butterfly(s: Sketch, r: Rng) -> None:
    for sgn in (-1, 1):
        s.region([(0.5, 0.42), (0.5 + sgn * 0.4, 0.16), (0.5 + sgn * 0.44, 0.42), (0.5, 0.5)], 0.5)
        s.region([(0.5, 0.5), (0.5 + sgn * 0.34, 0.58), (0.5 + sgn * 0.26, 0.82), (0.5, 0.58)], 0.6)
        s.ellipse((0.5 + sgn * 0.26, 0.34), (0.05, 0.05), 0.0)
        s.curve([(0.5, 0.3), (0.5 + sgn * 0.06, 0.16), (0.5 + sgn * 0.12, 0.12)], 0.7)
    s.ellipse((0.5, 0.5), (0.03, 0.2), 0.9)


def lighthouse(s: Sketch, r: Rng) -> None:
    s.region([(0.38, 0.86), (0.44, 0.3), (0.56, 0.3), (0.62, 0.86)], 0.3)
    for y in (0.44, 0.6, 0.74):
        s.region([(0.39, y), (0.61, y), (0.615, y + 0.06), (0.385, y + 0.06)], 0.85)
    s.rect(0.42, 0.2, 0.58, 0.3, 0.05)
    s.region([(0.4, 0.2), (0.5, 0.1), (0.6, 0.2)], 0.8)
    for sgn in (-1, 1):
        s.stroke([(0.5 + sgn * 0.1, 0.24), (0.5 + sgn * 0.42, 0.16 + r.uniform(0, 0.1))], 0.6)
    s.region([(0.1, 0.86), (0.3, 0.8), (0.7, 0.8), (0.9, 0.86), (0.9, 0.9), (0.1, 0.9)], 0.6)


def church(s: Sketch, r: Rng) -> None:
    s.rect(0.14, 0.5, 0.62, 0.88, 0.35)
    s.region([(0.1, 0.5), (0.38, 0.34), (0.66, 0.5)], 0.7)
    s.rect(0.6, 0.3, 0.8, 0.88, 0.4)
    s.region([(0.58, 0.3), (0.7, r.uniform(0.02, 0.1)), (0.82, 0.3)], 0.75)
    s.hole([(0.66, 0.4), (0.74, 0.4), (0.74, 0.5), (0.66, 0.5)])
    s.hole([(0.34, 0.72), (0.42, 0.72), (0.42, 0.88), (0.34, 0.88)])


def bicycle(s: Sketch, r: Rng) -> None:
    big = r.random() < 0.4  # a penny-farthing
    r1, r2 = (0.3, 0.1) if big else (0.18, 0.18)
    c1, c2 = (0.38, 0.9 - r1), (0.86 - r2 if big else 0.74, 0.9 - r2)
    if big:
        c1 = (0.4, 0.9 - r1)
    s.wheel(c1, r1, 10)
    s.wheel(c2, r2, 8)
    s.stroke([c1, (c1[0] + 0.06, c1[1] - r1 - 0.04), c2], 1.4)
    if not big:
        s.stroke([c1, (0.5, c1[1]), (0.6, 0.42), (0.36, 0.42), (0.5, c1[1])], 1.2)
        s.stroke([(0.6, 0.42), (0.62, 0.34), (0.68, 0.34)], 1.2)
    s.ellipse((c1[0] + 0.06, c1[1] - r1 - 0.05), (0.05, 0.015), 0.8)


def tricorn_ship(s: Sketch, r: Rng) -> None:
    s.region([(0.08, 0.62), (0.92, 0.62), (0.8, 0.8), (0.2, 0.8)], 0.6)
    for x, h in ((0.32, 0.3), (0.55, 0.12), (0.76, 0.32)):
        s.stroke([(x, h), (x, 0.62)], 1.1)
        s.region(
            [(x - 0.1, h + 0.04), (x + 0.1, h + 0.04), (x + 0.11, h + 0.22), (x - 0.11, h + 0.22)],
            0.15,
        )
    s.curve([(0.02, 0.86), (0.3, 0.82), (0.6, 0.9), (0.98, 0.84)], 0.7)


OBJECTS = {
    f.__name__: f
    for f in (
        tree, pine, tulip, sunflower, mushroom, apple, pear, acorn, leaf, grapes, sun, moon,
        star, heart, crown, anchor, sailboat, fish, bird, cat, butterfly, lighthouse, church,
        bicycle, tricorn_ship,
    )
}  # fmt: skip
