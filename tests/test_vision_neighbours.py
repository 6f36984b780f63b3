"""Neighbouring backs as evidence: slivers take their fan's deck, clear cards keep their own."""

import numpy as np
import pytest

from vision.cards import xywhr_to_corners
from vision.neighbours import neighbour_consensus, touching_pairs
from vision.settings import VisionSettings

# Class columns of the probabilities below.
BLUE_PUMP, PLOW, CARRIAGE, OTHER = range(4)
DEFAULTS = VisionSettings()


def quads(xs: list[float], y: float = 100.0) -> np.ndarray:
    """Upright 40 x 60 px cards centred at ``xs``."""
    return xywhr_to_corners(np.array([[x, y, 40, 60, 0.0] for x in xs], np.float32))


def probs(*rows: tuple[float, ...]) -> np.ndarray:
    p = np.array(rows, np.float64)
    return p / p.sum(axis=1, keepdims=True)


def consensus(corners: np.ndarray, p: np.ndarray, members: np.ndarray | None = None) -> np.ndarray:
    if members is None:
        members = np.ones(len(p), bool)
    return neighbour_consensus(
        corners, p, members, DEFAULTS.neighbour_weight, DEFAULTS.neighbour_floor
    )


def test_sliver_in_a_fan_takes_the_fans_deck() -> None:
    corners = quads([100, 112, 124, 136, 148])  # a fan: each card 12 px past the last
    plow = (0.05, 0.9, 0.03, 0.02)
    sliver = (0.50, 0.45, 0.03, 0.02)  # blue ink seen, picture not: pump by a hair
    p = probs(plow, plow, sliver, plow, plow)
    assert p[2].argmax() == BLUE_PUMP
    out = consensus(corners, p)
    assert out[2].argmax() == PLOW
    assert (out.argmax(axis=1) == PLOW).all()
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


def test_clearly_seen_card_keeps_its_deck_among_others() -> None:
    corners = quads([100, 112, 124, 136, 148])
    plow = (0.05, 0.9, 0.03, 0.02)
    carriage = (0.01, 0.03, 0.95, 0.01)  # a red carriage dropped into a blue fan
    out = consensus(corners, probs(plow, plow, carriage, plow, plow))
    assert out[2].argmax() == CARRIAGE


def test_cards_that_touch_nothing_are_left_alone() -> None:
    corners = quads([100, 300, 500])  # 200 px apart, 40 px wide
    p = probs((0.05, 0.9, 0.03, 0.02), (0.5, 0.45, 0.03, 0.02), (0.05, 0.9, 0.03, 0.02))
    np.testing.assert_allclose(consensus(corners, p), p)


def test_weight_zero_changes_nothing() -> None:
    corners = quads([100, 112])
    p = probs((0.05, 0.9, 0.03, 0.02), (0.5, 0.45, 0.03, 0.02))
    np.testing.assert_allclose(neighbour_consensus(corners, p, np.ones(2, bool), 0.0, 0.5), p)


def test_non_members_lend_no_evidence_and_keep_their_row() -> None:
    corners = quads([100, 112, 124])
    p = probs((0.05, 0.9, 0.03, 0.02), (0.5, 0.45, 0.03, 0.02), (0.05, 0.9, 0.03, 0.02))
    members = np.array([False, True, False])  # e.g. faces around one back
    np.testing.assert_allclose(consensus(corners, p, members), p)


def test_cards_laid_edge_to_edge_touch_but_a_gap_does_not() -> None:
    assert touching_pairs(quads([100, 141])) == [(0, 1)]  # 1 px apart
    assert touching_pairs(quads([100, 170])) == []  # 30 px apart
    assert touching_pairs(quads([100])) == []


@pytest.mark.parametrize("overrides", [{"neighbour_weight": -1.0}, {"neighbour_floor": 0.0}])
def test_bad_neighbour_settings_are_refused(overrides: dict) -> None:
    with pytest.raises(ValueError):
        VisionSettings(**overrides)


def test_kept_cards_lend_evidence_but_keep_their_own_look() -> None:
    corners = quads([100, 112, 124])
    plow = (0.05, 0.9, 0.03, 0.02)
    no_deck = (0.25, 0.2, 0.05, 0.5)  # a false find beside a row: looks like no deck
    p = probs(plow, no_deck, plow)
    keep = np.array([False, True, False])
    out = neighbour_consensus(corners, p, np.ones(3, bool), 2.0, 0.5, keep=keep)
    np.testing.assert_allclose(out[1], p[1])
    assert consensus(corners, p)[1].argmax() == PLOW  # without keep it would join the row
