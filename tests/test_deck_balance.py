"""Naming evens out how often the classifier saw each deck (``class_counts``), and leaves a
back unknown when its deck is less probable than ``min_deck_probability``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from scoring.errors import ModelError
from vision.core.cards import BACK, Cards
from vision.core.models import DEFAULT_CLASSIFIER
from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.name.classifier import DeckClassifier
from vision.synth.decks import ALL_DECKS, CLASSIC_DECKS, FACE_COLORS
from vision.train.deck_net import class_counts, collect_crops, default_classes, stamp_metadata

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"
CLASSES = default_classes(ALL_DECKS, FACE_COLORS)


def _classifier(tmp_path: Path, counts: list[int] | None, balance: bool = True) -> DeckClassifier:
    path = tmp_path / "decks.onnx"
    shutil.copy(DEFAULT_CLASSIFIER, path)
    if counts is not None:
        stamp_metadata(path, {"class_counts": json.dumps(counts)})
    return DeckClassifier(path, threads=1, balance_decks=balance)


def _counts(**by_class: int) -> list[int]:
    return [by_class.get(c.replace("-", "_").replace(":", "_"), 1000) for c in CLASSES]


def _name(clf: DeckClassifier, row: dict[str, float], profile: tuple[str, ...]) -> str | None:
    """The deck named for one lone back with these class probabilities."""
    p = np.array([[row.get(c, 0.0) for c in clf.classes]], np.float32)
    quad = np.array([[[10, 10], [66, 10], [66, 97], [10, 97]]], np.float32)
    cards = Cards(quad, np.array([BACK], np.int8), np.ones(1, np.float32))
    image = np.zeros((120, 80, 3), np.uint8)
    return clf.classify(image, cards, profile, probabilities=p).deck[0]


LEANS_CLASSIC = {"pail": 0.55, "yellow-carriage": 0.35, "other": 0.10}


def test_a_deck_seen_less_often_gets_its_odds_back(tmp_path: Path) -> None:
    # Seen 2.5 times less often: 0.35 * 2.5 = 0.875 against 0.55.
    clf = _classifier(tmp_path, _counts(pail=2500, yellow_carriage=1000))
    assert _name(clf, LEANS_CLASSIC, ALL_DECKS) == "yellow-carriage"
    # Only seen 1.25 times less often: 0.35 * 1.25 < 0.55.
    clf = _classifier(tmp_path, _counts(pail=1250, yellow_carriage=1000))
    assert _name(clf, LEANS_CLASSIC, ALL_DECKS) == "pail"


def test_balance_off_or_no_counts_keeps_the_classifiers_own_odds(tmp_path: Path) -> None:
    clf = _classifier(tmp_path, _counts(pail=2500, yellow_carriage=1000), balance=False)
    assert clf.deck_weights is None
    assert _name(clf, LEANS_CLASSIC, ALL_DECKS) == "pail"
    # A classifier written before class counts were kept is left as it is.
    import onnx

    path = tmp_path / "old.onnx"
    model = onnx.load(str(DEFAULT_CLASSIFIER))
    kept = [p for p in model.metadata_props if p.key != "class_counts"]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    onnx.save(model, str(path))
    clf = DeckClassifier(path, threads=1)
    assert clf.deck_weights is None
    assert _name(clf, LEANS_CLASSIC, ALL_DECKS) == "pail"


def test_a_deck_outside_the_game_is_never_named_however_rare(tmp_path: Path) -> None:
    clf = _classifier(tmp_path, _counts(pail=2500, yellow_carriage=10))
    assert _name(clf, LEANS_CLASSIC, CLASSIC_DECKS) == "pail"


def test_other_and_faces_keep_their_weight(tmp_path: Path) -> None:
    clf = _classifier(tmp_path, _counts(pail=3000, other=100, face_red=50))
    w = dict(zip(clf.classes, clf.deck_weights.tolist(), strict=True))
    assert w["other"] == 1.0 and w["face:red"] == 1.0
    assert w["pail"] == 1.0 and w["pump"] == pytest.approx(3.0)
    # The decks only split their own share: a back that looks like no deck stays unknown.
    assert _name(clf, {"other": 0.6, "pump": 0.4}, ALL_DECKS) is None
    p = np.array([[0.1, 0, 0, 0.3, 0, 0, 0, 0, 0.05, 0, 0, 0, 0.55]])
    even = clf.balanced(p, clf.profile_decks(CLASSIC_DECKS))
    assert even[0, -1] == pytest.approx(0.55) and even[0, 8] == pytest.approx(0.05)
    assert even[0, :4].sum() == pytest.approx(0.4)
    assert even[0, 0] / even[0, 3] == pytest.approx(3.0 * 0.1 / 0.3)


def test_counts_that_do_not_fit_the_classes_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="class_counts"):
        _classifier(tmp_path, [10, 20, 30])


def test_the_shipped_classifier_knows_how_often_it_saw_each_deck() -> None:
    clf = DeckClassifier(DEFAULT_CLASSIFIER, threads=1)
    w = dict(zip(clf.classes, clf.deck_weights.tolist(), strict=True))
    assert all(1.0 <= w[d] < 1.1 for d in CLASSIC_DECKS)
    assert all(2.3 < w[d] < 2.8 for d in ALL_DECKS if d not in CLASSIC_DECKS)


def test_class_counts_are_the_truth_crops_labels() -> None:
    crops = collect_crops([SAMPLE], CLASSES, 32, 48, 0.0, 1, 0)
    expected = np.bincount(crops.labels, minlength=len(CLASSES)).tolist()
    assert class_counts([SAMPLE], CLASSES) == expected
    assert sum(expected) > 0


def test_a_trained_classifier_carries_its_truth_crops_per_class(tmp_path: Path) -> None:
    from vision.train.classifier import _save_classifier
    from vision.train.deck_net import build_net
    from vision.train.stages import TrainRecipe

    labels = np.array([0, 0, 0, 4, 12, 12], np.int64)
    out = tmp_path / "decks.onnx"
    _save_classifier(build_net(len(CLASSES), width=8), out, CLASSES, TrainRecipe(), labels)
    clf = DeckClassifier(out, threads=1)
    meta = clf.session.get_modelmeta().custom_metadata_map
    assert json.loads(meta["class_counts"]) == np.bincount(labels, minlength=13).tolist()
    assert out.with_suffix(".pt").is_file()
    # Decks never seen leave the weights off rather than dividing by zero.
    assert clf.deck_weights is None


# A lone back whose best deck is pail at 0.45, the rest spread so nothing else comes near.
UNDER_HALF = {"pail": 0.45, "pump": 0.2, "plow": 0.2, "carriage": 0.15}


def test_a_deck_under_the_bar_is_unknown_and_over_it_named() -> None:
    strict = DeckClassifier(DEFAULT_CLASSIFIER, threads=1, balance_decks=False)
    assert strict.min_deck_probability == VisionSettings().min_deck_probability == 0.5
    assert _name(strict, UNDER_HALF, CLASSIC_DECKS) is None
    loose = DeckClassifier(
        DEFAULT_CLASSIFIER, threads=1, balance_decks=False, min_deck_probability=0.4
    )
    assert _name(loose, UNDER_HALF, CLASSIC_DECKS) == "pail"


def test_the_counter_names_with_the_settings_bar() -> None:
    # The classic decks were seen about equally often, so evening them out leaves pail near 0.45.
    loose = Counter(settings=VisionSettings(min_deck_probability=0.4), threads=1)
    assert loose.classifier.min_deck_probability == 0.4
    assert _name(loose.classifier, UNDER_HALF, CLASSIC_DECKS) == "pail"
    assert _name(Counter(threads=1).classifier, UNDER_HALF, CLASSIC_DECKS) is None


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_a_bar_outside_zero_to_one_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="min_deck_probability must be within"):
        VisionSettings(min_deck_probability=value)


def test_an_enrolled_classifier_names_from_its_own_bar(tmp_path: Path) -> None:
    """A profile's classifier (``profile_decks`` in its metadata) takes the enrolled bar;
    the built-in one keeps the plain bar even when both are given."""
    built_in = DeckClassifier(
        DEFAULT_CLASSIFIER, threads=1, min_deck_probability=0.5, enrolled_min_deck_probability=0.4
    )
    assert not built_in.enrolled and built_in.min_deck_probability == 0.5
    path = tmp_path / "decks.onnx"
    shutil.copy(DEFAULT_CLASSIFIER, path)
    stamp_metadata(path, {"profile_decks": json.dumps(list(CLASSIC_DECKS))})
    own = DeckClassifier(
        path, threads=1, min_deck_probability=0.5, enrolled_min_deck_probability=0.4
    )
    assert own.enrolled and own.min_deck_probability == 0.4
    assert DeckClassifier(path, threads=1, min_deck_probability=0.5).min_deck_probability == 0.5
    with pytest.raises(ValueError, match="enrolled_min_deck_probability must be within"):
        DeckClassifier(path, threads=1, enrolled_min_deck_probability=1.5)
