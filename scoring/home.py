"""Tallero's home folder (``$TALLERO_HOME``) and the fingerprints of the files kept there.

The ledger, the evidence photos, the enrolled profiles and ultralytics' settings all live
under one home; a file is known by the sha256 of its bytes (evidence, models, profiles).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def tallero_home() -> Path:
    """``$TALLERO_HOME``, or the user's data directory for Tallero."""
    env = os.environ.get("TALLERO_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("tallero", appauthor=False))


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
