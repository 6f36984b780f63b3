"""The card look: its crops, the model file, fitting it and its use in counting."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.errors import ModelError
from vision.core.geometry import widened
from vision.core.models import DEFAULT_CLASSIFIER
from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.detect.check import FEATURES
from vision.detect.look import CardLook, logit
from vision.train.look_fit import LookShape, cached_table, fit_look

DATA = Path(__file__).parent / "data"
SHAPE = LookShape(width_px=16, height_px=24, margin=1.3, band_low=0.1, band_high=0.9)


def square(centre: float, side: float) -> np.ndarray:
    h = side / 2
    c = centre
    return np.array([[[c - h, c - h], [c + h, c - h], [c + h, c + h], [c - h, c + h]]], np.float32)


def bright_or_dark(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops that are either light (a card: label 1) or dark (label 0); facts say nothing."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(np.float32)
    level = np.where(y == 1, 200, 50)[:, None, None, None] + rng.integers(-30, 30, (n, 1, 1, 1))
    crops = np.broadcast_to(level, (n, SHAPE.height_px, SHAPE.width_px, 3)).astype(np.uint8)
    facts = rng.normal(size=(n, len(FEATURES) + 1)).astype(np.float32)
    return crops.copy(), facts, y


@pytest.fixture(scope="module")
def look_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    crops, facts, y = bright_or_dark(4096)
    out = tmp_path_factory.mktemp("look") / "look.onnx"
    return fit_look(crops, facts, y, out, SHAPE, epochs=4, lr=0.01, log=lambda _: None)


def test_widening_grows_a_box_about_its_centre() -> None:
    grown = widened(square(100, 40), 1.5)[0]
    assert grown.mean(axis=0) == pytest.approx([100, 100])
    assert grown[2] - grown[0] == pytest.approx([60, 60])
    assert logit(np.array([0.5]))[0] == pytest.approx(0.0)
    assert np.isfinite(logit(np.array([0.0, 1.0]))).all()


@pytest.mark.slow
def test_a_fitted_look_reads_the_picture_and_carries_its_shape(look_file: Path) -> None:
    look = CardLook(look_file, threads=1)
    assert (look.width_px, look.height_px, look.margin) == (16, 24, 1.3)
    assert look.band == (0.1, 0.9)
    crops, facts, y = bright_or_dark(200, seed=1)
    chance = look.chance_of(crops, facts[:, :-1], np.full(200, 0.5))
    assert ((chance >= 0.5) == (y == 1)).mean() > 0.95
    assert len(look.sha256) == 64
    assert look.chance_of(crops[:0], facts[:0, :-1], np.zeros(0)).shape == (0,)


@pytest.mark.slow
def test_only_candidates_in_the_band_get_the_looks_chance(look_file: Path) -> None:
    look = CardLook(look_file, threads=1)
    image = np.full((200, 300, 3), 40, np.uint8)
    cv2.rectangle(image, (20, 20), (80, 110), (220, 220, 220), -1)  # a light card at left
    corners = np.concatenate([square(50, 40), square(200, 40), square(250, 40)])
    facts = np.zeros((3, len(FEATURES)))
    before = np.array([0.5, 0.5, 0.95])  # the third is clear to the check
    after = look.refine(image, corners, facts, before)
    assert after[0] > 0.9  # light: a card
    assert after[1] < 0.1  # dark table: no card
    assert after[2] == 0.95
    assert before.tolist() == [0.5, 0.5, 0.95]  # not changed in place


def test_a_missing_or_foreign_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such card look"):
        CardLook(tmp_path / "missing.onnx")
    with pytest.raises(ModelError, match="not a card look model"):
        CardLook(DEFAULT_CLASSIFIER)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not onnx")
    with pytest.raises(ModelError, match="junk.onnx"):
        CardLook(junk)


def test_counting_names_the_look_and_it_can_be_turned_off() -> None:
    on = Counter(threads=1)
    off = Counter(settings=VisionSettings(card_look=False), threads=1)
    # the face number reader comes last, after the check and the look
    assert [p["name"] for p in on.model_info["parts"]][-2:] == [
        "tallero-look.onnx",
        "tallero-numbers.onnx",
    ]
    assert [p["name"] for p in off.model_info["parts"]][-2:] == [
        "tallero-check.json",
        "tallero-numbers.onnx",
    ]
    truth = json.loads((DATA / "scene_4242_000002.json").read_text())
    image = cv2.imread(str(DATA / "scene_4242_000002.jpg"))
    looked = on.count(image, decks=tuple(truth["decks"]))
    assert len(looked.cards) == len(truth["cards"])
    assert looked.counts == {d: truth["counts"][d] for d in truth["decks"]}
    assert (looked.cards.confidence >= on.settings.min_card_chance).all()


def test_the_table_is_built_once_per_models_and_scenes(tmp_path: Path) -> None:
    builds = []

    def build() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        builds.append(1)
        return bright_or_dark(8, seed=len(builds))

    path = tmp_path / "table.npz"
    first = cached_table(path, {"check_sha256": "a"}, build, log=lambda _: None)
    again = cached_table(path, {"check_sha256": "a"}, build, log=lambda _: None)
    assert len(builds) == 1
    for a, b in zip(first, again, strict=True):
        assert np.array_equal(a, b)
    other = cached_table(path, {"check_sha256": "b"}, build, log=lambda _: None)
    assert len(builds) == 2
    assert not np.array_equal(other[1], first[1])
    assert [p.name for p in tmp_path.iterdir()] == ["table.npz"]
