"""Whole rounds as they are photographed: ``tallero dataset synth OUT --kind round``.

Round ``i`` is one simulated round (`vision.synth.rounds.simulate_round`) and three photos
of it: ``piles/NNNNNN.jpg`` (the Dutch piles before the sort), ``dutch/NNNNNN.jpg`` (the
sorted Dutch cards, back up) and ``blitz/NNNNNN.jpg`` (the Blitz leftovers). Its truth,
``truth/NNNNNN.json``: ``{"round": the outcome (players, dutch, blitz, piles), "decks",
"photos": {"piles"|"dutch"|"blitz": that photo's scene truth}}``. Every card of the round
lies in its photo, as large as the frame allows: players photograph all their cards.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth.generate import SceneOptions, scene_art
from vision.synth.labels import truth
from vision.synth.plans import round_plans
from vision.synth.scene import render, sample_camera

ROLES = ("piles", "dutch", "blitz")


def write_round(out_dir: Path, opts: SceneOptions, index: int) -> dict[str, Any]:
    """Draw round ``index`` (depends on ``(opts, index)`` only) and write its photos and truth."""
    ss = np.random.SeedSequence([opts.seed, index, 0x20D])
    r_plan, r_render, r_misc = (np.random.default_rng(s) for s in ss.spawn(3))
    n_decks = opts.decks if opts.decks is not None else int(r_misc.choice([4, 8]))
    pool, tiles, family = scene_art(opts, index)
    plans = round_plans(n_decks, r_plan, opts.min_visible)
    photos: dict[str, Any] = {}
    stem = f"{index:06d}"
    for role, plan in zip(ROLES, plans, strict=True):
        long_side, short_side = opts.imgsz, int(round(opts.imgsz * 3 / 4))
        w, h = (short_side, long_side) if r_misc.random() < 0.2 else (long_side, short_side)
        quality = int(r_misc.integers(70, 96))
        tile = tiles[int(r_misc.integers(len(tiles)))]
        # every card in view, as large as the frame allows
        cam = sample_camera(plan, w, h, r_render, opts.card_scale, largest_fit=True)
        rendered = render(plan, pool, tile, w, h, opts.min_visible, r_render, camera=cam)
        image = f"{role}/{stem}.jpg"
        photos[role] = truth(
            plan,
            rendered,
            opts.min_visible,
            image=image,
            seed=opts.seed,
            index=index,
            art=opts.art,
            family=family,
            recipe_kind="round",
            jpeg_quality=quality,
        )
        img = np.clip(rendered.image, 0, 255).astype(np.uint8)
        (out_dir / role).mkdir(parents=True, exist_ok=True)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise RuntimeError("JPEG encoding failed")
        (out_dir / image).write_bytes(buf.tobytes())
    outcome = plans[0].round
    assert outcome is not None
    rec = {"round": outcome.to_json(), "decks": list(plans[0].decks), "photos": photos}
    (out_dir / "truth").mkdir(parents=True, exist_ok=True)
    (out_dir / "truth" / f"{stem}.json").write_text(json.dumps(rec, separators=(",", ":")))
    return rec


def synthesize_rounds(
    out_dir: Path,
    n: int,
    seed: int,
    decks: int | None = None,
    imgsz: int = 640,
    art: str = "standin",
    start: int = 0,
    min_visible: float = 0.3,
    same_framing: bool = False,
) -> Path:
    """Write rounds ``start .. start+n-1`` of ``seed`` into ``out_dir`` (one process);
    ``same_framing``: see `SceneOptions`."""
    opts = SceneOptions(seed, "piles", float(min_visible), decks, imgsz, art, same_framing)
    opts.check()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    recipe = {"kind": "round", "seed": seed, "n": n, "start": start, "decks": decks,
              "imgsz": imgsz, "art": art, "min_visible": min_visible,
              "same_framing": same_framing}  # fmt: skip
    (out_dir / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n")
    prev = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for i in range(start, start + n):
            write_round(out_dir, opts, i)
    finally:
        cv2.setNumThreads(prev)
    return out_dir
