"""Stand-in card faces: a coloured card numbered 1 to 10 with a boy (red, blue) or girl
(green, yellow) figure, drawn from simple shapes."""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.decks import BOY_COLORS, FACE_BGR
from vision.synth.print_effects import edge_wear, low_freq_noise, paper_color, rounded_rect_pts

_FONTS = (
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_SIMPLEX,
)


def _poly(
    img: np.ndarray,
    pts: list[tuple[float, float]] | np.ndarray,
    color: np.ndarray,
    ox: float,
    oy: float,
    s: float,
) -> None:
    p = np.asarray(pts, np.float64) * s + (ox, oy)
    cv2.fillPoly(img, [np.round(p * 16).astype(np.int32)], color.tolist(), cv2.LINE_AA, 4)


def _ell(
    img: np.ndarray,
    c: tuple[float, float],
    r: tuple[float, float],
    color: np.ndarray,
    ox: float,
    oy: float,
    s: float,
) -> None:
    cv2.ellipse(
        img,
        (int((c[0] * s + ox) * 16), int((c[1] * s + oy) * 16)),
        (int(r[0] * s * 16), int(r[1] * s * 16)),
        0,
        0,
        360,
        color.tolist(),
        -1,
        cv2.LINE_AA,
        4,
    )


def _figure(
    img: np.ndarray,
    boy: bool,
    ink: np.ndarray,
    ox: float,
    oy: float,
    s: float,
    rng: np.random.Generator,
) -> None:
    """A little Dutch boy or girl in a unit box (x 0..1, y 0..1.4) scaled by ``s``."""
    skin = np.array([150, 185, 230], np.float32) * rng.uniform(0.85, 1.05)
    dark = np.array([40, 35, 45], np.float32) * rng.uniform(0.8, 1.3)
    white = np.array([245, 245, 245], np.float32)
    cloth = np.clip(ink * rng.uniform(0.6, 0.9), 0, 255)
    arm = rng.uniform(-0.08, 0.08)
    if boy:
        _poly(img, [(0.3, 0.55), (0.7, 0.55), (0.75, 0.95), (0.25, 0.95)], cloth, ox, oy, s)
        _poly(img, [(0.28, 0.92), (0.48, 0.92), (0.46, 1.35), (0.32, 1.35)], dark, ox, oy, s)
        _poly(img, [(0.52, 0.92), (0.72, 0.92), (0.68, 1.35), (0.54, 1.35)], dark, ox, oy, s)
        _poly(
            img,
            [(0.3, 0.58), (0.12, 0.85 + arm), (0.18, 0.9 + arm), (0.35, 0.68)],
            cloth,
            ox,
            oy,
            s,
        )
        _poly(
            img,
            [(0.7, 0.58), (0.88, 0.85 - arm), (0.82, 0.9 - arm), (0.65, 0.68)],
            cloth,
            ox,
            oy,
            s,
        )
        _ell(img, (0.5, 0.38), (0.17, 0.19), skin, ox, oy, s)
        _poly(img, [(0.28, 0.3), (0.72, 0.3), (0.66, 0.14), (0.34, 0.14)], dark, ox, oy, s)
        _poly(img, [(0.22, 0.3), (0.78, 0.3), (0.78, 0.34), (0.22, 0.34)], dark, ox, oy, s)
    else:
        _poly(img, [(0.36, 0.55), (0.64, 0.55), (0.86, 1.2), (0.14, 1.2)], cloth, ox, oy, s)
        _poly(img, [(0.38, 0.7), (0.62, 0.7), (0.7, 1.15), (0.3, 1.15)], white, ox, oy, s)
        _poly(img, [(0.36, 1.18), (0.46, 1.18), (0.45, 1.36), (0.37, 1.36)], dark, ox, oy, s)
        _poly(img, [(0.54, 1.18), (0.64, 1.18), (0.63, 1.36), (0.55, 1.36)], dark, ox, oy, s)
        _poly(
            img,
            [(0.36, 0.58), (0.16, 0.82 + arm), (0.21, 0.87 + arm), (0.4, 0.68)],
            cloth,
            ox,
            oy,
            s,
        )
        _poly(
            img,
            [(0.64, 0.58), (0.84, 0.82 - arm), (0.79, 0.87 - arm), (0.6, 0.68)],
            cloth,
            ox,
            oy,
            s,
        )
        _ell(img, (0.5, 0.38), (0.16, 0.18), skin, ox, oy, s)
        _poly(
            img,
            [
                (0.3, 0.4),
                (0.34, 0.2),
                (0.5, 0.14),
                (0.66, 0.2),
                (0.7, 0.4),
                (0.78, 0.3),
                (0.5, 0.06),
                (0.22, 0.3),
            ],
            white,
            ox,
            oy,
            s,
        )
        _poly(img, [(0.28, 0.45), (0.34, 0.42), (0.3, 0.6), (0.25, 0.58)], dark * 1.5, ox, oy, s)
        _poly(img, [(0.72, 0.45), (0.66, 0.42), (0.7, 0.6), (0.75, 0.58)], dark * 1.5, ox, oy, s)
    _ell(img, (0.44, 0.38), (0.018, 0.02), dark, ox, oy, s)
    _ell(img, (0.56, 0.38), (0.018, 0.02), dark, ox, oy, s)


