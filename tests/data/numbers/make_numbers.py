"""Draws the numbers row photo of tests/test_enroll_numbers.py (run from the repository root).

    python tests/data/numbers/make_numbers.py

``heirloom-numbers.jpg``: the faces 1 to 10 of one colour of the held-out "heirloom" art,
face up in a row, left to right, as a user lays them out for ``tallero enroll faces
--numbers 1-10``; drawn by the scene renderer.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.synth.art import ArtPool
from vision.synth.decks import CARD_W_MM
from vision.synth.plans import CardSpec, Plan
from vision.synth.scene import fit_plan, render
from vision.synth.tables import make_tile

OUT = Path(__file__).resolve().parent


def row_plan(color: str) -> Plan:
    cards = []
    for k in range(10):
        pose = np.array([k * CARD_W_MM * 1.25, 0.0, np.deg2rad((k % 3 - 1) * 2.0)])
        cards.append(CardSpec("face", None, False, 0, color, k + 1, pose))
    return Plan("layout", ("pump", "carriage", "plow", "pail"), cards, [], None, (150.0, 170.0),
                (-3.0, 3.0))  # fmt: skip


def main() -> None:
    rng = np.random.default_rng([33, 10])
    plan = row_plan("blue")
    pool = ArtPool("heirloom", rng)
    cam = fit_plan(plan, 1600, 420, rng)
    r = render(plan, pool, make_tile(rng), 1600, 420, 0.3, rng, camera=cam)
    img = np.clip(r.image, 0, 255).astype(np.uint8)
    cv2.imwrite(str(OUT / "heirloom-numbers.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 88])


if __name__ == "__main__":
    main()
