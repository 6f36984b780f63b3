"""The accelerator recipe: its deadline, the classifier's on-device augmentation and the
export of a run's weights to the files the counter reads (all exercised on the CPU)."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
import pytest

from vision.detect.detector import OnnxDetector
from vision.name.classifier import DeckClassifier
from vision.train.deck_net import CropSet, _augment_torch, train_net
from vision.train.gpu import GpuRecipe, _train_classifier, detector_minutes, export, parse_sets

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "datasets" / "samples" / "synth-mini"


def test_the_detector_gets_its_planned_minutes_when_the_deadline_allows():
    assert detector_minutes(5.0, 0.0, 999.0) == 5.0  # no deadline
    assert detector_minutes(5.0, 600.0, 100.0) == 5.0  # 425 s left, 300 planned


def test_slow_scene_drawing_cuts_the_detector_to_end_by_the_deadline():
    # 515 s deadline, 200 s spent drawing, 75 s for loading and the last validation.
    assert detector_minutes(6.0, 515.0, 200.0) == pytest.approx(4.0)
    # Never below half a minute, even past the deadline.
    assert detector_minutes(6.0, 100.0, 200.0) == 0.5


def test_on_device_augmentation_keeps_the_crop_range_and_turns_about_half():
    import torch

    n = 400
    base = torch.zeros(n, 3, 48, 32)
    base[:, :, :24] = 1.0  # top half bright: a 180-degree turn moves it to the bottom
    gen = torch.Generator().manual_seed(0)
    out = _augment_torch(base.clone(), gen)
    assert out.shape == base.shape
    assert float(out.min()) >= 0.0 and float(out.max()) <= 1.0
    turned = (out[:, :, 24:].mean(dim=(1, 2, 3)) > out[:, :, :24].mean(dim=(1, 2, 3))).float()
    assert 0.4 < float(turned.mean()) < 0.6


def _toy_crops(seed: int, n: int = 600) -> CropSet:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    images = (rng.random((n, 48, 32, 3)) * 80).astype(np.uint8)
    images[labels == 1, :, :, 2] += 150
    images[labels == 2, :, :, 1] += 150
    return CropSet(images, labels.astype(np.int64), np.ones(n, np.float32), ("a", "b", "c"))


def test_the_classifier_learns_with_its_crops_augmented_where_it_trains():
    net = train_net(
        _toy_crops(0),
        None,
        epochs=4,
        seed=0,
        batch_size=64,
        width=8,
        log=lambda _: None,
        augment_on_device=True,
    )
    from vision.train.deck_net import predict_torch

    held_out = _toy_crops(1)
    assert float((predict_torch(net, held_out.images) == held_out.labels).mean()) > 0.9
    assert next(net.parameters()).device.type == "cpu"


def _sample_run(tmp_path: Path, **changes) -> tuple[Path, Path, GpuRecipe]:
    """A run over the bundled sample scenes (as its one set and its validation set)."""
    data, out = tmp_path / "data", tmp_path / "run"
    shutil.copytree(SAMPLE, data / "gpu-mixed")
    shutil.copytree(SAMPLE, data / "val")
    out.mkdir()
    recipe = replace(
        GpuRecipe(),
        scene_sets=(("gpu-mixed", 4, 4100, "mixed"),),
        val_set=("val", 4, 2000, "mixed"),
        classifier_epochs=1,
        **changes,
    )
    return data, out, recipe


@pytest.mark.slow
def test_a_run_exports_a_classifier_and_detector_the_counter_reads(tmp_path: Path):
    data, out, recipe = _sample_run(tmp_path, classifier_width=8)
    models = tmp_path / "models"
    (out / "recipe.json").write_text(json.dumps(asdict(recipe)))
    _train_classifier(data, recipe, "cpu", out)
    meta = json.loads((out / "decks.json").read_text())
    assert meta["recipe"]["classifier_width"] == 8
    assert sum(meta["class_counts"]) > 0
    # The detector of a run is an ultralytics checkpoint: the shipped one stands in.
    shutil.copyfile(REPO / "models" / "tallero-cards.pt", out / "cards.pt")
    export(out, models)
    classifier = DeckClassifier(models / "tallero-decks.onnx", threads=1)
    assert classifier.classes == tuple(meta["classes"])
    assert (models / "tallero-decks.pt").is_file()
    detector = OnnxDetector(models / "tallero-cards.onnx", threads=1)
    assert detector.dynamic and detector.input_px == 640


def test_scene_sets_are_read_from_the_command_line_and_bad_ones_refused():
    assert parse_sets("a:10:4300:mixed, b:5:4301:sorted") == (
        ("a", 10, 4300, "mixed"),
        ("b", 5, 4301, "sorted"),
    )
    for bad in ("a:10:4300", "a:ten:4300:mixed", "a:10:4300:heap", "a:0:4300:mixed", ":1:2:blitz"):
        with pytest.raises(ValueError):
            parse_sets(bad)


def test_the_classifier_continues_the_weights_it_is_given(tmp_path: Path):
    import torch

    from vision.train.deck_net import build_net

    data, out, recipe = _sample_run(
        tmp_path,
        classifier_lr=1e-9,  # next to no step: the weights stay those it started from
        classifier_start=str(REPO / "models" / "tallero-decks.pt"),
    )
    _train_classifier(data, recipe, "cpu", out)
    start = torch.load(REPO / "models" / "tallero-decks.pt", weights_only=True)
    after = torch.load(out / "decks-state.pt", weights_only=True)
    assert after.keys() == start.keys()
    conv = "features.0.weight"
    assert torch.allclose(after[conv], start[conv], atol=1e-5)
    fresh = build_net(len(json.loads((out / "decks.json").read_text())["classes"]), 24)
    assert not torch.allclose(fresh.state_dict()[conv], start[conv], atol=1e-2)


def test_a_missing_package_or_weights_file_stops_the_run_before_any_scene_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    import vision.detect.offline
    from vision.train.gpu import run

    data, out = tmp_path / "data", tmp_path / "run"
    recipe = replace(GpuRecipe(), scene_sets=(("gpu-mixed", 4, 4100, "mixed"),))

    def missing(*_a, **_k):
        raise ModuleNotFoundError("No module named 'platformdirs'")

    monkeypatch.setattr(vision.detect.offline, "import_ultralytics", missing)
    with pytest.raises(ModuleNotFoundError, match="platformdirs"):
        run(out, data, tmp_path / "runs", recipe, "all")
    assert not data.exists()
    monkeypatch.undo()
    gone = replace(recipe, classifier_start=str(tmp_path / "nowhere.pt"))
    with pytest.raises(FileNotFoundError, match="no classifier weights"):
        run(out, data, tmp_path / "runs", gone, "all")
    assert not data.exists()


def test_the_command_line_sets_the_classifier_width(monkeypatch: pytest.MonkeyPatch, tmp_path):
    from vision.train import gpu as train_gpu

    seen = {}
    monkeypatch.setattr(train_gpu, "run", lambda out, data, runs, recipe, *a: seen.update(r=recipe))
    train_gpu.main(["run", "--out", str(tmp_path), "--classifier-width", "32"])
    assert seen["r"].classifier_width == 32
    train_gpu.main(["run", "--out", str(tmp_path)])
    assert seen["r"].classifier_width == GpuRecipe().classifier_width == 24


def test_the_art_recipe_trains_the_detector_alone_on_art_tiles_and_photos(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from vision.train import gpu as train_gpu
    from vision.train.gpu_recipe import ART_RECIPE, train_folders

    seen = {}
    monkeypatch.setattr(train_gpu, "run", lambda out, data, runs, recipe, *a: seen.update(r=recipe))
    train_gpu.main(["run", "--out", str(tmp_path), "--recipe", "art", "--real", "photos"])
    recipe = seen["r"]
    assert recipe.classifier_epochs == 0 and recipe.real_dir == "photos"
    assert recipe.detector_minutes == ART_RECIPE.detector_minutes and recipe.lr == ART_RECIPE.lr
    folders = train_folders(recipe)
    # Hard photos train as their tiles; the real photos as often as the recipe says.
    assert "gpu3-endless-hard-tiles" in folders and "gpu3-endless-hard" not in folders
    assert folders.count(str((Path("photos")).resolve())) == ART_RECIPE.real_repeats
    assert {"gpu3-standin-mixed", "gpu3-endless-mixed"} <= set(folders)
    # Its seeds are its own: none is drawn by the decks recipe or the finetune sets.
    from vision.train.finetune import FINETUNE_SETS

    art_seeds = {s[2] for s in (*ART_RECIPE.scene_sets, *ART_RECIPE.art_sets)}
    others = {s[2] for s in (*GpuRecipe().scene_sets, *FINETUNE_SETS)}
    assert len(art_seeds) == 6 and not art_seeds & others


def test_the_continued_art_recipe_starts_from_its_own_detector_on_seeds_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from vision.train import gpu as train_gpu
    from vision.train.finetune import FINETUNE_SETS
    from vision.train.gpu_recipe import ART_MORE_RECIPE, ART_RECIPE, RECIPES

    seen = {}
    monkeypatch.setattr(train_gpu, "run", lambda out, data, runs, recipe, *a: seen.update(r=recipe))
    train_gpu.main(["run", "--out", str(tmp_path), "--recipe", "art-more"])
    recipe = seen["r"]
    # The recipe's own start, rate and mosaic close hold unless the command line says else.
    assert recipe.detector_start == ".gpu/art-detector.pt" != GpuRecipe().detector_start
    assert (recipe.lr, recipe.close_mosaic) == (ART_MORE_RECIPE.lr, 1)
    assert recipe.real_repeats == 2 * ART_RECIPE.real_repeats
    train_gpu.main(["run", "--out", str(tmp_path), "--recipe", "art-more", "--start", "x.pt"])
    assert seen["r"].detector_start == "x.pt"
    # No two recipes, nor the finetune sets, draw a seed twice.
    seeds = [s[2] for r in RECIPES.values() for s in (*r.scene_sets, *r.art_sets)] + [
        s[2] for s in FINETUNE_SETS
    ]
    assert len(seeds) == len(set(seeds))


@pytest.mark.parametrize(
    ("missing", "says"),
    [("detector_start", "no detector weights"), ("real_dir", "no real photos")],
)
def test_an_art_run_without_what_it_builds_on_stops_before_drawing(
    tmp_path: Path, missing: str, says: str
):
    from vision.train.gpu import run
    from vision.train.gpu_recipe import ART_MORE_RECIPE, ART_RECIPE

    # The continued recipe's start weights; the first recipe's real photos.
    base = ART_MORE_RECIPE if missing == "detector_start" else ART_RECIPE
    data = tmp_path / "data"
    recipe = replace(base, **{missing: str(tmp_path / "nowhere")})
    with pytest.raises(FileNotFoundError, match=says):
        run(tmp_path / "run", data, tmp_path / "runs", recipe, "all")
    assert not data.exists()


@pytest.mark.slow
def test_a_detector_only_run_exports_the_detector_alone(tmp_path: Path):
    from vision.train.gpu_recipe import ART_RECIPE

    out, models = tmp_path / "run", tmp_path / "models"
    out.mkdir()
    (out / "recipe.json").write_text(json.dumps(asdict(ART_RECIPE)))
    shutil.copyfile(REPO / "models" / "tallero-cards.pt", out / "cards.pt")
    export(out, models)
    assert sorted(p.name for p in models.iterdir()) == ["tallero-cards.onnx", "tallero-cards.pt"]
    assert OnnxDetector(models / "tallero-cards.onnx", threads=1).input_px == 640


def test_bare_tables_join_the_training_folders_as_pictures_with_nothing_to_find(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from vision.train import gpu as train_gpu
    from vision.train.gpu_recipe import EMPTY_TABLES, train_folders, write_empty_tables

    seen = {}
    monkeypatch.setattr(train_gpu, "run", lambda out, data, runs, recipe, *a: seen.update(r=recipe))
    train_gpu.main(["run", "--out", str(tmp_path), "--recipe", "art-more"])
    assert seen["r"].empty_tables == 0 and EMPTY_TABLES not in train_folders(seen["r"])
    train_gpu.main(["run", "--out", str(tmp_path), "--recipe", "art-more", "--empty-tables", "3"])
    assert seen["r"].empty_tables == 3 and EMPTY_TABLES in train_folders(seen["r"])
    write_empty_tables(tmp_path / EMPTY_TABLES, 3, seed=5)
    images = sorted((tmp_path / EMPTY_TABLES / "images").glob("*.jpg"))
    labels = sorted((tmp_path / EMPTY_TABLES / "labels").glob("*.txt"))
    assert [p.stem for p in images] == [p.stem for p in labels] == ["000000", "000001", "000002"]
    assert all(p.read_text() == "" for p in labels)


def test_bare_tables_can_be_drawn_closer_and_mostly_tablecloths(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    from vision.train import gpu as train_gpu
    from vision.train.gpu_recipe import write_empty_tables

    seen = {}
    monkeypatch.setattr(train_gpu, "run", lambda out, data, runs, recipe, *a: seen.update(r=recipe))
    base = ["run", "--out", str(tmp_path), "--recipe", "art-more", "--empty-tables", "3"]
    train_gpu.main(base)
    assert seen["r"].empty_px_per_mm == (1.5, 4.0) and seen["r"].empty_cloths is None
    train_gpu.main([*base, "--empty-scale", "0.6,4", "--empty-cloths", "0.5"])
    assert seen["r"].empty_px_per_mm == (0.6, 4.0) and seen["r"].empty_cloths == 0.5
    for bad in (["--empty-scale", "4,0.6"], ["--empty-scale", "x"], ["--empty-cloths", "2"]):
        with pytest.raises(SystemExit):
            train_gpu.main([*base, *bad])
        assert "--empty-" in capsys.readouterr().err
    from vision.synth.tables import BARE_PX_PER_MM

    assert GpuRecipe.empty_px_per_mm == BARE_PX_PER_MM  # the generator's own scale
    write_empty_tables(tmp_path / "t", 6, seed=5, px_per_mm=(0.6, 0.6), cloths=1.0)
    truths = [json.loads(p.read_text()) for p in sorted((tmp_path / "t" / "truth").iterdir())]
    assert [t["table"] for t in truths] == ["tablecloth"] * 6
