"""A committed photo round shared by the audit tests (built once per test session).

Round 1 of a four-player game, read off two bundled scenes (one back of each deck in
each), committed with ``--accept --force`` as players would after looking at the photos.
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DUTCH = ROOT / "tests" / "data" / "scene_4242_000002.jpg"
BLITZ = ROOT / "tests" / "data" / "scene_4242_000016.jpg"
SEATS = {"Ann": "pump", "Ben": "carriage", "Cy": "plow", "Dee": "pail"}


@dataclass
class Ran:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run(home: Path, *args: str) -> Ran:
    """Run the `tallero` CLI in-process with ``$TALLERO_HOME`` at ``home``."""
    import cli

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with pytest.MonkeyPatch.context() as mp, redirect_stdout(out), redirect_stderr(err):
        mp.setenv("TALLERO_HOME", str(home))
        mp.setattr(sys, "argv", ["tallero", *args])
        try:
            cli.main()
        except SystemExit as exc:
            code = int(exc.code or 0)
    return Ran(code, out.getvalue(), err.getvalue())


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class PhotoRound:
    home: Path
    score: dict[str, Any]  # `tallero score --json` of the committed round
    evidence: dict[str, Path]  # role -> kept photo


@pytest.fixture(scope="session")
def photo_round(tmp_path_factory: pytest.TempPathFactory) -> PhotoRound:
    home = tmp_path_factory.mktemp("audit") / "home"
    assert run(home, "game", "new", *(f"{p}={d}" for p, d in SEATS.items())).code == 0
    r = run(
        home, "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--commit", "--accept",
        "--force", "--reason", "looked at the photos", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    kept = {sha(p): p for p in (home / "evidence").iterdir()}
    evidence = {"dutch": kept[sha(DUTCH)], "blitz": kept[sha(BLITZ)]}
    return PhotoRound(home, r.json(), evidence)
