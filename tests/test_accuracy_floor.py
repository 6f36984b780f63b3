"""Counting must not get worse: the shipped models against the truth of a committed set.

``tests/data/regression`` holds 35 labelled scenes that no model trained on (seeds 3401-3425):
sorted fans, rows and heaps, Blitz piles, Dutch piles, layouts and loose mixed tables, with
4 and 8 stand-in decks, and 10 scenes of the held-out heirloom art counted with a profile
enrolled from one layout photo (``profiles/h4``). Each set must reach its floors in
``floors.json`` (per-deck exact counts, card precision and recall). When a model change
raises the figures, raise the floors in the same commit, so a floor only ever moves up. A
candidate set of models is measured against the same floors by ``python -m vision.lab.gate``.

Remake the scenes with ``tallero dataset synth DIR --n N --seed S --kind K --decks D --art A``
(the seed, kind and decks are in each truth file; the file names are ``KIND-SEED-INDEX``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vision.core.models import DEFAULT_CHECK, DEFAULT_DETECTOR
from vision.lab.gate import (
    FIGURES,
    SETS,
    Models,
    below_floors,
    floors,
    main,
    regression_figures,
    set_figures,
)

FLOORS = floors()


def test_the_floors_cover_every_set_and_figure() -> None:
    assert set(FLOORS) == set(SETS)
    for set_floors in FLOORS.values():
        assert set(set_floors) == set(FIGURES)
        assert all(0.0 < v <= 1.0 for v in set_floors.values())


@pytest.mark.parametrize("name", sorted(SETS))
def test_counting_stays_above_its_floor(name: str, capsys) -> None:  # noqa: ANN001
    got = regression_figures(name, Models.shipped())
    set_floors = FLOORS[name]
    line = ", ".join(f"{k} {got[k]:.4f} (floor {set_floors[k]})" for k in FIGURES)
    with capsys.disabled():
        print(f"\n  accuracy floor, {name} ({int(got['images'])} scenes): {line}")
    below = {k: (got[k], set_floors[k]) for k in FIGURES if got[k] < set_floors[k]}
    assert below == {}, f"{name}: counting fell below its floor: {below}"


def test_the_gate_names_each_floor_a_candidate_falls_under() -> None:
    at_floors = {name: dict(set_floors) for name, set_floors in FLOORS.items()}
    assert below_floors(at_floors) == {}
    at_floors["standin8"]["deck_exact"] = FLOORS["standin8"]["deck_exact"] - 0.0125
    assert below_floors(at_floors) == {
        "standin8": {
            "deck_exact": [at_floors["standin8"]["deck_exact"], FLOORS["standin8"]["deck_exact"]]
        }
    }


def test_the_gate_takes_the_files_a_candidate_folder_holds(tmp_path) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit, match="holds none of tallero-cards.onnx"):
        Models.candidate(tmp_path)
    with pytest.raises(SystemExit, match="no such folder"):
        Models.candidate(tmp_path / "missing")
    shutil.copyfile(DEFAULT_DETECTOR, tmp_path / "tallero-cards.onnx")
    assert Models.candidate(tmp_path).files == {"model_path": tmp_path / "tallero-cards.onnx"}


def test_the_gate_counts_a_set_alike_with_a_candidate_that_is_the_shipped_models(tmp_path) -> None:  # noqa: ANN001
    shutil.copyfile(DEFAULT_DETECTOR, tmp_path / "tallero-cards.onnx")
    shutil.copyfile(DEFAULT_CHECK, tmp_path / "tallero-check.json")
    sample = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"
    got = set_figures(sample, None, Models.candidate(tmp_path), threads=1)
    assert got == set_figures(sample, None, Models.shipped(), threads=1)
    assert got["images"] == 4 and 0 < got["deck_exact"] <= 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nowhere", "not a labelled set"),
        ("datasets/samples/synth-mini=h9", "no such regression profile"),
    ],
)
def test_the_gate_refuses_a_set_it_cannot_count_before_counting(
    tmp_path, spec: str, message: str
) -> None:  # noqa: ANN001
    shutil.copyfile(DEFAULT_DETECTOR, tmp_path / "tallero-cards.onnx")
    root = Path(__file__).resolve().parents[1]
    spec = spec if spec == "nowhere" else str(root / spec)
    with pytest.raises(SystemExit, match=message):
        main([str(tmp_path), "--set", spec])
