"""Face cards of a family: its layout, its four face colours, its child figures, its numbers.

The picture of a colour (panel and child) is the same on all ten values, so it is painted
once per colour (:func:`face_picture`) and each value only adds its numbers and its print
wear (:func:`print_face`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.synth.art_figures import FigureSpec, draw_figure, random_figure
from vision.synth.art_glyphs import NumberFont, random_font, text_mask, text_width
from vision.synth.decks import BOY_COLORS, FACE_BGR, FACE_COLORS
from vision.synth.print_effects import grain, low_freq_noise, rounded_rect_pts, scuff_edges

LAYOUTS = ("full", "bordered", "bleed")
# HSV (OpenCV: hue 0..180) jitter a face colour may take and still read as itself
_HUE_JITTER = {"red": 5, "blue": 8, "green": 12, "yellow": 4}


@dataclass(frozen=True)
class FaceSpec:
    """How one family prints its faces; lengths in card millimetres."""

    layout: str
    colors: dict[str, tuple[float, float, float]]  # face colour -> BGR
    boys: frozenset[str]  # face colours that show a boy
    figure: FigureSpec
    figure_scale: float  # figure width / card width
    backdrop: str  # behind the figure: "oval", "window" or "none"
    font: NumberFont
    number_mm: float  # height of the corner numbers
    number_ink: str  # "light", "dark" or "color" (on a light badge)
    outline: bool  # a dark edge around light numbers
    pips: bool
    centre_number: bool  # a big faint number behind the figure
    margin_mm: float


def face_color(color: str, rng: np.random.Generator) -> tuple[float, float, float]:
    """A printing's shade of ``color``: hue, saturation and value jittered within what a
    player would still call that colour."""
    px = np.uint8([[FACE_BGR[color]]])
    h, s, v = cv2.cvtColor(px, cv2.COLOR_BGR2HSV)[0, 0].astype(np.float64)
    h = (h + rng.uniform(-1, 1) * _HUE_JITTER[color]) % 180
    s = np.clip(s * rng.uniform(0.72, 1.08), 110, 255)
    v = np.clip(v * rng.uniform(0.78, 1.08), 170 if color == "yellow" else 110, 255)
    bgr = cv2.cvtColor(np.uint8([[[h, s, v]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return tuple(float(c) for c in bgr)


def random_face_spec(rng: np.random.Generator) -> FaceSpec:
    mapping = rng.random()
    boys = BOY_COLORS if mapping < 0.85 else frozenset({"green", "yellow"})
    if mapping > 0.95:  # a printing that shows the same child on every colour
        boys = frozenset(FACE_COLORS) if rng.random() < 0.5 else frozenset()
    layout = str(rng.choice(LAYOUTS, p=[0.55, 0.25, 0.2]))
    backdrop = str(rng.choice(["oval", "window", "none"], p=[0.5, 0.25, 0.25]))
    figure = random_figure(rng)
    if figure.paint == "white" and (layout == "bordered" or backdrop != "none"):
        # a white child shows only on the card's colour, never on paper or a light panel
        figure = replace(figure, paint="silhouette")
    return FaceSpec(
        layout=layout,
        colors={c: face_color(c, rng) for c in FACE_COLORS},
        boys=frozenset(boys),
        figure=figure,
        figure_scale=float(rng.uniform(0.5, 0.68)),
        backdrop=backdrop,
        font=random_font(rng),
        number_mm=float(rng.uniform(8, 14)),
        number_ink=str(rng.choice(["light", "dark", "color"], p=[0.7, 0.15, 0.15])),
        outline=bool(rng.random() < 0.25),
        pips=bool(rng.random() < 0.3),
        centre_number=bool(rng.random() < 0.15),
        margin_mm=float(rng.uniform(1.6, 3.4)),
    )


def _fill(img: np.ndarray, pts: np.ndarray, color: np.ndarray) -> None:
    cv2.fillPoly(img, [np.round(pts * 16).astype(np.int32)], color.tolist(), cv2.LINE_AA, 4)


def face_picture(
    spec: FaceSpec,
    color: str,
    paper: np.ndarray,
    rng: np.random.Generator,
    w: int,
    h: int,
) -> np.ndarray:
    """The value-free picture of a ``color`` face: float32 BGR, h x w."""
    ppm = w / 56.0
    base = np.array(spec.colors[color], np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base if spec.layout == "bleed" else paper
    m = spec.margin_mm * ppm
    if spec.layout == "full":
        _fill(img, rounded_rect_pts(m, m, w - m, h - m, 2.5 * ppm), base)
    elif spec.layout == "bordered":
        _fill(img, rounded_rect_pts(m, m, w - m, h - m, 2.5 * ppm), base)
        band = m + rng.uniform(2.5, 4.5) * ppm
        _fill(img, rounded_rect_pts(band, band, w - band, h - band, 2 * ppm), paper)
    light = np.clip(base + (255 - base) * 0.7, 0, 255)
    if spec.layout != "bordered":
        if spec.backdrop == "oval":
            cv2.ellipse(img, (w // 2, h // 2), (int(w * 0.33), int(h * 0.29)), 0, 0, 360,
                        light.tolist(), -1, cv2.LINE_AA)  # fmt: skip
        elif spec.backdrop == "window":
            _fill(img, rounded_rect_pts(w * 0.17, h * 0.22, w * 0.83, h * 0.78, 4 * ppm), light)
    if spec.centre_number:
        _centre_mark(img, base, light, w, h)
    fs = w * spec.figure_scale
    draw_figure(
        img, spec.figure, color in spec.boys, base, w / 2 - fs / 2, h / 2 - fs * 0.7, fs, rng
    )
    return img


def _centre_mark(img: np.ndarray, base: np.ndarray, light: np.ndarray, w: int, h: int) -> None:
    # a faint ring behind the child, where some printings put a large number
    tint = (0.6 * light + 0.4 * base).tolist()
    cv2.circle(img, (w // 2, h // 2), int(w * 0.3), tint, max(1, w // 40), cv2.LINE_AA)


def wear_face(picture: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A handled print of a face picture: uneven fading, paper grain and scuffed edges.
    Returns the worn picture (float32 BGR) and its fading (h x w x 1), which the numbers
    printed on it share."""
    h, w = picture.shape[:2]
    wear = float(rng.uniform(0, 0.5) ** 1.5)
    fade = (1 - wear * 0.25 * low_freq_noise(h, w, rng, 5))[..., None]
    img = picture * fade + grain(h, w, rng, 2.0)
    worn = scuff_edges(np.clip(img, 0, 255).astype(np.uint8), rng, wear)
    return worn.astype(np.float32), fade


