"""Enrollment: learning a user's real decks from a photo of one card of each, in a row.

1. Find the cards in the layout photo; there must be exactly one per named deck.
2. Sort them left to right and rectify each to an upright card picture.
3. Store the pictures in the profile and fit the profile's deck classifier on synthetic
   scenes drawn with them (:mod:`vision.enroll.fit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import TalleroError
from vision.core.cards import CARD_H_PX, CARD_W_PX, Cards
from vision.core.geometry import canonical_corners


class EnrollError(TalleroError):
    """The layout photo cannot be enrolled as it is (wrong number of cards, ...)."""


@dataclass(frozen=True)
class LayoutCard:
    name: str
    corners: np.ndarray  # (4, 2) image pixels, upper short edge first, clockwise
    picture: np.ndarray  # upright rectified card, CARD_H_PX x CARD_W_PX BGR


def rectify(
    image_bgr: np.ndarray,
    corners: np.ndarray,
    width_px: int = CARD_W_PX,
    height_px: int = CARD_H_PX,
) -> np.ndarray:
    """The card inside ``corners`` warped to an upright ``height_px`` x ``width_px`` picture."""
    src = canonical_corners(np.asarray(corners, np.float32).reshape(1, 4, 2))[0]
    dst = np.array([[0, 0], [width_px, 0], [width_px, height_px], [0, height_px]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(
        image_bgr, m, (width_px, height_px), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


def draw_found(image_bgr: np.ndarray, cards: Cards, path: Path) -> Path:
    """Write the photo with what was found outlined and numbered left to right."""
    out = image_bgr.copy()
    unit = max(1.0, max(out.shape[:2]) / 1000)
    order = np.argsort(cards.centers[:, 0]) if len(cards) else np.zeros(0, np.int64)
    for k, i in enumerate(order, 1):
        quad = np.round(cards.corners[i]).astype(np.int32)
        cv2.polylines(out, [quad], True, (255, 0, 255), max(1, int(3 * unit)), cv2.LINE_AA)
        c = cards.centers[i].astype(int)
        cv2.putText(
            out,
            str(k),
            (int(c[0]), int(c[1])),
            cv2.FONT_HERSHEY_SIMPLEX,
            1.2 * unit,
            (255, 0, 255),
            max(1, int(3 * unit)),
            cv2.LINE_AA,
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), out)
    return path


def find_layout(
    image_bgr: np.ndarray, cards: Cards, names: Sequence[str], photo: str, report_dir: Path
) -> list[LayoutCard]:
    """Match the cards found in a layout photo to ``names``, left to right.

    Raises ``EnrollError`` (with an annotated image of what was seen) unless exactly one
    card per name was found.
    """
    if len(cards) != len(names):
        shown = draw_found(image_bgr, cards, report_dir / f"{Path(photo).stem}-found.jpg")
        raise EnrollError(
            f"{photo}: found {len(cards)} card(s) but {len(names)} deck(s) were named "
            f"({', '.join(names)}); lay out exactly one card per deck in a row, backs up. "
            f"What was found: {shown}"
        )
    order = np.argsort(cards.centers[:, 0])
    return [
        LayoutCard(name, cards.corners[i], rectify(image_bgr, cards.corners[i]))
        for name, i in zip(names, order, strict=True)
    ]


def parse_names(text: str, what: str = "deck") -> list[str]:
    """``"pump,carriage"`` -> ``["pump", "carriage"]``: 1 to 8 distinct, usable names."""
    from vision.enroll.profiles import check_name

    names = [check_name(n, what) for n in text.split(",") if n.strip()]
    if not 1 <= len(names) <= 8:
        raise EnrollError(f"name 1 to 8 decks, got {len(names)}")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise EnrollError(f"deck {dupes[0]!r} is named twice")
    return names
