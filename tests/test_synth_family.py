"""Art families: held out by construction, stable per id, different between ids, and every
deck id, face colour and value drawn as a printed card."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth.art import check_style, load_style
from vision.synth.art_family import (
    HELD_OUT_START,
    TRAIN_FAMILIES,
    endless_family,
    is_held_out,
    make_family,
    parse_family,
)
from vision.synth.art_family_style import FamilyPool, FamilyStyle
from vision.synth.art_objects import HELD_OUT_OBJECTS, OBJECTS, TRAIN_OBJECTS
from vision.synth.decks import ALL_DECKS, CARD_H_PX, CARD_W_PX, DECK_ART, FACE_COLORS
from vision.synth.generate import SceneOptions, make_scene, synthesize

W, H = CARD_W_PX, CARD_H_PX


def test_endless_draws_only_training_families() -> None:
    drawn = {endless_family(seed, i) for seed in range(4) for i in range(3000)}
    assert all(f in TRAIN_FAMILIES and not is_held_out(f) for f in drawn)
    assert len(drawn) > 11_900  # a fresh family nearly every scene (12000 scenes)
    assert endless_family(5, 17) == endless_family(5, 17)


def test_held_out_objects_appear_only_in_held_out_families() -> None:
    assert len(OBJECTS) >= 60 and set(HELD_OUT_OBJECTS) <= set(OBJECTS)
    assert not set(HELD_OUT_OBJECTS) & set(TRAIN_OBJECTS)
    for f in range(0, 2000):
        assert not set(make_family(f).objects.values()) & set(HELD_OUT_OBJECTS), f
    for f in range(HELD_OUT_START, HELD_OUT_START + 200):
        objs = set(make_family(f).objects.values())
        assert len(objs & set(HELD_OUT_OBJECTS)) * 2 >= len(objs), f


@pytest.mark.parametrize(
    "name,ok",
    [
        ("family:0", True),
        ("family:999999", True),
        ("family:10000000", True),
        ("family:1000000", False),  # between the two ranges: neither trained nor held out
        ("family:-3", False),
        ("family:three", False),
        ("endless", True),
        ("standin", True),
    ],
)
def test_style_names(name: str, ok: bool) -> None:
    if ok:
        check_style(name)
        SceneOptions(1, art=name).check()
        if name.startswith("family:"):
            assert parse_family(name) == int(name.split(":")[1])
    else:
        with pytest.raises(ValueError):
            SceneOptions(1, art=name).check()


def test_a_family_is_the_same_on_every_call() -> None:
    assert make_family(42) == make_family(42)
    a, b = FamilyStyle(42), FamilyStyle(42)
    for deck in ("pump", "green-pail"):
        pa = a.draw_back(deck, np.random.default_rng(3), W, H)
        pb = b.draw_back(deck, np.random.default_rng(3), W, H)
        assert np.array_equal(pa, pb)
    fa = a.draw_face("blue", 7, np.random.default_rng(4), W, H)
    assert np.array_equal(fa, b.draw_face("blue", 7, np.random.default_rng(4), W, H))
    assert load_style("family:42").spec == a.spec  # type: ignore[attr-defined]


def test_two_families_differ() -> None:
    a, b = make_family(1), make_family(2)
    assert a.objects != b.objects
    ba = FamilyStyle(1).draw_back("pump", np.random.default_rng(0), W, H).astype(float)
    bb = FamilyStyle(2).draw_back("pump", np.random.default_rng(0), W, H).astype(float)
    assert np.abs(ba - bb).mean() > 5


def test_decks_of_a_family_are_told_apart_by_picture_and_ink() -> None:
    structures, policies = set(), set()
    for f in range(300):
        s = make_family(f)
        structures.add(s.structure)
        policies.add(s.ink_policy)
        looks = {(s.objects[d], s.inks[d]) for d in ALL_DECKS}
        assert len(looks) == 8, f  # no two decks look alike
        if s.structure == "swap":  # four objects, each in two inks, as the real expansion
            for d in ALL_DECKS:
                twin = [e for e in ALL_DECKS if e != d and DECK_ART[e][0] == DECK_ART[d][0]]
                assert [s.objects[e] for e in twin] == [s.objects[d]]
        else:
            assert len(set(s.objects.values())) == 8
        if s.ink_policy == "classic":  # pump and green-pail share the green ink
            assert s.inks["pump"] == s.inks["green-pail"] != s.inks["blue-pump"]
    assert structures == {"eight", "swap"} and policies == {"classic", "paired", "free"}


@pytest.mark.parametrize("family", [0, 5, 77, HELD_OUT_START + 1])
def test_backs_are_one_ink_on_light_card(family: int) -> None:
    style = FamilyStyle(family)
    for deck in ALL_DECKS:
        img = style.draw_back(deck, np.random.default_rng(9), W, H).astype(np.float64)
        paper = np.array(style.spec.paper)
        ink = np.array(style.spec.inks[deck])
        # every pixel lies near the paper-to-ink line (one ink), up to grain, grime and wear
        px = img.reshape(-1, 3)
        d = ink - paper
        t = np.clip((px - paper) @ d / (d @ d), 0, 1)
        off = np.linalg.norm(px - (paper + t[:, None] * d), axis=1)
        assert np.median(off) < 8, deck
        assert np.median(t) < 0.25, deck  # mostly paper: a white or cream card
        assert np.percentile(t, 99) > 0.5, deck  # and real ink on it


def _hue_of(img: np.ndarray) -> float:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(float)
    sat = hsv[hsv[:, 1] > 90]
    hist = np.bincount(sat[:, 0].astype(int), minlength=180)
    return float(np.argmax(np.convolve(np.r_[hist[-3:], hist, hist[:3]], np.ones(7), "valid")))


HUES = {"red": (range(0, 11), range(168, 181)), "yellow": (range(14, 36),)}
HUES |= {"green": (range(34, 92),), "blue": (range(94, 132),)}


@pytest.mark.parametrize("family", [3, 11, HELD_OUT_START + 4])
def test_faces_of_every_colour_and_value(family: int) -> None:
    style = FamilyStyle(family)
    cy, cx = slice(int(H * 0.3), int(H * 0.7)), slice(int(W * 0.3), int(W * 0.7))
    for color in FACE_COLORS:
        prints = [style.draw_face(color, v, np.random.default_rng(1), W, H) for v in range(1, 11)]
        assert all(p.shape == (H, W, 3) and p.dtype == np.uint8 for p in prints)
        assert any(int(_hue_of(prints[0])) in r for r in HUES[color]), color
        corner = [p[: int(H * 0.22), : int(W * 0.45)].astype(int) for p in prints]
        for v in range(1, 10):
            # one picture per colour; the value changes only the numbers
            assert np.array_equal(prints[0][cy, cx], prints[v][cy, cx]), (color, v)
            assert np.abs(corner[v] - corner[v - 1]).mean() > 2, (color, v)


def test_scene_pool_draws_the_same_whatever_the_order() -> None:
    style = FamilyStyle(8)
    a, b = FamilyPool(style, [1, 2]), FamilyPool(FamilyStyle(8), [1, 2])
    ta = [a.back("plow", None), a.face("red", 3, None), a.random(5)]  # type: ignore[arg-type]
    tb = [b.random(5), b.face("red", 3, None), b.back("plow", None)][::-1]  # type: ignore[arg-type]
    for x, y in zip(ta, tb, strict=True):
        assert np.array_equal(x.levels[0], y.levels[0])
    assert not np.array_equal(
        ta[0].levels[0], FamilyPool(style, [1, 3]).back("plow", None).levels[0]
    )  # type: ignore[arg-type]


def test_endless_scenes_same_whatever_the_workers(tmp_path: Path) -> None:
    kw = dict(seed=6, kind="sorted", imgsz=320, art="endless", progress=False)
    two = synthesize(tmp_path / "two", 4, workers=2, **kw)  # type: ignore[arg-type]
    one = synthesize(tmp_path / "one", 2, workers=1, start=2, **kw)  # type: ignore[arg-type]
    for sub in ("images", "labels", "truth"):
        for p in sorted((one / sub).iterdir()):
            assert p.read_bytes() == (two / sub / p.name).read_bytes(), p.name
    recs = [json.loads(p.read_text()) for p in sorted((two / "truth").glob("*.json"))]
    assert [r["family"] for r in recs] == [endless_family(6, i) for i in range(4)]
    assert len({r["family"] for r in recs}) == 4 and {r["art"] for r in recs} == {"endless"}
    img, rec, _ = make_scene(SceneOptions(6, "sorted", imgsz=320, art="endless"), 3)
    assert rec == recs[3]


def test_fixed_family_scenes_record_their_family() -> None:
    opts = SceneOptions(2, "layout", imgsz=320, art=f"family:{HELD_OUT_START + 2}")
    for i in range(2):
        _, rec, _ = make_scene(opts, i)
        assert rec["family"] == HELD_OUT_START + 2 and rec["art"] == opts.art
    assert make_scene(SceneOptions(2, "layout", imgsz=320), 0)[1]["family"] is None
