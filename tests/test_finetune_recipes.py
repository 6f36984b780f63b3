"""The CPU continuation's recipes (`vision.train.finetune`): what each draws, and its seeds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest


def test_every_finetune_recipe_draws_seeds_no_other_set_draws():
    from vision.train.finetune import RECIPES
    from vision.train.gpu_recipe import RECIPES as GPU_RECIPES

    seeds = [s[2] for r in RECIPES.values() for s in (*r.sets, r.val_set)]
    seeds += [r.bare_seed for r in RECIPES.values() if r.bare_tables]
    seeds += [s[2] for r in GPU_RECIPES.values() for s in (*r.scene_sets, *r.art_sets)]
    assert len(seeds) == len(set(seeds))
    # Each recipe writes its own YAML, so two recipes can share one data folder.
    assert len({r.yaml_name for r in RECIPES.values()}) == len(RECIPES)
    folders = [s[0] for r in RECIPES.values() for s in (*r.sets, r.val_set)]
    assert len(folders) == len(set(folders))


def test_the_cloths_recipe_trains_on_bare_tables_beside_cards_and_real_photos(tmp_path: Path):
    from vision.train.finetune import CLOTHS_RECIPE, make_data

    # The same recipe, drawn small: 3 bare tables and 2 validation scenes.
    small = replace(
        CLOTHS_RECIPE, sets=(), bare_tables=3, val_set=(*CLOTHS_RECIPE.val_set[:1], 2, 5699,
        "mixed", "endless", 640),
    )  # fmt: skip
    real = tmp_path / "real"
    (real / "images").mkdir(parents=True)
    (real / "real_photos.json").write_text("{}")
    yaml_path = make_data(tmp_path, tmp_path / "voc", small)
    assert yaml_path.name == "finetune-cloths.yaml"
    text = yaml_path.read_text()
    bare = tmp_path / f"bare-tables-{CLOTHS_RECIPE.bare_seed}"
    # Bare tables are pictures with nothing on them: empty label files.
    assert [p.read_text() for p in sorted((bare / "labels").glob("*.txt"))] == ["", "", ""]
    assert f"{bare.name}/images" in text
    assert text.count("real/images") == CLOTHS_RECIPE.real_repeats
    assert f"val: {small.val_set[0]}/images" in text


def test_a_run_without_its_data_or_start_weights_says_so_in_one_line(tmp_path: Path):
    from vision.train.finetune import main

    with pytest.raises(SystemExit, match="finetune-cloths.yaml: missing"):
        main(["run", str(tmp_path), str(tmp_path / "runs"), "--minutes", "1", "--recipe", "cloths"])
    (tmp_path / "finetune-cloths.yaml").write_text("path: x\n")
    with pytest.raises(SystemExit, match="no such detector weights"):
        main([
            "run", str(tmp_path), str(tmp_path / "runs"), "--minutes", "1", "--recipe", "cloths",
            "--start", str(tmp_path / "nowhere.pt"),
        ])  # fmt: skip


def test_a_chunk_keeps_every_epoch_and_the_manifest_names_its_weights(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    import sys
    import types

    from vision.train import finetune

    seen: list[dict] = []
    clock = [1000.0]  # each chunk spends a minute of a clock the test keeps

    class FakeYolo:
        def __init__(self, weights: str, task: str = "obb") -> None:
            self.weights = weights

        def train(self, **kw: object) -> None:
            seen.append(kw)
            clock[0] += 60.0
            out = Path(str(kw["project"])) / str(kw["name"]) / "weights"
            out.mkdir(parents=True)
            (out / "last.pt").write_bytes(b"chunk")
            (out.parent / "results.csv").write_text("epoch,metrics/recall(B)\n1,0.5\n2,0.75\n")

    monkeypatch.setitem(sys.modules, "ultralytics", types.SimpleNamespace(YOLO=FakeYolo))
    monkeypatch.setattr("vision.detect.offline.import_ultralytics", lambda threads: None)
    monkeypatch.setattr(finetune, "time", types.SimpleNamespace(time=lambda: clock[0]))
    start = tmp_path / "start.pt"
    start.write_bytes(b"start")
    recipe = finetune.CLOTHS_RECIPE.chunk
    # A budget that leaves room for one chunk only.
    manifest = finetune.run_chunks(tmp_path / "d.yaml", tmp_path / "runs", 1.5, 1.5, start, recipe)
    assert len(seen) == 1 and seen[0]["save_period"] == 1
    assert (seen[0]["lr0"], seen[0]["mosaic"], seen[0]["seed"]) == (1e-4, 0.5, 56)
    (chunk,) = manifest["chunks"]
    assert chunk["start"]["path"] == str(start) and chunk["val"] == {
        "epoch": 2.0,
        "metrics/recall(B)": 0.75,
    }
    assert manifest["recipe"]["save_period"] == 1 and "open" not in manifest