def number_face(
    worn: np.ndarray, fade: np.ndarray, spec: FaceSpec, color: str, value: int
) -> np.ndarray:
    """The ``value`` face from a worn picture of its colour: corner numbers (the bottom one
    upside down) and pips. BGR uint8."""
    h, w = worn.shape[:2]
    ppm = w / 56.0
    img = worn.copy()
    base = np.array(spec.colors[color], np.float32)
    nh = spec.number_mm * ppm * (0.8 if value == 10 else 1.0)
    corner = spec.margin_mm * ppm + (1.5 if spec.layout != "bordered" else 0.8) * ppm
    light = np.array([250, 250, 248], np.float32)
    dark = np.clip(base * 0.3, 0, 255)
    ink = {"light": light, "dark": dark, "color": base}[spec.number_ink]
    badge = spec.number_ink == "color" or spec.layout == "bordered"
    if badge:
        ink = base if spec.number_ink != "dark" else dark
    # the numbers sit in a band at the top and, turned upside down, at the bottom
    band = min(h // 2, int(corner + nh * 1.5 + 2 * ppm))
    top = text_mask(str(value), spec.font, nh, (band, w), (corner, corner))
    for rows, m in ((slice(0, band), top), (slice(h - band, h), top[::-1, ::-1])):
        sub, f = img[rows], fade[rows]
        if badge:  # a light badge behind coloured numbers keeps them legible on any layout
            on = cv2.dilate(m, np.ones((int(ppm * 1.6) | 1,) * 2, np.uint8)) > 127
            sub[on] = light * f[on]
        if spec.outline and spec.number_ink == "light":
            edge = cv2.dilate(m, np.ones((max(3, int(ppm * 0.7) | 1),) * 2, np.uint8))
            a = edge.astype(np.float32)[..., None] * (1 / 255)
            sub += (dark * f - sub) * a
        a = m.astype(np.float32)[..., None] * (1 / 255)
        sub += (ink * f - sub) * a
    if spec.pips:
        pip = ink if spec.number_ink != "color" else base
        x = w - corner - 1.5 * ppm
        for k in range(value):
            y = corner + 1.5 * ppm + k * 2.2 * ppm
            cv2.circle(img, (int(x), int(y)), max(1, int(0.7 * ppm)), pip.tolist(), -1, cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


def print_face(
    picture: np.ndarray, spec: FaceSpec, color: str, value: int, rng: np.random.Generator
) -> np.ndarray:
    """One print of the ``color`` ``value`` face from its picture: BGR uint8."""
    worn, fade = wear_face(picture, rng)
    return number_face(worn, fade, spec, color, value)


def number_fits(spec: FaceSpec, w: int) -> bool:
    """Whether "10" fits beside the figure (the corner numbers must not reach mid-card)."""
    ppm = w / 56.0
    return text_width("10", spec.font, spec.number_mm * ppm * 0.8) < w * 0.42
