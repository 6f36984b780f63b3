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
