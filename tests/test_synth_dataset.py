"""The generated dataset: deterministic per seed, labels consistent with the truth JSON."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from vision.synth.decks import ALL_DECKS, CLASSIC_DECKS
from vision.synth.generate import SceneOptions, make_scene, synthesize


@pytest.fixture(scope="module")
def mixed_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mixed")
    return synthesize(out, 12, seed=5, kind="mixed", workers=2, progress=False)


def _records(d: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((d / "truth").glob("*.json"))]


def test_same_seed_same_output_whatever_the_workers(mixed_set: Path, tmp_path: Path) -> None:
    one = synthesize(tmp_path / "one", 12, seed=5, kind="mixed", workers=1, progress=False)
    for sub in ("images", "labels", "truth"):
        a = sorted((mixed_set / sub).iterdir())
        b = sorted((one / sub).iterdir())
        assert [p.name for p in a] == [p.name for p in b]
        for pa, pb in zip(a, b, strict=True):
            assert pa.read_bytes() == pb.read_bytes(), pa.name


def test_scene_depends_only_on_seed_and_index() -> None:
    opts = SceneOptions(seed=9, kind="blitz")
    img_a, rec_a, _ = make_scene(opts, 3)
    img_b, rec_b, _ = make_scene(opts, 3)
    assert np.array_equal(img_a, img_b) and rec_a == rec_b
    img_c, rec_c, _ = make_scene(SceneOptions(seed=10, kind="blitz"), 3)
    # Another seed draws another scene: other pixels, and another layout of cards.
    assert img_a.shape != img_c.shape or not np.array_equal(img_a, img_c)
    assert rec_c["cards"] != rec_a["cards"]


def test_same_framing_draws_the_scene_at_a_higher_resolution() -> None:
    # a piles photo at 1280 px with the same framing: every card where the 640 px photo has
    # it, twice as far from the corner; without it, a wider view with cards as long as before
    small = make_scene(SceneOptions(seed=3, kind="piles"), 1)[1]
    same = make_scene(SceneOptions(seed=3, kind="piles", imgsz=1280, same_framing=True), 1)[1]
    wide = make_scene(SceneOptions(seed=3, kind="piles", imgsz=1280), 1)[1]
    assert [2 * v for v in small["size"]] == same["size"] == wide["size"]
    a, b = (np.array([c["corners"] for c in r["cards"]]) for r in (small, same))
    assert a.shape == b.shape and np.allclose(2 * a, b, atol=0.01)
    assert [p["top"] for p in small["dutch_piles"]] == [p["top"] for p in same["dutch_piles"]]

    def long_side(rec: dict) -> float:
        q = np.array([c["corners"] for c in rec["cards"]])
        return float(np.median(np.linalg.norm(q[:, 1] - q[:, 2], axis=1)))

    assert long_side(wide) < 1.5 * long_side(small)


def test_layout_files_and_data_yaml(mixed_set: Path) -> None:
    text = (mixed_set / "data.yaml").read_text()
    assert f"path: {mixed_set.resolve()}" in text
    assert "train: images" in text and "val: images" in text
    assert "0: back" in text and "1: face" in text
    for rec in _records(mixed_set):
        stem = rec["image"][:-4]
        assert (mixed_set / "images" / rec["image"]).exists()
        lines = (mixed_set / "labels" / f"{stem}.txt").read_text().splitlines()
        assert len(lines) == len(rec["cards"])
        for line, card in zip(lines, rec["cards"], strict=True):
            parts = line.split()
            assert len(parts) == 9
            assert int(parts[0]) == (1 if card["side"] == "face" else 0)
            xy = np.array(parts[1:], float).reshape(4, 2)
            assert ((xy >= 0) & (xy <= 1)).all()
            np.testing.assert_allclose(
                xy * rec["size"], np.clip(card["corners"], 0, rec["size"]), atol=0.01
            )


def test_counts_agree_with_the_cards_listed(mixed_set: Path) -> None:
    for rec in _records(mixed_set):
        assert rec["decks"] in (list(CLASSIC_DECKS), list(ALL_DECKS))
        assert set(rec["counts"]) == set(rec["decks"])
        listed = Counter(
            c["deck"] for c in rec["cards"] if c["side"] == "back" and not c["random_art"]
        )
        assert {d: listed.get(d, 0) for d in rec["decks"]} == rec["counts"]
        for c in rec["cards"]:
            assert c["visible_fraction"] >= rec["min_visible"]
            if c["random_art"]:
                assert c["deck"] is None and c["side"] == "back"
            if c["side"] == "face":
                assert c["color"] in ("red", "blue", "green", "yellow")
                assert 1 <= c["value"] <= 10


def test_a_fan_scene_shows_only_backs_of_one_deck_each_visible() -> None:
    decks = set()
    for i in range(6):
        img, rec, _ = make_scene(SceneOptions(seed=5, kind="fan", decks=4, imgsz=800), i)
        assert rec["kind"] == "fan" and img.shape[:2][::-1] == tuple(rec["size"])
        (deck,) = {c["deck"] for c in rec["cards"]}
        assert {c["side"] for c in rec["cards"]} == {"back"} and deck in rec["decks"]
        laid = len(rec["cards"]) + rec["out_of_view"].get(deck, 0)  # a group may not fit
        assert 10 <= laid <= 24 and rec["counts"][deck] == len(rec["cards"]) >= 5
        assert min(c["visible_fraction"] for c in rec["cards"]) >= rec["min_visible"]
        decks.add(deck)
    assert len(decks) > 1  # the deck is drawn at random, scene by scene


@pytest.mark.parametrize("kind", ["sorted", "blitz", "piles", "layout"])
def test_every_kind_keeps_cards_visible_and_counts_real_outcomes(kind: str) -> None:
    for i in range(4):
        img, rec, _ = make_scene(SceneOptions(seed=11, kind=kind, min_visible=0.2, decks=4), i)
        assert img.shape[:2][::-1] == tuple(rec["size"])
        assert rec["kind"] == kind
        rnd = rec["round"]
        if kind == "sorted":
            # every Dutch card of the round lies on the table, back up, and is labelled
            for d in rec["decks"]:
                off = rec["out_of_view"].get(d, 0)
                assert rec["counts"][d] + off == rnd["dutch"].get(d, 0)
        elif kind == "blitz":
            assert min(rnd["blitz"].values()) == 0
            for d in rec["decks"]:
                off = rec["out_of_view"].get(d, 0)
                assert rec["counts"][d] + off == rnd["blitz"].get(d, 0)
        elif kind == "piles":
            assert sum(p["top"] for p in rec["dutch_piles"]) == sum(rnd["dutch"].values())
            tops = [p for p in rec["dutch_piles"] if p["top_card_id"] is not None]
            assert len(tops) == len(rec["dutch_piles"])
            for p in tops:
                top = rec["cards"][p["top_card_id"]]
                assert (top["side"] == "back") == p["face_down"]
                if not p["face_down"]:
                    assert (top["color"], top["value"]) == (p["color"], p["top"])
        else:
            backs = [c for c in rec["cards"] if c["side"] == "back"]
            xs = [np.mean(np.asarray(c["corners"])[:, 0]) for c in backs]
            assert [c["deck"] for c in backs] == rec["decks"]
            assert xs == sorted(xs)  # left to right in deck order
