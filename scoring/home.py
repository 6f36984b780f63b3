"""Tallero's home folder (``$TALLERO_HOME``) and the fingerprints of the files kept there.

The ledger, the evidence photos, the enrolled profiles and ultralytics' settings all live
under one home; a file is known by the sha256 of its bytes (evidence, models, profiles).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from scoring.errors import LedgerError


def tallero_home() -> Path:
    """``$TALLERO_HOME``, or the user's data directory for Tallero."""
    env = os.environ.get("TALLERO_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("tallero", appauthor=False))


_FIX_HOME = "set TALLERO_HOME to a folder you can write, e.g. export TALLERO_HOME=~/tallero"


def _fix(what: str) -> str:
    return _FIX_HOME if what == "TALLERO_HOME" else "choose another folder"


def check_home(home: Path, what: str = "TALLERO_HOME") -> None:
    """``LedgerError`` when ``home`` is a file or lies below one (it need not exist).

    ``what`` names the folder in the message."""
    if home.exists() and not home.is_dir():
        raise LedgerError(f"{what} {home} is a file, not a folder; {_fix(what)}")
    for parent in home.parents:
        if parent.exists():
            if not parent.is_dir():
                raise LedgerError(f"{what} {home} lies below {parent}, a file; {_fix(what)}")
            break


def make_home(home: Path, what: str = "TALLERO_HOME") -> Path:
    """Create ``home`` (and its parents) if missing; ``LedgerError`` saying what to do when
    it cannot be a folder Tallero writes in (a file, below a file, no permission, /proc).

    ``what`` names the folder in the message."""
    check_home(home, what)
    try:
        home.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        check_home(home, what)  # made a file meanwhile
        raise
    except PermissionError:
        raise LedgerError(f"cannot create {what} {home}: permission denied; {_fix(what)}") from None
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise LedgerError(f"cannot create {what} {home}: {reason}; {_fix(what)}") from None
    if not os.access(home, os.W_OK | os.X_OK):
        raise LedgerError(f"{what} {home} is not writable; {_fix(what)}")
    return home


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
