"""Naming reads each kept card in several looks and averages them (``naming_views``)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.core.cards import BACK, Cards
from vision.core.models import DEFAULT_CLASSIFIER
from vision.core.rectify import CardRectifier
from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.evaluate.metrics import truth_quads
from vision.name.classifier import DeckClassifier
from vision.name.looks import VIEWS, view_crops

DATA = Path(__file__).resolve().parent / "data"
SCENE = DATA / "scene_4242_000002"


def _scene() -> tuple[np.ndarray, Cards, dict]:
    truth = json.loads(SCENE.with_suffix(".json").read_text())
    image = cv2.imread(str(SCENE.with_suffix(".jpg")))
    quads = truth_quads(truth)
    sides = np.array([BACK if c["side"] == "back" else 1 for c in truth["cards"]], np.int8)
    return image, Cards(quads, sides, np.ones(len(quads), np.float32)), truth


def test_views_turn_or_scale_the_crop_about_the_cards_centre() -> None:
    image, cards, _ = _scene()
    r = CardRectifier(image, 32, 48)
    quads = cards.corners[:5]
    as_found = view_crops(r, quads, "as_found")
    np.testing.assert_array_equal(as_found, r.crops(quads))
    np.testing.assert_array_equal(view_crops(r, quads, "turned"), as_found[:, ::-1, ::-1])
    centre = quads.mean(axis=1, keepdims=True)
    for view, scale in (("closer", 0.94), ("wider", 1.06)):
        scaled = r.crops(centre + (quads - centre) * np.float32(scale))
        np.testing.assert_array_equal(view_crops(r, quads, view), scaled)
        assert np.abs(scaled.astype(np.int16) - as_found).mean() > 1
    with pytest.raises(ValueError, match="unknown view"):
        view_crops(r, quads, "sideways")


def test_probabilities_are_the_mean_of_the_looks() -> None:
    image, cards, _ = _scene()
    clf = DeckClassifier(DEFAULT_CLASSIFIER, threads=1)
    r = CardRectifier(image, clf.width_px, clf.height_px)
    # The four looks built by hand: the crop as found, turned half round, 6% closer, 6% wider.
    quads = cards.corners
    centre = quads.mean(axis=1, keepdims=True)
    as_found = r.crops(quads)
    crops = [
        as_found,
        np.ascontiguousarray(as_found[:, ::-1, ::-1]),
        r.crops(centre + (quads - centre) * np.float32(0.94)),
        r.crops(centre + (quads - centre) * np.float32(1.06)),
    ]
    looks = [clf.probabilities(c) for c in crops]
    one = clf.card_probabilities(image, cards)
    np.testing.assert_allclose(one, looks[0], atol=1e-6)
    two = clf.card_probabilities(image, cards, 2)
    np.testing.assert_allclose(two, np.mean(looks[:2], axis=0), atol=1e-6)
    four = clf.card_probabilities(image, cards, 4, as_found=one)
    np.testing.assert_allclose(four, np.mean(looks, axis=0), atol=1e-6)
    again = clf.card_probabilities(image, cards, 4, rectifier=clf.rectifier(image))
    np.testing.assert_allclose(again, four, atol=1e-6)
    np.testing.assert_allclose(four.sum(axis=1), 1.0, atol=1e-5)
    # The looks differ, so averaging changes something.
    assert np.abs(four - one).max() > 1e-3
    for bad in (0, len(VIEWS) + 1):
        with pytest.raises(ValueError, match="views must be within"):
            clf.card_probabilities(image, cards, bad)


def test_naming_views_must_be_one_to_four() -> None:
    for name in ("naming_views", "live_naming_views", "enrolled_live_naming_views"):
        for bad in (0, 5):
            with pytest.raises(ValueError, match=name):
                VisionSettings(**{name: bad})


def test_live_frames_take_one_look_and_photos_four() -> None:
    image, cards, _ = _scene()
    photo_counter, live_counter = Counter(threads=1), Counter(threads=1, live=True)
    first = photo_counter.namer.first_look(image, cards, photo_counter.decks)
    photo = photo_counter.namer.probabilities(image, cards, first)
    live = live_counter.namer.probabilities(image, cards, first)
    assert live is first.probabilities
    assert np.abs(photo - first.probabilities).max() > 1e-3


def test_live_frames_take_two_looks_with_an_enrolled_classifier() -> None:
    # An enrolled classifier is less sure of the user's own cards than the built-in one is
    # of the drawn decks: live frames average two looks with it.
    h4 = Path(__file__).resolve().parent / "data" / "regression" / "profiles" / "h4" / "decks.onnx"
    assert Counter(threads=1, live=True, classifier_path=h4).namer.views == 2
    assert Counter(threads=1, live=True).namer.views == 1
    assert Counter(threads=1, classifier_path=h4).namer.views == 4
    one = VisionSettings(enrolled_live_naming_views=1)
    assert Counter(threads=1, live=True, classifier_path=h4, settings=one).namer.views == 1


def test_the_counter_names_from_the_averaged_looks_and_keeps_the_same_cards() -> None:
    image, _, truth = _scene()
    decks = tuple(truth["decks"])
    one = Counter(settings=VisionSettings(naming_views=1), threads=1).count(image, decks=decks)
    four = Counter(settings=VisionSettings(naming_views=4), threads=1).count(image, decks=decks)
    # Which cards are kept is the card check's choice, from the first look alone.
    assert len(one.cards) == len(four.cards)
    np.testing.assert_allclose(np.sort(one.cards.confidence), np.sort(four.cards.confidence))
    # Either way the committed scene counts exactly as its truth.
    for counted in (one, four):
        assert counted.counts == {d: truth["counts"][d] for d in decks}
