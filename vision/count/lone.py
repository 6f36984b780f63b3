"""Faces the card check turned away that lie alone: where a Dutch pile may still be.

The card check keeps a candidate by how much it looks like the cards it learned. A face
printed in a style it never saw (another deck's figures) can be turned away although it
lies whole and alone in the photo: a Dutch pile that is then not found at all leaves the
piles' total short, with nothing flagged. A face lying apart from every counted card,
large enough to read, whose two corner indices then read a number, is most likely such a
pile's top. `lone_faces` picks those candidates; the counter reads their numbers, and the
piles list each one read as a pile to look at (`vision.piles.read`), never counted
silently.

A card half under a phone or a hand can be turned away the same way, its top unreadable:
`sure_lone_places` picks the candidates of either side lying alone that the detector itself
was sure of, and the piles list each one as a place to look at, its top unknown.
"""

from __future__ import annotations

import numpy as np

from vision.core.cards import FACE, Cards
from vision.core.geometry import covered_share
from vision.core.types import Array

# Two candidates whose centres lie closer than this share of the longer one's long side are
# the same card found twice (the surer one is kept).
SAME_CARD_SHARE = 0.3


def lone_faces(
    kept: Cards,
    rejected: Cards | None,
    min_long_px: float,
    max_covered: float,
    max_size: float = 0.0,
) -> Array:
    """Indices into ``rejected`` of the face candidates that lie alone: at least
    ``min_long_px`` long, no more than ``max_covered`` of their area under ``kept`` cards,
    no more than ``max_size`` times as long as the median kept card (0: no bar; a patch of
    cloth three cards long is no card of this table), and not the same card as a surer one
    of them. Surest first."""
    if rejected is None or not len(rejected):
        return np.zeros(0, np.int64)
    faces = rejected.side == FACE
    return _alone(kept, rejected, faces, rejected.confidence, min_long_px, max_covered, max_size)


def sure_lone_places(
    kept: Cards,
    rejected: Cards | None,
    found: Array | None,
    min_found: float,
    min_long_px: float,
    max_covered: float,
    max_size: float = 0.0,
) -> Array:
    """Indices into ``rejected`` of the candidates, face or back, that the detector was sure
    of (``found``, its own confidence in each, at least ``min_found``) and that lie alone as
    `lone_faces` judges: a card half under a phone or a hand can look to the check like no
    card at all. The detector's surest first."""
    if rejected is None or found is None or not len(rejected):
        return np.zeros(0, np.int64)
    found = np.asarray(found, np.float64)
    return _alone(kept, rejected, found >= min_found, found, min_long_px, max_covered, max_size)


def _alone(
    kept: Cards,
    rejected: Cards,
    eligible: Array,
    surer: Array,
    min_long_px: float,
    max_covered: float,
    max_size: float,
) -> Array:
    """Indices into ``rejected`` of the ``eligible`` candidates that lie alone (see
    `lone_faces`), the highest ``surer`` first; of two on one card, the surer."""
    long_px = rejected.long_side_px
    centers = rejected.centers
    kept_centers = kept.centers
    kept_long = kept.long_side_px
    max_long_px = np.inf
    if max_size > 0 and len(kept):
        max_long_px = max_size * float(np.median(kept_long))
    chosen: list[int] = []
    for i in np.argsort(-np.asarray(surer), kind="stable"):
        if not eligible[i] or not min_long_px <= long_px[i] <= max_long_px:
            continue
        if any(
            np.linalg.norm(centers[j] - centers[i]) < SAME_CARD_SHARE * max(long_px[i], long_px[j])
            for j in chosen
        ):
            continue
        # only counted cards near enough to overlap it are measured
        reach = (long_px[i] + kept_long) / 2
        near = np.flatnonzero(np.linalg.norm(kept_centers - centers[i], axis=1) < reach)
        covered = sum(covered_share(rejected.corners[i], kept.corners[k]) for k in near)
        if covered > max_covered:  # a point under two counted cards counts twice
            continue
        chosen.append(int(i))
    return np.asarray(chosen, np.int64)
