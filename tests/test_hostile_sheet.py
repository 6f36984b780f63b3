"""Hostile input at the score sheet: names rich would read as markup, a command run again
after it landed, malformed and huge numbers, look-alike names and terminal escapes.

Each probe is a row of a table; every one must end in a result or one `tallero: error:`
line, never a traceback, and a refused command must write nothing.
"""

from __future__ import annotations

import os
import sqlite3
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.errors import RuleError, TalleroError, UsageError
from scoring.names import clean_text, name_key
from scoring.parse import INT64_MAX, parse_counts, split_pairs, split_tops, whole_number
from scoring.schema import LEDGER_FILE

# TALLERO_FUZZ_LONG=1: many more examples per property (minutes, not seconds).
LONG = os.environ.get("TALLERO_FUZZ_LONG") == "1"


def examples(short: int) -> int:
    return short * 25 if LONG else short


MARKUP_NAMES = ["[/]", "[/bold]", "[bold]Ann", "[i]Cy[/i]", "[red", "\\[/]"]


def one_error_line(r, code: int = 1) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tallero: error: "), r.err
    return lines[0]


@pytest.mark.parametrize("name", MARKUP_NAMES)
def test_markup_in_a_name_is_printed_as_typed_by_every_command(tallero, name):
    assert tallero("game", "new", f"{name}=pump", "Ben=plow", "--name", name).code == 0
    r = tallero("round", "--dutch", f"{name}=5,Ben=3", "--blitz", f"{name}=0,Ben=2")
    assert r.code == 0 and r.err == "", r.err
    assert name in r.out and "Round 1 of" in r.out
    for args in (["sheet"], ["games"], ["history", "1"]):
        r = tallero(*args)
        assert r.code == 0 and r.err == "" and name in r.out, (args, r.err)
    r = tallero("amend", "1", "--dutch", f"{name}=6", "--reason", f"{name} recounted")
    assert r.code == 0 and r.err == "" and name in r.out
    assert tallero("undo", "--reason", "scored twice").code == 0
    assert [x["round"] for x in tallero("sheet", "--json").json()["rounds"]] == []


def test_a_round_run_again_is_refused_and_written_once(tallero):
    tallero("game", "new", "Ann=pump", "Ben=plow")
    args = ("round", "--dutch", "Ann=5,Ben=3", "--blitz", "Ann=0,Ben=2")
    assert tallero(*args).code == 0
    line = one_error_line(tallero(*args))
    assert "round 1 has exactly these counts" in line and "--again" in line
    assert len(tallero("sheet", "--json").json()["rounds"]) == 1
    # A command that needed --force, run again, is refused all the same.
    forced = ("round", "--dutch", "Ann=1,Ben=1", "--blitz", "Ann=1,Ben=1", "--force")
    assert tallero(*forced).code == 0
    assert "has exactly these counts" in one_error_line(tallero(*forced))
    # Other counts are a new round; the same counts again with --again are written.
    assert tallero("round", "--dutch", "Ann=6,Ben=3", "--blitz", "Ann=0,Ben=2").code == 0
    assert tallero("round", "--dutch", "Ann=6,Ben=3", "--blitz", "Ann=0,Ben=2", "--again").code == 0
    assert len(tallero("sheet", "--json").json()["rounds"]) == 4


def test_the_same_counts_after_the_window_or_after_an_undo_are_a_new_round(tallero, home):
    tallero("game", "new", "Ann=pump", "Ben=plow")
    args = ("round", "--dutch", "Ann=5,Ben=3", "--blitz", "Ann=0,Ben=2", "--json")
    assert tallero(*args).code == 0
    db = sqlite3.connect(home / LEDGER_FILE)
    old = (datetime.now(UTC) - timedelta(minutes=11)).isoformat(timespec="seconds")
    db.execute("UPDATE revisions SET created_at = ?", (old,))
    db.commit()
    db.close()
    assert tallero(*args).json()["round"] == 2  # eleven minutes on: another round
    assert tallero("undo", "--reason", "wrong").code == 0
    assert tallero(*args).json()["round"] == 3  # redone after an undo


def test_output_is_rendered_before_the_commit(tallero, monkeypatch):
    """A failure while rendering writes nothing; a retry then writes the round once."""
    import scoring.report

    tallero("game", "new", "Ann=pump", "Ben=plow")

    def broken(*args, **kwargs):
        raise RuleError("rendering failed")

    with monkeypatch.context() as patch:
        patch.setattr(scoring.report, "round_table", broken)
        r = tallero("round", "--dutch", "Ann=5,Ben=3", "--blitz", "Ann=0,Ben=2")
        assert one_error_line(r) == "tallero: error: rendering failed"
        assert tallero("sheet", "--json").json()["rounds"] == []
    assert tallero("round", "--dutch", "Ann=5,Ben=3", "--blitz", "Ann=0,Ben=2").code == 0
    assert len(tallero("sheet", "--json").json()["rounds"]) == 1