def _number(
    img: np.ndarray,
    text: str,
    x: float,
    y: float,
    height_px: float,
    color: np.ndarray,
    font: int,
    thick: int,
    rotate: bool,
) -> None:
    scale = cv2.getFontScaleFromHeight(font, max(4, int(height_px)), thick)
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    if rotate:  # the bottom-right index is upside down, as on real cards
        tmp = np.zeros_like(img)
        cv2.putText(
            tmp, text, (int(x), int(y + th)), font, scale, color.tolist(), thick, cv2.LINE_AA
        )
        tmp = cv2.rotate(tmp, cv2.ROTATE_180)
        mask = tmp.any(axis=2)
        img[mask] = tmp[mask]
    else:
        cv2.putText(
            img, text, (int(x), int(y + th)), font, scale, color.tolist(), thick, cv2.LINE_AA
        )


def draw_face(color: str, value: int, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """One print of a ``color`` ``value`` face card, ``h`` x ``w`` BGR uint8."""
    ppm = w / 56.0
    img = np.empty((h, w, 3), np.uint8)
    img[:] = paper_color(rng).astype(np.uint8)
    base = np.array(FACE_BGR[color], np.float32) * rng.uniform(0.85, 1.1) + rng.normal(0, 8, 3)
    base = np.clip(base, 0, 255)
    inset = rng.uniform(1.8, 3.2) * ppm
    panel = rounded_rect_pts(inset, inset, w - inset, h - inset, 2.5 * ppm)
    cv2.fillPoly(img, [np.round(panel * 16).astype(np.int32)], base.tolist(), cv2.LINE_AA, 4)
    # a lighter panel behind the figure: an oval, a rounded window, or none
    light = np.clip(base + (255 - base) * rng.uniform(0.55, 0.8), 0, 255)
    style = rng.random()
    if style < 0.6:
        axes = (int(w * rng.uniform(0.3, 0.36)), int(h * rng.uniform(0.26, 0.32)))
        cv2.ellipse(img, (w // 2, h // 2), axes, 0, 0, 360, light.tolist(), -1, cv2.LINE_AA)
    elif style < 0.85:
        m = w * rng.uniform(0.14, 0.2)
        win = rounded_rect_pts(m, h * 0.22, w - m, h * 0.78, 4 * ppm)
        cv2.fillPoly(img, [np.round(win * 16).astype(np.int32)], light.tolist(), cv2.LINE_AA, 4)
    fs = w * rng.uniform(0.42, 0.58)
    fx = w / 2 - fs / 2 + rng.normal(0, 0.02) * w
    _figure(img, color in BOY_COLORS, base, fx, h / 2 - fs * 0.7, fs, rng)
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    thick = max(1, int(round(ppm * rng.uniform(0.5, 0.9))))
    text = str(value)
    white = np.array([250, 250, 250], np.float32)
    big = h * rng.uniform(0.12, 0.16)
    _number(img, text, inset + 1.2 * ppm, inset + 1.2 * ppm, big, white, font, thick + 1, False)
    _number(img, text, inset + 1.2 * ppm, inset + 1.2 * ppm, big, white, font, thick + 1, True)
    if rng.random() < 0.6:  # small pips of the number next to the index
        for k in range(min(value, 10)):
            cx = int(w - inset - 3 * ppm)
            cy = int(inset + 3 * ppm + k * 2.2 * ppm)
            cv2.circle(img, (cx, cy), max(1, int(0.7 * ppm)), white.tolist(), -1, cv2.LINE_AA)
    wear = float(rng.uniform(0, 0.5) ** 1.5)
    f = img.astype(np.float32) * (1 - wear * 0.25 * low_freq_noise(h, w, rng, 5))[..., None]
    f += rng.normal(0, 2.0, (h, w, 1)).astype(np.float32)
    out = np.clip(f, 0, 255).astype(np.uint8)
    return edge_wear(out, rng, wear)
