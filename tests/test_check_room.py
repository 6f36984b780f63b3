"""Room left by the card check: the same figures as `tallero eval`, and a perfect check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.evaluate.metrics import evaluate_dir, match_cards, truth_quads
from vision.lab.check_room import check_room

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
    # Naming changes no card found; named from the truth, the perfect check's cards count
    # every deck exactly when every card was proposed.
    for key in ("card_precision", "card_recall"):
        assert room["perfect_naming"][key] == room["check"][key]
        assert room["perfect_both"][key] == room["perfect_check"][key]
    # Named from the truth, every matched back is named right. (Its deck_exact can still be
    # lower: a misnamed card may have made up for a missed one of that deck.)
    assert room["perfect_naming"]["deck_accuracy"] == 1.0
    assert room["perfect_both"]["deck_accuracy"] == 1.0
    if room["perfect_both"]["card_recall"] == 1.0:
        assert room["perfect_both"]["deck_exact"] == 1.0


def test_truth_naming_names_decks_faces_and_other_art() -> None:
    from vision.evaluate.metrics import found_labels, truth_label
    from vision.lab.check_room import truth_named

    truth = json.loads(sorted((SAMPLES / "truth").glob("*.json"))[0].read_text())
    count = Counter(threads=1).count(
        SAMPLES / "images" / truth["image"], decks=tuple(truth["decks"])
    )
    named = truth_named(count, truth)
    pairs = match_cards(named.cards.corners, truth_quads(truth))
    labels = found_labels(named.cards)
    assert pairs
    for i, j in pairs:
        want = truth_label(truth["cards"][j])
        assert labels[i] == (want if want in truth["decks"] or want == "face" else "unknown")
    assert len(named.cards) == len(count.cards)


def test_a_folder_without_truth_is_refused(tmp_path: Path) -> None:
    from vision.lab.check_room import main

    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path)])
    assert stop.value.code == 2