BAD_NUMBERS = [
    # (args after a game exists, exit code, message part)
    (["round", "--dutch", "Ann=+-3,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=--3,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=-+3,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=++3,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=1_0,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=١٢,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=0x10,Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "not a whole number"),
    (["round", "--dutch", "Ann=" + "9" * 25 + ",Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "0..40"),
    (["round", "--dutch", "Ann=" + "9" * 400 + ",Ben=1", "--blitz", "Ann=0,Ben=1"], 1, "whole"),
    (["round", "--dutch", "Ann=1,Ben=1", "--blitz", "Ann=0,Ben=-0x1"], 1, "not a whole number"),
    (["sheet", "--game", "1" * 25], 2, "--game must be at most 9223372036854775807"),
    (["sheet", "--game", "-1"], 2, "--game must be 1 or more"),
    (["sheet", "--game", "+-1"], 2, "--game is not a whole number"),
    (["sheet", "--game", "9223372036854775807"], 1, "no game 9223372036854775807"),
    (["history", "1" * 25], 2, "ROUND must be at most"),
    (["history", "9223372036854775807"], 1, "has no round 9223372036854775807"),
    (["amend", "9" * 30, "--dutch", "Ann=1", "--reason", "x"], 2, "ROUND must be at most"),
    (["undo", "--reason", "x", "--game", "9" * 30], 2, "--game must be at most"),
    (["game", "new", "A=pump", "B=plow", "--target", "9" * 30], 2, "--target must be at most"),
    (["game", "new", "A=pump", "B=plow", "--target", "0"], 2, "--target must be 1 or more"),
    (["game", "new", "A=pump", "B=plow", "--target", "1e3"], 2, "--target is not a whole"),
    (["count", "x.jpg", "--threads", "9" * 30], 2, "--threads must be at most 256"),
    (["eval", "x", "--limit", "-5"], 2, "--limit must be 1 or more"),
]


@pytest.mark.parametrize(("args", "code", "message"), BAD_NUMBERS)
def test_malformed_and_huge_numbers_give_one_error_line(tallero, args, code, message):
    tallero("game", "new", "Ann=pump", "Ben=plow")
    r = tallero(*args)
    assert message in one_error_line(r, code) and r.out == ""
    assert tallero("sheet", "--json").json()["rounds"] == []
    assert [g["id"] for g in tallero("games", "--json").json()["games"]] == [1]


def test_a_name_typed_two_ways_is_one_player(tallero):
    composed, combining = "Ren\u00e9", "Rene\u0301"
    assert composed != combining
    r = tallero("game", "new", f"{combining}=pump", "Ben=plow", "--json")
    assert r.json()["game"]["players"][0]["name"] == composed  # stored in normal form C
    line = one_error_line(tallero("game", "new", f"{composed}=pump", f"{combining}=plow"))
    assert "appears twice" in line
    r = tallero(
        "round", "--dutch", f"{composed}=5,BEN=3", "--blitz", "RENE\u0301=0,ben=2", "--json"
    )
    assert r.code == 0 and r.json()["players"][composed]["dutch"] == 5
    line = one_error_line(
        tallero("round", "--dutch", f"{composed}=5,{combining}=4,Ben=1", "--blitz", "x=1"), 2
    )
    assert "given twice" in line


CONTROL_NAMES = [
    "A\x1b[31mred",  # ANSI colour
    "A\x1b]0;title\x07",  # terminal title
    "An\rn",
    "An\nn",
    "A\tb",
    "Ann\u200b",  # zero-width space (Cf)
    "\u202eAnn",  # right-to-left override
    "Ann\x00",
    "Ann\x7f",
]


@pytest.mark.parametrize("name", CONTROL_NAMES)
def test_control_characters_in_names_are_refused(tallero, name):
    line = one_error_line(tallero("game", "new", f"{name}=pump", "Ben=plow"))
    assert "control characters" in line and "\x1b" not in line and "\n" not in line.strip()
    assert tallero("games", "--json").json()["games"] == []


@pytest.mark.parametrize("field", ["--name", "--reason"])
def test_control_characters_in_game_names_and_reasons_are_refused(tallero, field):
    tallero("game", "new", "Ann=pump", "Ben=plow")
    tallero("round", "--dutch", "Ann=5,Ben=3", "--blitz", "Ann=0,Ben=2")
    if field == "--name":
        r = tallero("game", "new", "Ann=pump", "Ben=plow", "--name", "G\x1b[2J")
    else:
        r = tallero("undo", "--reason", "oops\x1b[2J")
    assert "control characters" in one_error_line(r)
    assert len(tallero("sheet", "--json").json()["rounds"]) == 1
    assert len(tallero("games", "--json").json()["games"]) == 1


# --- the parsers themselves, under hypothesis ------------------------------------------

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)


@given(TEXT)
@settings(max_examples=examples(400), deadline=None)
def test_whole_number_accepts_exactly_one_signed_ascii_integer(text):
    stripped = text.strip()
    body = stripped[1:] if stripped[:1] in "+-" else stripped
    valid = body.isascii() and body.isdigit() and 0 < len(stripped) <= 30
    try:
        value = whole_number(text, "n", -INT64_MAX)
    except UsageError as exc:
        assert not valid or abs(int(stripped)) > INT64_MAX, (text, exc)
        return
    assert valid and value == int(stripped)


@given(
    st.sampled_from(["", "+", "-", "+-", "--", "++", "-+", " ", "+ "]),
    st.integers(min_value=0, max_value=10**40),
)
@settings(max_examples=examples(300), deadline=None)
def test_whole_number_signs_and_range(prefix, n):
    text = f"{prefix}{n}"
    expected = -n if prefix.strip() == "-" else n
    valid = prefix.strip() in ("", "+", "-") and " " not in prefix.strip() + text.strip()[1:]
    valid = valid and len(text.strip()) <= 30 and 1 <= expected <= INT64_MAX
    try:
        value = whole_number(text, "--game", 1)
    except UsageError as exc:
        assert not valid and str(exc).startswith("--game "), (text, exc)
        return
    assert valid and value == expected


@given(st.lists(TEXT, max_size=4))
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_parse_counts_gives_counts_or_a_tallero_error(items):
    try:
        counts = parse_counts(items, "Dutch")
    except TalleroError:
        return
    for name, value in counts.items():
        assert name == unicodedata.normalize("NFC", name) and name == name.strip()
        assert clean_text(name, "name") == name
        assert abs(value) < 10**30
    assert len({name_key(n) for n in counts}) == len(counts)


@given(st.lists(TEXT, max_size=4))
@settings(max_examples=examples(300), deadline=None)
def test_split_pairs_never_lets_a_control_character_through(items):
    try:
        pairs = split_pairs(items, "players")
    except TalleroError:
        return
    for name, _ in pairs:
        assert not any(unicodedata.category(c).startswith("C") for c in name)


@given(TEXT)
@settings(max_examples=examples(300), deadline=None)
def test_typed_pile_tops_are_tops_or_one_error(text):
    """``--piles`` and the page's typed tops: commas or spaces between, each 1..10 or down."""
    try:
        tops = split_tops(text)
    except TalleroError as exc:
        assert "\n" not in str(exc)
        return
    for top in tops:
        assert top.lower() in ("down", "d", "x") or 1 <= int(top) <= 10, top


def test_typed_pile_tops_take_commas_or_spaces():
    assert split_tops(" 10, down 7,,") == ["10", "down", "7"]
    assert split_tops("") == []
    for bad in ("10, 11", "\u00b2", "\u0663", "\uff11"):  # ², Arabic-Indic 3, fullwidth 1
        with pytest.raises(TalleroError, match="neither 1..10 nor 'down'"):
            split_tops(bad)


@given(
    st.lists(
        st.sampled_from(
            [
                "round",
                "--dutch",
                "--blitz",
                "--game",
                "--force",
                "--json",
                "sheet",
                "history",
                "amend",
                "undo",
                "--reason",
                "--target",
                "Ann=3,Ben=1",
                "Ann=0,Ben=2",
                "1",
                "-1",
                "+-2",
                "9" * 30,
                "[/]",
                "x",
                "Ann=",
                "=3",
                ",",
                "Ann=1,Ann=2",
            ]
        ),
        max_size=7,
    )
)
@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
def test_any_command_line_ends_in_a_result_or_one_error_line(tallero, home, args):
    """Random command lines over a game with a round: exit 0, or one error line (2 for
    a malformed command line, 1 otherwise), and no traceback (one would fail the test)."""
    if not (home / LEDGER_FILE).exists():
        tallero("game", "new", "Ann=pump", "Ben=plow")
        tallero("round", "--dutch", "Ann=3,Ben=1", "--blitz", "Ann=0,Ben=2")
    r = tallero(*args)
    if r.code == 2 and not r.err and "Usage:" in r.out:
        return  # a command with nothing to act on shows its help
    if r.code != 0:
        lines = r.err.strip().splitlines()
        assert r.code in (1, 2) and lines, (args, r.code, r.err)
        assert len(lines) == 1 and lines[0].startswith("tallero: error: "), (args, r.err)


def test_a_photo_round_committed_again_is_refused_before_its_photos_are_kept(tallero, home):
    samples = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"
    seats = ("Ann=pump", "Ben=carriage", "Cy=plow", "Dee=pail")
    assert tallero("game", "new", *seats).code == 0
    args = (
        "score",
        "--dutch",
        str(samples / "images" / "000000.jpg"),
        "--blitz",
        str(samples / "images" / "000001.jpg"),
        "--commit",
        "--accept",
        "--reason",
        "checked",
        "--force",
        "--json",
    )
    first = tallero(*args)
    assert first.code == 0 and first.json()["round"] == 1, first.err
    kept = sorted((home / "evidence").iterdir())
    line = one_error_line(tallero(*args))
    assert "round 1 has exactly these counts" in line
    assert sorted((home / "evidence").iterdir()) == kept
    assert len(tallero("sheet", "--json").json()["rounds"]) == 1
