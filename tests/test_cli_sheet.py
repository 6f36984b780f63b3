"""The score-sheet commands end to end, in a temporary $TALLERO_HOME."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_a_whole_game_with_a_mistake_and_an_amendment(tallero):
    r = tallero(
        "game",
        "new",
        "Ann=pump",
        "Ben=buggy",
        "Cy=blue plow",
        "--target",
        "30",
        "--name",
        "Friday",
        "--json",
    )
    assert r.code == 0, r.err
    game = r.json()["game"]
    assert game["name"] == "Friday" and game["target"] == 30 and game["tie"] == "play-on"
    assert [(p["name"], p["deck"], p["deck_name"]) for p in game["players"]] == [
        ("Ann", "pump", "green pump"),
        ("Ben", "carriage", "red carriage"),
        ("Cy", "plow", "blue plow"),
    ]

    r = tallero("round", "--dutch", "Ann=12,Ben=9,Cy=15", "--blitz", "Ann=0,Ben=3,Cy=5", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["round"] == 1 and out["revision"] == 1
    assert out["players"]["Ben"] == {"dutch": 9, "blitz": 3, "points": 3}
    assert out["totals"] == {"Ann": 12, "Ben": 3, "Cy": 5} and out["leaders"] == ["Ann"]

    # A mistake caught: a Blitz pile cannot hold 12 cards. Nothing is written.
    r = tallero("round", "--dutch", "Ann=10,Ben=14,Cy=8", "--blitz", "Ann=12,Ben=0,Cy=2")
    assert r.code == 1 and r.out == ""
    assert r.err.strip() == "tallero: error: Ann: Blitz count 12 is outside 0..10"
    assert len(tallero("sheet", "--json").json()["rounds"]) == 1

    r = tallero("round", "--dutch", "ann=10,BEN=14,Cy=8", "--blitz", "Ann=2,Ben=0,Cy=2", "--json")
    assert r.code == 0 and r.json()["totals"] == {"Ann": 18, "Ben": 17, "Cy": 9}

    r = tallero(
        "amend", "1", "--blitz", "Ben=2", "--reason", "Ben recounted his Blitz pile", "--json"
    )
    assert r.code == 0, r.err
    assert r.json()["revision"] == 2 and r.json()["totals"]["Ben"] == 19

    r = tallero("round", "--dutch", "Ann=15,Ben=3,Cy=9", "--blitz", "Ann=0,Ben=4,Cy=1", "--json")
    final = r.json()
    assert final["totals"] == {"Ann": 33, "Ben": 14, "Cy": 16}
    assert final["over"] and final["winners"] == ["Ann"]

    r = tallero("round", "--dutch", "Ann=1,Ben=1,Cy=1", "--blitz", "Ann=0,Ben=1,Cy=1")
    assert r.code == 1 and "is over (Ann won)" in r.err

    sheet = tallero("sheet", "--json").json()
    assert [x["round"] for x in sheet["rounds"]] == [1, 2, 3]
    assert sheet["rounds"][0]["revision"] == 2 and sheet["winners"] == ["Ann"]

    rows = list(csv.reader(io.StringIO(tallero("sheet", "--csv").out)))
    assert rows[0] == ["player", "deck", "round 1", "round 2", "round 3", "total"]
    assert rows[1] == ["Ann", "pump", "12", "6", "15", "33"]

    text = tallero("sheet").out
    assert "Ann (winner)" in text and "Game over: Ann won." in text and "R1*" in text

    hist = tallero("history", "1", "--json").json()
    assert [(h["revision"], h["kind"], h["reason"]) for h in hist["revisions"]] == [
        (1, "new", None),
        (2, "amend", "Ben recounted his Blitz pile"),
    ]
    assert "Ben recounted" in tallero("history", "1").out

    games = tallero("games", "--json").json()["games"]
    assert games[0]["current"] and games[0]["over"] and games[0]["rounds"] == 3


def test_undo_and_force(tallero):
    assert tallero("game", "new", "Ann=pump", "Ben=carriage").code == 0
    r = tallero("round", "--dutch", "Ann=5,Ben=4", "--blitz", "Ann=1,Ben=2")
    assert r.code == 1 and "nobody has 0 Blitz" in r.err and "--force" in r.err
    r = tallero("round", "--dutch", "Ann=5,Ben=4", "--blitz", "Ann=1,Ben=2", "--force", "--json")
    assert r.code == 0 and r.json()["warnings"]
    r = tallero("undo", "--reason", "dealt again", "--json")
    assert r.code == 0 and r.json() == {
        "game": 1,
        "round": 1,
        "undone": True,
        "reason": "dealt again",
        "totals": {"Ann": 0, "Ben": 0},
        "leaders": ["Ann", "Ben"],
        "over": False,
        "winners": [],
        "tie_at_target": False,
    }
    assert tallero("sheet", "--json").json()["undone_rounds"] == [1]
    r = tallero("undo", "--reason", "again")
    assert r.code == 1 and "no round to undo" in r.err


def test_share_policy_ends_a_tie(tallero):
    tallero("game", "new", "Ann=pump", "Ben=carriage", "--target", "10", "--tie", "share")
    r = tallero("round", "--dutch", "Ann=12,Ben=12", "--blitz", "Ann=0,Ben=0", "--json")
    assert r.json()["over"] and r.json()["winners"] == ["Ann", "Ben"]


def test_play_on_keeps_a_tie_going(tallero):
    tallero("game", "new", "Ann=pump", "Ben=carriage", "--target", "10")
    r = tallero("round", "--dutch", "Ann=12,Ben=12", "--blitz", "Ann=0,Ben=0")
    assert "Tie at the top (Ann, Ben): play another round." in r.out
    r = tallero("round", "--dutch", "Ann=3,Ben=1", "--blitz", "Ann=0,Ben=0", "--json")
    assert r.json()["winners"] == ["Ann"]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["round", "--dutch", "Ann=1,Ben=2", "--blitz", "Ann=0,Ben=1"], 1, "no game yet"),
        (["game", "new", "Ann=pump", "Ben=pump"], 1, "bound to two players"),
        (["game", "new", "Ann=pump", "Ben=tractor"], 1, "unknown deck 'tractor'"),
        (["game", "new", "Ann=pump", "Ben"], 2, "expected NAME=VALUE"),
        (["game", "new", "Ann=pump", "Ben=plow", "--tie", "coin"], 2, "play-on or share"),
        (["game", "new", "Ann=pump", "Ben=plow", "--target", "many"], 2, "--target"),
        (["sheet", "--game", "7"], 1, "no game 7"),
        (["frobnicate"], 2, "No such command"),
    ],
)
def test_bad_input_gives_one_line_and_nonzero_exit(tallero, args, code, message):
    r = tallero(*args)
    assert r.code == code
    assert r.out == ""
    assert len(r.err.strip().splitlines()) == 1 and message in r.err
    assert "Traceback" not in r.err


@pytest.mark.parametrize(
    ("dutch", "blitz", "message"),
    [
        ("Ann=41,Ben=2", "Ann=0,Ben=1", "Ann: Dutch count 41 is outside 0..40"),
        ("Ann=35,Ben=2", "Ann=6,Ben=0", "Ann: Dutch 35 + Blitz 6 = 41"),
        ("Ann=3.5,Ben=2", "Ann=0,Ben=1", "not a whole number"),
        ("Ann=3,Ben=2,Dee=1", "Ann=0,Ben=1", "unknown player 'Dee'"),
        ("Ann=3", "Ann=0,Ben=1", "Dutch count missing for Ben"),
        ("Ann=3,Ben=2", "Ann=0,Ben=-1", "outside 0..10"),
    ],
)
def test_bad_counts_write_nothing(tallero, dutch, blitz, message):
    tallero("game", "new", "Ann=pump", "Ben=plow")
    r = tallero("round", "--dutch", dutch, "--blitz", blitz)
    assert r.code == 1 and message in r.err and len(r.err.strip().splitlines()) == 1
    assert tallero("sheet", "--json").json()["rounds"] == []


def test_sheet_commands_do_not_import_torch_and_start_fast(home):
    """Real process, real entry point: the score sheet must not pay for the camera."""
    code = (
        "import sys, cli; sys.argv = ['tallero', 'games', '--json']\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('torch', 'ultralytics', 'cv2', 'onnxruntime') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "TALLERO_HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert '"games": []' in proc.stdout


def test_dutch_pile_cross_check_on_a_round(tallero):
    tallero("game", "new", "Ann=pump", "Ben=plow")
    r = tallero("round", "--dutch", "Ann=12,Ben=9", "--blitz", "Ann=0,Ben=3", "--piles", "10,7,3")
    assert r.code == 1
    assert "the Dutch piles hold 20 cards but the players' Dutch counts add up to 21 (+1)" in r.err
    r = tallero(
        "round",
        "--dutch",
        "Ann=12,Ben=9",
        "--blitz",
        "Ann=0,Ben=3",
        "--piles",
        "down,8,3",
        "--json",
    )
    assert r.code == 0 and r.json()["warnings"] == []
    r = tallero("round", "--dutch", "Ann=2,Ben=1", "--blitz", "Ann=0,Ben=3", "--piles", "1,12")
    assert r.code == 1 and "pile top 12 is neither 1..10 nor 'down'" in r.err
