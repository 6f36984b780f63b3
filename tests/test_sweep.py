"""Threshold sweeps: overrides parse to typed settings, and each try is really evaluated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.core.models import DEFAULT_CHECK
from vision.lab.sweep import parse_try, sweep

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"


def test_overrides_are_typed_like_the_settings() -> None:
    assert parse_try("detector_input_px=640, nms_iou=0.5") == {
        "detector_input_px": 640,
        "nms_iou": 0.5,
    }
    assert parse_try("card_check=false") == {"card_check": False}
    assert parse_try("card_check=True") == {"card_check": True}
    # A setting that may be off (None) takes none, or a value of its own type.
    assert parse_try("enrolled_uncertain_other_probability=0.3") == {
        "enrolled_uncertain_other_probability": 0.3
    }
    assert parse_try("uncertain_other_probability=none") == {"uncertain_other_probability": None}


@pytest.mark.parametrize(
    "bad",
    ["nms_iou", "no_such_setting=1", "nms_iou=high", "card_check=maybe", "nms_iou=none"],
)
def test_bad_overrides_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_try(bad)


def test_a_setting_that_finds_nothing_scores_nothing() -> None:
    nothing = {"card_check": False, "min_detection_confidence": 1.0}
    normal, none = sweep(SAMPLES, [{}, nothing], limit=2, threads=1)
    assert normal["card_recall"] > 0.5
    assert none["card_recall"] == 0.0
    assert none["settings"] == nothing


def test_a_check_other_than_the_shipped_one_is_the_one_used(tmp_path: Path) -> None:
    """A card check that calls nothing a card, given by path, keeps no card at all."""
    check = json.loads(DEFAULT_CHECK.read_text())
    check["layers"][-1]["bias"] = [-1000.0 for _ in check["layers"][-1]["bias"]]
    nowhere = tmp_path / "check.json"
    nowhere.write_text(json.dumps(check))
    nothing = {"card_look": False}
    shipped, refusing = (
        sweep(SAMPLES, [nothing], limit=2, threads=1, check=path)[0] for path in (None, nowhere)
    )
    assert shipped["card_recall"] > 0.5
    assert refusing["card_recall"] == 0.0


def test_a_profile_with_nothing_enrolled_counts_with_the_built_in_decks(home: Path) -> None:
    built_in, empty = (
        sweep(SAMPLES, [{}], limit=1, threads=1, profile=name)[0] for name in (None, "empty")
    )
    for row in (built_in, empty):
        row.pop("seconds")
    assert empty == built_in and built_in["card_recall"] > 0.5


def test_a_profile_and_a_classifier_together_are_refused(home: Path) -> None:
    with pytest.raises(ValueError, match="not both"):
        sweep(SAMPLES, [{}], limit=1, threads=1, classifier=Path("x.onnx"), profile="p")
