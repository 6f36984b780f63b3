"""The committed photos count as they did when the golden file was written.

A guard for changes that must not change counting (moving code, tidying): every card's
side, deck, colour and number, every count, range, uncertain id and possible card, and the
model's sha256 must come out as recorded in ``tests/data/golden/count.jsonl`` (corners and
confidences to a small tolerance). A change that means to change counting (a new model, a
new threshold) writes the file again in the same commit, after the accuracy floor
(``tests/test_accuracy_floor.py``) has said whether counting got better or worse:

    .venv/bin/python tests/test_same_counts.py --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden" / "count.jsonl"
PHOTOS = (
    sorted((ROOT / "tests" / "data").glob("*.jpg"))
    + sorted((ROOT / "tests" / "data" / "enroll").glob("*.jpg"))
    + sorted((ROOT / "datasets" / "samples" / "synth-mini" / "images").glob("*.jpg"))
)
CLOSE = 2e-3  # corners in pixels, confidences and chances as fractions


def counted() -> list[dict[str, Any]]:
    """``count --json`` of every committed photo with the shipped models, built-in decks."""
    from vision.count.counter import Counter

    counter = Counter(threads=2)
    return [counter.count(p, name=str(p.relative_to(ROOT))).to_json() for p in PHOTOS]


def _split(value: Any, path: str = "") -> tuple[dict[str, Any], dict[str, float]]:
    """Exact leaves and float leaves of a JSON value, by their path."""
    exact: dict[str, Any] = {}
    close: dict[str, float] = {}
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        (close if isinstance(value, float) else exact)[path] = value
        return exact, close
    exact[path + "#"] = len(value)
    for key, item in items:
        e, c = _split(item, f"{path}/{key}")
        exact.update(e)
        close.update(c)
    return exact, close


@pytest.fixture(scope="module")
def now() -> list[dict[str, Any]]:
    return counted()


def test_the_golden_file_covers_every_committed_photo(now: list[dict[str, Any]]) -> None:
    golden = [json.loads(line) for line in GOLDEN.read_text().splitlines()]
    assert [g["image"] for g in golden] == [n["image"] for n in now]


@pytest.mark.parametrize("k", range(len(PHOTOS)), ids=[p.name for p in PHOTOS])
def test_each_photo_counts_as_recorded(now: list[dict[str, Any]], k: int) -> None:
    golden = json.loads(GOLDEN.read_text().splitlines()[k])
    g_exact, g_close = _split(golden)
    n_exact, n_close = _split(now[k])
    assert n_exact == g_exact
    assert n_close.keys() == g_close.keys()
    off = {p: (g_close[p], n_close[p]) for p in g_close if abs(g_close[p] - n_close[p]) > CLOSE}
    assert off == {}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_same_counts.py --write")
    sys.path.insert(0, str(ROOT))
    GOLDEN.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in counted()))
    print(f"wrote {GOLDEN} ({len(PHOTOS)} photos)")
