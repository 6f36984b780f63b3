"""Card numbers drawn as strokes: OpenCV's Hershey fonts or Tallero's own stroke digits.

No font file is read. A :class:`NumberFont` is one family's lettering: a face (a Hershey font
or the ``block`` / ``round`` stroke digits below), a slant and a stroke weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX_SMALL,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
    cv2.FONT_HERSHEY_SCRIPT_COMPLEX,
)
# Stroke digits in a cell 0.6 wide and 1 high (y down): one or more polylines each.
_DIGITS: dict[str, list[list[tuple[float, float]]]] = {
    "0": [[(0, 0), (0.6, 0), (0.6, 1), (0, 1), (0, 0)]],
    "1": [[(0.12, 0.22), (0.32, 0), (0.32, 1)], [(0.1, 1), (0.54, 1)]],
    "2": [[(0, 0.1), (0.1, 0), (0.6, 0), (0.6, 0.45), (0, 1), (0.6, 1)]],
    "3": [[(0, 0), (0.6, 0), (0.25, 0.42), (0.6, 0.6), (0.6, 1), (0, 1)]],
    "4": [[(0.48, 1), (0.48, 0), (0, 0.68), (0.6, 0.68)]],
    "5": [[(0.6, 0), (0.04, 0), (0, 0.45), (0.6, 0.45), (0.6, 1), (0, 1)]],
    "6": [[(0.56, 0), (0.05, 0.35), (0, 1), (0.6, 1), (0.6, 0.5), (0.02, 0.5)]],
    "7": [[(0, 0), (0.6, 0), (0.2, 1)]],
    "8": [[(0.05, 0), (0.55, 0), (0.55, 0.45), (0.05, 0.45), (0.05, 0)],
          [(0, 0.45), (0.6, 0.45), (0.6, 1), (0, 1), (0, 0.45)]],
    "9": [[(0.58, 0.5), (0, 0.5), (0, 0), (0.6, 0), (0.55, 0.65), (0.05, 1)]],
}  # fmt: skip
STROKE_FACES = ("block", "round")


@dataclass(frozen=True)
class NumberFont:
    """A family's lettering for card numbers."""

    face: str | int  # "block", "round" or a Hershey font id
    italic: bool
    weight: float  # stroke weight as a fraction of the number's height


def random_font(rng: np.random.Generator) -> NumberFont:
    face: str | int
    if rng.random() < 0.3:
        face = str(rng.choice(STROKE_FACES))
    else:
        face = int(HERSHEY[int(rng.integers(len(HERSHEY)))])
    return NumberFont(face, bool(rng.random() < 0.25), float(rng.uniform(0.07, 0.16)))


def _chaikin(p: np.ndarray, rounds: int = 3) -> np.ndarray:
    """Corner cutting: turns a polyline of straight strokes into rounded ones."""
    for _ in range(rounds):
        q = 0.75 * p[:-1] + 0.25 * p[1:]
        r = 0.25 * p[:-1] + 0.75 * p[1:]
        p = np.vstack([p[:1], np.stack([q, r], 1).reshape(-1, 2), p[-1:]])
    return p


def text_mask(text: str, font: NumberFont, height_px: float, shape: tuple[int, int],
              at: tuple[float, float]) -> np.ndarray:  # fmt: skip
    """A uint8 mask (``shape``) with ``text`` written ``height_px`` tall, its top-left corner
    at ``at`` (x, y px)."""
    out = np.zeros(shape, np.uint8)
    thick = max(1, int(round(font.weight * height_px)))
    x, y = at
    if isinstance(font.face, str):
        shear = 0.22 if font.italic else 0.0
        for ch in text:
            for stroke in _DIGITS[ch]:
                p = np.asarray(stroke, np.float64)
                if font.face == "round":
                    p = _chaikin(p)
                px = np.stack([x + (p[:, 0] + shear * (1 - p[:, 1])) * height_px,
                               y + p[:, 1] * height_px], 1)  # fmt: skip
                q = np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)
                cv2.polylines(out, [q], False, 255, thick, cv2.LINE_AA, 4)
            x += 0.82 * height_px
        return out
    face = int(font.face) | (cv2.FONT_ITALIC if font.italic else 0)
    scale = cv2.getFontScaleFromHeight(face, max(4, int(height_px)), thick)
    (_, th), _ = cv2.getTextSize(text, face, scale, thick)
    cv2.putText(out, text, (int(x), int(y + th)), face, scale, 255, thick, cv2.LINE_AA)
    return out


def text_width(text: str, font: NumberFont, height_px: float) -> float:
    """How wide ``text_mask`` writes ``text``, px."""
    if isinstance(font.face, str):
        return (0.82 * len(text) - 0.22) * height_px
    thick = max(1, int(round(font.weight * height_px)))
    face = int(font.face) | (cv2.FONT_ITALIC if font.italic else 0)
    scale = cv2.getFontScaleFromHeight(face, max(4, int(height_px)), thick)
    (tw, _), _ = cv2.getTextSize(text, face, scale, thick)
    return float(tw)
