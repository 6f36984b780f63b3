"""How far each deck's count could be off: possible cards not counted, and count ranges.

A count can be wrong three ways: a find that is not a card of that deck (a second box on
one card, a back of no deck of the game, a back of another deck), a card of the deck
named something else, and a card not counted at all. The first two are cards the user is
asked to look at (`Count.uncertain`). For the third, the card check lists the candidates it
nearly kept that cover no counted card (`vision.detect.checker.possible_cards`).

`count_ranges` turns both into a range per deck: a deck's count may lose each uncertain
card named for it, and may gain each uncertain card, and each possible card, that is at
least ``alternative_probability`` likely to be of that deck. A deck whose range is one
number is a count nothing casts doubt on.
"""

from __future__ import annotations

from collections.abc import Sequence


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
