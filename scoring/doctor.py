"""The ledger's health and its copies: what `tallero doctor` checks, `tallero backup` makes.

A check reads only (SQLite ``mode=ro``), so it works on a damaged or read-only ledger. A
backup uses SQLite's online backup API: a consistent copy even while another process
writes, checked with ``PRAGMA integrity_check`` before it takes its final name.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scoring.errors import LedgerError
from scoring.evidence import EVIDENCE_DIR
from scoring.home import make_home
from scoring.schema import LEDGER_FILE, SCHEMA_VERSION, connect, schema_problems

# Problems integrity_check lists at most (the first ones say enough).
MAX_INTEGRITY_LINES = 20


@dataclass(frozen=True)
class Checkup:
    """What `check_ledger` found. Paths are strings, as printed."""

    ledger: str
    exists: bool
    schema_version: int | None
    integrity: tuple[str, ...]  # ("ok",) when SQLite finds nothing wrong
    schema: tuple[str, ...]  # tables or columns missing
    foreign_keys: int  # rows pointing at rows that do not exist
    orphans: tuple[str, ...]  # evidence files no round refers to
    missing: tuple[str, ...]  # evidence files the ledger names that are gone

    @property
    def foreign(self) -> bool:
        """Whether the file has none of a Tallero ledger's tables (another program's)."""
        return len(self.schema) > 1 and all(p.endswith("is missing") for p in self.schema[1:])

    @property
    def healthy(self) -> bool:
        """Whether nothing needs the user's hand (orphan files are only clutter)."""
        return (
            self.integrity == ("ok",)
            and not self.schema
            and not self.foreign_keys
            and not self.missing
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ledger": self.ledger,
            "exists": self.exists,
            "healthy": self.healthy,
            "schema_version": self.schema_version,
            "integrity": list(self.integrity),
            "schema": list(self.schema),
            "foreign_keys": self.foreign_keys,
            "orphan_evidence": list(self.orphans),
            "missing_evidence": list(self.missing),
        }


def check_ledger(home: Path) -> Checkup:
    """Check the ledger of ``home`` without writing anything."""
    path = home / LEDGER_FILE
    if not path.exists():
        return Checkup(str(path), False, None, ("ok",), (), 0, _evidence_files(home), ())
    db = connect(path, readonly=True, timeout=5.0)
    try:
        try:
            rows = db.execute(f"PRAGMA integrity_check({MAX_INTEGRITY_LINES})").fetchall()
            integrity = tuple(str(r[0]) for r in rows)
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            schema = tuple(schema_problems(db))
        except sqlite3.DatabaseError as exc:
            return Checkup(str(path), True, None, (str(exc),), (), 0, (), ())
        if version != SCHEMA_VERSION:
            schema = (f"schema version {version}, expected {SCHEMA_VERSION}", *schema)
        if schema:
            return Checkup(str(path), True, version, integrity, schema, 0, (), ())
        try:
            broken = len(db.execute("PRAGMA foreign_key_check").fetchall())
            named = [str(r[0]) for r in db.execute("SELECT path FROM evidence")]
        except sqlite3.DatabaseError as exc:
            return Checkup(str(path), True, version, (*integrity, str(exc)), (), 0, (), ())
    finally:
        db.close()
    kept = {os.path.normpath(p) for p in named}
    on_disk = _evidence_files(home)
    orphans = tuple(f for f in on_disk if os.path.normpath(f) not in kept)
    missing = tuple(sorted(p for p in set(named) if not Path(p).is_file()))
    return Checkup(str(path), True, version, integrity, (), broken, orphans, missing)


def _evidence_files(home: Path) -> tuple[str, ...]:
    folder = home / EVIDENCE_DIR
    if not folder.is_dir():
        return ()
    return tuple(sorted(str(p) for p in folder.iterdir() if p.is_file()))


def backup_ledger(home: Path, out: Path) -> Path:
    """Copy the ledger of ``home`` to ``out`` (a new file, or a folder to put it in).

    Returns the copy's path. Raises ``LedgerError`` when there is no ledger, ``out``
    exists as a file, or the copy fails its integrity check (the partial copy is removed).
    """
    source = home / LEDGER_FILE
    if not source.is_file():
        raise LedgerError(f"no ledger at {source} to back up yet")
    if out.is_dir():
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        out = out / f"ledger-{stamp}.sqlite3"
    if out.exists():
        raise LedgerError(f"{out} exists; give a new file name (a backup never overwrites)")
    make_home(out.parent, "the backup's folder")
    part = out.with_name(out.name + ".part")
    src = connect(source, readonly=True, timeout=30.0)
    try:
        dest = sqlite3.connect(part)
        try:
            src.backup(dest)
            verdict = str(dest.execute("PRAGMA integrity_check").fetchone()[0])
        finally:
            dest.close()
    except sqlite3.Error as exc:
        part.unlink(missing_ok=True)
        raise LedgerError(
            f"cannot back up {source} ({exc}); `tallero doctor` says what is wrong"
        ) from None
    finally:
        src.close()
    if verdict != "ok":
        part.unlink(missing_ok=True)
        raise LedgerError(
            f"the copy of {source} fails SQLite's integrity check ({verdict}); the ledger is "
            "damaged: `tallero doctor` says how"
        )
    os.replace(part, out)
    return out
