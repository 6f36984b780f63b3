"""A back of no deck named from the backs it looks like in the same photo (vision.name.scene)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from cli import app
from vision.core.cards import BACK, FACE, Cards
from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.count.result import Count
from vision.enroll.profiles import classifier_for
from vision.name.scene import SceneNaming


def quads(n: int) -> np.ndarray:
    """``n`` upright card outlines side by side (they touch nothing in particular)."""
    x = 100.0 * np.arange(n, dtype=np.float32)[:, None]
    base = np.array([[0, 0], [40, 0], [40, 60], [0, 60]], np.float32)
    return base[None] + np.stack([x[:, 0], np.zeros(n, np.float32)], 1)[:, None, :]


def table(
    decks: list[str | None],
    confidence: list[float],
    other: list[float] | None = None,
    sides: list[int] | None = None,
) -> Cards:
    n = len(decks)
    return Cards(
        quads(n),
        sides or [BACK] * n,
        [0.9] * n,
        deck=decks,
        deck_confidence=confidence,
        other_probability=other or [0.0] * n,
    )


def near(direction: np.ndarray, angle: float) -> np.ndarray:
    """A unit vector ``angle`` radians away from the unit ``direction`` (in its first plane)."""
    e = np.zeros_like(direction)
    e[1] = 1.0
    return np.cos(angle) * direction + np.sin(angle) * e


PUMP = np.array([1.0, 0.0, 0.0, 0.0])
PAIL = np.array([0.0, 0.0, 1.0, 0.0])


def test_a_back_of_no_deck_takes_the_deck_of_the_backs_it_looks_like() -> None:
    cards = table(["pump"] * 5 + [None], [0.97] * 5 + [0.3])
    emb = np.stack([near(PUMP, 0.05 * k) for k in range(5)] + [near(PUMP, 0.2)])
    assert SceneNaming().decks(cards, emb) == {5: "pump"}


def test_a_back_alike_to_nothing_sure_stays_unknown() -> None:
    # cos(0.6) = 0.83: every sure back is under 0.9 alike.
    cards = table(["pump"] * 5 + [None], [0.97] * 5 + [0.3])
    emb = np.stack([PUMP] * 5 + [near(PUMP, 0.6)])
    assert SceneNaming().decks(cards, emb) == {}


def test_each_of_the_three_most_alike_must_be_alike_enough() -> None:
    # Its nearest pump 0.99 alike (cos 0.14), the next two 0.87 (cos 0.52): one vote only.
    cards = table(["pump"] * 3 + [None], [0.97] * 3 + [0.3])
    emb = np.stack([PUMP, near(PUMP, 0.66), near(PUMP, 0.66), near(PUMP, 0.14)])
    assert SceneNaming().decks(cards, emb) == {}
    assert SceneNaming(neighbours=1).decks(cards, emb) == {3: "pump"}
    close = np.stack([PUMP, near(PUMP, 0.3), near(PUMP, 0.3), near(PUMP, 0.14)])
    assert SceneNaming().decks(cards, close) == {3: "pump"}


def test_backs_of_two_decks_alike_name_nothing() -> None:
    # Its three most alike sure backs: two pumps and a pail, each 0.99 alike or more.
    cards = table(["pump", "pail", "pump", "pail", None], [0.97] * 4 + [0.3])
    emb = np.stack([near(PUMP, 0.01 * k) for k in range(4)] + [PUMP])
    assert SceneNaming().decks(cards, emb) == {}
    assert SceneNaming(neighbours=3, min_share=0.6).decks(cards, emb) == {4: "pump"}


def test_only_sure_backs_speak_and_one_is_never_enough() -> None:
    emb = np.stack([PUMP] * 4)
    one = table(["pump", "pump", "pump", None], [0.97, 0.85, 0.85, 0.3])
    assert SceneNaming().decks(one, emb) == {}
    assert SceneNaming(neighbours=1).decks(one, emb) == {}
    # With fewer sure backs than neighbours, all of them must agree.
    two = table(["pump", "pump", "pump", None], [0.97, 0.95, 0.85, 0.3])
    assert SceneNaming().decks(two, emb) == {3: "pump"}
    split = table(["pump", "pail", "pump", None], [0.97, 0.95, 0.85, 0.3])
    assert SceneNaming().decks(split, emb) == {}


def test_a_back_surely_of_another_game_and_faces_are_left_alone() -> None:
    cards = table(
        ["pump"] * 5 + [None, None],
        [0.97] * 5 + [0.3, 0.9],
        other=[0.0] * 5 + [0.95, 0.0],
        sides=[BACK] * 6 + [FACE],
    )
    emb = np.stack([PUMP] * 7)
    assert SceneNaming().decks(cards, emb, other_game_probability=0.9) == {}
    assert SceneNaming().decks(cards, emb, other_game_probability=None) == {5: "pump"}


def test_one_embedding_per_card_is_needed() -> None:
    with pytest.raises(ValueError, match="one embedding per card"):
        SceneNaming().decks(table(["pump", None], [0.97, 0.3]), np.zeros((3, 4)))


def test_settings_bound_the_scene_naming() -> None:
    s = VisionSettings(scene_min_similarity=0.8, scene_neighbours=3)
    assert SceneNaming.from_settings(s) == SceneNaming(0.9, 3, 0.8, 1.0)
    with pytest.raises(ValueError, match="scene_min_share"):
        VisionSettings(scene_min_share=1.5)
    with pytest.raises(ValueError, match="scene_neighbours"):
        VisionSettings(scene_neighbours=0)


ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "data" / "scene" / "heirloom-7004-000083.jpg"
H4 = ROOT / "tests" / "data" / "regression" / "profiles" / "h4"


@pytest.fixture
def h4(home: Path) -> Path:
    """The heirloom art's profile, enrolled from one layout photo, in a fresh home."""
    shutil.copytree(H4, home / "profiles" / "h4")
    classifier, _ = classifier_for("h4")
    assert classifier is not None
    return classifier


