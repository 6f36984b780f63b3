"""A back is unknown when its deck is less probable than ``min_deck_probability``."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import BACK, Cards
from vision.classifier import DeckClassifier
from vision.counter import DEFAULT_CLASSIFIER, Counter
from vision.settings import VisionSettings
from vision.synth.decks import CLASSIC_DECKS

# A lone back whose best deck is pail at 0.45, the rest spread so nothing else comes near.
ROW = {"pail": 0.45, "pump": 0.2, "plow": 0.2, "carriage": 0.15}


def _name(clf: DeckClassifier) -> str | None:
    p = np.array([[ROW.get(c, 0.0) for c in clf.classes]], np.float32)
    quad = np.array([[[10, 10], [66, 10], [66, 97], [10, 97]]], np.float32)
    cards = Cards(quad, np.array([BACK], np.int8), np.ones(1, np.float32))
    image = np.zeros((120, 80, 3), np.uint8)
    return clf.classify(image, cards, CLASSIC_DECKS, probabilities=p).deck[0]


def test_a_deck_under_the_bar_is_unknown_and_over_it_named() -> None:
    strict = DeckClassifier(DEFAULT_CLASSIFIER, threads=1, balance_decks=False)
    assert strict.min_deck_probability == VisionSettings().min_deck_probability == 0.5
    assert _name(strict) is None
    loose = DeckClassifier(
        DEFAULT_CLASSIFIER, threads=1, balance_decks=False, min_deck_probability=0.4
    )
    assert _name(loose) == "pail"


def test_the_counter_names_with_the_settings_bar() -> None:
    # The classic decks were seen about equally often, so evening them out leaves pail near 0.45.
    loose = Counter(settings=VisionSettings(min_deck_probability=0.4), threads=1)
    assert loose.classifier.min_deck_probability == 0.4
    assert _name(loose.classifier) == "pail"
    assert _name(Counter(threads=1).classifier) is None


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_a_bar_outside_zero_to_one_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="min_deck_probability must be within"):
        VisionSettings(min_deck_probability=value)
