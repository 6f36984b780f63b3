"""Cards: validation, masks, canonical corner order."""

import numpy as np
import pytest

from vision.core.cards import BACK, FACE, Cards
from vision.core.geometry import canonical_corners, cut_by_inner_edges, xywhr_to_corners


def make(n: int = 3) -> Cards:
    xywhr = np.array([[100 + 50 * i, 80, 40, 60, 0.1 * i] for i in range(n)], np.float32)
    return Cards.from_xywhr(xywhr, [BACK] * n, np.linspace(0.5, 0.9, n))


def test_mask_and_index_select_rows() -> None:
    cards = make(3)
    cards.deck[:] = ["pump", None, "pail"]
    high = cards[cards.confidence > 0.6]
    assert len(high) == 2
    assert list(high.deck) == [None, "pail"]
    assert len(cards[[0]]) == 1
    assert len(cards[1]) == 1


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"side": [0, 1]}, ValueError),  # wrong length
        ({"side": [0, 0, 2]}, ValueError),  # not back/face
        ({"confidence": [0.5]}, ValueError),
    ],
)
def test_bad_arrays_are_refused(kwargs: dict, error: type) -> None:
    base = {"corners": np.zeros((3, 4, 2)), "side": [0, 0, 1], "confidence": [0.5, 0.5, 0.5]}
    base.update(kwargs)
    with pytest.raises(error):
        Cards(**base)


def test_non_finite_corners_are_refused() -> None:
    corners = np.zeros((1, 4, 2))
    corners[0, 0, 0] = np.nan
    with pytest.raises(ValueError):
        Cards(corners, [BACK], [0.9])


def test_empty_and_concatenate() -> None:
    assert len(Cards.empty()) == 0
    both = Cards.concatenate([make(2), Cards.empty(), make(1)])
    assert len(both) == 3
    assert both.corners.shape == (3, 4, 2)


def test_other_probability_travels_with_its_rows() -> None:
    cards = make(3)
    assert list(cards.other_probability) == [0.0, 0.0, 0.0]
    cards.other_probability[:] = [0.1, 0.2, 0.3]
    assert cards[[2, 0]].other_probability == pytest.approx([0.3, 0.1])
    both = Cards.concatenate([cards[[1]], make(1)])
    assert both.other_probability == pytest.approx([0.2, 0.0])
    with pytest.raises(ValueError):
        Cards(np.zeros((2, 4, 2)), [BACK, BACK], [0.5, 0.5], other_probability=[0.1])


@pytest.mark.parametrize("angle", [0.0, 0.4, 1.2, -0.7, 2.9])
@pytest.mark.parametrize("wh", [(40, 60), (60, 40)])
def test_canonical_order_short_edge_first_clockwise(angle: float, wh: tuple) -> None:
    quad = xywhr_to_corners(np.array([[200, 150, wh[0], wh[1], angle]]))[0]
    e01 = np.linalg.norm(quad[1] - quad[0])
    e12 = np.linalg.norm(quad[2] - quad[1])
    assert e01 == pytest.approx(40, abs=0.01)
    assert e12 == pytest.approx(60, abs=0.01)
    x, y = quad[:, 0], quad[:, 1]
    assert (x * np.roll(y, -1) - np.roll(x, -1) * y).sum() > 0  # clockwise on screen
    again = canonical_corners(quad[::-1])[0]
    assert np.allclose(np.sort(again, axis=0), np.sort(quad, axis=0))


def test_transformed_and_sizes() -> None:
    cards = make(1).transformed(2.0, (10.0, 0.0))
    assert cards.long_side_px[0] == pytest.approx(120, abs=0.01)
    assert cards.centers[0, 0] == pytest.approx(210, abs=0.01)
    faces = Cards(cards.corners, [FACE], [0.9])
    assert faces.value[0] == -1


def test_a_card_at_an_inner_edge_of_a_window_is_cut_one_at_the_picture_edge_is_not() -> None:
    def box(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)

    corners = np.stack(
        [
            box(0.5, 10, 20, 40),  # at the left edge
            box(10, 10, 30, 40),  # well inside
            box(70, 10, 98.5, 40),  # at the right edge
            box(30, 60, 50, 99),  # at the bottom edge
        ]
    )
    window = (100, 100)
    assert cut_by_inner_edges(corners, window, (True, True, True, True)).tolist() == [
        True, False, True, True
    ]  # fmt: skip
    # The window's left and bottom edges are the picture's own: nothing goes on past them.
    assert cut_by_inner_edges(corners, window, (False, True, True, False)).tolist() == [
        False, False, True, False
    ]  # fmt: skip
