"""The SQLite ledger: revisions, undo, evidence, schema versions, crashes and concurrency."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scoring.decks import deck_by_name
from scoring.errors import LedgerError, NeedsForce
from scoring.game import GameSetup, Seat
from scoring.ledger import LEDGER_FILE, SCHEMA_VERSION, Evidence, Ledger
from scoring.rules import build_round

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ("Ann", "Ben", "Cy")


def setup(target: int = 75) -> GameSetup:
    return GameSetup(
        tuple(
            Seat(p, deck_by_name(d))
            for p, d in zip(PLAYERS, ("pump", "carriage", "plow"), strict=True)
        ),
        target=target,
    )


def rnd(ann: tuple[int, int], ben: tuple[int, int], cy: tuple[int, int]):
    cs = dict(zip(PLAYERS, (ann, ben, cy), strict=True))
    return build_round(PLAYERS, {p: c[0] for p, c in cs.items()}, {p: c[1] for p, c in cs.items()})


def test_rounds_amend_undo_and_history(tmp_path):
    with Ledger.open(tmp_path) as ledger:
        gid = ledger.new_game(setup()).id
        assert ledger.add_round(gid, rnd((12, 0), (9, 3), (15, 5))) == 1
        assert ledger.add_round(gid, rnd((5, 2), (20, 0), (10, 1))) == 2
        assert ledger.game(gid).standing().totals == {"Ann": 13, "Ben": 23, "Cy": 13}
        revision, _ = ledger.amend_round(gid, 1, {}, {"Ben": 2}, "Ben miscounted his Blitz pile")
        assert revision == 2
        assert ledger.game(gid).standing().totals == {"Ann": 13, "Ben": 25, "Cy": 13}
        assert ledger.undo_last_round(gid, "round scored twice") == 2
        game = ledger.game(gid)
        assert [r.number for r in game.live_rounds] == [1]
        assert game.standing().totals == {"Ann": 12, "Ben": 5, "Cy": 5}
        # Round numbers stay stable after an undo.
        assert ledger.add_round(gid, rnd((1, 0), (1, 1), (1, 1))) == 3
        hist = ledger.history(gid, 1)
        assert [(h.number, h.kind, h.reason) for h in hist] == [
            (1, "new", None),
            (2, "amend", "Ben miscounted his Blitz pile"),
        ]
        assert hist[0].counts["Ben"].blitz == 3 and hist[1].counts["Ben"].blitz == 2
        undone = ledger.history(gid, 2)
        assert undone[-1].kind == "undo" and undone[-1].counts is None
        assert undone[0].counts is not None  # what was undone stays readable
        with pytest.raises(LedgerError, match="was undone"):
            ledger.amend_round(gid, 2, {"Ann": 1}, {}, "too late")
        with pytest.raises(LedgerError, match="reason is required"):
            ledger.undo_last_round(gid, "  ")
        with pytest.raises(LedgerError, match="changes nothing"):
            ledger.amend_round(gid, 1, {"Ann": 12}, {}, "same")


def test_warnings_need_force_and_nothing_is_written_without_it(tmp_path):
    with Ledger.open(tmp_path) as ledger:
        gid = ledger.new_game(setup()).id
        with pytest.raises(NeedsForce, match="nobody has 0 Blitz"):
            ledger.add_round(gid, rnd((3, 1), (2, 2), (1, 1)))
        assert ledger.game(gid).rounds == ()
        ledger.add_round(gid, rnd((3, 1), (2, 2), (1, 1)), force=True)
        hist = ledger.history(gid, 1)
        assert hist[0].forced and "nobody has 0 Blitz" in hist[0].warnings[0]


def test_finished_game_takes_no_more_rounds(tmp_path):
    with Ledger.open(tmp_path) as ledger:
        gid = ledger.new_game(setup(target=20)).id
        ledger.add_round(gid, rnd((25, 0), (9, 3), (15, 5)))
        status = ledger.game(gid).standing()
        assert status.over and status.winners == ("Ann",)
        with pytest.raises(LedgerError, match="is over"):
            ledger.add_round(gid, rnd((1, 0), (1, 1), (1, 1)))


def test_evidence_is_kept_with_the_revision(tmp_path):
    ev = Evidence("dutch", "/photos/r1.jpg", "ab" * 32, {"cards": [{"id": 0}]}, "cards-v1")
    with Ledger.open(tmp_path) as ledger:
        gid = ledger.new_game(setup()).id
        ledger.add_round(gid, rnd((12, 0), (9, 3), (15, 5)), evidence=[ev])
        assert ledger.history(gid, 1)[0].evidence == (ev,)


def test_schema_version_and_wal(tmp_path):
    Ledger.open(tmp_path).close()
    db = sqlite3.connect(tmp_path / LEDGER_FILE)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"games", "players", "rounds", "revisions", "revision_counts", "evidence"} <= tables
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(LedgerError, match="newer than this Tallero understands"):
        Ledger.open(tmp_path)


def test_a_file_that_is_not_a_ledger_is_a_clear_error(tmp_path):
    (tmp_path / LEDGER_FILE).write_bytes(b"this is not a database" * 100)
    with pytest.raises(LedgerError, match="unreadable"):
        Ledger.open(tmp_path)


WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from scoring.ledger import Evidence, Ledger
    from scoring.rules import build_round
    players = ("Ann", "Ben", "Cy")
    home, game_id, n, tag = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with Ledger.open(home) as ledger:
        for i in range(n):
            counts = build_round(players, {{"Ann": i % 40, "Ben": 1, "Cy": 2}},
                                 {{"Ann": 0, "Ben": 1, "Cy": 2}})
            evidence = [Evidence(role, f"{{tag}}-{{i}}-{{role}}.jpg", "0" * 64,
                                 {{"cards": []}}, "m")
                        for role in ("dutch", "blitz")]
            ledger.add_round(game_id, counts, evidence=evidence)
            print(i, flush=True)
    """
)


