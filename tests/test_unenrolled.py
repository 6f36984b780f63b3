"""Counting with a deck left out of the profile: the figures `vision.lab.unenrolled` reports."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from vision.core.cards import BACK, Cards
from vision.lab.unenrolled import main, score_scene, summarize


def quad(x: float) -> list[list[float]]:
    return [[x, 100.0], [x + 40, 100.0], [x + 40, 160.0], [x, 160.0]]


def scene(*cards: tuple[float, str]) -> dict:
    decks = ["pump", "plow", "pail"]
    return {
        "image": "000000.jpg",
        "decks": decks,
        "counts": {d: sum(c == d for _, c in cards) for d in decks},
        "cards": [{"side": "back", "deck": d, "corners": quad(x)} for x, d in cards],
    }


def counted(*named: tuple[float, str | None]) -> SimpleNamespace:
    cards = Cards(
        np.array([quad(x) for x, _ in named], np.float32), [BACK] * len(named), [0.9] * len(named)
    )
    cards.deck[:] = [d for _, d in named]
    counts = {d: sum(n == d for _, n in named) for d in ("pump", "plow")}
    return SimpleNamespace(cards=cards, counts=counts)


def test_a_pail_named_pump_is_counted_over_and_as_named() -> None:
    truth = scene((100, "pump"), (300, "pail"), (500, "pail"), (700, "plow"))
    # The first pail is named pump, the second unknown; the plow is missed.
    got = counted((100, "pump"), (300, "pump"), (500, None))
    row = score_scene(truth, got, ("pump", "plow"))
    assert row["off"] == {"pump": 1, "plow": -1}
    assert (row["unenrolled_found"], row["unenrolled_named"]) == (2, 1)
    exact = score_scene(truth, counted((100, "pump"), (500, None), (700, "plow")), ("pump", "plow"))
    assert exact["off"] == {} and exact["unenrolled_named"] == 0
    total = summarize([row, exact])
    assert {k: total[k] for k in ("photos", "exact", "over", "under")} == {
        "photos": 2,
        "exact": 1,
        "over": 1,
        "under": 1,
    }
    assert (total["unenrolled_found"], total["unenrolled_named"]) == (3, 1)
    assert total["scenes"] == [{"image": "000000.jpg", "off": {"pump": 1, "plow": -1}}]


def test_a_folder_without_truth_is_refused_in_one_line(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path), "--profile", "p"])
    assert exit_.value.code == 2
    assert "not a labelled synthetic set" in capsys.readouterr().err.strip().splitlines()[-1]


def test_a_profile_with_nothing_enrolled_is_refused(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("TALLERO_HOME", str(tmp_path / "home"))
    (tmp_path / "set" / "truth").mkdir(parents=True)
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path / "set"), "--profile", "empty"])
    assert exit_.value.code == 2
    assert "has no enrolled decks" in capsys.readouterr().err
