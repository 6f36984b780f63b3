"""Training crops for the deck classifier: truth-corner crops and crops of found cards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.core.cards import Cards
from vision.synth.decks import ALL_DECKS, FACE_COLORS
from vision.train.deck_net import (
    class_of,
    collect_crops,
    collect_detected_crops,
    default_classes,
    merge_crops,
)

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"
CLASSES = default_classes(ALL_DECKS, FACE_COLORS)


def _truth_cards() -> list[list[dict]]:
    return [json.loads(f.read_text())["cards"] for f in sorted((SAMPLE / "truth").glob("*.json"))]


def test_found_cards_are_cropped_and_labelled_by_the_truth_they_match():
    truths = iter(_truth_cards())
    seen = []

    def locate(image: np.ndarray) -> Cards:
        cards = next(truths)
        seen.append(cards)
        quads = np.array([c["corners"] for c in cards], np.float32)
        # Found a little off (3 px), plus one find that matches nothing.
        quads = np.concatenate([quads + 3.0, [[[0, 0], [8, 0], [8, 12], [0, 12]]]])
        n = len(quads)
        return Cards(quads, np.zeros(n, np.int8), np.ones(n, np.float32))

    found = collect_detected_crops([SAMPLE], CLASSES, 32, 48, locate)
    expected = [CLASSES.index(class_of(c)) for cards in seen for c in cards]
    assert len(found.labels) == len(expected)  # the stray find is left out
    assert sorted(found.labels.tolist()) == sorted(expected)
    assert found.images.shape[1:] == (48, 32, 3)

    truth = collect_crops([SAMPLE], CLASSES, 32, 48, 0.0, 1, 0)
    both = merge_crops(truth, found)
    assert len(both.labels) == len(truth.labels) + len(found.labels)


def test_nothing_found_gives_an_empty_set():
    found = collect_detected_crops([SAMPLE], CLASSES, 32, 48, lambda image: Cards.empty())
    assert found.images.shape == (0, 48, 32, 3) and len(found.labels) == 0
