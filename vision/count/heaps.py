"""Card material the count does not explain, and cards that may be boxed twice.

A tight heap can defeat the card check two ways. Its slivers are all turned down, so the
count is far too low while the detector's candidates (`Count.rejected`) still cover the
heap; or one card gets two boxes, so the count is too high. Neither shows in the doubts
of single cards (`vision.count.doubts`), so a heap is judged as a patch of card material:

- **material**: the counted cards, every candidate the check gave at least
  ``min_chance`` and the card paper seen in the pixels (`vision.count.paper`), painted
  on a grid about ``cells_per_card`` cells across a card's short side. Its connected
  patches are the heaps.
- **unexplained**: the part of a heap's material no counted card covers, opened by a
  quarter of a card's short side (a candidate slightly off a counted card leaves only a
  thin seam). Measured in card areas (the median counted card's, else the candidates').
- **hidden**: how many more cards that could be, each showing ``visible_fraction`` of
  itself: ``ceil(unexplained / visible_fraction)``, once it reaches ``min_unexplained``
  card areas; and at least one for each loose candidate in the heap (chance from
  ``loose_min_chance``, overlapping no counted card nor a likelier loose one by an IoU of
  ``loose_max_iou``; `vision.detect.checker.possible_cards`).
- **doubled**: counted cards overlapping a likelier counted card by an IoU of
  ``double_min_iou`` or more: a second box on one card, or a card under it.

`heap_ranges` widens each deck's range by them. A heap that may hide ``spread_min_hidden``
cards or more is too tight to count: it is one to spread out (`Count.spread`), its decks'
ranges reach as many cards as its material could hold (``visible_fraction`` each), less
those counted, and (``tight_lowers``) down by its backs, each of which could be another
deck's; (``tight_any_deck``) every deck's range then reaches up by the heap's backs named
for the other decks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.core.geometry import card_area, quad_overlaps
from vision.count.paper import Paper
from vision.detect.checker import possible_cards


@dataclass(frozen=True)
class HeapRules:
    """How card material is judged (module docstring); sizes in card areas and fractions."""

    min_chance: float = 0.02
    cells_per_card: int = 8
    min_unexplained: float = 0.5
    visible_fraction: float = 0.25
    double_min_iou: float = 0.5
    spread_min_hidden: int = 4
    tight_lowers: bool = True
    tight_any_deck: bool = True
    loose_max_iou: float = 0.5
    loose_min_chance: float = 0.02

    def __post_init__(self) -> None:
        for name in (
            "min_chance",
            "visible_fraction",
            "double_min_iou",
            "loose_max_iou",
            "loose_min_chance",
        ):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {getattr(self, name)}")
        if self.visible_fraction <= 0.0:
            raise ValueError("visible_fraction must be positive")
        if self.cells_per_card < 2:
            raise ValueError(f"cells_per_card must be 2 or more, got {self.cells_per_card}")
        if self.min_unexplained < 0 or self.spread_min_hidden < 1:
            raise ValueError("min_unexplained must be 0 or more and spread_min_hidden 1 or more")


@dataclass(frozen=True)
class Heap:
    """One patch of card material.

    Attributes:
        box: ``(x0, y0, x1, y1)`` upright box around it, image pixels.
        cards: indices of the counted cards whose centre lies in it.
        unexplained: material no counted card covers, in card areas.
        hidden: how many more cards it could hold (0 under ``min_unexplained``).
        material: its whole material, in card areas.
    """

    box: tuple[float, float, float, float]
    cards: tuple[int, ...]
    unexplained: float
    hidden: int
    material: float = 0.0

    def most(self, visible_fraction: float) -> int:
        """How many cards its material could hold, each showing ``visible_fraction``."""
        return math.ceil(self.material / visible_fraction - 1e-9)


def find_heaps(
    size: tuple[int, int],
    counted: np.ndarray,
    candidates: np.ndarray,
    chance: np.ndarray,
    rules: HeapRules,
    paper: Paper | None = None,
) -> list[Heap]:
    """The heaps of an image ``size`` = (w, h) px: ``counted`` ``(n, 4, 2)`` quads of the
    counted cards, ``candidates`` ``(m, 4, 2)`` those not kept with their ``chance``, and
    the ``paper`` found in its pixels (`vision.count.paper`), material too."""
    counted = np.asarray(counted, np.float32).reshape(-1, 4, 2)
    candidates = np.asarray(candidates, np.float32).reshape(-1, 4, 2)
    chance = np.asarray(chance, np.float64).reshape(-1)
    loose_idx = possible_cards(
        candidates, chance, counted, rules.loose_min_chance, 2.0, rules.loose_max_iou
    )
    loose_at = candidates[loose_idx].mean(axis=1) if len(loose_idx) else np.zeros((0, 2))
    candidates = candidates[chance >= rules.min_chance]
    area = card_area(counted, candidates)
    if area <= 0 or not (len(candidates) or paper is not None):
        return []
    short = math.sqrt(area * 56.0 / 87.0)  # a card's short side, px
    cell = max(short / rules.cells_per_card, 1.0)
    w, h = max(1, math.ceil(size[0] / cell)), max(1, math.ceil(size[1] / cell))
    counted_mask = np.zeros((h, w), np.uint8)
    material = np.zeros((h, w), np.uint8)
    for q in counted:
        paint(counted_mask, q / cell)
    for q in candidates:
        paint(material, q / cell)
    material |= counted_mask
    if paper is not None:
        material |= paper.on_grid(size, cell)
    seam = max(1, rules.cells_per_card // 4)
    kernel = np.ones((seam, seam), np.uint8)
    unexplained = cv2.morphologyEx(material & (1 - counted_mask), cv2.MORPH_OPEN, kernel)
    n, labels = cv2.connectedComponents(material, connectivity=8)
    cells_per_card_area = area / (cell * cell)
    centres = counted.mean(axis=1) / cell if len(counted) else np.zeros((0, 2))
    at = np.clip(np.floor(centres).astype(np.int64), 0, [w - 1, h - 1])
    lat = np.clip(np.floor(loose_at / cell).astype(np.int64), 0, [w - 1, h - 1])
    loose_label = labels[lat[:, 1], lat[:, 0]] if len(lat) else np.zeros(0, np.int64)
    heaps: list[Heap] = []
    for k in range(1, n):
        region = labels == k
        ys, xs = np.nonzero(region)
        inside = tuple(int(i) for i in np.flatnonzero(region[at[:, 1], at[:, 0]]))
        spare = float(unexplained[region].sum()) / cells_per_card_area
        hidden = 0
        if spare >= rules.min_unexplained and spare > 0:
            hidden = math.ceil(spare / rules.visible_fraction - 1e-9)
        hidden = max(hidden, int(np.sum(loose_label == k)))
        box = (
            round(float(xs.min() * cell), 1),
            round(float(ys.min() * cell), 1),
            round(float((xs.max() + 1) * cell), 1),
            round(float((ys.max() + 1) * cell), 1),
        )
        whole = float(region.sum()) / cells_per_card_area
        heaps.append(Heap(box, inside, round(spare, 3), hidden, round(whole, 3)))
    return heaps


def paint(mask: np.ndarray, quad: np.ndarray) -> None:
    """Fill ``quad`` (grid cells) into ``mask``, shrunk by half a cell on each side: a
    filled polygon takes in the cells its edges cross, which would make it a cell larger."""
    centre = quad.mean(axis=0)
    short = float(min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
    shrunk = centre + (quad - centre) * max(0.0, 1.0 - 1.0 / max(short, 1.0))
    cv2.fillPoly(mask, [np.round(shrunk).astype(np.int32)], 1)


def doubled_cards(counted: np.ndarray, chance: np.ndarray, min_iou: float) -> list[int]:
    """Indices of counted cards that overlap a likelier counted card by ``min_iou`` or more."""
    counted = np.asarray(counted, np.float32).reshape(-1, 4, 2)
    inter, area = quad_overlaps(counted)
    if len(counted) < 2:
        return []
    union = area[:, None] + area[None, :] - inter
    iou = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
    chance = np.asarray(chance, np.float64).reshape(-1)
    out = []
    for i in range(len(counted)):
        likelier = (chance > chance[i]) | ((chance == chance[i]) & (np.arange(len(chance)) < i))
        if np.any((iou[i] >= min_iou) & likelier):
            out.append(i)
    return out


def heap_ranges(
    ranges: Mapping[str, tuple[int, int]],
    heaps: Sequence[Heap],
    doubled: Sequence[int],
    decks: Sequence[str | None],
    backs: Sequence[bool],
    rules: HeapRules | None = None,
) -> dict[str, tuple[int, int]]:
    """``ranges`` widened by the heaps and the doubled cards.

    ``decks`` and ``backs``: the deck of each counted card (``None``: a face or an unknown
    back) and whether it is back up. A heap's hidden cards raise the high end of the decks
    of the backs counted in it, or of every deck when it holds no named back or an unknown
    one; a doubled back lowers its deck's low end by one.
    """
    low = {d: lo for d, (lo, _) in ranges.items()}
    high = {d: hi for d, (_, hi) in ranges.items()}
    for heap in heaps:
        if not heap.hidden:
            continue
        named_backs = [str(decks[i]) for i in heap.cards if backs[i] and decks[i] is not None]
        unnamed = not named_backs or any(backs[i] and decks[i] is None for i in heap.cards)
        extra = heap.hidden
        widened: set[str] = set(high) if unnamed else set(named_backs)
        if rules is not None and heap.hidden >= rules.spread_min_hidden:
            # Too tight to count: its material could be that many cards, less those counted,
            # and each of its backs could be of another deck.
            extra = max(extra, heap.most(rules.visible_fraction) - len(heap.cards))
            for deck in high:
                mine = named_backs.count(deck)
                if rules.tight_lowers:
                    low[deck] -= mine
                if rules.tight_any_deck:
                    widened.add(deck)
                    high[deck] += len(named_backs) - mine
        for deck in widened:
            if deck in high:
                high[deck] += extra
    for i in doubled:
        twice = decks[i]
        if backs[i] and twice is not None and twice in low:
            low[twice] -= 1
    return {d: (max(0, low[d]), high[d]) for d in ranges}