def heirloom_count(classifier: Path, **settings: object) -> Count:
    counter = Counter(classifier_path=classifier, threads=2, settings=VisionSettings(**settings))
    return counter.count(PHOTO, decks=("pump", "carriage", "plow", "pail"))


def test_a_pump_of_no_deck_is_named_like_the_pumps_it_lies_among(h4: Path) -> None:
    # Heirloom art, a Blitz table: a fan of 6 pumps, 10 plows, 6 pails (seed 7004, scene 83).
    truth = json.loads(PHOTO.with_suffix(".json").read_text())["counts"]
    assert truth == {"pump": 6, "carriage": 0, "plow": 10, "pail": 6}
    alone = heirloom_count(h4, scene_naming=False)
    assert alone.counts == {**truth, "pump": 5} and alone.unknown == 1
    count = heirloom_count(h4)
    assert count.counts == truth and count.unknown == 0
    assert count.named_from_table == [6]
    # Still doubted: listed to look at, and the range reaches down past it.
    assert count.named_from_table[0] in count.uncertain
    assert count.ranges["pump"] == (5, 6)
    assert count.to_json()["named_from_table"] == [6]
    assert alone.to_json()["named_from_table"] == []


def test_the_cli_says_which_cards_were_named_from_the_table(h4: Path) -> None:
    result = CliRunner().invoke(app, ["count", str(PHOTO), "--profile", "h4"])
    assert result.exit_code == 0, result.output
    assert "pump 6 (5-6)" in result.output
    assert "uncertain cards 6 (6 named after the backs they look like)" in result.output


def test_live_frames_are_named_from_the_table_too(h4: Path) -> None:
    # One look a frame (where the classifier alone leaves the sixth pump unknown) and the
    # live card check: the sixth pump is still named from the fan.
    decks = ("pump", "carriage", "plow", "pail")
    one = {"enrolled_live_naming_views": 1}
    live = Counter(classifier_path=h4, threads=2, live=True, settings=VisionSettings(**one))
    counted = live.count(PHOTO, decks=decks)
    assert counted.counts["pump"] == 6 and counted.unknown == 0
    assert len(counted.named_from_table) == 1
    off = Counter(
        classifier_path=h4,
        threads=2,
        live=True,
        settings=VisionSettings(scene_naming=False, **one),  # type: ignore[arg-type]
    ).count(PHOTO, decks=decks)
    assert off.counts["pump"] == 5 and off.unknown == 1 and off.named_from_table == []


def test_a_back_alike_to_another_games_backs_is_left_alone() -> None:
    # A fan of another game's backs in the pumps' ink: two named pump by the classifier,
    # one surely of another game, one unknown. The unknown one's three most alike: both
    # "pumps" and the other game's back.
    cards = table(
        ["pump", "pump", None, None], [0.95, 0.95, 0.95, 0.4], other=[0.0, 0.0, 0.95, 0.5]
    )
    emb = np.stack([near(PUMP, 0.1), near(PUMP, 0.1), PUMP, PUMP])
    assert SceneNaming().decks(cards, emb, other_game_probability=0.9) == {}
    # Without it among its most alike (the other game's back elsewhere), it is named.
    apart = np.stack([PUMP, PUMP, PAIL, PUMP])
    assert SceneNaming(neighbours=2).decks(cards, apart, other_game_probability=0.9) == {3: "pump"}
