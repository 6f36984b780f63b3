"""A heap Tallero cannot count must not come out as a number: unknown backs widen the
ranges of the decks they could be, and a tight heap of doubtful cards asks to be spread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from scoring.decks import deck_by_name
from scoring.game import GameSetup, Seat
from scoring.tally import Tally, round_from_tallies
from vision.core.cards import BACK, Cards
from vision.count.doubts import look_alikes, within_deck_size
from vision.count.result import Count
from vision.name.namer import unknown_could_be

DECKS = ("pump", "carriage", "plow", "pail")


def quad(x: float, y: float = 0.0) -> list[list[float]]:
    return [[x, y], [x + 40, y], [x + 40, y + 60], [x, y + 60]]


def backs(xs: list[float], decks: list[str | None], confidence: list[float]) -> Cards:
    cards = Cards(np.array([quad(x) for x in xs]), [BACK] * len(xs), confidence)
    cards.deck[:] = decks
    return cards


def test_an_unknown_back_could_be_the_deck_of_the_backs_it_touches() -> None:
    # A plow, an unknown sliver on it, a pump far away and an unknown card alone.
    cards = backs([0, 30, 400, 800], ["plow", None, "pump", None], [0.99] * 4)
    out = unknown_could_be(cards, [(), (), (), ()], DECKS)
    assert out == [(), ("plow",), (), DECKS]
    # What the picture itself said stands.
    assert unknown_could_be(cards, [(), ("pail",), (), ()], DECKS)[1] == ("pail",)
    # A lower bar of its own (an enrolled profile's) may let a picture that names no deck at
    # the shared bar be something faintly: it keeps that, and what it touches still counts.
    faint = [(), ("pail",), (), ("carriage",)]
    out = unknown_could_be(cards, faint, DECKS, judged=[(), (), (), ()])
    assert out == [(), ("plow", "pail"), (), DECKS]


def count_of(
    cards: Cards,
    could_be: Sequence[tuple[str, ...]] | None = None,
    decks: tuple[str, ...] = DECKS,
    **kw: Any,
) -> Count:
    could = tuple(could_be or [()] * len(cards))
    return Count("table.jpg", (1000, 200), cards, decks, {}, could_be=could, **kw)


def test_unknown_backs_widen_the_ranges_they_could_be_in() -> None:
    cards = backs([0, 30, 400, 800], ["plow", None, "pump", None], [0.99] * 4)
    count = count_of(cards, unknown_could_be(cards, [()] * 4, DECKS))
    assert count.counts == {"pump": 1, "carriage": 0, "plow": 1, "pail": 0}
    assert count.ranges == {"pump": (1, 2), "carriage": (0, 1), "plow": (1, 3), "pail": (0, 1)}


def test_a_tight_heap_of_doubtful_backs_asks_to_be_spread() -> None:
    xs = [0, 12, 24, 36, 48, 60]  # six backs, each on the next
    sure, doubtful = 0.99, 0.5
    heap = count_of(backs(xs, ["pump"] * 6, [doubtful] * 3 + [sure] * 3))
    assert heap.spread == [[1, 2, 3, 4, 5, 6]]
    assert heap.to_json()["spread"] == [
        {"cards": [1, 2, 3, 4, 5, 6], "corners": [[0, 0], [100, 0], [100, 60], [0, 60]]}
    ]
    # Fewer doubtful cards, or fewer cards, or cards apart: countable.
    assert count_of(backs(xs, ["pump"] * 6, [doubtful] * 2 + [sure] * 4)).spread == []
    assert count_of(backs(xs[:5], ["pump"] * 5, [doubtful] * 5)).spread == []
    apart = [x * 10 for x in xs]
    assert count_of(backs(apart, ["pump"] * 6, [doubtful] * 6)).spread == []


def test_a_heap_too_tight_to_count_blocks_the_round() -> None:
    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Ben", deck_by_name("plow"))))
    result = round_from_tallies(setup, Tally({"pump": 9, "plow": 4}, spread=1), None)
    assert (
        "1 heap(s) in the Dutch photo too tight to count: spread these cards out and take the "
        "photo again (marked on it)"
    ) in result.problems


def test_backs_under_the_range_bar_widen_the_ranges_without_being_flagged() -> None:
    cards = backs([0, 400], ["pump", "plow"], [0.85, 0.99])
    could_be = [("plow",), ("pump",)]
    plain = count_of(cards, could_be)
    assert plain.uncertain == [] and plain.ranges == {
        "pump": (1, 1),
        "carriage": (0, 0),
        "plow": (1, 1),
        "pail": (0, 0),
    }
    wide = count_of(cards, could_be, range_below_confidence=0.9)
    assert wide.uncertain == []
    assert wide.ranges == {"pump": (0, 1), "carriage": (0, 0), "plow": (1, 2), "pail": (0, 0)}


def test_decks_of_one_ink_or_one_object_look_alike() -> None:
    assert look_alikes(("pump", "carriage", "plow", "pail")) == {}
    assert look_alikes(("pump", "plow", "blue-pump", "green-pail", "grandmas")) == {
        "pump": ("blue-pump", "green-pail"),  # its object in blue, its green ink on a pail
        "plow": ("blue-pump",),
        "blue-pump": ("pump", "plow"),
        "green-pail": ("pump",),
    }


def test_a_sure_back_that_could_be_a_deck_it_looks_alike_widens_the_ranges() -> None:
    # A plow 0.99 sure that could be the blue pump (the same blue ink), and a carriage
    # 0.99 sure that could be the plow (another ink, another object): only the first
    # casts doubt.
    decks = ("carriage", "plow", "blue-pump", "green-pail")
    cards = backs([0, 400], ["plow", "carriage"], [0.99, 0.99])
    could_be = (("blue-pump",), ("plow",))
    plain = count_of(cards, could_be, decks)
    assert plain.ranges == {
        "carriage": (1, 1),
        "plow": (1, 1),
        "blue-pump": (0, 0),
        "green-pail": (0, 0),
    }
    alike = count_of(cards, could_be, decks, look_alikes=look_alikes(decks))
    assert alike.uncertain == []  # nothing more to look at
    assert alike.ranges == {
        "carriage": (1, 1),
        "plow": (0, 1),
        "blue-pump": (0, 1),
        "green-pail": (0, 0),
    }
    # A look-alike the classifier does not find likely casts no doubt.
    sure = count_of(cards, None, decks, look_alikes=look_alikes(decks))
    assert sure.ranges == plain.ranges


def test_a_range_reaches_no_further_than_a_deck_holds() -> None:
    assert within_deck_size({"pump": (3, 131), "pail": (0, 8)}, {"pump": 12, "pail": 0}) == {
        "pump": (3, 40),
        "pail": (0, 8),
    }
    # 60 backs named pump: at least 20 of them are not, and may be any other deck.
    assert within_deck_size({"pump": (33, 60), "pail": (0, 8)}, {"pump": 60, "pail": 0}) == {
        "pump": (13, 60),
        "pail": (0, 28),
    }
