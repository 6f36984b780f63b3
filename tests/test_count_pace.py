"""The live counter's pace, two sets of settings side by side (`vision.lab.count_pace`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.lab.count_pace import main

CLIPS = Path(__file__).resolve().parent / "data" / "watch"


def test_two_counters_take_turns_on_the_clips_and_beside_the_window(capsys) -> None:
    main(["--a", "live_reuse_looks=0", "--b", "live_reuse_looks=8", "--clips", str(CLIPS),
          "--size", "640x480", "--seconds", "1", "--rounds", "1"])  # fmt: skip
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    alone, *runs = lines
    assert alone["a"] == {"live_reuse_looks": 0} and alone["b"] == {"live_reuse_looks": 8}
    assert alone["alone"]["a_ms"] > 0 and alone["alone"]["b_ms"] > 0
    assert [r["counter"] for r in runs] == ["a", "b"]
    for run in runs:
        assert run["size"] == "640x480" and run["counts_per_s"] > 0 and run["fps"] > 0


@pytest.mark.parametrize(
    "argv", [["--a", "bogus=1"], ["--size", "big"], ["--clips", "/nowhere", "--seconds", "1"]]
)
def test_bad_arguments_are_refused_in_one_line(argv: list[str], capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err.strip().splitlines()[-1]
