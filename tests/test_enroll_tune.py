"""Enrollment recipe trials: recipes parsed strictly, a trial fits a copy and counts a set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.enroll.fit import FitRecipe
from vision.lab.enroll_tune import main, parse_recipe, profile_folder

LAYOUT = Path(__file__).parent / "data" / "enroll" / "heirloom-layout.jpg"
SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"
MODELS = Path(__file__).resolve().parents[1] / "models"


def test_recipe_overrides_are_typed_and_checked() -> None:
    base = FitRecipe(scenes=120, epochs=4)
    recipe = parse_recipe("epochs=6, other_prior_scale=0.5", base)
    assert (recipe.epochs, recipe.other_prior_scale, recipe.scenes) == (6, 0.5, 120)
    assert parse_recipe("", base) == base
    with pytest.raises(ValueError, match="not a KEY=VALUE of the enrollment recipe"):
        parse_recipe("epoch=6", base)
    with pytest.raises(ValueError, match="epochs takes a int, not 'many'"):
        parse_recipe("epochs=many", base)
    assert parse_recipe("keep_shipped=0.5,blend_head=none", base).keep_shipped == 0.5
    with pytest.raises(ValueError, match="keep_shipped must lie in 0..1"):
        parse_recipe("keep_shipped=1.5", base)
    with pytest.raises(ValueError, match="blend_head must be 'all' or 'none'"):
        parse_recipe("blend_head=some", base)


def test_an_unknown_profile_is_a_clear_error(home: Path, capsys) -> None:
    with pytest.raises(ValueError, match="nowhere: no enrolled profile there or by that name"):
        profile_folder("nowhere")
    with pytest.raises(SystemExit) as exc:
        main(["nowhere", str(SAMPLES)])
    assert exc.value.code == 2
    assert "no enrolled profile" in capsys.readouterr().err


@pytest.mark.skipif(
    not (MODELS / "tallero-cards.onnx").is_file(), reason="no shipped card detector"
)
@pytest.mark.slow
def test_a_trial_refits_a_copy_and_counts_the_set(tallero, home, monkeypatch, capsys) -> None:
    from vision.enroll import run as enroll_run

    monkeypatch.setattr(enroll_run, "FIT_RECIPE", FitRecipe(scenes=6, epochs=1))
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", "pump,carriage,plow,pail")
    assert r.code == 0, r.err
    folder = home / "profiles" / "default"
    before = (folder / "decks.onnx").read_bytes()
    main(["default", str(SAMPLES), "--try", "other_prior_scale=0", "--threads", "1"])
    (line,) = capsys.readouterr().out.strip().splitlines()
    result = json.loads(line)
    assert result["try"] == "other_prior_scale=0"
    assert result["other_prior_factor"] == 1.0  # scale 0: the odds as fitted
    # The heirloom layout anchors each deck to its built-in twin, so the refitted copy
    # still finds the sample's cards and counts most of its decks exactly.
    assert result["anchors"] == {d: d for d in ("pump", "carriage", "plow", "pail")}
    assert result["card_recall"] >= 0.95 and result["card_precision"] >= 0.95
    assert result["deck_exact"] >= 0.6
    assert set(result["unknown_by_deck"]) <= {"pump", "carriage", "plow", "pail"}
    assert (folder / "decks.onnx").read_bytes() == before  # the profile is left as it was