def start_writer(home: Path, game_id: int, n: int, tag: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER.format(root=str(ROOT)), str(home), str(game_id), str(n), tag],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_rounds_whole(home: Path, game_id: int) -> int:
    db = sqlite3.connect(home / LEDGER_FILE)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rounds = db.execute("SELECT id FROM rounds WHERE game_id = ?", (game_id,)).fetchall()
    for (round_id,) in rounds:
        revs = db.execute("SELECT id FROM revisions WHERE round_id = ?", (round_id,)).fetchall()
        assert len(revs) == 1
        n_counts = db.execute(
            "SELECT COUNT(*) FROM revision_counts WHERE revision_id = ?", revs[0]
        ).fetchone()[0]
        n_evidence = db.execute(
            "SELECT COUNT(*) FROM evidence WHERE revision_id = ?", revs[0]
        ).fetchone()[0]
        assert (n_counts, n_evidence) == (3, 2)
    # No orphans from a half-written round.
    assert (
        db.execute(
            "SELECT COUNT(*) FROM revisions WHERE round_id NOT IN (SELECT id FROM rounds)"
        ).fetchone()[0]
        == 0
    )
    db.close()
    return len(rounds)


@pytest.mark.parametrize("delay_s", [0.15, 0.4, 0.8])
def test_sigkill_while_committing_leaves_whole_rounds(tmp_path, delay_s):
    with Ledger.open(tmp_path) as ledger:
        gid = ledger.new_game(setup(target=100_000)).id
    writer = start_writer(tmp_path, gid, 100_000, "k")
    # Wait until it is committing rounds, then kill it mid-stream.
    assert writer.stdout is not None
    writer.stdout.readline()
    time.sleep(delay_s)
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    written = assert_rounds_whole(tmp_path, gid)
    assert written >= 1
    with Ledger.open(tmp_path) as ledger:  # and the ledger keeps working afterwards
        assert len(ledger.game(gid).rounds) == written
        assert ledger.add_round(gid, rnd((1, 0), (1, 1), (1, 1))) == written + 1


def test_two_processes_committing_to_one_game_both_land(tmp_path):
    with Ledger.open(tmp_path) as ledger:
        gid = ledger.new_game(setup(target=100_000)).id
    n = 25
    writers = [start_writer(tmp_path, gid, n, tag) for tag in ("a", "b")]
    for w in writers:
        _, err = w.communicate(timeout=120)
        assert w.returncode == 0, err
    assert assert_rounds_whole(tmp_path, gid) == 2 * n
    with Ledger.open(tmp_path) as ledger:
        assert [r.number for r in ledger.game(gid).rounds] == list(range(1, 2 * n + 1))
