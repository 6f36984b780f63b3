"""Neighbouring backs as evidence for a card's deck.

After the sort each player's cards lie together: a fan, a row, a heap of one deck. A card
that shows only a sliver often shows its ink but not its picture (blue pump or blue plow?),
while the cards it touches show theirs. So a back's own class probabilities are combined
with those of the backs it touches:

    p'(c) ~ p(c) * (context(c) + floor) ** weight

``context`` is the touching backs' probabilities averaged with weights ``(max p) **
reliability_power``: a neighbour that is sure of its class (a card seen whole) speaks, a
neighbour as unsure as the card itself (another sliver) hardly does. This is repeated for
``rounds`` rounds, each round starting from every card's own probabilities and the
neighbours' outcome of the round before, so the clear top card of a fan reaches slivers it
does not touch: the sliver beside it becomes sure in round one and speaks for it in round
two.

``floor`` keeps a card's own clear evidence in charge: with weight 2 and floor 0.3 (the
defaults of `VisionSettings`) a neighbourhood can overrule odds of at most
((1 + 0.3) / 0.3) ** 2 = 19 to 1, so a clearly seen red carriage inside a blue fan stays a
red carriage, and an ambiguous blue sliver inside a fan of blue plows becomes a blue plow.
Neighbours only settle *which* deck: a back whose own most probable class is "no deck of
the profile" keeps its own probabilities (a false find beside a row of cards stays unknown
instead of joining the row), though it still speaks for its neighbours.

In a loose heap the cards a back touches are mostly of *other* decks, and hearing them
names it wrongly. A heap gives itself away: where two touching backs are both sure of
their own deck (``mixed_sure``), they disagree. When fewer than ``mixed_agreement`` of
such sure touching pairs (at least ``mixed_min_pairs`` of them) name the same deck, the
image is taken for a mixed heap and every back keeps its own probabilities. Sorted piles,
fans and Blitz piles agree in almost every such pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.core.geometry import quad_overlaps
from vision.core.settings import VisionSettings

# Quads are grown about their centre by this fraction before testing for contact, so cards
# laid edge to edge in a row count as touching.
CONTACT_GROWTH = 0.08


@dataclass(frozen=True)
class Neighbours:
    """How a back's deck weighs the backs it touches (see the module docstring)."""

    weight: float = 0.0
    floor: float = 0.5
    reliability_power: float = 0.0
    rounds: int = 1
    mixed_sure: float = 0.8
    mixed_agreement: float = 0.0
    mixed_min_pairs: int = 2

    @classmethod
    def from_settings(cls, s: VisionSettings) -> Neighbours:
        """How naming weighs the backs each back touches, as the settings say."""
        return cls(
            s.neighbour_weight,
            s.neighbour_floor,
            s.neighbour_reliability_power,
            s.neighbour_rounds,
            s.neighbour_mixed_sure,
            s.neighbour_mixed_agreement,
            s.neighbour_mixed_min_pairs,
        )

    def apply(
        self,
        corners: np.ndarray,
        probabilities: np.ndarray,
        members: np.ndarray,
        keep: np.ndarray | None = None,
    ) -> np.ndarray:
        """`neighbour_consensus` with these settings."""
        return neighbour_consensus(
            corners,
            probabilities,
            members,
            self.weight,
            self.floor,
            keep,
            self.reliability_power,
            self.rounds,
            self.mixed_sure,
            self.mixed_agreement,
            self.mixed_min_pairs,
        )


def touching_pairs(corners: np.ndarray) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, of quads that overlap or touch (after a slight growth)."""
    n = len(corners)
    if n < 2:
        return []
    quads = np.asarray(corners, np.float32).reshape(n, 4, 2)
    centres = quads.mean(axis=1)
    grown = centres[:, None, :] + (quads - centres[:, None, :]) * (1.0 + CONTACT_GROWTH)
    inter, _ = quad_overlaps(grown)
    return [(int(i), int(j)) for i, j in np.argwhere(np.triu(inter > 0.0, k=1))]


def neighbour_consensus(
    corners: np.ndarray,
    probabilities: np.ndarray,
    members: np.ndarray,
    weight: float,
    floor: float,
    keep: np.ndarray | None = None,
    reliability_power: float = 0.0,
    rounds: int = 1,
    mixed_sure: float = 0.8,
    mixed_agreement: float = 0.0,
    mixed_min_pairs: int = 2,
) -> np.ndarray:
    """Class probabilities of every card after its touching members' evidence is folded in.

    Args:
        corners: ``(n, 4, 2)`` card quads in image pixels.
        probabilities: ``(n, k)`` each card's own class probabilities (rows sum to 1).
        members: ``(n,)`` bool, the cards that take part (backs); others are returned as is
            and lend no evidence.
        weight: how strongly the neighbourhood counts; 0 leaves every row unchanged.
        floor: added to the neighbourhood's mean before weighting (> 0).
        keep: ``(n,)`` bool, members that lend evidence but keep their own probabilities.
        reliability_power: a neighbour's say is its highest probability to this power (0:
            every neighbour alike).
        rounds: how often the neighbourhood is read again, from the last round's outcome.
        mixed_sure, mixed_agreement, mixed_min_pairs: the mixed-heap test (module
            docstring); ``mixed_agreement`` 0 never takes the cards for a mixed heap.

    Cards with no touching member keep their own probabilities, and so does every card of
    a mixed heap.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be 1 or more, got {rounds}")
    p = np.asarray(probabilities, np.float64)
    out = p.copy()
    if weight <= 0.0 or len(p) < 2:
        return out
    idx = np.flatnonzero(members)
    if len(idx) < 2:
        return out
    pairs = touching_pairs(np.asarray(corners)[idx])
    if not pairs:
        return out
    a, b = np.array(pairs).T
    own = p[idx]
    if looks_mixed(own, a, b, mixed_sure, mixed_agreement, mixed_min_pairs):
        return out
    held = np.zeros(len(idx), bool) if keep is None else np.asarray(keep)[idx]
    current = own
    for _ in range(rounds):
        say = current.max(axis=1) ** reliability_power
        total = np.zeros_like(own)
        np.add.at(total, a, say[b, None] * current[b])
        np.add.at(total, b, say[a, None] * current[a])
        mass = np.zeros(len(idx))
        np.add.at(mass, a, say[b])
        np.add.at(mass, b, say[a])
        has = (mass > 0) & ~held
        mixed = own[has] * (total[has] / mass[has, None] + floor) ** weight
        current = own.copy()
        current[has] = mixed / np.maximum(mixed.sum(axis=1, keepdims=True), 1e-300)
    out[idx] = current
    return out


def looks_mixed(
    probabilities: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    sure: float,
    agreement: float,
    min_pairs: int,
) -> bool:
    """Whether touching pairs ``(a[k], b[k])`` of cards sure of their class mostly disagree.

    Only pairs where both cards give their most probable class at least ``sure`` count;
    with fewer than ``min_pairs`` of them nothing is concluded (False).
    """
    top = probabilities.max(axis=1)
    cls = probabilities.argmax(axis=1)
    both = (top[a] >= sure) & (top[b] >= sure)
    n = int(both.sum())
    if n < max(min_pairs, 1):
        return False
    return float((cls[a][both] == cls[b][both]).mean()) < agreement
