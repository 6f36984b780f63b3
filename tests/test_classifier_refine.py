"""The classifier-refine stage: a trained classifier continues on truth and detected crops."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from vision.name.classifier import DeckClassifier
from vision.train.classifier import refine_classifier
from vision.train.stages import TrainRecipe

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "models"
SAMPLE = REPO / "datasets" / "samples" / "synth-mini"


def test_refining_needs_a_classifier(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="run the classifier stage"):
        refine_classifier(
            tmp_path,
            tmp_path / "none.pt",
            MODELS / "tallero-cards.onnx",
            tmp_path / "out.onnx",
            TrainRecipe(),
        )


def test_refining_needs_the_refine_scenes(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "train")
    with pytest.raises(FileNotFoundError, match="refine-mixed: missing .run the data stage"):
        refine_classifier(
            tmp_path,
            MODELS / "tallero-decks.pt",
            MODELS / "tallero-cards.onnx",
            tmp_path / "out.onnx",
            TrainRecipe(),
        )
    assert not (tmp_path / "out.onnx").exists()


def test_the_refine_scenes_are_new_seeds() -> None:
    recipe = TrainRecipe()
    refine = {seed for _, _, seed, _ in recipe.classifier_refine_sets}
    others = {seed for _, _, seed, _ in (*recipe.check_sets, *recipe.look_extra_sets)}
    others |= {recipe.train_seed, recipe.val_seed, recipe.classifier_extra_seed}
    held_out = {3004, 3104, 3008, 3108, 2600, 7004, 7008}  # evaluation and tuning scenes
    assert not refine & (others | held_out)
    names = {name for name, *_ in recipe.classifier_refine_sets}
    assert names <= set(recipe.classifier_refine_detected_sets)


@pytest.mark.slow
def test_the_shipped_classifier_continues_on_truth_and_detected_crops(tmp_path: Path) -> None:
    import torch

    for name in ("train", "classifier", "val", "refine-mixed", "refine-sorted"):
        shutil.copytree(SAMPLE, tmp_path / name)
    recipe = replace(TrainRecipe(), classifier_refine_epochs=1, threads=1)
    out = tmp_path / "models" / "tallero-decks.onnx"
    lines: list[str] = []
    refine_classifier(
        tmp_path,
        MODELS / "tallero-decks.pt",
        MODELS / "tallero-cards.onnx",
        out,
        recipe,
        log=lines.append,
    )
    assert any("searched" in line and "scenes for cards" in line for line in lines)
    found = next(line for line in lines if "crops of detected cards" in line)
    assert int(found.split()[1]) > 0
    assert int(next(x for x in lines if "refine sets" in x).split()[1]) > 0
    refined = DeckClassifier(out, threads=1)
    assert refined.classes == DeckClassifier(MODELS / "tallero-decks.onnx", threads=1).classes
    meta = refined.session.get_modelmeta().custom_metadata_map
    # The committed sample's cards per class (pump .. green-pail, the four face colours,
    # other), once in "train" and once in "classifier".
    sample = [10, 3, 11, 19, 1, 1, 1, 1, 3, 2, 3, 5, 6]
    assert json.loads(meta["class_counts"]) == [2 * n for n in sample]
    before = torch.load(MODELS / "tallero-decks.pt", weights_only=True)
    after = torch.load(out.with_suffix(".pt"), weights_only=True)
    assert before.keys() == after.keys()
    assert any(not torch.equal(before[k], after[k]) for k in before)
