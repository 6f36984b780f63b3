"""The committed dataset recipes load, and no two sets share a seed."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.synth.generate import SceneOptions
from vision.synth.recipes import load_recipe

RECIPES = sorted((Path(__file__).resolve().parents[1] / "datasets" / "recipes").glob("*.yaml"))


def test_recipes_exist() -> None:
    assert {p.stem for p in RECIPES} >= {"train", "val", "eval"}


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: p.stem)
def test_recipe_options_are_valid(path: Path) -> None:
    for spec in load_recipe(path):
        SceneOptions(
            spec["seed"],
            spec["kind"],
            spec["min_visible"],
            spec["decks"],
            spec["imgsz"],
            spec["art"],
        ).check()
        assert spec["n"] > 0


def test_sets_never_share_a_seed() -> None:
    seeds = [s["seed"] for p in RECIPES for s in load_recipe(p)]
    assert len(seeds) == len(set(seeds))


def test_bad_recipe_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text("out: x\nseed: 1\nn: 2\ncolour: red\n")
    with pytest.raises(ValueError, match="unknown keys"):
        load_recipe(p)
