"""`Cards`: the one struct-of-arrays type that flows from detector to tally and drawing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.core.geometry import xywhr_to_corners
from vision.core.types import Array

BACK = 0
FACE = 1
SIDE_NAMES = ("back", "face")

# Real card proportions (poker-like Dutch Blitz cards), millimetres.
CARD_W_MM = 56.0
CARD_H_MM = 87.0
CORNER_RADIUS_MM = 3.5

# Pixels per millimetre of a card's picture as Tallero keeps it (the drawn art and the
# enrolled pictures are CARD_W_PX x CARD_H_PX).
ART_PX_PER_MM = 3.0
CARD_W_PX = int(round(CARD_W_MM * ART_PX_PER_MM))
CARD_H_PX = int(round(CARD_H_MM * ART_PX_PER_MM))


# What a column left out of the constructor holds until `Cards.__post_init__` fills it with
# its neutral value for each row (one shared object, told apart by identity).
_NOT_GIVEN: Array = np.zeros(0)


def _not_given() -> Array:
    return _NOT_GIVEN


def _given(values: Any) -> bool:
    return values is not None and values is not _NOT_GIVEN


def _object_array(values: Any, n: int) -> Array:
    out = np.empty(n, dtype=object)
    if _given(values):
        out[:] = list(values)
    return out


@dataclass
class Cards:
    """Cards found in one image.

    Attributes:
        corners: ``(n, 4, 2)`` float32 image pixels; corners go clockwise and the first two
            span a short edge of the card.
        side: ``(n,)`` int8, ``BACK`` (0) or ``FACE`` (1).
        confidence: ``(n,)`` float32 detector confidence in [0, 1].
        deck: ``(n,)`` object, deck id or ``None`` (a face, or a back matching no deck).
        deck_confidence: ``(n,)`` float32 in [0, 1]; 1 where nothing was classified.
        color: ``(n,)`` object, face colour name or ``None``.
        value: ``(n,)`` int16 face value, -1 where unknown.
        other_probability: ``(n,)`` float32, how likely the classifier found the card's own
            picture to be a back of no deck of the profile (before its neighbours were
            heard); 0 where nothing was classified.
    """

    corners: Array
    side: Array
    confidence: Array
    deck: Array = field(default_factory=_not_given)
    deck_confidence: Array = field(default_factory=_not_given)
    color: Array = field(default_factory=_not_given)
    value: Array = field(default_factory=_not_given)
    other_probability: Array = field(default_factory=_not_given)

    def __post_init__(self) -> None:
        self.corners = np.asarray(self.corners, dtype=np.float32).reshape(-1, 4, 2)
        n = len(self.corners)
        self.side = np.asarray(self.side, dtype=np.int8).reshape(-1)
        self.confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        if not _given(self.deck) or len(self.deck) != n or np.asarray(self.deck).dtype != object:
            self.deck = _object_array(self.deck, n)
        if not _given(self.deck_confidence):
            self.deck_confidence = np.ones(n, dtype=np.float32)
        self.deck_confidence = np.asarray(self.deck_confidence, dtype=np.float32).reshape(-1)
        if not _given(self.color) or len(self.color) != n or np.asarray(self.color).dtype != object:
            self.color = _object_array(self.color, n)
        if not _given(self.value):
            self.value = np.full(n, -1, dtype=np.int16)
        self.value = np.asarray(self.value, dtype=np.int16).reshape(-1)
        if not _given(self.other_probability):
            self.other_probability = np.zeros(n, dtype=np.float32)
        self.other_probability = np.asarray(self.other_probability, np.float32).reshape(-1)
        for name in (
            "side",
            "confidence",
            "deck",
            "deck_confidence",
            "color",
            "value",
            "other_probability",
        ):
            if len(getattr(self, name)) != n:
                raise ValueError(f"Cards.{name} has {len(getattr(self, name))} rows, corners {n}")
        if n and not np.isin(self.side, (BACK, FACE)).all():
            raise ValueError("Cards.side must hold only BACK (0) or FACE (1)")
        if n and not np.isfinite(self.corners).all():
            raise ValueError("Cards.corners must be finite")

    @classmethod
    def empty(cls) -> Cards:
        """No cards."""
        return cls(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.int8), np.zeros(0, np.float32))

    @classmethod
    def from_xywhr(cls, xywhr: np.ndarray, side: np.ndarray, confidence: np.ndarray) -> Cards:
        """Cards from rotated boxes ``(n, 5)``: centre x, y, width, height (pixels), angle (rad)."""
        return cls(xywhr_to_corners(np.asarray(xywhr, np.float32)), side, confidence)

    @classmethod
    def from_ultralytics(cls, result: Any) -> Cards:
        """Cards from one ultralytics OBB ``Results`` (class 0 back, 1 face)."""
        obb = result.obb
        if obb is None or len(obb) == 0:
            return cls.empty()
        xywhr = obb.xywhr.cpu().numpy()
        return cls.from_xywhr(xywhr, obb.cls.cpu().numpy().astype(np.int8), obb.conf.cpu().numpy())

    def __len__(self) -> int:
        return len(self.corners)

    def __getitem__(self, index: Any) -> Cards:
        """Rows selected by a boolean mask, an index array or a slice."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Cards(
            self.corners[index],
            self.side[index],
            self.confidence[index],
            self.deck[index],
            self.deck_confidence[index],
            self.color[index],
            self.value[index],
            self.other_probability[index],
        )

    @staticmethod
    def concatenate(parts: list[Cards]) -> Cards:
        """All rows of ``parts``, in order."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return Cards.empty()
        return Cards(
            np.concatenate([p.corners for p in parts]),
            np.concatenate([p.side for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.deck for p in parts]),
            np.concatenate([p.deck_confidence for p in parts]),
            np.concatenate([p.color for p in parts]),
            np.concatenate([p.value for p in parts]),
            np.concatenate([p.other_probability for p in parts]),
        )

    @property
    def centers(self) -> Array:
        """``(n, 2)`` card centres in pixels."""
        centres: Array = self.corners.mean(axis=1)
        return centres

    @property
    def long_side_px(self) -> np.ndarray:
        """``(n,)`` length of each card's long edge in pixels."""
        a = np.linalg.norm(self.corners[:, 1] - self.corners[:, 0], axis=1)
        b = np.linalg.norm(self.corners[:, 2] - self.corners[:, 1], axis=1)
        longer: Array = np.maximum(a, b)
        return longer

    @property
    def overall_confidence(self) -> np.ndarray:
        """How sure we are of each card as a whole: the weaker of finding it and naming it."""
        weaker: Array = np.minimum(self.confidence, self.deck_confidence)
        return weaker

    def transformed(self, scale: float, offset: tuple[float, float] = (0.0, 0.0)) -> Cards:
        """A copy with corners mapped by ``p * scale + offset``."""
        out = self[np.arange(len(self))]
        out.corners = self.corners * np.float32(scale) + np.asarray(offset, np.float32)
        return out
