"""`tallero train` stages refuse to start without what they build on (no torch needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.train.checks import train_card_look
from vision.train.detector import polish_detector, refine_detector
from vision.train.stages import TrainRecipe


def test_refine_needs_the_first_detector(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run the detector stage"):
        refine_detector(tmp_path, tmp_path / "runs", tmp_path / "best.pt", TrainRecipe())


def test_polish_needs_the_refined_detector(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run the detector-refine stage"):
        polish_detector(tmp_path, tmp_path / "runs", tmp_path / "best.pt", TrainRecipe())


def test_polish_needs_the_refine_data_yaml(tmp_path: Path) -> None:
    weights = tmp_path / "best.pt"
    weights.write_bytes(b"not loaded before the data check")
    with pytest.raises(FileNotFoundError, match="cards-refine.yaml"):
        polish_detector(tmp_path, tmp_path / "runs", weights, TrainRecipe())


def test_card_look_needs_the_card_check(tmp_path: Path) -> None:
    models = Path(__file__).parents[1] / "models"
    with pytest.raises(FileNotFoundError, match="check.json: missing"):
        train_card_look(
            tmp_path,
            models / "tallero-cards.onnx",
            models / "tallero-decks.onnx",
            tmp_path / "check.json",
            tmp_path / "look.onnx",
            TrainRecipe(),
        )
    assert not (tmp_path / "look.onnx").exists()


def test_the_look_learns_from_the_checks_scenes_and_more() -> None:
    recipe = TrainRecipe()
    check = {seed for _, _, seed, _ in recipe.check_sets}
    more = {seed for _, _, seed, _ in recipe.look_extra_sets}
    assert not check & more
    assert not (check | more) & {recipe.train_seed, recipe.val_seed, recipe.classifier_extra_seed}


def test_polish_trains_at_full_scene_size() -> None:
    recipe = TrainRecipe()
    assert recipe.polish_imgsz_px >= recipe.imgsz_px
    assert recipe.polish_lr < recipe.refine_lr


def test_unknown_stage_is_one_clear_line(tallero, tmp_path: Path) -> None:  # noqa: ANN001
    result = tallero("train", "--stage", "nonsense", "--runs", str(tmp_path))
    assert result.code != 0
    assert "--stage must be all or one of" in result.err
    assert "detector-polish" in result.err
    assert len(result.err.strip().splitlines()) == 1


def test_a_negative_number_of_bare_tables_is_one_clear_line(tallero, tmp_path: Path) -> None:  # noqa: ANN001
    result = tallero(
        "train", "--stage", "card-check", "--check-bare", "-1", "--runs", str(tmp_path)
    )
    assert result.code != 0
    assert result.err.strip().endswith("--check-bare -1: must be 0 or more")
    assert len(result.err.strip().splitlines()) == 1
