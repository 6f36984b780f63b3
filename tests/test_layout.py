"""The house keeps its shape: which stage may import which, and what counting loads."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Each vision package and the other vision packages it may import (itself always).
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "detect": {"core"},
    "name": {"core"},
    "count": {"core", "detect", "name"},
    # The Dutch piles are read off a count of their photo.
    "piles": {"core", "detect", "name", "count"},
    # Fitting a profile draws scenes with the user's cards and trains a classifier.
    "enroll": {"core", "detect", "name", "count", "synth", "train"},
    "evaluate": {"core", "detect", "name", "count", "live", "piles"},
    # The live view: counted frames, tracked cards, steady counts.
    "live": {"core", "detect", "name", "count"},
    "train": {"core", "detect", "name", "count", "evaluate", "live", "synth"},
    "synth": {"core"},
    "lab": {
        "core",
        "detect",
        "name",
        "count",
        "enroll",
        "evaluate",
        "live",
        "piles",
        "synth",
        "train",
    },
}


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def python_files(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_scoring_knows_nothing_of_pixels() -> None:
    for path in python_files("scoring"):
        bad = {m for m in imported_modules(path) if m.split(".")[0] in ("vision", "cv2")}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_each_stage_imports_only_the_stages_before_it(package: str) -> None:
    for path in python_files(f"vision/{package}"):
        for module in imported_modules(path):
            parts = module.split(".")
            if parts[0] != "vision" or len(parts) < 2 or parts[1] == package:
                continue
            assert parts[1] in ALLOWED[package], (
                f"{path.relative_to(ROOT)} imports {module}: {package} may import only "
                f"{sorted(ALLOWED[package]) or 'nothing of vision'}"
            )


def test_every_vision_module_sits_in_a_stage_package() -> None:
    loose = [p.name for p in (ROOT / "vision").glob("*.py") if p.name != "__init__.py"]
    assert loose == []
    assert {p.name for p in (ROOT / "vision").iterdir() if p.is_dir() and p.name[0] != "_"} >= (
        set(ALLOWED)
    )


COUNTING = """
import json, sys
from commands.app import make_counter
from vision.count import tally_of
from vision.count.photos import count_photos
counter = make_counter(None, None, None, threads=1)
count = counter.count(sys.argv[1])
tally_of(count)
print(json.dumps(sorted(sys.modules)))
"""


def test_counting_loads_no_training_lab_synth_or_torch(tmp_path: Path) -> None:
    image = ROOT / "tests" / "data" / "scene_4242_000002.jpg"
    out = subprocess.run(
        [sys.executable, "-c", COUNTING, str(image)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"TALLERO_HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    heavy = ("vision.train", "vision.lab", "vision.synth", "vision.evaluate", "torch")
    bad = [m for m in loaded if m.startswith(heavy) or m == "ultralytics"]
    assert bad == []
    assert "vision.count.counter" in loaded
