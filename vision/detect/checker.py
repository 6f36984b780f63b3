"""The card check as a stage: the detector's candidates in, the cards kept and the possible
cards left out.

`CardCheck` (`vision.detect.check`) gives each candidate its chance of being a real card
from facts about its box and about what the deck classifier's first look saw in it
(`FirstLook`); `CardLook` (`vision.detect.look`) looks again at the candidates the check
is unsure of. Candidates at or above the chance bar are kept, the likeliest first; the
ones just under it that cover no kept card are possible cards not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.core.cards import BACK, Cards
from vision.core.first_look import FirstLook
from vision.core.geometry import quad_iou, quads_to_xywhr, rotated_nms
from vision.core.settings import VisionSettings
from vision.core.types import Array
from vision.detect.check import CardCheck, candidate_features
from vision.detect.look import CardLook


@dataclass(frozen=True)
class Checked:
    """What the card check made of the candidates.

    Attributes:
        kept: the cards, likeliest first; ``confidence`` is each one's chance of being a
            real card.
        kept_look: the first look at each kept card.
        possible: candidates that may be cards left uncounted (``confidence``: their chance);
            ``None`` when nothing checked the candidates.
        possible_look: the first look at each possible card.
        rejected: every candidate not kept (``confidence``: its chance of being a card),
            possible cards included; ``None`` when nothing checked the candidates. What
            they cover that no kept card does is card material left unexplained
            (`vision.count.heaps`).
        rejected_found: the detector's own confidence in each rejected candidate.
    """

    kept: Cards
    kept_look: FirstLook
    possible: Cards | None
    possible_look: FirstLook
    rejected: Cards | None = None
    rejected_found: Array | None = None

    @classmethod
    def unchecked(cls, candidates: Cards, look: FirstLook) -> Checked:
        """Every candidate kept as the detector gave it (no card check loaded)."""
        return cls(candidates, look, None, look[np.zeros(0, np.int64)])


def candidate_facts(image_bgr: Array, candidates: Cards, look: FirstLook) -> Array:
    """``(n, len(FEATURES))`` the facts the card check reads about each candidate."""
    return candidate_features(
        cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY),
        candidates.corners,
        candidates.confidence,
        candidates.side != BACK,
        look.within_profile,
        look.profile_decks,
        look.other_class,
    )


class CardChecker:
    """Keeps the candidates the card check (and look) find likely to be real cards.

    Args:
        check: the card check.
        look: the card look, or ``None`` to use the check's chance alone.
        settings: the chance bars and overlaps (`VisionSettings`).
        detector_views: the looks the detector took (the bar depends on them).
    """

    def __init__(
        self,
        check: CardCheck,
        look: CardLook | None,
        settings: VisionSettings,
        detector_views: int,
    ) -> None:
        self.check = check
        self.look = look
        self.settings = settings
        self.bar = settings.card_chance_bar(detector_views)

    def chances(self, image_bgr: Array, candidates: Cards, look: FirstLook) -> Array:
        """``(n,)`` each candidate's chance of being a real card (check, then look)."""
        facts = candidate_facts(image_bgr, candidates, look)
        chance = self.check.chance(facts)
        if self.look is not None:
            chance = self.look.refine(image_bgr, candidates.corners, facts, chance)
        return chance

    def sift(self, image_bgr: Array, candidates: Cards, look: FirstLook) -> Checked:
        """The candidates kept, the likeliest first, and the possible cards dropped.

        A kept card's confidence becomes the chance that it is a real card: the check's,
        or the card look's for the candidates the check is unsure of; so does a possible
        card's.
        """
        if not len(candidates):
            return Checked(candidates, look, candidates, look, candidates, candidates.confidence)
        s = self.settings
        chance = self.chances(image_bgr, candidates, look)
        idx = np.flatnonzero(chance >= self.bar)
        idx = idx[np.argsort(-chance[idx], kind="stable")]
        if len(idx):
            xywhr = quads_to_xywhr(candidates.corners[idx])
            idx = idx[rotated_nms(xywhr, chance[idx], s.card_nms_iou, s.max_cards)]
        kept = candidates[idx]
        kept.confidence = chance[idx].astype(np.float32)
        maybe = np.zeros(0, np.int64)
        if s.possible_min_chance is not None:
            maybe = possible_cards(
                candidates.corners,
                chance,
                kept.corners,
                s.possible_min_chance,
                self.bar,
                s.possible_max_iou,
            )
        possible = candidates[maybe]
        possible.confidence = chance[maybe].astype(np.float32)
        left = np.setdiff1d(np.arange(len(candidates)), idx)
        rejected = candidates[left]
        found = rejected.confidence.copy()
        rejected.confidence = chance[left].astype(np.float32)
        return Checked(kept, look[idx], possible, look[maybe], rejected, found)


def possible_cards(
    corners: np.ndarray,
    chance: np.ndarray,
    kept_corners: np.ndarray,
    min_chance: float,
    below_chance: float,
    max_iou: float,
) -> np.ndarray:
    """Indices of the candidates that may be cards left uncounted, likeliest first.

    A candidate counts when its chance of being a card lies in ``[min_chance,
    below_chance)`` and it overlaps no kept card, nor a likelier possible card, by an IoU
    of ``max_iou`` or more (a second box on one card is no second card).
    """
    chance = np.asarray(chance, np.float64)
    idx = np.flatnonzero((chance >= min_chance) & (chance < below_chance))
    idx = idx[np.argsort(-chance[idx], kind="stable")]
    kept_corners = np.asarray(kept_corners, np.float32).reshape(-1, 4, 2)
    centres = kept_corners.mean(axis=1)
    out: list[int] = []
    for i in idx:
        quad = corners[i]
        reach = float(np.linalg.norm(quad[0] - quad[2]))
        near = np.flatnonzero(np.linalg.norm(centres - quad.mean(axis=0), axis=1) < reach)
        if any(quad_iou(quad, kept_corners[j]) >= max_iou for j in near):
            continue
        if any(quad_iou(quad, corners[j]) >= max_iou for j in out):
            continue
        out.append(int(i))
    return np.asarray(out, np.int64)
