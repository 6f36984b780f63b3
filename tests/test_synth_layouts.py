"""Every layout players make keeps each card at least the requested fraction visible."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.synth import layouts
from vision.synth.decks import CARD_H_MM, CARD_W_MM


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    target=st.floats(0.2, 0.9),
    style=st.sampled_from(["rows", "fan", "grid", "heap", None]),
)
def test_layouts_keep_every_card_visible(seed: int, n: int, target: float, style: str) -> None:
    poses = layouts.group(n, target, np.random.default_rng(seed), style)
    assert poses.shape == (n, 3)
    assert layouts.plane_visibility(poses).min() >= target


def test_plane_visibility_of_a_half_covered_card() -> None:
    poses = np.array([[0.0, 0.0, 0.0], [CARD_W_MM / 2, 0.0, 0.0]])
    vis = layouts.plane_visibility(poses, px_per_mm=4.0)
    assert vis[0] == pytest.approx(0.5, abs=0.02)
    assert vis[1] == pytest.approx(1.0, abs=0.02)


def test_corners_start_at_the_art_top_left_and_turn_clockwise() -> None:
    q = layouts.card_corners_mm(np.array([10.0, 20.0, 0.0]))
    np.testing.assert_allclose(
        q,
        [
            [10 - CARD_W_MM / 2, 20 - CARD_H_MM / 2],
            [10 + CARD_W_MM / 2, 20 - CARD_H_MM / 2],
            [10 + CARD_W_MM / 2, 20 + CARD_H_MM / 2],
            [10 - CARD_W_MM / 2, 20 + CARD_H_MM / 2],
        ],
    )
