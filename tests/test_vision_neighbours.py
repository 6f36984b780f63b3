"""Neighbouring backs as evidence: slivers take their fan's deck, clear cards keep their own."""

from dataclasses import replace

import numpy as np
import pytest

from vision.core.geometry import xywhr_to_corners
from vision.core.settings import VisionSettings
from vision.name.neighbours import Neighbours, looks_mixed, neighbour_consensus, touching_pairs

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
    return Neighbours.from_settings(DEFAULTS).apply(corners, p, members)


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


@pytest.mark.parametrize(
    "overrides",
    [
        {"neighbour_weight": -1.0},
        {"neighbour_floor": 0.0},
        {"neighbour_reliability_power": -1.0},
        {"neighbour_rounds": 0},
        {"neighbour_mixed_agreement": 1.5},
        {"neighbour_mixed_agreement": -0.1},
    ],
)
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


PLOW_CLEAR = (0.04, 0.94, 0.01, 0.01)  # the top card of a fan: its picture shows
SLIVER = (0.55, 0.43, 0.01, 0.01)  # blue ink, no picture: pump by a hair


def test_a_fans_top_card_reaches_slivers_it_does_not_touch() -> None:
    corners = quads([100, 130, 160, 190])  # 30 px apart: each touches only the next
    assert touching_pairs(corners) == [(0, 1), (1, 2), (2, 3)]
    p = probs(PLOW_CLEAR, SLIVER, SLIVER, SLIVER)
    one_round = neighbour_consensus(corners, p, np.ones(4, bool), 2.0, 0.3, None, 16.0, 1)
    assert one_round[1].argmax() == PLOW
    assert one_round[3].argmax() == BLUE_PUMP  # its only neighbour is another sliver
    out = consensus(corners, p)  # three rounds: one card further each round
    assert (out.argmax(axis=1) == PLOW).all()
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


def test_unsure_neighbours_have_little_say_against_a_sure_one() -> None:
    # A sliver touching one clear plow and three slivers leaning pump (a star of cards).
    leaning = (0.70, 0.28, 0.01, 0.01)
    corners = xywhr_to_corners(
        np.array(
            [
                [100, 100, 40, 60, 0.0],
                [130, 100, 40, 60, 0.0],
                [70, 100, 40, 60, 0.0],
                [100, 150, 40, 60, 0.0],
                [100, 50, 40, 60, 0.0],
            ],
            np.float32,
        )
    )
    p = probs(SLIVER, PLOW_CLEAR, leaning, leaning, leaning)
    members = np.ones(5, bool)
    plain = neighbour_consensus(corners, p, members, 2.0, 0.3, None, 0.0, 1)
    assert plain[0].argmax() == BLUE_PUMP  # counted alike, the slivers outvote the plow
    weighted = neighbour_consensus(corners, p, members, 2.0, 0.3, None, 16.0, 1)
    assert weighted[0].argmax() == PLOW


def test_kept_cards_speak_in_every_round_with_their_own_look() -> None:
    corners = quads([100, 130, 160])
    no_deck = (0.02, 0.02, 0.01, 0.95)  # seen whole, no deck of the profile
    unsure = (0.45, 0.20, 0.05, 0.30)  # a sliver of the same foreign deck: pump or none?
    p = probs(no_deck, unsure, unsure)
    keep = np.array([True, False, False])
    out = neighbour_consensus(corners, p, np.ones(3, bool), 2.0, 0.3, keep, 16.0, 3)
    np.testing.assert_allclose(out[0], p[0])
    assert (out[1:].argmax(axis=1) == OTHER).all()


def test_one_round_with_equal_say_is_the_plain_mean_of_the_neighbours() -> None:
    corners = quads([100, 112, 124])
    p = probs(PLOW_CLEAR, SLIVER, (0.3, 0.3, 0.3, 0.1))
    out = neighbour_consensus(corners, p, np.ones(3, bool), 2.0, 0.5, None, 0.0, 1)
    context = (p[1] + p[2]) / 2
    want = p[0] * (context + 0.5) ** 2
    np.testing.assert_allclose(out[0], want / want.sum())
    with pytest.raises(ValueError):
        neighbour_consensus(corners, p, np.ones(3, bool), 2.0, 0.5, None, 0.0, 0)


def test_in_a_loose_heap_a_sliver_keeps_its_own_look() -> None:
    # Touching cards of other decks, each clearly seen, with a blue sliver among them.
    corners = quads([100, 112, 124, 136, 148, 160])
    plow = (0.05, 0.9, 0.03, 0.02)
    carriage = (0.01, 0.03, 0.95, 0.01)
    sliver = (0.50, 0.45, 0.03, 0.02)
    p = probs(carriage, plow, sliver, plow, carriage, plow)
    assert consensus(corners, p)[2].argmax() == BLUE_PUMP
    np.testing.assert_allclose(consensus(corners, p), p)
    # The same cards read as a sorted pile (no heap test) pull the sliver to plow.
    never = Neighbours.from_settings(replace(DEFAULTS, neighbour_mixed_agreement=0.0))
    assert never.apply(corners, p, np.ones(6, bool))[2].argmax() == PLOW


def test_one_disagreeing_sure_pair_is_not_yet_a_heap() -> None:
    a, b = np.array([0, 1]), np.array([1, 2])
    p = probs((0.05, 0.9, 0.03, 0.02), (0.01, 0.03, 0.95, 0.01), (0.5, 0.45, 0.03, 0.02))
    assert not looks_mixed(p, a, b, sure=0.8, agreement=0.6, min_pairs=2)
    assert looks_mixed(p, a, b, sure=0.8, agreement=0.6, min_pairs=1)
    # Pairs that agree are no heap, however many.
    same = probs(*[(0.05, 0.9, 0.03, 0.02)] * 3)
    assert not looks_mixed(same, a, b, sure=0.8, agreement=0.6, min_pairs=1)
