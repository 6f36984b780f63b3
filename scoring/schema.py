"""The ledger's SQLite schema, how to recognise it, and what SQLite's errors mean to a user.

A file is a Tallero ledger when every table and column the migrations create is there.
Another program's SQLite file, or a ledger with a table or column lost, is named as such
before any query could fail half-way with a bare ``no such table`` or ``IndexError``.
"""

from __future__ import annotations

import os
import sqlite3
from functools import cache
from pathlib import Path

from scoring.errors import LedgerError
from scoring.home import check_home, make_home

LEDGER_FILE = "ledger.sqlite3"

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


@cache
def expected_columns() -> dict[str, tuple[str, ...]]:
    """Each table of the current schema and its columns, read off the migrations run in
    memory (so the check can never drift from the schema)."""
    db = sqlite3.connect(":memory:")
    try:
        for migration in MIGRATIONS:
            db.executescript(migration)
        return _columns(db)
    finally:
        db.close()


def _columns(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    tables = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    return {t: tuple(r[1] for r in db.execute(f'PRAGMA table_info("{t}")')) for t in tables}


def schema_problems(db: sqlite3.Connection) -> list[str]:
    """What the schema of ``db`` lacks next to a Tallero ledger's (empty: it is whole)."""
    have = _columns(db)
    problems = []
    for table, columns in expected_columns().items():
        if table not in have:
            problems.append(f"table {table} is missing")
            continue
        lost = [c for c in columns if c not in have[table]]
        if lost:
            problems.append(f"table {table} lacks column(s) {', '.join(lost)}")
    return problems


def check_schema(db: sqlite3.Connection, path: Path) -> None:
    """``LedgerError`` unless ``db`` (at schema `SCHEMA_VERSION`) has every table and column.

    A file none of whose Tallero tables exist is another program's SQLite file; one with
    some missing is a damaged ledger.
    """
    problems = schema_problems(db)
    if not problems:
        return
    have = _columns(db)
    if not set(expected_columns()) & set(have):
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = ", ".join(sorted(have)[:5]) or "none"
        raise LedgerError(
            f"{path} is not a Tallero ledger (an SQLite file with user_version {version} "
            f"and tables: {tables}; another program's file?). Move it away, or point "
            "TALLERO_HOME at another folder"
        )
    raise LedgerError(
        f"the ledger at {path} is damaged: {'; '.join(problems)}. Restore it from a "
        "backup (`tallero backup` makes one); `tallero doctor` lists what is wrong"
    )


class OlderSchema(LedgerError):
    """A read-only open found a ledger of an older schema, which needs migrating first."""


def migrate(db: sqlite3.Connection, path: Path, readonly: bool) -> sqlite3.Connection:
    """Bring the ledger ``db`` (the file ``path``) to `SCHEMA_VERSION`; returns the
    connection to use (an empty file opened read-only reads as an empty in-memory ledger).

    Raises ``LedgerError`` for a newer schema, and for tables without a version (another
    program's file, never written to); ``OlderSchema`` when ``readonly`` and it is older.
    """
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise LedgerError(
            f"the ledger at {path} has schema {version}, newer than this "
            f"Tallero understands ({SCHEMA_VERSION}); upgrade Tallero"
        )
    has_tables = db.execute("SELECT 1 FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    if version == 0 and has_tables.fetchone():
        check_schema(db, path)  # tables but no version: not ours to migrate
        return db
    if version < SCHEMA_VERSION and readonly and path.exists():
        if version > 0:
            raise OlderSchema(
                f"the ledger at {path} has schema {version}, older than this Tallero's "
                f"({SCHEMA_VERSION}), and is read-only: make it writable once so that "
                "Tallero can upgrade it"
            )
        db.close()  # an empty file: read it as the empty ledger it would become
        db = sqlite3.connect(":memory:", isolation_level=None)
    while version < SCHEMA_VERSION:
        db.execute("BEGIN IMMEDIATE")
        try:
            # Re-read inside the lock: another process may have migrated meanwhile.
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version < SCHEMA_VERSION:
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {version + 1}")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        version += 1
    return db


def connect(path: Path, readonly: bool, timeout: float) -> sqlite3.Connection:
    """An autocommit connection to the ledger file ``path`` (its folder made if missing).

    ``readonly`` opens with ``mode=ro`` and creates nothing: a missing ledger is an empty
    in-memory one. ``timeout``: seconds to wait for another writer's lock.
    """
    if not readonly:
        make_home(path.parent)
        for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            if part.exists() and not os.access(part, os.W_OK):
                # Opened anyway, SQLite would leave a read-only -shm file that keeps the
                # ledger read-only after the user makes it writable.
                raise explain(sqlite3.OperationalError(f"{part.name} is read-only"), path)
        return sqlite3.connect(path, timeout=timeout, isolation_level=None)
    if not path.exists():
        check_home(path.parent)
        return sqlite3.connect(":memory:", isolation_level=None)  # an empty ledger
    if path.is_dir():
        raise LedgerError(f"the ledger {path} is a folder, not a file; move it away")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    wal = path.with_name(path.name + "-wal")
    if not os.access(path, os.W_OK) and not (wal.exists() and wal.stat().st_size):
        # A ledger we may not write: read it as immutable, so SQLite makes no -shm file
        # (one made now, read-only, would stop writes after the user makes it writable).
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None)


def explain(exc: sqlite3.Error, path: Path) -> LedgerError:
    """One line a user can act on for an SQLite error on the ledger at ``path``."""
    text = str(exc)
    low = text.lower()
    if "readonly" in low or "read-only" in low:
        return LedgerError(
            f"the ledger at {path} is read-only ({text}); `sheet`, `games` and `history` "
            f"still read it. To score, make it and its folder writable (chmod u+w {path}*) "
            "or copy it to a folder you own and point TALLERO_HOME there"
        )
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        return LedgerError(
            f"the ledger at {path} is damaged and unreadable ({text}); nothing was written. "
            "Run `tallero doctor` to see what is wrong, then restore a backup (`tallero "
            f"backup` makes them) or rescue what is readable with `sqlite3 {path} .recover`"
        )
    if "locked" in low or "busy" in low:
        return LedgerError(
            f"the ledger at {path} is busy ({text}): another program holds it; try again"
        )
    if "full" in low:
        return LedgerError(f"no room left to write the ledger at {path} ({text}); free disk space")
    if "unable to open" in low or "disk i/o" in low:
        return LedgerError(
            f"cannot open the ledger at {path} ({text}): check that TALLERO_HOME is a folder "
            "you can read and write"
        )
    return LedgerError(f"the ledger at {path} failed: {text}")
