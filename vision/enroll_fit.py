"""Fitting a profile's deck classifier on scenes drawn with the user's enrolled cards.

The scene generator renders the table layouts players make (rows, fans, heaps, piles)
with the enrolled pictures in place of the stand-in backs; the crops of those scenes,
with the detector's corner error simulated, train the small deck classifier. Deck slots
left without an enrolled deck keep the stand-in art and teach the class ``other``, so a
back that matches no enrolled deck is reported as unknown rather than as the nearest one.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.deck_net import FACE_PREFIX, OTHER
from vision.synth.decks import FACE_COLORS

DEFAULT_WIDTH = 24  # convolution width of the shipped deck classifier (vision.train)
SHIPPED_CLASSIFIER_WEIGHTS = Path(__file__).resolve().parent.parent / "models" / "tallero-decks.pt"


@dataclass(frozen=True)
class FitRecipe:
    """What decides an enrolled classifier; recorded in the profile."""

    scenes: int = 160
    epochs: int = 4
    seed: int = 0
    min_visible: float = 0.25
    imgsz_px: int = 640
    crop_jitter_fraction: float = 0.04
    crop_copies: int = 1
    threads: int = 2


def relabel_truth(dataset: Path, slots: dict[str, str]) -> None:
    """Rename generator deck slots to enrolled names; other decks become ``other`` cards."""
    for path in sorted((dataset / "truth").glob("*.json")):
        truth = json.loads(path.read_text())
        for card in truth["cards"]:
            if card["side"] != "back" or card.get("deck") is None:
                continue
            if card["deck"] in slots:
                card["deck"] = slots[card["deck"]]
            else:
                card["deck"] = None
                card["random_art"] = True
        path.write_text(json.dumps(truth))


def fit_profile_classifier(
    folder: Path,
    out: Path,
    crop_width_px: int,
    crop_height_px: int,
    recipe: FitRecipe = FitRecipe(),
    log: Callable[[str], None] = print,
    init_weights: Path | None = SHIPPED_CLASSIFIER_WEIGHTS,
) -> dict[str, Any]:
    """Fit and export (ONNX, to ``out``) the classifier of the profile in ``folder``."""
    from vision.deck_net import collect_crops, default_classes, export_onnx, train_net
    from vision.synth.art import ENROLLED_PREFIX
    from vision.synth.art_enrolled import slot_names
    from vision.synth.generate import synthesize

    slots = slot_names(folder)
    names = tuple(slots.values())
    classes = default_classes(names, FACE_COLORS)
    timings: dict[str, float] = {}
    style_name = ENROLLED_PREFIX + str(Path(folder).resolve())
    with tempfile.TemporaryDirectory(prefix="tallero-enroll-") as tmp:
        t0 = time.perf_counter()
        dirs = []
        # Mostly sorted piles (rows, fans, heaps of each deck), some Blitz leftovers.
        for kind, share in (("sorted", 0.7), ("blitz", 0.3)):
            data = Path(tmp) / kind
            synthesize(
                data,
                n=max(1, round(recipe.scenes * share)),
                seed=recipe.seed,
                kind=kind,
                min_visible=recipe.min_visible,
                imgsz=recipe.imgsz_px,
                workers=recipe.threads,
                progress=False,
                art=style_name,
            )
            dirs.append(data)
        for data in dirs:
            relabel_truth(data, slots)
        timings["scenes_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        crops = collect_crops(
            dirs,
            classes,
            crop_width_px,
            crop_height_px,
            jitter_fraction=recipe.crop_jitter_fraction,
            copies=recipe.crop_copies,
            seed=recipe.seed,
        )
        timings["crops_s"] = time.perf_counter() - t0
    counts = np.bincount(crops.labels, minlength=len(classes))
    log("enroll: " + ", ".join(f"{c} {n}" for c, n in zip(classes, counts, strict=True)))
    t0 = time.perf_counter()
    init = None
    if init_weights is not None and Path(init_weights).is_file():
        import torch

        init = torch.load(init_weights, map_location="cpu", weights_only=True)
    # The features keep the shipped classifier's shape, so they can start from its weights.
    width = int(init["features.0.weight"].shape[0]) if init is not None else DEFAULT_WIDTH
    net = train_net(
        crops,
        None,
        epochs=recipe.epochs,
        seed=recipe.seed,
        threads=recipe.threads,
        log=log,
        init_features=init,
        width=width,
    )
    timings["fit_s"] = time.perf_counter() - t0
    export_onnx(
        net,
        out,
        classes,
        crop_width_px,
        crop_height_px,
        extra={"profile_decks": json.dumps(list(names))},
    )
    return {
        "classes": list(classes),
        "decks": list(names),
        "crops": int(len(crops.labels)),
        "recipe": recipe.__dict__,
        "timings_s": {k: round(v, 1) for k, v in timings.items()},
        "faces": [c[len(FACE_PREFIX) :] for c in classes if c.startswith(FACE_PREFIX)],
        "other": OTHER,
    }
