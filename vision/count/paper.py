"""Card paper in the photo's pixels where no card was found.

The detector can miss every card of a tight row of small cards: a strip of 33 pails, each
showing 0.4 of itself at 50 px long, gives it no candidate at all, so the heaps
(`vision.count.heaps`) see no material there and the count comes out as one card. The
strip's pixels still look like the cards that were found and unlike the table. So:

- **colours**: the photo, its long side at ``long_px``, in Lab, binned. The cards' colours
  are those inside the counted cards (shrunk by a fifth, off their edges); the table's
  those farther than a card's short side from every counted card and candidate.
- **paper**: a pixel whose colour the cards hold at least ``ratio`` times as often as the
  table (the shares of their pixels), and which at least ``min_share`` of the cards' pixels
  have (a colour neither holds is no paper: a sleeve, a book); grown into the pixels
  touching it whose colour the cards hold ``grow_ratio`` times as often (a row half in
  shadow), as hysteresis grows an edge.
- Paper off the counted cards (farther than a quarter of a card's short side) is opened by
  ``open_short`` of a card's short side; each piece left is kept when it is at least
  ``min_card_areas`` card areas, no thicker than ``max_thickness`` card lengths (a sheet
  of paper or a score pad is thicker than a row of cards), at least ``min_length`` card
  lengths long (a row, an arc: not the edge of a sheet or a shadow beside a pile; pieces
  up to ``join_gap`` short sides apart are one row, so glare does not cut it in two) and,
  with ``off_edge``, clear of the photo's edge (a sheet that runs out of the picture).
  The pieces kept are joined again to the paper next to them, so a row is one heap with
  the card found at its end.

`vision.count.heaps.find_heaps` counts the paper as card material beside the candidates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.core.geometry import card_area

# Lab bins: lightness, a, b (lightness coarser: the light changes it across a table).
BINS = (8, 16, 16)
# A card's short side over its long side.
CARD_ASPECT = 56.0 / 87.0


@dataclass(frozen=True)
class PaperRules:
    """How paper is told from the table (module docstring)."""

    long_px: int = 640
    ratio: float = 16.0
    grow_ratio: float = 4.0
    min_share: float = 0.002
    open_short: float = 0.25
    min_card_areas: float = 0.0
    max_thickness: float = 1.2
    min_length: float = 3.0
    join_gap: float = 2.0
    off_edge: bool = True

    def __post_init__(self) -> None:
        if self.long_px < 64:
            raise ValueError(f"long_px must be 64 or more, got {self.long_px}")
        if self.ratio <= 0 or self.grow_ratio <= 0:
            raise ValueError("ratio and grow_ratio must be positive")
        if self.open_short < 0 or self.min_card_areas < 0:
            raise ValueError("open_short and min_card_areas must be 0 or more")
        if not 0.0 <= self.min_share <= 1.0:
            raise ValueError(f"min_share must be within [0, 1], got {self.min_share}")
        if self.min_length < 0 or self.join_gap < 0:
            raise ValueError("min_length and join_gap must be 0 or more")
        if self.max_thickness <= 0:
            raise ValueError(f"max_thickness must be positive, got {self.max_thickness}")


@dataclass(frozen=True)
class Paper:
    """Paper found off the counted cards: ``mask`` (uint8, 1 = paper) is the photo at
    ``scale`` of its pixels."""

    mask: np.ndarray
    scale: float

    def on_grid(self, size: tuple[int, int], cell: float) -> np.ndarray:
        """The mask on a grid of ``cell`` px cells over a photo of ``size`` = (w, h) px:
        a cell is paper when at least half of it is."""
        w, h = max(1, math.ceil(size[0] / cell)), max(1, math.ceil(size[1] / cell))
        grid = cv2.resize(self.mask.astype(np.float32), (w, h), interpolation=cv2.INTER_AREA)
        return (grid >= 0.5).astype(np.uint8)


def find_paper(
    image_bgr: np.ndarray,
    counted: np.ndarray,
    candidates: np.ndarray,
    rules: PaperRules,
) -> Paper | None:
    """The paper of ``image_bgr`` no counted card covers (module docstring); ``counted``
    ``(n, 4, 2)`` quads of the counted cards, ``candidates`` ``(m, 4, 2)`` of the others the
    detector proposed. None when there are too few cards or too little table to tell."""
    counted = np.asarray(counted, np.float32).reshape(-1, 4, 2)
    candidates = np.asarray(candidates, np.float32).reshape(-1, 4, 2)
    if not len(counted):
        return None
    h, w = image_bgr.shape[:2]
    scale = min(1.0, rules.long_px / max(h, w))
    to = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(image_bgr, to, interpolation=cv2.INTER_AREA)
    shape = small.shape[:2]
    colour = colour_bins(small)
    cards = painted(shape, counted * scale)
    inner = painted(shape, counted * scale, shrink=0.2)
    area = card_area(counted * scale, candidates)
    short = math.sqrt(area * CARD_ASPECT)
    if short < 1.0:
        return None
    away = odd(short)
    table = cv2.dilate(cards | painted(shape, candidates * scale), np.ones((away, away), np.uint8))
    n = BINS[0] * BINS[1] * BINS[2]
    on_cards = np.bincount(colour[inner > 0], minlength=n).astype(np.float64)
    on_table = np.bincount(colour[table == 0], minlength=n).astype(np.float64)
    if on_cards.sum() < 50 or on_table.sum() < 50:
        return None
    cards_share = (on_cards + 0.5) / (on_cards.sum() + 0.5 * n)
    table_share = (on_table + 0.5) / (on_table.sum() + 0.5 * n)
    common = on_cards >= rules.min_share * on_cards.sum()
    like = (cards_share >= rules.ratio * table_share) & common
    paper = like[colour].astype(np.uint8)
    if rules.grow_ratio < rules.ratio:
        # Grown into fainter paper that touches it (a row half in shadow).
        faint = ((cards_share >= rules.grow_ratio * table_share) & common)[colour]
        _, parts = cv2.connectedComponents(faint.astype(np.uint8), connectivity=8)
        seeded = np.zeros(int(parts.max()) + 1, bool)
        seeded[parts[paper > 0]] = True
        seeded[0] = False
        paper = seeded[parts].astype(np.uint8)
    seam = odd(short / 4)
    off = paper & (1 - cv2.dilate(cards, np.ones((seam, seam), np.uint8)))
    if rules.open_short > 0:
        k = odd(short * rules.open_short)
        off = cv2.morphologyEx(off, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    pieces, labels, stats, _ = cv2.connectedComponentsWithStats(off, connectivity=8)
    keep = np.zeros(pieces, np.uint8)
    if pieces > 1:
        depth = cv2.distanceTransform(off, cv2.DIST_L2, 3)
        half_width = np.zeros(pieces)
        np.maximum.at(half_width, labels.ravel(), depth.ravel())
        long = short / CARD_ASPECT
        # A row broken by a glare spot is one row: its pieces up to ``join_gap`` short
        # sides apart are measured together.
        gap = odd(short * rules.join_gap)
        _, rows = cv2.connectedComponents(cv2.dilate(off, np.ones((gap, gap), np.uint8)))
        row_of = np.zeros(pieces, np.int64)
        row_of[labels.ravel()] = rows.ravel()
        length = row_lengths(off, rows)
        for k in range(1, pieces):
            x, y, pw, ph, px = stats[k]
            edge = x == 0 or y == 0 or x + pw == shape[1] or y + ph == shape[0]
            keep[k] = (
                px >= rules.min_card_areas * area
                and 2 * half_width[k] <= rules.max_thickness * long
                and length[row_of[k]] >= rules.min_length * long
                and not (rules.off_edge and edge)
            )
    kept = keep[labels]
    # Joined again to the paper beside it: the band next to the counted cards was cut off.
    kept = paper & cv2.dilate(kept, np.ones((seam + 4, seam + 4), np.uint8))
    return Paper(kept, scale)


def row_lengths(mask: np.ndarray, rows: np.ndarray) -> dict[int, float]:
    """For each label of ``rows``, the long side of the smallest turned box around the
    pixels of ``mask`` it holds, px."""
    ys, xs = np.nonzero(mask)
    labels = rows[ys, xs]
    order = np.argsort(labels, kind="stable")
    points = np.stack([xs, ys], axis=1).astype(np.float32)[order]
    found, starts = np.unique(labels[order], return_index=True)
    out: dict[int, float] = {}
    for label, group in zip(found.tolist(), np.split(points, starts[1:]), strict=True):
        (_, _), (w, h), _ = cv2.minAreaRect(group)
        out[label] = float(max(w, h))
    return out


def colour_bins(image_bgr: np.ndarray) -> np.ndarray:
    """Each pixel's Lab bin (`BINS`), an int array of the image's shape."""
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2LAB).astype(np.int32)
    light = lab[..., 0] * BINS[0] // 256
    a = lab[..., 1] * BINS[1] // 256
    b = lab[..., 2] * BINS[2] // 256
    return (light * BINS[1] + a) * BINS[2] + b


def painted(shape: tuple[int, ...], quads: np.ndarray, shrink: float = 0.0) -> np.ndarray:
    """A uint8 mask of ``shape`` with ``quads`` (px) filled, each shrunk by ``shrink`` of
    itself towards its centre."""
    mask = np.zeros(shape[:2], np.uint8)
    for quad in np.asarray(quads, np.float32).reshape(-1, 4, 2):
        centre = quad.mean(axis=0)
        quad = centre + (quad - centre) * (1.0 - shrink)
        cv2.fillPoly(mask, [np.round(quad).astype(np.int32)], 1)
    return mask


def odd(px: float) -> int:
    """A kernel size: ``px`` rounded, at least 3, odd."""
    return max(3, int(round(px)) | 1)
