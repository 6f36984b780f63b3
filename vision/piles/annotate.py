"""Drawing the Dutch piles: each pile's top card outlined with its id and top, the total."""

from __future__ import annotations

import cv2
import numpy as np

from vision.count.annotate import OTHER_GAME_BGR, CountAnnotator, dashed_quad
from vision.piles.read import Piles

PILE_COLOUR_BGR: dict[str | None, tuple[int, int, int]] = {
    "red": (40, 40, 220),
    "blue": (200, 110, 30),
    "green": (60, 170, 40),
    "yellow": (0, 200, 240),
    None: (60, 60, 60),  # face down
}
UNREAD_BGR = (255, 0, 255)


def annotate_piles(image_bgr: np.ndarray, piles: Piles) -> np.ndarray:
    """A copy of ``image_bgr`` with every pile outlined (magenta and ``?`` where its top
    was not read for sure), labelled ``#id top`` (``#id down`` face down; ``(given)`` where
    a person gave it), another game's backs in grey dashes, and the total."""
    out = image_bgr.copy()
    unit = max(out.shape[:2]) / 1000.0
    thick = max(1, round(2.0 * unit))
    font_scale = max(0.35, 0.45 * unit)
    for corners in piles.other_game_corners:  # another game's backs: grey dashes, no pile
        dashed_quad(out, np.asarray(corners), OTHER_GAME_BGR, thick, 6 * unit)
    given = {g.id for g in piles.given}
    for k, p in enumerate(piles.piles):
        colour = UNREAD_BGR if p.uncertain else PILE_COLOUR_BGR.get(p.color, (60, 60, 60))
        quad = np.round(p.corners).astype(np.int32)
        cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
        top = "down" if p.down else (str(p.top) if p.top is not None else "")
        label = f"#{k + 1} {top}".strip() + ("?" if p.uncertain else "")
        label += " (given)" if k + 1 in given else ""
        CountAnnotator._label(out, label, p.corners.mean(axis=0), colour, font_scale)
    text = piles.summary()
    scale = max(0.45, 0.55 * unit)
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.rectangle(out, (4, 4), (16 + tw, 16 + th), (255, 255, 255), -1)
    cv2.putText(
        out, text, (10, 10 + th), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 1, cv2.LINE_AA
    )
    return out
