"""The "heirloom" art style: a second, independent drawing of the four objects.

Tallero never trains its shipped models on this style. It stands in for a real deck nobody
on the team has seen: solid woodcut silhouettes with white cut lines instead of line
etchings with hatching, stippled shadows, an ornamental double frame, ivory stock and
other ink shades. Counting it well is what enrollment (``tallero enroll``) must achieve.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.synth.art_random import draw_random_card  # random cards belong to no deck
from vision.synth.decks import DECK_ART

__all__ = ["draw_back", "draw_face", "draw_random_card"]

SS = 3  # supersampling of the drawing canvas
INKS_BGR: dict[str, tuple[int, int, int]] = {
    "green": (52, 108, 64),  # olive-forest
    "red": (58, 38, 146),  # brick crimson
    "blue": (122, 54, 46),  # indigo
    "yellow": (38, 138, 196),  # ochre
}
FACE_BGR: dict[str, tuple[int, int, int]] = {
    "red": (60, 50, 170),
    "blue": (150, 90, 40),
    "green": (80, 140, 60),
    "yellow": (50, 180, 225),
}


class Cut:
    """Solid shapes (ink) and cut lines (paper) on a supersampled 0..1 coverage canvas."""

    def __init__(
        self, h: int, w: int, box: tuple[float, float, float, float], rng: np.random.Generator
    ) -> None:
        self.cov = np.zeros((h, w), np.float32)
        self.box = box
        self.rng = rng
        self.line_px = max(2.0, (box[2] - box[0]) * rng.uniform(0.012, 0.02))

    def px(self, pts: object) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        x0, y0, x1, y1 = self.box
        return np.stack([x0 + p[:, 0] * (x1 - x0), y0 + p[:, 1] * (y1 - y0)], 1)

    def _poly(self, pts: object) -> list[np.ndarray]:
        return [np.round(self.px(pts) * 16).astype(np.int32)]

    def solid(self, pts: object) -> None:
        layer = np.zeros_like(self.cov)
        cv2.fillPoly(layer, self._poly(pts), 1.0, cv2.LINE_AA, 4)
        np.maximum(self.cov, layer, out=self.cov)

    def disc(self, c: tuple[float, float], r: tuple[float, float]) -> None:
        self.solid(_ellipse(c, r))

    def carve(self, pts: object, weight: float = 1.0, closed: bool = False) -> None:
        """A white cut line through the ink."""
        layer = np.zeros_like(self.cov)
        t = max(1, int(round(self.line_px * weight)))
        cv2.polylines(layer, self._poly(pts), closed, 1.0, t, cv2.LINE_AA, 4)
        self.cov *= 1.0 - layer

    def stroke(self, pts: object, weight: float = 1.0, closed: bool = False) -> None:
        layer = np.zeros_like(self.cov)
        t = max(1, int(round(self.line_px * weight)))
        cv2.polylines(layer, self._poly(pts), closed, 1.0, t, cv2.LINE_AA, 4)
        np.maximum(self.cov, layer, out=self.cov)

    def stipple(self, c: tuple[float, float], r: tuple[float, float], n: int) -> None:
        """A stippled shadow: dots, denser towards the middle."""
        ang = self.rng.uniform(0, 2 * np.pi, n)
        rad = np.sqrt(self.rng.uniform(0, 1, n)) ** 1.5
        pts = self.px(
            np.stack([c[0] + r[0] * rad * np.cos(ang), c[1] + r[1] * rad * np.sin(ang)], 1)
        )
        dot = max(1, int(self.line_px * 0.45))
        for x, y in pts:
            cv2.circle(self.cov, (int(x), int(y)), dot, 1.0, -1, cv2.LINE_AA)


def _ellipse(
    c: tuple[float, float], r: tuple[float, float], a0: float = 0, a1: float = 360, n: int = 40
) -> np.ndarray:
    t = np.deg2rad(np.linspace(a0, a1, n))
    return np.stack([c[0] + r[0] * np.cos(t), c[1] + r[1] * np.sin(t)], 1)


def _wheel(cut: Cut, c: tuple[float, float], r: float, spokes: int, aspect: float) -> None:
    cut.disc(c, (r, r * aspect))
    cut.carve(_ellipse(c, (r * 0.78, r * 0.78 * aspect)), 1.0, closed=True)
    for k in range(spokes):
        a = np.pi * k / spokes
        d = (np.cos(a) * r * 0.7, np.sin(a) * r * 0.7 * aspect)
        cut.carve([(c[0] - d[0], c[1] - d[1]), (c[0] + d[0], c[1] + d[1])], 0.6)


# --- the objects ---------------------------------------------------------------------------
def _pump_cistern(cut: Cut, rng: np.random.Generator) -> None:
    cut.solid([(0.36, 0.28), (0.56, 0.28), (0.58, 0.8), (0.34, 0.8)])  # barrel
    cut.disc((0.46, 0.27), (0.12, 0.05))  # cap
    cut.solid([(0.56, 0.4), (0.82, 0.44), (0.82, 0.5), (0.57, 0.5)])  # spout
    a = rng.uniform(-0.1, 0.12)
    cut.stroke([(0.44, 0.24), (0.3, 0.12 + a), (0.12, 0.2 + a)], 2.2)  # lever
    cut.disc((0.12, 0.2 + a), (0.035, 0.03))
    cut.solid([(0.26, 0.8), (0.66, 0.8), (0.7, 0.88), (0.22, 0.88)])  # plinth
    for y in (0.38, 0.6, 0.72):
        cut.carve([(0.36, y), (0.57, y)], 0.7)
    cut.carve([(0.52, 0.32), (0.53, 0.76)], 0.8)  # highlight
    cut.stipple((0.5, 0.92), (0.35, 0.03), 60)


def _pump_yard(cut: Cut, rng: np.random.Generator) -> None:
    cut.solid([(0.42, 0.16), (0.54, 0.16), (0.54, 0.84), (0.42, 0.84)])  # post
    cut.solid([(0.38, 0.16), (0.48, 0.08), (0.58, 0.16)])  # roof cap
    cut.solid([(0.54, 0.46), (0.76, 0.5), (0.74, 0.56), (0.54, 0.54)])  # spout
    _wheel(cut, (0.28, 0.34), 0.13, 6, 0.8)  # flywheel instead of a lever
    cut.stroke([(0.28, 0.34), (0.44, 0.3)], 1.4)
    cut.solid([(0.62, 0.7), (0.88, 0.7), (0.84, 0.82), (0.66, 0.82)])  # trough
    cut.carve([(0.65, 0.74), (0.85, 0.74)], 0.6)
    for y in np.linspace(0.25, 0.78, int(rng.integers(3, 6))):
        cut.carve([(0.43, y), (0.53, y + 0.01)], 0.5)
    cut.stipple((0.5, 0.9), (0.4, 0.03), 70)


def _carriage_buggy(cut: Cut, rng: np.random.Generator) -> None:
    cut.solid([(0.22, 0.46), (0.7, 0.46), (0.66, 0.62), (0.26, 0.62)])  # body
    cut.solid(np.vstack([_ellipse((0.4, 0.46), (0.2, 0.2), 180, 360), [(0.2, 0.46)]]))  # hood
    cut.carve(_ellipse((0.4, 0.46), (0.15, 0.15), 195, 345), 0.7)
    _wheel(cut, (0.3, 0.72), 0.13, 5, 0.85)
    _wheel(cut, (0.66, 0.74), 0.1, 5, 0.85)
    cut.stroke([(0.7, 0.5), (0.94, 0.56)], 1.2)  # shafts
    cut.stroke([(0.68, 0.56), (0.94, 0.62)], 1.0)
    cut.carve([(0.24, 0.54), (0.68, 0.54)], 0.6)
    cut.stipple((0.5, 0.88), (0.38, 0.03), 50)


def _carriage_wagon(cut: Cut, rng: np.random.Generator) -> None:
    cut.solid(np.vstack([_ellipse((0.5, 0.5), (0.3, 0.26), 180, 360), [(0.2, 0.5)]]))  # canvas
    for x in (0.36, 0.5, 0.64):
        cut.carve([(x, 0.27), (x, 0.5)], 0.7)
    cut.solid([(0.16, 0.5), (0.84, 0.5), (0.8, 0.64), (0.2, 0.64)])  # box
    cut.carve([(0.2, 0.57), (0.8, 0.57)], 0.5)
    _wheel(cut, (0.28, 0.73), 0.12, 6, 0.85)
    _wheel(cut, (0.72, 0.73), 0.12, 6, 0.85)
    cut.stroke([(0.84, 0.58), (0.96, 0.52 + rng.uniform(-0.04, 0.04))], 1.2)
    cut.stipple((0.5, 0.88), (0.4, 0.03), 50)


def _plow_walking(cut: Cut, rng: np.random.Generator) -> None:
    cut.stroke([(0.12, 0.5), (0.62, 0.66)], 2.0)  # beam
    cut.stroke([(0.5, 0.64), (0.86, 0.2)], 1.6)  # handles
    cut.stroke([(0.58, 0.66), (0.92, 0.26)], 1.6)
    cut.solid([(0.44, 0.6), (0.66, 0.66), (0.6, 0.82), (0.36, 0.8)])  # moldboard
    cut.carve([(0.42, 0.7), (0.6, 0.74)], 0.6)
    cut.solid([(0.32, 0.8), (0.62, 0.82), (0.3, 0.86)])  # share
    cut.disc((0.12, 0.5), (0.03, 0.025))
    cut.stipple((0.5, 0.9), (0.38, 0.03), 55)


def _plow_sulky(cut: Cut, rng: np.random.Generator) -> None:
    _wheel(cut, (0.3, 0.62), 0.16, 8, 0.85)
    cut.stroke([(0.3, 0.62), (0.8, 0.56)], 1.8)  # frame
    cut.stroke([(0.56, 0.58), (0.6, 0.36)], 1.2)  # seat post
    cut.disc((0.6, 0.34), (0.07, 0.025))  # seat
    cut.solid([(0.66, 0.56), (0.82, 0.58), (0.8, 0.76), (0.62, 0.74)])  # blade
    cut.carve([(0.66, 0.64), (0.8, 0.66)], 0.6)
    cut.stroke([(0.3, 0.62), (0.08, 0.48 + rng.uniform(-0.05, 0.03))], 1.2)  # tongue
    cut.stipple((0.5, 0.86), (0.4, 0.03), 55)


def _pail_staves(cut: Cut, rng: np.random.Generator) -> None:
    cut.solid([(0.28, 0.38), (0.72, 0.38), (0.66, 0.84), (0.34, 0.84)])
    cut.disc((0.5, 0.38), (0.22, 0.045))
    cut.carve(_ellipse((0.5, 0.38), (0.18, 0.03)), 0.6, closed=True)
    for y in (0.5, 0.74):  # hoops
        cut.carve([(0.29, y), (0.71, y)], 1.0)
    for x in np.linspace(0.38, 0.62, int(rng.integers(3, 6))):  # staves
        cut.carve([(x, 0.44), (x + (x - 0.5) * -0.1, 0.82)], 0.4)
    cut.stroke(_ellipse((0.5, 0.36), (0.22, 0.2), 190, 350), 1.3)  # bail handle
    cut.stipple((0.5, 0.9), (0.3, 0.03), 45)


def _pail_milk(cut: Cut, rng: np.random.Generator) -> None:
    cut.solid([(0.32, 0.34), (0.68, 0.34), (0.72, 0.82), (0.28, 0.82)])
    cut.solid([(0.3, 0.3), (0.7, 0.3), (0.7, 0.35), (0.3, 0.35)])  # rim
    cut.solid([(0.68, 0.32), (0.8, 0.26), (0.74, 0.36)])  # lip
    cut.carve([(0.32, 0.7), (0.7, 0.7)], 1.2)
    cut.carve([(0.4, 0.4), (0.38, 0.66)], 0.8)  # shine
    cut.stroke(_ellipse((0.5, 0.3), (0.2, 0.16), 200, 340), 1.2)
    cut.stipple((0.5, 0.88), (0.3, 0.03), 45)


DRAWINGS: dict[str, tuple[Callable[[Cut, np.random.Generator], None], ...]] = {
    "pump": (_pump_cistern, _pump_yard),
    "carriage": (_carriage_buggy, _carriage_wagon),
    "plow": (_plow_walking, _plow_sulky),
    "pail": (_pail_staves, _pail_milk),
}


# --- the card ------------------------------------------------------------------------------
def _frame(cut: Cut, w: float, h: float, rng: np.random.Generator) -> None:
    """An ornamental double frame with diamonds in the corners."""
    m = w * rng.uniform(0.06, 0.08)
    outer = [(m, m), (w - m, m), (w - m, h - m), (m, h - m)]
    inner_m = m + w * 0.035
    inner = [
        (inner_m, inner_m),
        (w - inner_m, inner_m),
        (w - inner_m, h - inner_m),
        (inner_m, h - inner_m),
    ]
    for pts, t in ((outer, 0.012), (inner, 0.005)):
        cv2.polylines(
            cut.cov,
            [np.round(np.asarray(pts) * 16).astype(np.int32)],
            True,
            1.0,
            max(1, int(w * t)),
            cv2.LINE_AA,
            4,
        )
    d = w * 0.03
    for cx, cy in outer:
        diamond = [(cx, cy - d), (cx + d, cy), (cx, cy + d), (cx - d, cy)]
        cv2.fillPoly(
            cut.cov, [np.round(np.asarray(diamond) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4
        )


def _print(
    cov: np.ndarray, ink: np.ndarray, rng: np.random.Generator, w: int, h: int
) -> np.ndarray:
    """Ink on ivory stock: a little spread of the ink, fibre texture, uneven inking."""
    cov = cv2.resize(cov, (w, h), interpolation=cv2.INTER_AREA)
    cov = cv2.GaussianBlur(cov, (0, 0), rng.uniform(0.3, 0.8))
    uneven = cv2.resize(
        rng.uniform(0.8, 1.0, (4, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    cov = np.clip(cov * uneven * rng.uniform(0.85, 1.0), 0, 1)[..., None]
    paper = np.array([215, 238, 246], np.float32) * rng.uniform(0.94, 1.0)  # ivory, BGR
    fibres = rng.normal(0, 3.0, (h, w, 1)).astype(np.float32)
    img = paper * (1 - cov) + ink * cov + fibres
    return np.clip(img, 0, 255).astype(np.uint8)


def draw_back(deck: str, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """One print of ``deck``'s back in the heirloom style, ``h`` x ``w`` BGR uint8."""
    obj, ink_name = DECK_ART[deck]
    W, H = w * SS, h * SS
    side = W * rng.uniform(0.7, 0.78)
    cx = W / 2 + rng.normal(0, W * 0.01)
    cy = H / 2 + rng.normal(0, H * 0.01)
    box = (cx - side / 2, cy - side * 0.6, cx + side / 2, cy + side * 0.6)
    cut = Cut(H, W, box, rng)
    _frame(cut, W, H, rng)
    drawings = DRAWINGS[obj]
    drawings[int(rng.integers(len(drawings)))](cut, rng)
    ink = np.array(INKS_BGR[ink_name], np.float32) * rng.uniform(0.88, 1.1)
    return _print(cut.cov, np.clip(ink + rng.normal(0, 6, 3), 0, 255), rng, w, h)


