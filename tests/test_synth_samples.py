"""The committed synthetic sample (datasets/samples/synth-mini) is whole and consistent.

Vision tests may rely on it as small images with known cards and counts. Regenerate with
``synthesize(Path("datasets/samples/synth-mini"), 4, seed=23, kind="mixed", workers=1)`` and
delete its data.yaml (an absolute path).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

SAMPLE = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"


def test_sample_is_whole_and_consistent() -> None:
    truths = sorted((SAMPLE / "truth").glob("*.json"))
    assert len(truths) == 4
    kinds = set()
    for t in truths:
        rec = json.loads(t.read_text())
        kinds.add(rec["kind"])
        img = cv2.imread(str(SAMPLE / "images" / rec["image"]))
        assert img is not None and [img.shape[1], img.shape[0]] == rec["size"]
        lines = (SAMPLE / "labels" / f"{t.stem}.txt").read_text().splitlines()
        assert len(lines) == len(rec["cards"])
        for line, card in zip(lines, rec["cards"], strict=True):
            cls, *xy = line.split()
            assert int(cls) == (card["side"] == "face")
            np.testing.assert_allclose(
                np.array(xy, float).reshape(4, 2) * rec["size"], card["corners"], atol=0.01
            )
        backs = Counter(c["deck"] for c in rec["cards"] if c["side"] == "back" and c["deck"])
        assert rec["counts"] == {d: backs.get(d, 0) for d in rec["decks"]}
    assert kinds == {"sorted", "blitz", "layout", "piles"}
