"""Card paper in the pixels where no card was found (`vision.count.paper`): a row of cards the
detector missed is heap material and widens the ranges; the table, a sheet of paper and a
thing of a colour no card has are not."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.core.cards import BACK, Cards
from vision.count.heaps import HeapRules, find_heaps
from vision.count.paper import Paper, PaperRules, find_paper
from vision.count.result import Count

DECKS = ("pump", "carriage", "plow", "pail")
SIZE = (640, 480)
CREAM = (200, 225, 235)  # BGR
INK = (40, 60, 170)
TABLE = (40, 110, 50)


def card(x: float, y: float) -> np.ndarray:
    """An upright card, 28 x 44 px, its top left corner at (x, y)."""
    return np.array([[x, y], [x + 28, y], [x + 28, y + 44], [x, y + 44]], np.float32)


def table_photo() -> np.ndarray:
    """A green cloth with a little noise."""
    rng = np.random.default_rng(5)
    photo = np.empty((SIZE[1], SIZE[0], 3), np.float32)
    photo[:] = TABLE
    photo += rng.normal(0, 4, photo.shape)
    return np.clip(photo, 0, 255).astype(np.uint8)


def draw_card(photo: np.ndarray, quad: np.ndarray) -> None:
    x0, y0 = (int(v) for v in quad[0])
    photo[y0 : y0 + 44, x0 : x0 + 28] = CREAM
    photo[y0 + 14 : y0 + 30, x0 + 8 : x0 + 20] = INK


def scene() -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """Five counted cards apart, and a row of 12 cards going down from the last one that
    nobody found (each shows a 10 px band of itself): the photo, the counted quads, and
    the row's box (x0, y0, x1, y1)."""
    photo = table_photo()
    counted = np.stack([card(60 + 50 * i, 60) for i in range(5)])
    for quad in counted:
        draw_card(photo, quad)
    x = 60 + 50 * 4
    for k in range(12):
        draw_card(photo, card(x, 104 + 10 * k))
    draw_card(photo, counted[4])  # the found card lies on top of the row
    return photo, counted, (x, 104, x + 28, 104 + 10 * 11 + 44)


def test_a_row_nobody_found_is_paper_and_the_table_is_not() -> None:
    photo, counted, (x0, y0, x1, y1) = scene()
    paper = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules())
    assert paper is not None and paper.scale == 1.0
    row = paper.mask[y0 + 4 : y1 - 4, x0 + 4 : x1 - 4]
    assert row.mean() > 0.9
    # The table, and the cards found apart from the row, are no paper the count misses.
    assert paper.mask[300:, :200].sum() == 0
    assert paper.mask[60:104, 60:230].sum() == 0


def test_the_row_is_a_heap_with_the_card_at_its_end_and_widens_its_deck() -> None:
    photo, counted, _ = scene()
    paper = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules())
    none = np.zeros((0, 4, 2), np.float32)
    assert find_heaps(SIZE, counted, none, np.zeros(0), HeapRules()) == []
    [row] = [
        h for h in find_heaps(SIZE, counted, none, np.zeros(0), HeapRules(), paper) if h.hidden
    ]
    assert row.cards == (4,)
    assert row.hidden >= 12
    names = np.array(["pump"] * 4 + ["pail"], dtype=object)
    cards = Cards(
        corners=counted,
        side=np.full(5, BACK, np.int8),
        deck=names,
        confidence=np.ones(5, np.float32),
        deck_confidence=np.ones(5, np.float32),
    )
    count = Count(
        image="row.png",
        size=SIZE,
        cards=cards,
        decks=DECKS,
        model={},
        could_be=((),) * 5,
        rejected=Cards.empty(),
        heap_rules=HeapRules(),
        paper=paper,
    )
    assert count.counts["pail"] == 1
    low, high = count.ranges["pail"]
    assert low <= 13 <= high
    assert count.spread  # a row that tight is to be spread out
    without = dataclasses.replace(count, paper=None)
    assert without.ranges["pail"] == (1, 1)


def test_a_sheet_of_paper_is_too_thick_to_be_a_row_of_cards() -> None:
    photo, counted, _ = scene()
    photo[320:440, 400:520] = CREAM  # a score pad, 120 x 120 px
    rules = PaperRules(ratio=4.0)
    paper = find_paper(photo, counted, np.zeros((0, 4, 2)), rules)
    assert paper is not None
    assert paper.mask[330:430, 410:510].sum() == 0
    thick = dataclasses.replace(rules, max_thickness=99.0, min_length=0.0)
    loose = find_paper(photo, counted, np.zeros((0, 4, 2)), thick)
    assert loose is not None and loose.mask[330:430, 410:510].mean() > 0.9


