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


def check_home(home: Path) -> None:
    """``LedgerError`` when ``home`` is a file or lies below one (it need not exist)."""
    if home.exists() and not home.is_dir():
        raise LedgerError(f"TALLERO_HOME {home} is a file, not a folder; {_FIX_HOME}")
    for parent in home.parents:
        if parent.exists():
            if not parent.is_dir():
                raise LedgerError(f"TALLERO_HOME {home} lies below {parent}, a file; {_FIX_HOME}")
            break


def make_home(home: Path) -> Path:
    """Create ``home`` (and its parents) if missing; ``LedgerError`` saying what to do when
    it cannot be a folder Tallero writes in (a file, below a file, no permission, /proc)."""
    fix = _FIX_HOME
    check_home(home)
    try:
        home.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        parent = next((p for p in home.parents if p.exists() and not p.is_dir()), home.parent)
        raise LedgerError(f"TALLERO_HOME {home} lies below {parent}, a file; {fix}") from None
    except PermissionError:
        raise LedgerError(f"cannot create TALLERO_HOME {home}: permission denied; {fix}") from None
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise LedgerError(f"cannot create TALLERO_HOME {home}: {reason}; {fix}") from None
    if not os.access(home, os.W_OK | os.X_OK):
        raise LedgerError(f"TALLERO_HOME {home} is not writable; {fix}")
    return home


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
