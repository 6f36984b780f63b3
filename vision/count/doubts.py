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

With 5-8 players the decks come in pairs that differ by one thing only: two decks share
each ink (green pump, green pail) and two each object (green pump, blue pump). A sliver,
or a small or blurred card, shows the ink and not the object; low light shows the object
and not the ink. A classifier fitted on one photo of each deck names such a card surely and
wrongly, whole decks at a time, so with a profile's own classifier a back that could be a
deck it looks alike (`look_alikes`) is in doubt however sure it is (`Count.look_alikes`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scoring.decks import DECKS
from scoring.rules import DECK_SIZE

_TRAITS = {d.id: (d.ink, d.object) for d in DECKS}


def look_alikes(decks: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """``{deck: the other decks of its ink or of its object}`` among ``decks`` (the game's
    deck ids; a name that is no deck id looks like none), for the decks that have any."""
    out = {}
    for a in decks:
        if a not in _TRAITS:
            continue
        ink, obj = _TRAITS[a]
        alike = tuple(
            b
            for b in decks
            if b != a and b in _TRAITS and (_TRAITS[b][0] == ink or _TRAITS[b][1] == obj)
        )
        if alike:
            out[a] = alike
    return out


def look_alike_doubts(
    named: Sequence[str | None],
    could_be: Sequence[tuple[str, ...]],
    alikes: Mapping[str, tuple[str, ...]],
) -> list[bool]:
    """Per back, whether it is named a deck and could be one that deck looks alike
    (``alikes``)."""
    return [
        deck is not None and any(o in alikes.get(deck, ()) for o in others)
        for deck, others in zip(named, could_be, strict=True)
    ]


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


def expected_counts(
    counts: Mapping[str, int],
    named: Sequence[str | None],
    doubted: Sequence[bool],
    sureness: Sequence[float],
    could_be: Sequence[tuple[str, ...]],
    possible_could_be: Sequence[tuple[str, ...]],
    possible_chance: Sequence[float],
) -> dict[str, float]:
    """``{deck: the count its doubts make likeliest}``, a fraction: where within its range a
    deck's count most likely lies, used to choose between counts that all fit the Dutch
    piles' total (`scoring.settle`).

    Each uncertain back named a deck takes away what it is unsure of (1 - ``sureness``, the
    weaker of finding and naming it; all of it for a back of no deck) and shares that among
    the other decks it could be; each possible card adds its chance of being a card, shared
    among the decks it could be. ``named``, ``doubted``, ``sureness`` and ``could_be`` run
    over the counted backs as in `count_ranges`.
    """
    out = {d: float(n) for d, n in counts.items()}
    for deck, doubt, sure, others in zip(named, doubted, sureness, could_be, strict=True):
        if not doubt:
            continue
        unsure = 1.0 - float(sure) if deck is not None else 1.0
        if deck in out:
            out[deck] -= unsure
        reach = [o for o in others if o in out]
        for other in reach:
            out[other] += unsure / len(reach)
    for others, chance in zip(possible_could_be, possible_chance, strict=True):
        reach = [o for o in others if o in out]
        for other in reach:
            out[other] += float(chance) / len(reach)
    return out


def within_deck_size(
    ranges: Mapping[str, tuple[int, int]], counts: Mapping[str, int], size: int = DECK_SIZE
) -> dict[str, tuple[int, int]]:
    """``ranges`` as a deck of ``size`` cards allows them: none reaches past ``size`` (or
    past its own count, where that is more). A count over ``size`` names at least its
    excess of cards wrongly, sure ones among them: its low end drops by that many, and every
    other deck's high end rises by it (those cards may be any deck's)."""
    excess = {d: counts.get(d, 0) - size for d in ranges if counts.get(d, 0) > size}
    out = {}
    for deck, (low, high) in ranges.items():
        if deck in excess:
            low = max(0, low - excess[deck])
        high += sum(n for other, n in excess.items() if other != deck)
        out[deck] = (low, min(high, max(size, counts.get(deck, 0))))
    return out
