"""A heap Tallero cannot count must not come out as a number: card material no counted card
explains widens the ranges, a card boxed twice lets the range reach lower, and a heap that
could hide many cards asks to be spread out (`vision.count.heaps`)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from scoring.decks import deck_by_name
from scoring.game import GameSetup, Seat
from scoring.tally import round_from_tallies
from vision.core.cards import BACK, Cards
from vision.core.settings import VisionSettings
from vision.count.heaps import Heap, HeapRules, doubled_cards, find_heaps, heap_ranges
from vision.count.result import Count
from vision.count.tally import tally_of

DECKS = ("pump", "carriage", "plow", "pail")
SIZE = (1000, 800)


def card(x: float, y: float = 98.0) -> list[list[float]]:
    """An upright card, 56 x 87 px, its top left corner at (x, y)."""
    return [[x, y], [x + 56, y], [x + 56, y + 87], [x, y + 87]]


def quads(*xs: float) -> np.ndarray:
    return np.array([card(x) for x in xs], np.float32).reshape(-1, 4, 2)


def test_candidates_beside_the_counted_card_are_material_it_does_not_explain() -> None:
    # One counted card and four candidates in a row after it: four cards' worth unexplained.
    heaps = find_heaps(SIZE, quads(98), quads(154, 210, 266, 322), np.full(4, 0.05), HeapRules())
    assert len(heaps) == 1
    heap = heaps[0]
    assert heap.cards == (0,)
    assert heap.material == pytest.approx(5.0, abs=0.3)
    assert 3.0 <= heap.unexplained <= 4.0
    assert heap.hidden == math.ceil(heap.unexplained / 0.25)
    assert heap.box[0] == pytest.approx(98, abs=8) and heap.box[2] == pytest.approx(378, abs=8)


def test_a_candidate_on_a_counted_card_explains_nothing_new() -> None:
    # A second box a few pixels off the counted card leaves only a seam.
    heaps = find_heaps(SIZE, quads(98), quads(101), np.array([0.2]), HeapRules())
    assert [(h.cards, h.unexplained, h.hidden) for h in heaps] == [((0,), 0.0, 0)]


def test_each_loose_candidate_could_be_one_more_card() -> None:
    # The area alone says nothing here (bar too high); the four loose candidates do.
    rules = HeapRules(min_unexplained=10.0, visible_fraction=1.0)
    heaps = find_heaps(SIZE, quads(98), quads(154, 210, 266, 322), np.full(4, 0.05), rules)
    assert [h.hidden for h in heaps] == [4]
    # Candidates under the material's chance bar are no material at all.
    unlikely = HeapRules(min_chance=0.1, loose_min_chance=0.1)
    heaps = find_heaps(SIZE, quads(98), quads(154, 210, 266, 322), np.full(4, 0.05), unlikely)
    assert heaps == []


def test_heaps_apart_are_judged_apart() -> None:
    counted = quads(98, 600)
    heaps = find_heaps(SIZE, counted, quads(154, 210), np.full(2, 0.05), HeapRules())
    assert [h.cards for h in heaps] == [(0,), (1,)]
    assert heaps[0].hidden > 0 and heaps[1].hidden == 0


def test_nothing_to_judge_without_candidates() -> None:
    assert find_heaps(SIZE, quads(98), quads(), np.zeros(0), HeapRules()) == []
    assert find_heaps(SIZE, quads(), quads(), np.zeros(0), HeapRules()) == []


def test_a_counted_card_on_a_likelier_one_may_be_a_second_box() -> None:
    corners = quads(0, 10, 300, 340)  # IoU 0.70 and 0.17
    assert doubled_cards(corners, np.array([0.9, 0.8, 0.7, 0.95]), 0.5) == [1]
    assert doubled_cards(corners, np.array([0.8, 0.9, 0.7, 0.95]), 0.5) == [0]
    assert doubled_cards(corners, np.array([0.9, 0.8, 0.7, 0.95]), 0.8) == []
    assert doubled_cards(quads(0), np.array([0.9]), 0.5) == []


def heap(cards: tuple[int, ...], hidden: int, material: float = 1.0) -> Heap:
    return Heap((0.0, 0.0, 10.0, 10.0), cards, 0.0, hidden, material)


RANGES = {"pump": (3, 3), "carriage": (2, 2), "plow": (0, 0), "pail": (1, 2)}


def test_hidden_cards_raise_the_decks_of_the_heap_or_every_deck() -> None:
    decks = ["pump", "pump", "carriage", None]
    backs = [True, True, True, False]  # the last is a face
    named = heap_ranges(RANGES, [heap((0, 1, 3), 2)], [], decks, backs)
    assert named == {"pump": (3, 5), "carriage": (2, 2), "plow": (0, 0), "pail": (1, 2)}
    nobody = heap_ranges(RANGES, [heap((), 2)], [], decks, backs)
    assert nobody == {"pump": (3, 5), "carriage": (2, 4), "plow": (0, 2), "pail": (1, 4)}
    unknown = heap_ranges(RANGES, [heap((0,), 1)], [], ["pump"], [True])
    assert unknown["plow"] == (0, 0)
    assert heap_ranges(RANGES, [heap((0,), 1)], [], [None], [True])["plow"] == (0, 1)
    assert heap_ranges(RANGES, [heap((0, 1), 0)], [], decks, backs) == RANGES


def test_a_doubled_back_lowers_its_deck_and_never_below_zero() -> None:
    out = heap_ranges(RANGES, [], [0, 1, 3], ["pump", "plow", "pail", None], [True] * 3 + [False])
    assert out == {"pump": (2, 3), "carriage": (2, 2), "plow": (0, 0), "pail": (1, 2)}


def test_a_heap_too_tight_to_count_reaches_as_far_as_its_material() -> None:
    rules = HeapRules(
        visible_fraction=0.25, spread_min_hidden=6, tight_lowers=False, tight_any_deck=False
    )
    tight = heap((0, 1), 6, material=4.0)  # room for 16 cards, 2 counted: 14 more
    out = heap_ranges(RANGES, [tight], [], ["pump", "pump"], [True, True], rules)
    assert out["pump"] == (3, 17)
    assert out["carriage"] == (2, 2)
    lowers = HeapRules(spread_min_hidden=6, tight_lowers=True, tight_any_deck=False)
    out = heap_ranges(RANGES, [tight], [], ["pump", "pump"], [True, True], lowers)
    assert out["pump"] == (1, 17)
    # Its backs could be of any deck: the others reach up by them, and by what it may hide.
    mixed = heap((0, 1), 6, material=4.0)
    out = heap_ranges(
        RANGES, [mixed], [], ["pump", "plow"], [True, True], HeapRules(spread_min_hidden=6)
    )
    assert out == {"pump": (2, 18), "carriage": (2, 18), "plow": (0, 15), "pail": (1, 18)}
    # Under the bar it is only its hidden cards.
    loose = heap((0, 1), 5, material=4.0)
    assert heap_ranges(RANGES, [loose], [], ["pump"] * 2, [True] * 2, rules)["pump"] == (3, 8)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("min_chance", 1.5),
        ("visible_fraction", 0.0),
        ("double_min_iou", -0.1),
        ("cells_per_card", 1),
        ("min_unexplained", -1.0),
        ("spread_min_hidden", 0),
    ],
)
def test_nonsense_rules_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        HeapRules(**{field: value})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("heap_visible_fraction", 0.0),
        ("heap_double_min_iou", 2.0),
        ("heap_spread_min_hidden_cards", 0),
        ("heap_min_unexplained_card_areas", -0.5),
    ],
)
def test_nonsense_heap_settings_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        VisionSettings(**{field: value})


def counted_backs(xs: list[float], decks: list[str]) -> Cards:
    cards = Cards(quads(*xs), [BACK] * len(xs), [0.95] * len(xs))
    cards.deck[:] = decks
    return cards


def heap_count(rules: HeapRules | None) -> Count:
    """Two counted pumps and, beside them, candidates the check turned down."""
    rejected = Cards(quads(210, 266, 322, 378), [BACK] * 4, [0.05] * 4)
    return Count(
        "heap.jpg",
        SIZE,
        counted_backs([98, 154], ["pump", "pump"]),
        DECKS,
        {},
        could_be=((), ()),
        rejected=rejected,
        heap_rules=rules,
    )


def test_a_count_widens_its_ranges_by_the_heap_and_asks_to_spread_it() -> None:
    count = heap_count(HeapRules())
    [pile] = count.heaps
    assert pile.hidden >= 6
    assert count.counts["pump"] == 2
    # Too tight to count: both counted backs could be of another deck.
    assert count.ranges["pump"][0] == 0
    assert heap_count(HeapRules(tight_lowers=False)).ranges["pump"][0] == 2
    assert count.ranges["pump"][1] >= 2 + 4
    # Too tight to count, its two pumps could be carriages too, and so could what it hides.
    assert count.ranges["carriage"] == (0, count.ranges["pump"][1])
    assert heap_count(HeapRules(tight_any_deck=False)).ranges["carriage"] == (0, 0)
    assert not count.sure
    data = count.to_json()
    assert data["heaps"] == [
        {
            "cards": [1, 2],
            "corners": [[x, y] for x, y in count.spread_json()[0]["corners"]],
            "unexplained": round(pile.unexplained, 2),
            "hidden": pile.hidden,
        }
    ]
    assert data["doubled"] == []
    assert data["spread"][0]["cards"] == [1, 2]
    assert count.spread == [[1, 2]]
    tally = tally_of(count)
    assert tally.spread == 1
    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Ben", deck_by_name("plow"))))
    problems = round_from_tallies(setup, tally, None).problems
    assert any("spread these cards out" in p for p in problems)


def test_without_heap_rules_the_count_is_as_before() -> None:
    count = heap_count(None)
    assert count.ranges == {"pump": (2, 2), "carriage": (0, 0), "plow": (0, 0), "pail": (0, 0)}
    assert count.heaps == [] and count.doubled == [] and count.spread == []
    assert count.to_json()["heaps"] == []


def test_the_spread_heap_is_marked_on_the_annotated_image() -> None:
    from vision.count.annotate import CountAnnotator

    count = heap_count(HeapRules())
    blank = np.full((SIZE[1], SIZE[0], 3), 255, np.uint8)
    drawn = CountAnnotator().annotate(blank, count)
    x0, y0, x1, y1 = (round(v) for v in count.spread_places[0][1])
    # The red dashes of the heap's box run above it, where no card is drawn.
    band = drawn[max(0, y0 - 12) : y0 - 1, x0:x1]
    red = (band[..., 2] > 150) & (band[..., 0] < 80) & (band[..., 1] < 80)
    assert red.any()
    assert cv2.absdiff(drawn, blank).any()


# A tight heap of 30 pail backs under motion blur and glare, 460 x 490 px: scene 24 of
# ``tallero dataset synth OUT --kind hard --seed 7701 --imgsz 1920 --n 30`` (built-in
# decks), cut out at x 420-880, y 30-520. Cards whose centre lies in the cut: 30 pail, 3
# green-pail, 2 red-plow backs (5 of them cut by its edge).
HEAP_PHOTO = "tests/data/heap/pail-heap-30.jpg"
HEAP_DECKS = ("pump", "carriage", "plow", "pail", "blue-pump", "red-plow", "yellow-carriage",
              "green-pail")  # fmt: skip


def test_a_tight_heap_is_not_counted_as_a_number_that_misses_it() -> None:
    import dataclasses

    from vision.count.counter import Counter

    count = Counter(threads=2, decks=HEAP_DECKS).count(HEAP_PHOTO)
    low, high = count.ranges["pail"]
    assert low <= 30 <= high
    if count.counts["pail"] != 30:
        # A wrong count comes with the heap marked to be spread out.
        assert count.spread
        assert count.to_json()["heaps"]
        # Judged card by card alone, the range would have missed the heap.
        before = dataclasses.replace(count, heap_rules=None)
        assert not before.ranges["pail"][0] <= 30 <= before.ranges["pail"][1]


def test_a_tight_group_within_a_heap_is_one_place_to_spread() -> None:
    # Six touching backs, half of them doubtful, with card material beside them.
    cards = Cards(quads(*[98 + 12 * k for k in range(6)]), [BACK] * 6, [0.5] * 3 + [0.95] * 3)
    cards.deck[:] = ["pump"] * 6
    rejected = Cards(quads(200, 256, 312), [BACK] * 3, [0.05] * 3)
    count = Count(
        "heap.jpg", SIZE, cards, DECKS, {}, could_be=((),) * 6, rejected=rejected,
        heap_rules=HeapRules(),
    )  # fmt: skip
    assert count.tight_groups() == [[1, 2, 3, 4, 5, 6]]
    assert count.heaps[0].hidden >= 4
    [(ids, box)] = count.spread_places
    assert ids == [1, 2, 3, 4, 5, 6]
    assert box[0] <= 98 and box[2] >= count.heaps[0].box[2]
    # Judged card by card alone, the group is still one place, as it was.
    alone = Count("heap.jpg", SIZE, cards, DECKS, {}, could_be=((),) * 6)
    assert alone.spread_places == [([1, 2, 3, 4, 5, 6], alone.box_of([1, 2, 3, 4, 5, 6]))]


def test_a_label_that_would_run_off_the_photo_is_drawn_inside_it() -> None:
    from vision.count.annotate import CountAnnotator

    # A heap reaching the top of the photo: its label would sit above the picture.
    out = np.zeros((100, 300, 3), np.uint8)
    CountAnnotator._label(out, "spread these cards out", np.array([-40.0, -30.0]), (0, 0, 255), 0.4)
    white = (out == 255).all(axis=2)
    assert white[:20, :40].any()
    assert not white[40:].any()
