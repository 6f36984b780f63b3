"""Bare tables: pictures where no card may be found, and what the counter finds on them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth.tables import bare_table

ROOT = Path(__file__).resolve().parents[1]
SORT_CLIP = ROOT / "tests" / "data" / "sort" / "sort_4_decks.mp4"


def test_a_bare_table_is_drawn_the_same_from_the_same_seed_at_the_size_asked() -> None:
    a = bare_table(np.random.default_rng(3), "tablecloth", 320, 240)
    b = bare_table(np.random.default_rng(3), "tablecloth", 320, 240)
    assert a.shape == (240, 320, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and a.std() > 5  # a pattern, not a flat colour


def test_the_lab_counts_bare_tables_and_names_its_worst(capsys: pytest.CaptureFixture[str]):
    from vision.lab import empty_tables

    empty_tables.main(["--n", "3", "--kind", "wood", "--threads", "1"])
    row = json.loads(capsys.readouterr().out)
    assert row["pictures"] == 3 and row["kind"] == "wood"
    assert 0 <= row["with_a_find"] <= 1 and row["finds_max"] >= row["finds_mean"] >= 0
    assert 0 <= row["worst"]["picture"] < 3


def test_a_striped_cloth_with_no_card_on_it_counts_no_card() -> None:
    """Frame 20 of the committed sort clip: white and purple stripes, no card yet. Stripes
    are not a tight row of card slivers."""
    from vision.count.counter import Counter

    cap = cv2.VideoCapture(str(SORT_CLIP))
    for _ in range(21):
        ok, frame = cap.read()
        assert ok
    count = Counter(threads=2).count(frame, name="stripes")
    assert len(count.cards) == 0 and sum(count.counts.values()) == 0


def test_a_bare_table_set_is_scenes_with_no_card_and_the_decks_in_play(tmp_path: Path) -> None:
    from vision.evaluate.metrics import truth_quads
    from vision.synth.generate import write_bare_tables

    write_bare_tables(tmp_path / "a", 4, seed=3, kind_p=(0.0, 0.0, 0.0, 1.0))
    write_bare_tables(tmp_path / "b", 4, seed=3, kind_p=(0.0, 0.0, 0.0, 1.0))
    truths = [json.loads(p.read_text()) for p in sorted((tmp_path / "a" / "truth").iterdir())]
    assert [t["table"] for t in truths] == ["tablecloth"] * 4
    assert [len(t["decks"]) for t in truths] == [4, 8, 4, 8]
    assert all(truth_quads(t).shape == (0, 4, 2) and not any(t["counts"].values()) for t in truths)
    assert all((tmp_path / "a" / "labels" / f"{k:06d}.txt").read_text() == "" for k in range(4))
    for k in range(4):  # one seed, one set of pictures
        name = f"images/{k:06d}.jpg"
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
