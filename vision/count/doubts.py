"""How far each deck's count could be off: possible cards not counted, and count ranges.

A count can be wrong three ways: a find that is not a card of that deck (a second box on
one card, a back of no deck of the game, a back of another deck), a card of the deck
named something else, and a card not counted at all. The first two are cards the user is
asked to look at (`Count.uncertain`). For the third, `possible_cards` lists the candidates
the card check nearly kept that cover no counted card.

`count_ranges` turns both into a range per deck: a deck's count may lose each uncertain
card named for it, and may gain each uncertain card, and each possible card, that is at
least ``alternative_probability`` likely to be of that deck. A deck whose range is one
number is a count nothing casts doubt on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.core.geometry import quad_iou


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


def alternatives(
    probabilities: np.ndarray,
    classes: Sequence[str],
    decks: Sequence[str],
    min_probability: float,
    exclude: Sequence[str | None] | None = None,
) -> list[tuple[str, ...]]:
    """For each row, the ``decks`` it is at least ``min_probability`` likely to be, most
    likely first, leaving out that row's ``exclude`` deck (its own name)."""
    col = {c: k for k, c in enumerate(classes)}
    present = [d for d in decks if d in col]
    out = []
    for i, row in enumerate(np.asarray(probabilities, np.float64)):
        own = exclude[i] if exclude is not None else None
        cand = [(float(row[col[d]]), d) for d in present if d != own]
        out.append(tuple(d for p, d in sorted(cand, reverse=True) if p >= min_probability))
    return out


def count_ranges(
    counts: dict[str, int],
    named: Sequence[str | None],
    doubted: Sequence[bool],
    could_be: Sequence[tuple[str, ...]],
    possible_could_be: Sequence[tuple[str, ...]],
) -> dict[str, tuple[int, int]]:
    """``{deck: (low, high)}`` around ``counts`` (module docstring).

    ``named``, ``doubted`` and ``could_be`` run over the counted backs: the deck each is
    named (``None``: unknown), whether it is uncertain, and the other decks it could be.
    ``possible_could_be``: the decks each possible card could be.
    """
    low = dict(counts)
    high = dict(counts)
    for deck, doubt, others in zip(named, doubted, could_be, strict=True):
        if not doubt:
            continue
        if deck in low:
            low[deck] -= 1
        for other in others:
            if other in high:
                high[other] += 1
    for others in possible_could_be:
        for other in others:
            if other in high:
                high[other] += 1
    return {d: (low[d], high[d]) for d in counts}
