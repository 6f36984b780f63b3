"""Sorting wrong deck counts into their card errors: exact kinds on a hand-made scene."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.core.cards import BACK, Cards
from vision.lab.count_errors import analyse_dir, due_to, pair_errors, summarize

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"


def quad(x: float) -> list[list[float]]:
    return [[x, 100.0], [x + 40, 100.0], [x + 40, 160.0], [x, 160.0]]


def truth_card(x: float, deck: str, visible: float = 1.0) -> dict:
    return {"side": "back", "deck": deck, "corners": quad(x), "visible_fraction": visible}


def found(*named: tuple[float, str]) -> Cards:
    cards = Cards(
        np.array([quad(x) for x, _ in named], np.float32),
        [BACK] * len(named),
        [0.9] * len(named),
    )
    cards.deck[:] = [d for _, d in named]
    return cards


def test_each_wrong_pair_gets_its_card_errors() -> None:
    truth = {
        "decks": ["pump", "carriage"],
        "counts": {"pump": 3, "carriage": 1},
        "cards": [
            truth_card(100, "pump"),
            truth_card(300, "pump", visible=0.4),  # not found
            truth_card(500, "pump"),  # found, named carriage
            truth_card(700, "carriage"),
        ],
    }
    cards = found((100, "pump"), (500, "carriage"), (700, "carriage"), (900, "pump"))
    pump, carriage = pair_errors(truth, cards)
    assert pump == {
        "deck": "pump",
        "want": 3,
        "got": 2,
        "kinds": {"missed_under_half": 1, "named_otherwise": 1, "false_find": 1},
    }
    assert sorted(due_to(pump)) == ["missed_under_half", "named_otherwise"]
    assert carriage["kinds"] == {"deck_named_this": 1}
    assert due_to(carriage) == ["deck_named_this"]
    summary = summarize([("sorted", pump), ("sorted", carriage)], pairs=2)
    assert summary["wrong"] == 2
    assert summary["events"]["named_otherwise"] == 1
    assert summary["pairs_due_only_to"] == {"deck_named_this": 1}
    assert summary["pairs_due_only_to_by_layout"] == {"sorted": {"deck_named_this": 1}}


def test_finds_that_match_no_card_are_told_apart() -> None:
    truth = {
        "decks": ["pump"],
        "counts": {"pump": 2},
        "cards": [truth_card(100, "pump"), truth_card(300, "pump", visible=0.3)],
    }
    # A second box on the found card, a box too far off the missed one to match it (IoU
    # 1/3), and a box on bare table.
    cards = found((100, "pump"), (104, "pump"), (320, "pump"), (900, "pump"))
    (pump,) = pair_errors(truth, cards)
    assert pump["got"] == 4
    assert pump["kinds"] == {
        "missed_under_half": 1,
        "double_find": 1,
        "off_find": 1,
        "false_find": 1,
    }


def test_right_counts_give_no_records() -> None:
    truth = {"decks": ["pump"], "counts": {"pump": 1}, "cards": [truth_card(100, "pump")]}
    assert pair_errors(truth, found((100, "pump"))) == []


def test_a_whole_set_is_summed_over_every_pair() -> None:
    summary = analyse_dir(SAMPLES, limit=2, threads=1)
    files = sorted((SAMPLES / "truth").glob("*.json"))[:2]
    assert summary["pairs"] == sum(len(json.loads(f.read_text())["decks"]) for f in files)
    assert sum(summary["wrong_by_layout"].values()) == summary["wrong"] <= summary["pairs"]
    assert summary["given_as_one_number"]["wrong"] <= summary["wrong"]


def test_wrong_counts_given_as_one_number_are_told_apart() -> None:
    truth = {
        "decks": ["pump", "plow"],
        "counts": {"pump": 3, "plow": 1},
        "cards": [
            truth_card(0, "pump"),
            truth_card(100, "pump"),
            truth_card(300, "pump"),
            truth_card(200, "plow"),
        ],
    }
    cards = found((0, "pump"), (200, "pump"))  # two pumps missed, the plow named pump
    ranged = {"pump": (1, 2), "plow": (1, 1)}
    records = {r["deck"]: r for r in pair_errors(truth, cards, ranged)}
    assert records["pump"]["one_number"] is False and records["plow"]["one_number"] is True
    summary = summarize([("sorted", r) for r in records.values()], 2)
    assert summary["given_as_one_number"] == {"wrong": 1, "events": {"named_otherwise": 1}}
    assert "one_number" not in pair_errors(truth, cards)[0]
