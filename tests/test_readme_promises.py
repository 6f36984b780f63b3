"""What README.md promises a user, each held by a test: JSON keys, the demo, profiles,
annotation, card numbering, the model fingerprint, exit codes, the ledger's foreign keys.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.core.cards import BACK, Cards
from vision.count.result import reading_order

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SAMPLES = ROOT / "datasets" / "samples" / "synth-mini"
SCENE = DATA / "scene_4242_000002"
PROFILE = DATA / "regression" / "profiles" / "h4"

# README, "eval --json carries ...".
EVAL_KEYS = {
    "images", "deck_exact", "image_exact", "mae", "card_precision", "card_recall",
    "deck_accuracy", "flagged_share", "miscounting_flagged", "sure_share", "sure_exact",
    "wrong_counts_ranged", "right_counts_ranged", "range_covers", "image_sure",
    "image_sure_exact", "possible_per_image", "possible_missed", "present_deck_exact",
    "decks_lost", "spread_share", "wrong_unsaid", "by_kind", "by_decks", "by_visibility",
    "per_deck_exact", "confusion", "failures",
}  # fmt: skip


def test_eval_json_carries_every_documented_key(tallero) -> None:
    r = tallero("eval", str(SAMPLES), "--json", "--limit", "2", "--threads", "1")
    assert r.code == 0, r.err
    out = r.json()
    assert EVAL_KEYS <= set(out), EVAL_KEYS - set(out)
    assert out["images"] == 2
    for key in ("deck_exact", "card_precision", "card_recall", "range_covers"):
        assert 0.0 <= out[key] <= 1.0


@pytest.mark.slow
def test_bench_json_carries_every_documented_key(tallero) -> None:
    r = tallero("bench", "--json", "--frames", "100")
    assert r.code == 0, r.err
    out = r.json()
    assert {"live_fps", "baseline_fps", "ratio", "photo_s", "threads"} <= set(out)
    assert out["live_fps"] > 0 and out["baseline_fps"] > 0 and out["photo_s"] > 0
    assert out["ratio"] == pytest.approx(out["live_fps"] / out["baseline_fps"], rel=0.02)
    assert set(out["watch_fps"]) == set(out["watch_camera"]) == {"640x480", "1280x720"}
    for cam in out["watch_camera"].values():
        assert cam["cards"] > 30
        assert cam["beside"]["counts_per_s"] > 0 and cam["beside"]["count_delay_s"] > 0
        # counted beside the window, the window keeps far more of the camera's frames
        assert cam["beside"]["fps"] > 2 * cam["in_loop"]["fps"]


def test_demo_plays_a_game_and_scores_the_photos_from_any_folder(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "demo"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    # The scripted mistake is caught, the amendment lands, the photos are counted.
    assert "tallero: error:" in proc.stdout and "12" in proc.stdout
    assert "three of Cy's cards were under the box" not in proc.stderr
    assert "$ tallero score --dutch" in proc.stdout
    assert sorted(p.name for p in (tmp_path / "out" / "demo").iterdir()) == [
        "000000-dutch-counted.jpg",
        "000001-blitz-counted.jpg",
    ]
    # The demo keeps its game in a throw-away ledger, never in the user's.
    assert not Path(os.environ["TALLERO_HOME"]).exists()


def test_tallero_profile_picks_the_profile(tallero, home) -> None:
    shutil.copytree(PROFILE, home / "profiles" / "h4")
    os.environ["TALLERO_PROFILE"] = "h4"
    listed = tallero("enroll", "list", "--json").json()
    assert listed["active"] == "h4"
    assert [p["name"] for p in listed["profiles"]] == ["h4"]
    r = tallero("count", str(SCENE.with_suffix(".jpg")), "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert list(doc["counts"]) == ["pump", "carriage", "plow", "pail"]
    # The profile's own deck classifier named the backs.
    assert doc["model"]["parts"][1]["sha256"] == sha256(PROFILE / "decks.onnx")
    # --profile wins over the variable; a profile never enrolled (a typo) is refused in one
    # line, and the default profile with nothing enrolled counts with the built-in decks.
    r = tallero("count", str(SCENE.with_suffix(".jpg")), "--json", "--profile", "nobody")
    assert r.code == 2 and len(r.err.strip().splitlines()) == 1
    assert "no profile 'nobody'" in r.err and "(enrolled: h4)" in r.err
    r = tallero("count", str(SCENE.with_suffix(".jpg")), "--json", "--profile", "default")
    assert r.code == 0, r.err
    assert r.json()["model"]["parts"][1]["sha256"] == sha256(ROOT / "models" / "tallero-decks.onnx")


def test_a_profile_holds_at_most_eight_decks(tallero, home) -> None:
    shutil.copytree(PROFILE, home / "profiles" / "default")
    eight = DATA / "enroll" / "heirloom-layout8.jpg"
    names = "a1,a2,a3,a4,a5,a6,a7,a8"
    r = tallero("enroll", "backs", str(eight), "--decks", names)
    assert r.code == 1 and r.err.count("tallero: error:") == 1
    assert (
        r.err.strip()
        .splitlines()[-1]
        .startswith("tallero: error: a profile holds at most 8 decks; default would have 12")
    )
    # Nothing changed: the profile keeps its four decks and no staging is left behind.
    listed = tallero("enroll", "list", "--json").json()
    assert listed["profiles"][0]["decks"] == ["pump", "carriage", "plow", "pail"]
    assert sorted(p.name for p in (home / "profiles").iterdir()) == ["default"]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_model_sha256_is_the_sha256_of_the_parts_digests_in_order(tallero) -> None:
    r = tallero("count", str(SCENE.with_suffix(".jpg")), "--json")
    model = r.json()["model"]
    names = [p["name"] for p in model["parts"]]
    assert names == ["tallero-cards.onnx", "tallero-decks.onnx", "tallero-check.json",
                     "tallero-look.onnx", "tallero-numbers.onnx"]  # fmt: skip
    for part in model["parts"]:
        assert part["sha256"] == sha256(ROOT / "models" / part["name"])
    digests = "".join(sha256(ROOT / "models" / n) for n in names)
    assert model["sha256"] == hashlib.sha256(digests.encode()).hexdigest()


def test_annotate_writes_one_file_for_one_image(tallero, tmp_path: Path) -> None:
    out = tmp_path / "drawn" / "mine.png"
    out.parent.mkdir()
    r = tallero("count", str(SCENE.with_suffix(".jpg")), "--annotate", str(out))
    assert r.code == 0, r.err
    import cv2

    drawn = cv2.imread(str(out))
    photo = cv2.imread(str(SCENE.with_suffix(".jpg")))
    assert drawn is not None and drawn.shape[1] >= photo.shape[1]
    assert list(out.parent.iterdir()) == [out]


def test_card_ids_run_in_reading_order() -> None:
    # Six cards in two rows of three, given shuffled: ids go along the top row, then the
    # bottom row, left to right in each, even when a row is not quite level.
    centres = {(1, 0): (300, 52), (0, 2): (100, 210), (1, 2): (300, 200),
               (0, 0): (100, 50), (2, 2): (500, 195), (2, 0): (500, 58)}  # fmt: skip
    order = [(0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)]
    given = list(centres)
    quads = np.array(
        [[[x - 30, y - 45], [x + 30, y - 45], [x + 30, y + 45], [x - 30, y + 45]]
         for x, y in (centres[k] for k in given)],
        np.float32,
    )  # fmt: skip
    cards = Cards(quads, np.full(6, BACK, np.int8), np.ones(6, np.float32))
    assert [given[i] for i in reading_order(cards)] == order


def test_count_json_numbers_cards_in_reading_order(tallero) -> None:
    doc = tallero("count", str(SCENE.with_suffix(".jpg")), "--json").json()
    # The committed layout scene: a row of four backs above a row of four faces.
    sides = [c["side"] for c in doc["cards"]]
    assert sides == ["back"] * 4 + ["face"] * 4


@pytest.mark.parametrize(
    ("content", "says"),
    [(b"", "empty file"), (b"not pixels at all", "not an image"), (None, "no such file")],
)
def test_a_bad_image_exits_with_exactly_1(tallero, tmp_path: Path, content, says) -> None:
    path = tmp_path / "bad.jpg"
    if content is not None:
        path.write_bytes(content)
    r = tallero("count", str(path))
    assert r.code == 1 and says in r.err and len(r.err.strip().splitlines()) == 1


def test_the_ledger_enforces_foreign_keys(home) -> None:
    from scoring.ledger import Ledger

    with Ledger.open(home) as ledger:
        db = ledger._db
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            db.execute(
                "INSERT INTO revisions (round_id, revision, created_at, kind) "
                "VALUES (9999, 1, '2026-01-01', 'new')"
            )


@pytest.mark.slow
def test_enroll_faces_learns_the_face_colours_left_to_right(tallero, home, monkeypatch) -> None:
    from vision.enroll import run as enroll_run
    from vision.enroll.fit import FitRecipe

    monkeypatch.setattr(enroll_run, "FIT_RECIPE", FitRecipe(scenes=6, epochs=1))
    # The committed layout scene: four backs (left out) and faces red, blue, green, yellow.
    r = tallero("enroll", "faces", str(SCENE.with_suffix(".jpg")), "--json")
    assert r.code == 0, r.err
    assert "left out 4 face-down card(s)" in r.err
    out = r.json()
    assert out["faces"] == ["red", "blue", "green", "yellow"] and out["decks"] == []
    listed = tallero("enroll", "list", "--json").json()["profiles"]
    assert [(p["name"], p["faces"]) for p in listed] == [
        ("default", ["red", "blue", "green", "yellow"])
    ]
    assert sorted(p.name for p in (home / "profiles" / "default" / "cards").iterdir()) == [
        "face-blue-1.png", "face-green-1.png", "face-red-1.png", "face-yellow-1.png"
    ]  # fmt: skip
