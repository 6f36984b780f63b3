"""Draws the small piles photos of tests/test_piles.py (run from the repository root).

    python tests/data/piles/make.py

Each photo is a hand-made plan of Dutch piles (`vision.synth.plans.PileSpec`) drawn in the
stand-in art by the scene renderer, with its truth JSON: ``covered`` holds a pile whose
top card is half covered by a neighbouring pile; ``down`` face-down finished piles;
``round`` the 27 Dutch cards of the bundled Dutch photo; ``clear`` five piles of every
colour photographed close (cards about 210 px long), whose tops are all read; ``empty`` is
the bare table. ``python tests/data/piles/make.py clear`` draws that one alone.

``phone.jpg`` (with ``phone.json``, its ``dutch_piles``) is scene 42 of ``tallero dataset
synth OUT --kind piles --n 43 --seed 3348 --decks 8 --imgsz 1920 --same-framing``.
``under-phone.jpg`` (with ``under-phone.json``) is the piles photo of round 88 of ``tallero
dataset synth OUT --kind round --n 89 --seed 3464 --decks 4 --imgsz 1920 --same-framing``,
shrunk to 0.75 (1440x1080, JPEG quality 85; the truth's corners scaled with it): a yellow 1
lies half under a phone. ``checked-cloth.jpg`` (with ``checked-cloth.json``) is the piles
photo of round 148 of the same rounds, shrunk to 0.6 (1152x864, quality 85): a gap of the
checked cloth between two piles is found as a back of another game.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.synth.art import ArtPool
from vision.synth.decks import CARD_W_MM
from vision.synth.labels import truth
from vision.synth.plans import CardSpec, PileSpec, Plan
from vision.synth.scene import fit_plan, render
from vision.synth.tables import make_tile

OUT = Path(__file__).resolve().parent
# (colour or None for face down, top, x mm, y mm, angle deg)
PHOTOS = {
    "covered": [("red", 7, 0, 0, 2), ("blue", 4, CARD_W_MM * 0.55, 8, -4), ("green", 9, 150, 0, 6)],
    "down": [(None, 10, 0, 0, 3), ("yellow", 6, 85, 5, -5), (None, 10, 170, -4, 8)],
    "round": [(None, 10, 0, 0, 2), ("red", 10, 80, 4, -3), ("blue", 7, 160, -2, 5)],
    "mixed": [("green", 2, 0, 0, -3), ("red", 10, 80, 0, 4), ("yellow", 5, 0, 110, 2),
              ("blue", 8, 85, 108, -6)],
    "clear": [("yellow", 3, 0, 0, 4), ("blue", 9, 80, 3, -3), ("green", 6, 160, -2, 2),
              ("red", 4, 240, 4, -5), (None, 10, 320, 0, 3)],
}  # fmt: skip
# The cards' long side in the photo, px (a range the camera is fitted to).
CARD_LEN_PX = {"clear": (200.0, 220.0)}
SEEDS = {"round": 35, "clear": 37}


def plan_of(
    piles: list[tuple[str | None, int, float, float, float]],
    card_len_px: tuple[float, float] = (150.0, 170.0),
) -> Plan:
    cards: list[CardSpec] = []
    specs: list[PileSpec] = []
    for color, top, x, y, deg in piles:
        for k in range(top):
            pose = (
                np.array([x, y, np.deg2rad(deg)])
                + np.r_[np.random.default_rng(k).normal(0, 0.6, 2), 0]
            )
            spec = (
                CardSpec("back", "pump", False, 0, None, None, pose)
                if color is None
                else CardSpec("face", None, False, 0, color, k + 1, pose)
            )
            spec.pile = len(specs)
            spec.elevation = 0.15 if k else 1.0
            cards.append(spec)
        specs.append(PileSpec(color or "red", top, color is None, len(cards) - 1))
    return Plan("piles", ("pump", "carriage", "plow", "pail"), cards, specs, None, card_len_px,
                (-5.0, 5.0))  # fmt: skip


def main(only: list[str] | None = None) -> None:
    for k, (name, piles) in enumerate(PHOTOS.items()):
        if only and name not in only:
            continue
        rng = np.random.default_rng([SEEDS.get(name, 33), k])
        plan = plan_of(piles, CARD_LEN_PX.get(name, (150.0, 170.0)))
        size = (1280, 480) if name == "clear" else (640, 480)
        pool = ArtPool("standin", rng)
        cam = fit_plan(plan, *size, rng)
        r = render(plan, pool, make_tile(rng), *size, 0.3, rng, camera=cam)
        img = np.clip(r.image, 0, 255).astype(np.uint8)
        rec = truth(plan, r, 0.3, image=f"{name}.jpg", seed=33, index=k, art="standin",
                    recipe_kind="piles", jpeg_quality=90)  # fmt: skip
        cv2.imwrite(str(OUT / f"{name}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (OUT / f"{name}.json").write_text(json.dumps(rec["dutch_piles"], indent=1) + "\n")
    if only:
        return
    tile = make_tile(np.random.default_rng(34))
    cv2.imwrite(
        str(OUT / "empty.jpg"), cv2.resize(tile, (320, 240)), [cv2.IMWRITE_JPEG_QUALITY, 80]
    )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:] or None)