def draw_face(color: str, value: int, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A face card: coloured stock, a white oval with a silhouette, big corner numbers."""
    W, H = w * SS, h * SS
    base = np.array(FACE_BGR[color], np.float32) * rng.uniform(0.9, 1.05)
    img = np.empty((H, W, 3), np.float32)
    img[:] = base
    cv2.ellipse(
        img,
        (W // 2, H // 2),
        (int(W * 0.34), int(H * 0.3)),
        0,
        0,
        360,
        (235, 240, 242),
        -1,
        cv2.LINE_AA,
    )
    dark = tuple(float(v) for v in base * 0.45)
    head = (W // 2, int(H * 0.44))
    cv2.circle(img, head, int(W * 0.1), dark, -1, cv2.LINE_AA)
    body = np.array(
        [[W * 0.36, H * 0.7], [W * 0.42, H * 0.52], [W * 0.58, H * 0.52], [W * 0.64, H * 0.7]],
        np.int32,
    )
    cv2.fillPoly(img, [body], dark, cv2.LINE_AA)
    if color in ("green", "yellow"):  # a bonnet for the girl
        cv2.ellipse(
            img, head, (int(W * 0.14), int(W * 0.12)), 0, 180, 360, dark, int(W * 0.03), cv2.LINE_AA
        )
    else:  # a cap for the boy
        cv2.rectangle(
            img,
            (head[0] - int(W * 0.1), head[1] - int(W * 0.12)),
            (head[0] + int(W * 0.12), head[1] - int(W * 0.07)),
            dark,
            -1,
        )
    scale = W / 130
    text = str(value)
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_TRIPLEX, scale, int(scale * 2))
    layer = np.zeros((H, W), np.uint8)
    cv2.putText(
        layer,
        text,
        (int(0.07 * W), int(0.06 * W) + th),
        cv2.FONT_HERSHEY_TRIPLEX,
        scale,
        255,
        int(scale * 2),
        cv2.LINE_AA,
    )
    layer = np.maximum(layer, layer[::-1, ::-1])  # the same number upside down, bottom right
    img[layer > 127] = (245, 245, 245)
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    img += rng.normal(0, 2.5, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)
