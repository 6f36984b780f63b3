"""The score ledger: an append-only SQLite record of games, rounds and their revisions.

Rounds are never edited in place. Amending a round or undoing the last one writes a new
revision with its reason; every earlier revision stays readable. Each user action is one
transaction, so a crash leaves every round either entirely present or entirely absent.
Photos and detections that back a round are kept in ``evidence`` for later audits.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scoring.decks import deck_by_name
from scoring.errors import LedgerError, NeedsForce
from scoring.game import GameSetup, Seat, Standing, TiePolicy, standing
from scoring.home import tallero_home
from scoring.rules import RoundCounts, build_round, round_warnings

LEDGER_FILE = "ledger.sqlite3"
BUSY_TIMEOUT_MS = 30_000

# Each entry moves the schema from version i to i + 1. Never edit a released entry:
# append a new one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        target INTEGER NOT NULL CHECK (target > 0),
        tie TEXT NOT NULL CHECK (tie IN ('play-on', 'share')),
        created_at TEXT NOT NULL
    );
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        deck TEXT NOT NULL,
        UNIQUE (game_id, seat),
        UNIQUE (game_id, name),
        UNIQUE (game_id, deck)
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        number INTEGER NOT NULL CHECK (number > 0),
        created_at TEXT NOT NULL,
        UNIQUE (game_id, number)
    );
    CREATE TABLE revisions (
        id INTEGER PRIMARY KEY,
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        revision INTEGER NOT NULL CHECK (revision > 0),
        created_at TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('new', 'amend', 'undo')),
        reason TEXT,
        forced INTEGER NOT NULL DEFAULT 0,
        warnings TEXT NOT NULL DEFAULT '[]',
        UNIQUE (round_id, revision)
    );
    CREATE TABLE revision_counts (
        revision_id INTEGER NOT NULL REFERENCES revisions(id),
        player_id INTEGER NOT NULL REFERENCES players(id),
        dutch INTEGER NOT NULL CHECK (dutch BETWEEN 0 AND 40),
        blitz INTEGER NOT NULL CHECK (blitz BETWEEN 0 AND 10),
        PRIMARY KEY (revision_id, player_id)
    );
    CREATE TABLE evidence (
        id INTEGER PRIMARY KEY,
        revision_id INTEGER NOT NULL REFERENCES revisions(id),
        role TEXT NOT NULL,
        path TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        detections TEXT NOT NULL,
        model_id TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


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


@dataclass(frozen=True)
class Evidence:
    """A photo that backs a round, with what the camera saw in it."""

    role: str  # "dutch" or "blitz"
    path: str
    sha256: str
    detections: Any  # JSON-serialisable
    model_id: str


@dataclass(frozen=True)
class Revision:
    number: int
    created_at: str
    kind: str  # "new", "amend" or "undo"
    reason: str | None
    forced: bool
    warnings: tuple[str, ...]
    counts: RoundCounts | None  # None for an undo
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class RoundRecord:
    """A round with its latest revision; ``counts`` is None once the round is undone."""

    number: int
    revision: int
    counts: RoundCounts | None

    @property
    def undone(self) -> bool:
        return self.counts is None


@dataclass(frozen=True)
class Game:
    id: int
    name: str
    created_at: str
    setup: GameSetup
    rounds: tuple[RoundRecord, ...] = field(default=())

    @property
    def live_rounds(self) -> tuple[RoundRecord, ...]:
        return tuple(r for r in self.rounds if not r.undone)

    def standing(self) -> Standing:
        return standing(self.setup, [r.counts for r in self.live_rounds if r.counts])


class Ledger:
    """The SQLite ledger in ``home``. Open with ``Ledger.open()`` or as a context manager."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise LedgerError(f"cannot open the ledger at {path}: {exc}") from None
        self._db.row_factory = sqlite3.Row
        try:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = FULL")
            self._db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise LedgerError(f"the ledger at {path} is unreadable: {exc}") from None

    @classmethod
    def open(cls, home: Path | None = None) -> Ledger:
        return cls((home or tallero_home()) / LEDGER_FILE)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LedgerError(
                f"the ledger at {self.path} has schema {version}, newer than this "
                f"Tallero understands ({SCHEMA_VERSION}); upgrade Tallero"
            )
        while version < SCHEMA_VERSION:
            with self._transaction() as db:
                # Re-read inside the lock: another process may have migrated meanwhile.
                version = db.execute("PRAGMA user_version").fetchone()[0]
                if version >= SCHEMA_VERSION:
                    break
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {version + 1}")
            version += 1

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
            game_name = name or f"Game {game_id}"
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
    ) -> int:
        """Append a round to a game that is not over; returns the round's number.

        Counts that are possible only by mistake, and any ``extra_warnings`` (such as a
        failed Dutch-pile cross-check), raise ``NeedsForce`` unless ``force``.
        """
        warnings = confirm_round(counts, force, extra_warnings)
        with self._transaction() as db:
            game = self.require_open(game_id)  # read inside the lock: the state we write against
            number = 1 + max((r.number for r in game.rounds), default=0)
            cur = db.execute(
                "INSERT INTO rounds (game_id, number, created_at) VALUES (?, ?, ?)",
                (game_id, number, _now()),
            )
            self._write_revision(
                db, int(cur.lastrowid or 0), 1, "new", reason, counts, warnings, force, evidence
            )
        return number

    def amend_round(
        self,
        game_id: int,
        number: int,
        changes_dutch: Mapping[str, int],
        changes_blitz: Mapping[str, int],
        reason: str,
        *,
        force: bool = False,
    ) -> tuple[int, RoundCounts]:
        """Write a new revision of round ``number`` with some counts changed.

        Players not named keep their counts. Returns (revision number, new counts).
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
        return revision, counts

    def undo_last_round(self, game_id: int, reason: str) -> int:
        """Undo the last live round (as a revision); returns its number."""
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

    def evidence_paths(self) -> set[str]:
        """Every evidence file path any round records."""
        return {str(r[0]) for r in self._db.execute("SELECT DISTINCT path FROM evidence")}

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