def test_a_lone_card_sized_patch_is_no_row_but_a_row_cut_by_glare_is() -> None:
    photo, counted, (x0, y0, x1, y1) = scene()
    photo[300:344, 450:478] = CREAM  # one card of another game, alone: 1 card length
    photo[y0 + 50 : y0 + 62, x0 - 2 : x1 + 2] = (255, 255, 255)  # glare across the row
    paper = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules())
    assert paper is not None
    assert paper.mask[300:344, 450:478].sum() == 0
    assert paper.mask[y0 + 66 : y1 - 4, x0 + 4 : x1 - 4].mean() > 0.9
    # Measured apart, the part of the row past the glare is too short for a row.
    apart = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules(join_gap=0.0))
    assert apart is not None
    assert apart.mask[y0 + 66 : y1 - 4, x0 + 4 : x1 - 4].sum() == 0


def test_a_row_half_in_shadow_is_grown_into_from_its_lit_half() -> None:
    photo, counted, (x0, y0, x1, y1) = scene()
    shade = (150, 170, 178)  # the cream in shadow
    # A little of the shadowed cream on one counted card, and in specks on the cloth: the
    # cards hold it only a few times as often as the table.
    cx, cy = (int(v) for v in counted[0][0])
    photo[cy + 2 : cy + 14, cx + 2 : cx + 26] = shade
    rng = np.random.default_rng(7)
    ys, xs = rng.integers(300, 480, 300), rng.integers(0, 200, 300)
    photo[ys, xs] = shade
    lower = slice(y0 + 70, y1), slice(x0, x1)
    photo[lower][(photo[lower] == CREAM).all(axis=2)] = shade
    seeds_only = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules(grow_ratio=16.0))
    grown = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules())
    assert seeds_only is not None and grown is not None
    inside = (slice(y0 + 76, y1 - 4), slice(x0 + 4, x1 - 4))
    # Alone, only the ink of the last card there looks like the cards.
    assert seeds_only.mask[inside].mean() < 0.3
    assert grown.mask[inside].mean() > 0.9
    # Shadowed cream touching no paper (the specks) is not grown into.
    assert grown.mask[300:, :200].sum() == 0


def test_a_colour_no_card_has_is_no_paper() -> None:
    photo, counted, _ = scene()
    photo[330:380, 400:600] = (200, 60, 30)  # a blue sleeve
    paper = find_paper(photo, counted, np.zeros((0, 4, 2)), PaperRules())
    assert paper is not None
    assert paper.mask[330:380, 400:600].sum() == 0


def test_nothing_to_tell_without_counted_cards() -> None:
    assert find_paper(table_photo(), np.zeros((0, 4, 2)), np.zeros((0, 4, 2)), PaperRules()) is None


def test_a_big_photo_is_judged_small_and_its_grid_fits_the_photo() -> None:
    photo, counted, _ = scene()
    big = np.repeat(np.repeat(photo, 3, axis=0), 3, axis=1)
    paper = find_paper(big, counted * 3, np.zeros((0, 4, 2)), PaperRules())
    assert paper is not None and paper.scale == pytest.approx(640 / 1920)
    grid = paper.on_grid((1920, 1440), 10.0)
    assert grid.shape == (144, 192)
    assert Paper(np.zeros((3, 4), np.uint8), 1.0).on_grid((4, 3), 1.0).shape == (3, 4)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("long_px", 10),
        ("ratio", 0),
        ("grow_ratio", 0),
        ("min_share", 2),
        ("max_thickness", 0),
        ("open_short", -1),
        ("min_length", -1),
        ("join_gap", -1),
    ],
)
def test_nonsense_rules_are_refused(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        PaperRules(**{field: value})


def test_photos_are_looked_at_for_paper_and_live_frames_are_not() -> None:
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter

    photo = "tests/data/heap/pail-heap-30.jpg"
    still = Counter(threads=1).count(photo)
    assert isinstance(still.paper, Paper)
    assert still.paper.mask.shape == (490, 460)
    assert Counter(threads=1, live=True).count(photo).paper is None
    off = VisionSettings(heap_paper=False)
    assert Counter(threads=1, settings=off).count(photo).paper is None
