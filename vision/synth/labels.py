"""Labels of a rendered scene: ultralytics OBB lines and the ground-truth JSON.

OBB classes: 0 = a card showing its back (random-art cards included), 1 = a card showing its
face. A card is labelled when at least ``min_visible`` of it shows; pile cards follow the
same rule, so in practice only a pile's top card (and a rare card peeking far out) is labelled.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.synth.plans import Plan
from vision.synth.scene import Rendered

CLASS_NAMES = {0: "back", 1: "face"}


def truth(
    plan: Plan,
    r: Rendered,
    min_visible: float,
    *,
    image: str,
    seed: int,
    index: int,
    art: str,
    recipe_kind: str,
    jpeg_quality: int,
    family: int | None = None,
) -> dict[str, Any]:
    """The ground-truth record of one image (see datasets/README.md for every field)."""
    cards: list[dict[str, Any]] = []
    counts = {d: 0 for d in plan.decks}
    labelled: dict[int, int] = {}
    for k, c in enumerate(plan.cards):
        v = float(r.visible_fraction[k])
        if v < min_visible:
            continue
        labelled[k] = len(cards)
        cards.append(
            {
                "id": len(cards),
                "side": c.side,
                "deck": c.deck,
                "random_art": c.random_art,
                "color": c.color,
                "value": c.value,
                "corners": np.round(r.corners[k], 2).tolist(),
                "visible_fraction": round(v, 4),
                "pile": c.pile,
            }
        )
        if c.side == "back" and c.deck is not None and not c.random_art:
            counts[c.deck] += 1
    piles = []
    for p in plan.piles:
        piles.append(
            {
                "color": p.color,
                "top": p.top,
                "count": p.top,
                "face_down": p.face_down,
                "corners": np.round(r.corners[p.top_card], 2).tolist(),
                "top_card_id": labelled.get(p.top_card),
            }
        )
    cam = r.camera
    return {
        "image": image,
        "size": [cam.width, cam.height],
        "seed": seed,
        "index": index,
        "kind": plan.kind,
        "recipe_kind": recipe_kind,
        "variant": plan.variant,
        "decks": list(plan.decks),
        "art": art,
        "family": family,
        "min_visible": min_visible,
        "cards": cards,
        "counts": counts,
        "dutch_piles": piles,
        "round": plan.round.to_json() if plan.round is not None else None,
        "hidden_cards": len(plan.cards) - len(cards),
        "out_of_view": dict(plan.out_of_view),
        "dealt": dict(plan.dealt) if plan.dealt is not None else None,
        "camera": {
            "tilt_deg": round(cam.tilt_deg, 2),
            "yaw_deg": round(cam.yaw_deg, 2),
            "px_per_mm": round(cam.px_per_mm, 4),
        },
        "effects": {k: round(v, 3) for k, v in r.effects.items()},
        "jpeg_quality": jpeg_quality,
    }


def obb_lines(record: dict[str, Any]) -> list[str]:
    """``class x1 y1 x2 y2 x3 y3 x4 y4`` per labelled card, normalised to 0..1."""
    w, h = record["size"]
    out = []
    for c in record["cards"]:
        cls = 1 if c["side"] == "face" else 0
        pts = np.clip(np.asarray(c["corners"], np.float64) / (w, h), 0.0, 1.0)
        out.append(f"{cls} " + " ".join(f"{v:.6f}" for v in pts.ravel()))
    return out
