"""Counting must not get worse: the shipped models against the truth of a committed set.

``tests/data/regression`` holds 35 labelled scenes that no model trained on (seeds 3401-3425):
sorted fans, rows and heaps, Blitz piles, Dutch piles, layouts and loose mixed tables, with
4 and 8 stand-in decks, and 10 scenes of the held-out heirloom art counted with a profile
enrolled from one layout photo (``profiles/h4``). Each set must reach its floors in
``floors.json`` (per-deck exact counts, card precision and recall). When a model change
raises the figures, raise the floors in the same commit, so a floor only ever moves up.

Remake the scenes with ``tallero dataset synth DIR --n N --seed S --kind K --decks D --art A``
(the seed, kind and decks are in each truth file; the file names are ``KIND-SEED-INDEX``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vision.count.counter import Counter
from vision.enroll.profiles import classifier_for
from vision.evaluate.metrics import evaluate_dir

ROOT = Path(__file__).resolve().parents[1]
REGRESSION = ROOT / "tests" / "data" / "regression"
FLOORS = json.loads((REGRESSION / "floors.json").read_text())
FIGURES = ("deck_exact", "card_precision", "card_recall")
# The set and the profile it is counted with (None: the built-in decks).
SETS = {"standin4": None, "standin8": None, "heirloom4": "h4"}


def figures(name: str, home: Path) -> dict[str, float]:
    """The set's headline figures with the shipped models (and its profile, if any)."""
    profile = SETS[name]
    classifier = None
    if profile is not None:
        shutil.copytree(REGRESSION / "profiles" / profile, home / "profiles" / profile)
        classifier, _ = classifier_for(profile)
        assert classifier is not None
    counter = Counter(classifier_path=classifier, threads=2)
    result = evaluate_dir(REGRESSION / name, counter).to_json()
    return {k: float(result[k]) for k in (*FIGURES, "images")}


def test_the_floors_cover_every_set_and_figure() -> None:
    assert set(FLOORS) == set(SETS)
    for floors in FLOORS.values():
        assert set(floors) == set(FIGURES)
        assert all(0.0 < v <= 1.0 for v in floors.values())


@pytest.mark.parametrize("name", sorted(SETS))
def test_counting_stays_above_its_floor(name: str, home: Path, capsys) -> None:  # noqa: ANN001
    got = figures(name, home)
    floors = FLOORS[name]
    line = ", ".join(f"{k} {got[k]:.4f} (floor {floors[k]})" for k in FIGURES)
    with capsys.disabled():
        print(f"\n  accuracy floor, {name} ({int(got['images'])} scenes): {line}")
    below = {k: (got[k], floors[k]) for k in FIGURES if got[k] < floors[k]}
    assert below == {}, f"{name}: counting fell below its floor: {below}"
