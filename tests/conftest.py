"""Shared fixtures: every test runs in a clean environment with its own empty homes.

No test sees the developer's ``$TALLERO_HOME``, ``$TALLERO_PROFILE``, ``YOLO_*`` settings
or home folder, and whatever a test sets in the environment is gone after it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# Tallero's own settings and those of the libraries it drives (ultralytics writes its
# settings and fonts under YOLO_CONFIG_DIR, else under the user's home).
OWN_VARIABLES = ("TALLERO_", "YOLO_")


def _clean_environment(tallero_home: Path, user: Path) -> None:
    """Drop Tallero's and ultralytics' variables; ``$TALLERO_HOME`` is ``tallero_home``
    (not created) and the user's home and XDG folders lie in ``user`` (created)."""
    for key in [k for k in os.environ if k.startswith(OWN_VARIABLES)]:
        del os.environ[key]
    user.mkdir(parents=True, exist_ok=True)
    os.environ["HOME"] = str(user)
    os.environ["XDG_CACHE_HOME"] = str(user / ".cache")
    os.environ["XDG_CONFIG_HOME"] = str(user / ".config")
    os.environ["XDG_DATA_HOME"] = str(user / ".local" / "share")
    os.environ["TALLERO_HOME"] = str(tallero_home)


@pytest.fixture(scope="session", autouse=True)
def clean_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Module fixtures (counters, datasets) are made in a clean environment too."""
    saved = dict(os.environ)
    scratch = tmp_path_factory.mktemp("session")
    _clean_environment(scratch / "tallero-home", scratch / "user-home")
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture(autouse=True)
def clean_test(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Each test: an empty ``$TALLERO_HOME`` and user home; the environment restored after.

    The user home lies outside ``tmp_path``, which stays empty for the test itself."""
    saved = dict(os.environ)
    _clean_environment(tmp_path / "tallero-home", tmp_path_factory.mktemp("user-home"))
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The test's ``$TALLERO_HOME`` (empty; created by the first command that writes)."""
    path = tmp_path / "tallero-home"
    assert os.environ["TALLERO_HOME"] == str(path)
    return path


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)


@pytest.fixture
def tallero(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Result]:
    """Run the `tallero` CLI in-process, as a user would type it."""
    import cli

    def run(*args: str) -> Result:
        monkeypatch.setattr(sys, "argv", ["tallero", *args])
        capsys.readouterr()
        code = 0
        try:
            cli.main()
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run
