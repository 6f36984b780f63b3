"""`tallero dataset synth` and `tallero dataset preview` end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def tallero(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "import cli; cli.main()", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_synth_then_preview(tmp_path: Path) -> None:
    out = tmp_path / "set"
    r = tallero(
        "dataset",
        "synth",
        str(out),
        "--n",
        "3",
        "--seed",
        "4",
        "--kind",
        "layout",
        "--decks",
        "4",
        "--workers",
        "1",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    assert "3 scenes" in r.stdout
    assert sorted(p.name for p in (out / "images").iterdir()) == [
        "000000.jpg",
        "000001.jpg",
        "000002.jpg",
    ]
    assert (out / "data.yaml").is_file()
    sheet = tmp_path / "sheet.png"
    r = tallero("dataset", "preview", str(out), "--out", str(sheet))
    assert r.returncode == 0, r.stderr
    assert sheet.stat().st_size > 10_000


@pytest.mark.parametrize(
    "args,message",
    [
        (["--kind", "poker"], "kind must be one of"),
        (["--kind", "poker"], "round, video, sort, not 'poker'"),
        (["--min-visible", "0.1"], "min_visible must be between 0.2 and 1.0"),
        (["--decks", "5"], "decks must be 4 or 8"),
        (["--n", "0"], "--n must be at least 1"),
        (["--art", "picasso"], "unknown art style"),
        (["--kind", "video", "--same-framing"], "--same-framing is for photos of the table"),
    ],
)
def test_bad_options_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    r = tallero("dataset", "synth", str(tmp_path / "x"), *args)
    assert r.returncode == 2
    assert message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_preview_of_a_folder_without_truth(tmp_path: Path) -> None:
    r = tallero("dataset", "preview", str(tmp_path))
    assert r.returncode == 2
    assert "no truth/ folder" in r.stderr
