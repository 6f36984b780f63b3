"""The score ledger: an append-only SQLite record of games, rounds and their revisions.

Rounds are never edited in place. Amending a round or undoing the last one writes a new
revision with its reason; every earlier revision stays readable. Each user action is one
transaction, so a crash leaves every round either entirely present or entirely absent.
Photos and detections that back a round are kept in ``evidence`` for later audits.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from scoring.decks import deck_by_name
from scoring.errors import LedgerError, NeedsForce
from scoring.game import GameSetup, Seat, TiePolicy
from scoring.home import tallero_home
from scoring.names import clean_text
from scoring.records import Evidence, Game, Revision, RoundRecord
from scoring.rules import RoundCounts, build_round, round_warnings
from scoring.schema import (
    LEDGER_FILE,
    SCHEMA_VERSION,
    OlderSchema,
    check_schema,
    connect,
    explain,
    migrate,
)

__all__ = [
    "LEDGER_FILE",
    "REPEAT_WINDOW_S",
    "SCHEMA_VERSION",
    "Prepare",
    "Evidence",
    "Game",
    "Ledger",
    "Revision",
    "RoundRecord",
    "confirm_round",
]

BUSY_TIMEOUT_MS = 30_000


# A command's rendering of its output, given the game after the write and the round's
# number; run inside the write's transaction (an error there writes nothing).
Prepare = Callable[[Game, int], None]
# A round equal to the last one and written less than this long ago is taken for the same
# command run again (a retry after an error or a double Enter) and needs --force.
REPEAT_WINDOW_S = 600.0


def confirm_round(counts: RoundCounts, force: bool, extra: Sequence[str] = ()) -> list[str]:
    """The round's warnings (and ``extra`` ones); without ``force`` any stops the write."""
    warnings = round_warnings(counts) + list(extra)
    if warnings and not force:
        raise NeedsForce(
            "nothing written: " + "; ".join(warnings) + ". Check the counts, or pass --force"
        )
    return warnings


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Ledger:
    """The SQLite ledger in ``home``. Open with ``Ledger.open()`` or as a context manager.

    ``readonly``: open with SQLite's ``mode=ro``, so the reading commands work on a ledger
    the user may not write (a missing ledger reads as an empty one, and nothing is
    created). Every ``sqlite3.Error`` leaving a ``with Ledger.open() as ledger:`` block
    becomes one `LedgerError` saying what is wrong and what to do (`scoring.schema.explain`).
    """

    def __init__(self, path: Path, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        try:
            self._db = connect(path, readonly, BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise explain(exc, path) from None
        self._db.row_factory = sqlite3.Row
        try:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db = migrate(self._db, path, readonly)
            self._db.row_factory = sqlite3.Row
            check_schema(self._db, path)
            if not readonly:  # only once the file is known to be a ledger: this writes
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as exc:
            self._db.close()
            raise explain(exc, path) from None
        except LedgerError:
            self._db.close()
            raise

    @classmethod
    def open(cls, home: Path | None = None, readonly: bool = False) -> Ledger:
        """The ledger of ``home`` (default: `tallero_home`); see the class for ``readonly``.

        A ledger of an older schema is opened for writing once, to upgrade it, when it can be.
        """
        path = (home or tallero_home()) / LEDGER_FILE
        try:
            return cls(path, readonly)
        except OlderSchema:
            if not os.access(path, os.W_OK):
                raise
            return cls(path, False)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        self.close()
        if isinstance(exc, sqlite3.Error):
            raise explain(exc, self.path) from exc

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; IMMEDIATE takes the write lock up front so two
        processes adding rounds queue up instead of failing."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        else:
            self._db.execute("COMMIT")

    # --- games ---------------------------------------------------------------------

    def new_game(self, setup: GameSetup, name: str | None = None) -> Game:
        """Record a new game and make it the current one."""
        created = _now()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (name, target, tie, created_at) VALUES (?, ?, ?, ?)",
                ("", setup.target, setup.tie.value, created),
            )
            game_id = int(cur.lastrowid or 0)
            game_name = clean_text(name, "game name").strip() if name else ""
            game_name = game_name or f"Game {game_id}"
            db.execute("UPDATE games SET name = ? WHERE id = ?", (game_name, game_id))
            for seat_no, seat in enumerate(setup.seats):
                db.execute(
                    "INSERT INTO players (game_id, seat, name, deck) VALUES (?, ?, ?, ?)",
                    (game_id, seat_no, seat.player, seat.deck.id),
                )
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('current_game', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (str(game_id),),
            )
        return self.game(game_id)

    def current_game_id(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'current_game'").fetchone()
        if row is None:
            raise LedgerError(
                "no game yet: start one with `tallero game new Ann=pump Ben=carriage`"
            )
        return int(row[0])

    def game_ids(self) -> list[int]:
        return [int(r[0]) for r in self._db.execute("SELECT id FROM games ORDER BY id")]

    def game(self, game_id: int | None = None) -> Game:
        """The game ``game_id`` (default: the current game) with all its rounds."""
        if game_id is None:
            game_id = self.current_game_id()
        row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise LedgerError(f"no game {game_id}; `tallero games` lists them")
        seats = tuple(
            Seat(p["name"], deck_by_name(p["deck"], enrolled=(p["deck"],)))
            for p in self._db.execute(
                "SELECT name, deck FROM players WHERE game_id = ? ORDER BY seat", (game_id,)
            )
        )
        setup = GameSetup(seats, target=row["target"], tie=TiePolicy(row["tie"]))
        rounds = tuple(
            RoundRecord(r["number"], r["revision"], self._counts(r["rev_id"], setup, r["kind"]))
            for r in self._db.execute(
                """SELECT rounds.number, rev.revision, rev.id AS rev_id, rev.kind
                   FROM rounds JOIN revisions rev ON rev.round_id = rounds.id
                   WHERE rounds.game_id = ? AND rev.revision = (
                       SELECT MAX(revision) FROM revisions WHERE round_id = rounds.id)
                   ORDER BY rounds.number""",
                (game_id,),
            )
        )
        return Game(game_id, row["name"], row["created_at"], setup, rounds)

    def _counts(self, revision_id: int, setup: GameSetup, kind: str) -> RoundCounts | None:
        if kind == "undo":
            return None
        rows = self._db.execute(
            """SELECT p.name, c.dutch, c.blitz FROM revision_counts c
               JOIN players p ON p.id = c.player_id WHERE c.revision_id = ?""",
            (revision_id,),
        ).fetchall()
        return build_round(
            setup.players,
            {r["name"]: r["dutch"] for r in rows},
            {r["name"]: r["blitz"] for r in rows},
        )

    # --- rounds --------------------------------------------------------------------

    def require_open(self, game_id: int) -> Game:
        """The game, which must not be over yet (``LedgerError`` if it is)."""
        game = self.game(game_id)
        status = game.standing()
        if status.over:
            raise LedgerError(
                f"game {game_id} is over ({' and '.join(status.winners)} won); "
                "start a new one with `tallero game new`"
            )
        return game

    def add_round(
        self,
        game_id: int,
        counts: RoundCounts,
        *,
        force: bool = False,
        evidence: Sequence[Evidence] = (),
        extra_warnings: Sequence[str] = (),
        reason: str | None = None,
        repeat_window_s: float | None = None,
        prepare: Prepare | None = None,
    ) -> int:
        """Append a round to a game that is not over; returns the round's number.

        Counts that are possible only by mistake, and any ``extra_warnings`` (such as a
        failed Dutch-pile cross-check), raise ``NeedsForce`` unless ``force``. With
        ``repeat_window_s``, counts equal to the game's last round written less than that
        many seconds ago raise ``NeedsForce`` too, even with ``force``: the same command
        line run again after it landed (a caller passes None to write them anyway).
        ``prepare(game_after, number)`` runs inside the transaction, before the commit: a
        command renders its output there, so nothing that can fail runs after the commit.
        """
        warnings = confirm_round(counts, force, extra_warnings)
        with self._transaction() as db:
            game = self.require_open(game_id)  # read inside the lock: the state we write against
            if repeat_window_s is not None:
                self._refuse_repeat(game, counts, repeat_window_s)
            number = 1 + max((r.number for r in game.rounds), default=0)
            cur = db.execute(
                "INSERT INTO rounds (game_id, number, created_at) VALUES (?, ?, ?)",
                (game_id, number, _now()),
            )
            self._write_revision(
                db, int(cur.lastrowid or 0), 1, "new", reason, counts, warnings, force, evidence
            )
            if prepare is not None:
                prepare(self.game(game_id), number)
        return number

    def check_repeat(self, game_id: int, counts: RoundCounts, window_s: float) -> None:
        """``NeedsForce`` when the game's last round has these counts and is under
        ``window_s`` seconds old (checked again inside `add_round`'s transaction)."""
        self._refuse_repeat(self.game(game_id), counts, window_s)

    def _refuse_repeat(self, game: Game, counts: RoundCounts, window_s: float) -> None:
        """``NeedsForce`` when the last round has these counts and is under ``window_s`` old."""
        if not game.rounds or game.rounds[-1].counts != counts:
            return
        last = game.rounds[-1]
        row = self._db.execute(
            """SELECT rev.created_at FROM revisions rev JOIN rounds ON rounds.id = rev.round_id
               WHERE rounds.game_id = ? AND rounds.number = ? AND rev.revision = ?""",
            (game.id, last.number, last.revision),
        ).fetchone()
        age_s = (datetime.now(UTC) - datetime.fromisoformat(row[0])).total_seconds()
        if age_s < window_s:
            raise NeedsForce(
                f"nothing written: round {last.number} has exactly these counts and was "
                f"written {max(age_s, 0):.0f} s ago, so this looks like the same round again "
                "(see `tallero sheet`). If it really is a new round, pass --again"
            )

    def amend_round(
        self,
        game_id: int,
        number: int,
        changes_dutch: Mapping[str, int],
        changes_blitz: Mapping[str, int],
        reason: str,
        *,
        force: bool = False,
        prepare: Prepare | None = None,
    ) -> tuple[int, RoundCounts]:
        """Write a new revision of round ``number`` with some counts changed.

        Players not named keep their counts. Returns (revision number, new counts).
        ``prepare`` runs before the commit, as in `add_round`.
        """
        self._require_reason(reason)
        with self._transaction() as db:
            game = self.game(game_id)
            record = self._live_round(game, number)
            assert record.counts is not None
            dutch = {p: record.counts[p].dutch for p in game.setup.players}
            blitz = {p: record.counts[p].blitz for p in game.setup.players}
            dutch.update(changes_dutch)
            blitz.update(changes_blitz)
            counts = build_round(game.setup.players, dutch, blitz)
            if counts == record.counts:
                raise LedgerError(f"the amendment changes nothing in round {number}")
            warnings = confirm_round(counts, force)
            revision = record.revision + 1
            self._write_revision(
                db,
                self._round_id(game_id, number),
                revision,
                "amend",
                reason,
                counts,
                warnings,
                force,
                (),
            )
            if prepare is not None:
                prepare(self.game(game_id), number)
        return revision, counts

    def undo_last_round(self, game_id: int, reason: str, prepare: Prepare | None = None) -> int:
        """Undo the last live round (as a revision); returns its number.

        ``prepare`` runs before the commit, as in `add_round`."""
        self._require_reason(reason)
        with self._transaction() as db:
            game = self.game(game_id)
            if not game.live_rounds:
                raise LedgerError(f"game {game_id} has no round to undo")
            record = game.live_rounds[-1]
            self._write_revision(
                db,
                self._round_id(game_id, record.number),
                record.revision + 1,
                "undo",
                reason,
                None,
                (),
                False,
                (),
            )
            if prepare is not None:
                prepare(self.game(game_id), record.number)
        return record.number

    def history(self, game_id: int, number: int) -> list[Revision]:
        """Every revision of a round, oldest first, with its evidence."""
        game = self.game(game_id)
        round_id = self._round_id(game_id, number)
        revisions = []
        for row in self._db.execute(
            "SELECT * FROM revisions WHERE round_id = ? ORDER BY revision", (round_id,)
        ):
            evidence = tuple(
                Evidence(
                    e["role"], e["path"], e["sha256"], json.loads(e["detections"]), e["model_id"]
                )
                for e in self._db.execute(
                    "SELECT * FROM evidence WHERE revision_id = ? ORDER BY id", (row["id"],)
                )
            )
            revisions.append(
                Revision(
                    number=row["revision"],
                    created_at=row["created_at"],
                    kind=row["kind"],
                    reason=row["reason"],
                    forced=bool(row["forced"]),
                    warnings=tuple(json.loads(row["warnings"])),
                    counts=self._counts(row["id"], game.setup, row["kind"]),
                    evidence=evidence,
                )
            )
        return revisions

    def integrity(self) -> str:
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    # --- helpers -------------------------------------------------------------------

    @staticmethod
    def _require_reason(reason: str) -> None:
        if not reason or not reason.strip():
            raise LedgerError('a reason is required (--reason "...")')

    def _round_id(self, game_id: int, number: int) -> int:
        row = self._db.execute(
            "SELECT id FROM rounds WHERE game_id = ? AND number = ?", (game_id, number)
        ).fetchone()
        if row is None:
            raise LedgerError(f"game {game_id} has no round {number}")
        return int(row[0])

    @staticmethod
    def _live_round(game: Game, number: int) -> RoundRecord:
        for record in game.rounds:
            if record.number == number:
                if record.undone:
                    raise LedgerError(f"round {number} was undone; it cannot be amended")
                return record
        raise LedgerError(f"game {game.id} has no round {number}")

    def _write_revision(
        self,
        db: sqlite3.Connection,
        round_id: int,
        revision: int,
        kind: str,
        reason: str | None,
        counts: RoundCounts | None,
        warnings: Sequence[str],
        forced: bool,
        evidence: Sequence[Evidence],
    ) -> None:
        reason = clean_text(reason, "reason") if reason else reason
        cur = db.execute(
            """INSERT INTO revisions (round_id, revision, created_at, kind, reason, forced,
               warnings) VALUES (?, ?, ?, ?, ?, ?, ?)""",
            (round_id, revision, _now(), kind, reason, int(forced), json.dumps(list(warnings))),
        )
        revision_id = int(cur.lastrowid or 0)
        if counts is not None:
            game_id = db.execute("SELECT game_id FROM rounds WHERE id = ?", (round_id,)).fetchone()[
                0
            ]
            ids = {
                r["name"]: r["id"]
                for r in db.execute("SELECT id, name FROM players WHERE game_id = ?", (game_id,))
            }
            db.executemany(
                "INSERT INTO revision_counts (revision_id, player_id, dutch, blitz) "
                "VALUES (?, ?, ?, ?)",
                [(revision_id, ids[p], c.dutch, c.blitz) for p, c in counts.counts],
            )
        for item in evidence:
            db.execute(
                """INSERT INTO evidence (revision_id, role, path, sha256, detections, model_id,
                   created_at) VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (
                    revision_id,
                    item.role,
                    item.path,
                    item.sha256,
                    json.dumps(item.detections),
                    item.model_id,
                    _now(),
                ),
            )
