"""Room left by the card check: the same figures as `tallero eval`, and a perfect check."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.check_room import check_room
from vision.counter import Counter
from vision.evaluate import evaluate_dir
from vision.settings import VisionSettings

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"


def test_the_three_ways_match_eval_and_a_perfect_check_finds_nothing_false() -> None:
    room = check_room(SAMPLES, limit=3, threads=1)
    assert room["images"] == 3
    shipped = evaluate_dir(SAMPLES, Counter(threads=1), limit=3).to_json()
    plain = Counter(settings=VisionSettings(card_check=False), threads=1)
    detector = evaluate_dir(SAMPLES, plain, limit=3).to_json()
    for key in ("deck_exact", "card_precision", "card_recall"):
        assert room["check"][key] == shipped[key]
        assert room["detector"][key] == detector[key]
    assert room["perfect_check"]["card_precision"] == 1.0
    assert room["perfect_check"]["card_recall"] >= room["check"]["card_recall"]


def test_a_folder_without_truth_is_refused(tmp_path: Path) -> None:
    from vision.check_room import main

    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path)])
    assert stop.value.code == 2
