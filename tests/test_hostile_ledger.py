"""Broken ledgers and homes: each gives one line saying what is wrong and what to do.

Reading commands work on a ledger the user may not write; `doctor` names the damage and
`backup` copies a healthy ledger (SQLite's online backup API), never a damaged one.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from scoring.schema import LEDGER_FILE

ROOT = Path(__file__).resolve().parents[1]
ROUND = ("round", "--dutch", "Ann=5,Ben=3", "--blitz", "Ann=0,Ben=2")


def one_error_line(r, code: int = 1) -> str:
    assert r.code == code, (r.code, r.out, r.err)
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tallero: error: "), r.err
    return lines[0]


@pytest.fixture
def scored(tallero, home) -> Path:
    """A home with one game of one round; returns the ledger file."""
    assert tallero("game", "new", "Ann=pump", "Ben=plow").code == 0
    assert tallero(*ROUND).code == 0
    return home / LEDGER_FILE


def _garbage_page(ledger: Path) -> None:
    data = bytearray(ledger.read_bytes())
    for offset in range(2 * 4096, 2 * 4096 + 4000, 7):
        data[offset] = 0x5A
    ledger.write_bytes(bytes(data))


def _sql(statement: str) -> Callable[[Path], None]:
    def damage(ledger: Path) -> None:
        db = sqlite3.connect(ledger)
        db.executescript(statement)
        db.close()

    return damage


def _foreign(ledger: Path) -> None:
    ledger.unlink()
    _sql("CREATE TABLE notes (x); PRAGMA user_version = 1;")(ledger)


BROKEN = [
    # (name, damage, commands that must refuse, message part)
    ("garbage page", _garbage_page, ["sheet", "games", "round"], "is damaged and unreadable"),
    (
        "not sqlite",
        lambda p: p.write_bytes(b"not a database" * 500),
        ["sheet", "round"],
        "unreadable",
    ),
    ("foreign file", _foreign, ["sheet", "games", "history", "round"], "is not a Tallero ledger"),
    (
        "column dropped",
        _sql("ALTER TABLE revisions DROP COLUMN reason;"),
        ["history", "sheet", "round", "undo"],
        "table revisions lacks column(s) reason",
    ),
    (
        "table dropped",
        _sql("DROP TABLE evidence;"),
        ["history", "games", "round"],
        "table evidence is missing",
    ),
]
ARGS = {
    "sheet": ["sheet"],
    "games": ["games"],
    "history": ["history", "1"],
    "round": ["round", "--dutch", "Ann=6,Ben=3", "--blitz", "Ann=0,Ben=2"],
    "undo": ["undo", "--reason", "x"],
}


@pytest.mark.parametrize(
    ("case", "damage", "commands", "message"), BROKEN, ids=[b[0] for b in BROKEN]
)
def test_a_broken_ledger_is_one_clear_line(tallero, scored, case, damage, commands, message):
    damage(scored)
    before = scored.read_bytes()
    for command in commands:
        line = one_error_line(tallero(*ARGS[command]))
        assert message in line, (command, line)
        assert str(scored) in line
        assert "backup" in line or "Move it away" in line
    assert scored.read_bytes() == before  # nothing written, nothing migrated
    doctor = tallero("doctor")
    assert doctor.code == 1
    assert "needs care" in doctor.out or "is not a Tallero ledger" in doctor.out


def test_another_programs_file_without_a_version_is_not_migrated(tallero, home):
    home.mkdir(parents=True)
    _sql("CREATE TABLE games (x); INSERT INTO games VALUES (1);")(home / LEDGER_FILE)
    before = (home / LEDGER_FILE).read_bytes()
    line = one_error_line(tallero("game", "new", "Ann=pump", "Ben=plow"))
    assert "is not a Tallero ledger" in line or "is damaged" in line
    assert (home / LEDGER_FILE).read_bytes() == before


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda tmp: (tmp / "f").write_text("x") and tmp / "f", "is a file, not a folder"),
        (lambda tmp: (tmp / "f").write_text("x") and tmp / "f" / "home", "lies below"),
        (lambda tmp: Path("/proc/tallero-home"), "cannot create TALLERO_HOME /proc/tallero-home"),
    ],
    ids=["a file", "below a file", "in /proc"],
)
def test_a_home_that_cannot_be_a_folder_is_one_clear_line(
    tallero, tmp_path, monkeypatch, make, message
):
    where = make(tmp_path)
    monkeypatch.setenv("TALLERO_HOME", str(where))
    for args in (["game", "new", "Ann=pump", "Ben=plow"], list(ROUND), ["undo", "--reason", "x"]):
        line = one_error_line(tallero(*args))
        assert message in line and "set TALLERO_HOME to a folder you can write" in line
    if "proc" not in str(where):
        for args in (["sheet"], ["games"], ["history", "1"]):
            assert message in one_error_line(tallero(*args))


# --- permissions: a real process, held to file permissions even as root ----------------


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run tallero in its own process as a user bound by file permissions (root runs it
    without the capabilities that override them)."""
    command = [sys.executable, str(ROOT / "cli.py"), *args]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "root needs setpriv (util-linux) to be held to file permissions"
        command = [setpriv, "--bounding-set=-dac_override,-dac_read_search", *command]
    env = {**os.environ, "TALLERO_HOME": str(home)}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def cli_error(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tallero: error: "), r.stderr
    return lines[0]


@pytest.fixture
def open_tmp(tmp_path: Path) -> Path:
    """A folder any user may enter (pytest's own is private to its owner)."""
    tmp_path.chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("folder_writable", [True, False], ids=["file read-only", "folder too"])
def test_a_read_only_ledger_is_read_and_refuses_writes_clearly(tallero, scored, folder_writable):
    home = scored.parent
    home.parent.chmod(0o755)
    scored.chmod(0o444)
    if not folder_writable:
        home.chmod(0o555)
    try:
        for args in (ROUND[:2] + ("Ann=6,Ben=3",) + ROUND[3:], ("undo", "--reason", "x")):
            line = cli_error(cli(home, *args))
            assert "is read-only" in line or "is not writable" in line
        sheet = cli(home, "sheet", "--csv")
        assert sheet.returncode == 0 and sheet.stdout.splitlines()[1] == "Ann,pump,5,5"
        games = cli(home, "games", "--json")
        assert games.returncode == 0 and '"rounds": 1' in games.stdout
        history = cli(home, "history", "1")
        assert history.returncode == 0 and "Dutch  5" in history.stdout
        assert cli(home, "doctor").returncode == 0
    finally:
        home.chmod(0o755)
        scored.chmod(0o644)
    # Made writable again, it takes rounds (the reads left no read-only -shm file behind).
    r = cli(home, "round", "--dutch", "Ann=7,Ben=3", "--blitz", "Ann=0,Ben=2")
    assert r.returncode == 0, r.stderr


def test_a_home_in_a_folder_one_cannot_write_is_one_clear_line(open_tmp):
    locked = open_tmp / "locked"
    locked.mkdir(mode=0o555)
    try:
        line = cli_error(cli(locked / "home", "game", "new", "Ann=pump", "Ben=plow"))
        assert "permission denied" in line and "set TALLERO_HOME" in line
        games = cli(locked / "home", "games")
        assert games.returncode == 0 and "No games yet" in games.stdout
    finally:
        locked.chmod(0o755)
    assert not (locked / "home").exists()


# --- doctor and backup -----------------------------------------------------------------


def test_doctor_says_healthy_and_lists_orphan_evidence(tallero, scored):
    r = tallero("doctor", "--json")
    assert r.code == 0 and r.json()["healthy"] and r.json()["integrity"] == ["ok"]
    orphan = scored.parent / "evidence" / ("0" * 64 + ".jpg")
    orphan.parent.mkdir()
    orphan.write_bytes(b"x")
    r = tallero("doctor", "--json")
    assert r.code == 0 and r.json()["orphan_evidence"] == [str(orphan)]
    assert "orphan evidence (no round uses it; safe to delete)" in tallero("doctor").out


def test_doctor_on_a_damaged_ledger_exits_1_and_says_how_to_recover(tallero, scored):
    _garbage_page(scored)
    r = tallero("doctor", "--json")
    assert r.code == 1 and not r.json()["healthy"]
    assert r.json()["integrity"] != ["ok"]
    text = tallero("doctor").out
    assert "restore a backup" in text and ".recover" in text


def test_backup_copies_a_ledger_that_works_and_never_overwrites(
    tallero, scored, tmp_path, monkeypatch
):
    out = tmp_path / "copies" / "monday.sqlite3"
    r = tallero("backup", str(out), "--json")
    assert r.code == 0 and r.json() == {"backup": str(out)}
    line = one_error_line(tallero("backup", str(out)))
    assert "exists; give a new file name" in line
    r = tallero("backup", str(out.parent), "--json")  # a folder: a dated name inside
    assert r.code == 0 and Path(r.json()["backup"]).parent == out.parent
    monkeypatch.setenv("TALLERO_HOME", str(tmp_path / "restored"))
    (tmp_path / "restored").mkdir()
    shutil.copy(out, tmp_path / "restored" / LEDGER_FILE)
    sheet = tallero("sheet", "--json").json()
    assert sheet["totals"] == {"Ann": 5, "Ben": -1}


def test_backup_refuses_a_damaged_ledger_and_leaves_no_copy(tallero, scored, tmp_path):
    _garbage_page(scored)
    out = tmp_path / "copy.sqlite3"
    line = one_error_line(tallero("backup", str(out)))
    assert "tallero doctor" in line
    assert not out.exists() and not out.with_name("copy.sqlite3.part").exists()
