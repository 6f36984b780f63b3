"""How the number reader turns its two corner bands into a face's number (no photo)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.name.numbers import combine, view_quads

CLASSES = (*(str(v) for v in range(1, 11)), "hidden")


def band(number: int | None, p: float) -> list[float]:
    """A band reading ``number`` (None: hidden) at ``p``, the rest spread evenly."""
    out = [(1.0 - p) / 10] * 11
    out[10 if number is None else number - 1] = p
    return out


@pytest.mark.parametrize(
    ("bands", "agreement", "value", "confidence"),
    [
        # two prints of 7 at 0.8: wrong only if both are (1 - 0.2 * 0.2)
        ([band(7, 0.8), band(7, 0.8)], True, 7, 0.96),
        ([band(7, 0.8), band(7, 0.8)], False, -1, 0.0),
        # one index covered: the other alone must reach the bar
        ([band(7, 0.97), band(None, 0.9)], True, 7, 0.97),
        ([band(7, 0.9), band(None, 0.9)], True, -1, 0.0),
        # the two indices read differently: never a number
        ([band(7, 0.99), band(1, 0.6)], True, -1, 0.0),
        ([band(None, 0.9), band(None, 0.9)], True, -1, 0.0),
    ],
)
def test_two_bands_give_a_number_only_when_sure(bands, agreement, value, confidence):
    read = combine(np.array(bands), CLASSES, 0.95, agreement)
    assert int(read.values[0]) == value
    assert float(read.confidence[0]) == pytest.approx(confidence, abs=1e-6)


def test_more_looks_move_the_corners_a_few_percent_of_the_card():
    quad = np.array([[[10, 20], [110, 20], [110, 170], [10, 170]]], np.float32)
    views = view_quads(quad, 3)
    assert views.shape == (3, 4, 2)
    assert np.array_equal(views[0], quad[0])
    assert np.allclose(views[1] - quad[0], [3.0, 0.0])  # 3% of the 100 px width, rightwards
    assert np.allclose(views[2] - quad[0], [-3.0, 0.0])
    with pytest.raises(ValueError, match="views must be 1..7"):
        view_quads(quad, 8)
