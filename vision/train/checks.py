"""Fitting the card check and the card look to the exported detector and classifier."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from scoring.home import file_sha256
from vision.core.models import DEFAULT_LIVE_CHECK
from vision.detect.check import FEATURES
from vision.train.detector import draw_sets
from vision.train.stages import TrainRecipe, log_line

LIVE_CHECK_NAME = DEFAULT_LIVE_CHECK.name


def require_models(models: tuple[Path, ...], stages: str, scene_dirs: list[Path]) -> None:
    """Refuse to start a fitting stage without the models and scenes it builds on."""
    for path in models:
        if not path.is_file():
            raise FileNotFoundError(f"{path}: missing (run {stages})")
    for d in scene_dirs:
        if not (d / "truth").is_dir():
            raise FileNotFoundError(f"{d}: missing (run the data stage)")


def train_card_check(
    data_root: Path,
    detector: Path,
    classifier: Path,
    out: Path,
    recipe: TrainRecipe,
    log: Callable[[str], None] = log_line,
) -> Path:
    """Fit the card check on the shipped models' candidates in the fresh scenes."""
    from vision.core.settings import VisionSettings
    from vision.synth.generate import write_bare_tables
    from vision.train.check_fit import (
        candidate_table,
        fit_check,
        proposing_counter,
        real_photo_table,
    )
    from vision.train.look_fit import cached_table

    if out.exists():
        log(f"card check: already trained ({out})")
        return out
    dirs = [data_root / name for name, *_ in recipe.check_sets]
    require_models((detector, classifier), "the export and classifier stages", [])
    draw_sets(data_root, recipe.check_sets, recipe, log)  # a refit for another detector
    settings = VisionSettings()
    t0 = time.time()
    counter = proposing_counter(detector, classifier, settings, threads=recipe.threads)
    notes: dict[str, object] = {
        "sets": [list(s) for s in recipe.check_sets],
        "detector_sha256": file_sha256(detector),
        "classifier_sha256": file_sha256(classifier),
        "candidate_min_confidence": settings.candidate_min_confidence,
        "candidate_nms_iou": settings.candidate_nms_iou,
    }
    x, y = cached_table(
        data_root / "card-check-table.npz",
        {**notes, "features": list(FEATURES)},
        lambda: candidate_table(dirs, counter, log),
        log,
        names=("facts", "labels"),
        what="card check",
    )
    log(f"card check: {len(x)} candidates, {int(y.sum())} real cards, {time.time() - t0:.0f} s")
    if recipe.check_bare_tables:
        # Every candidate on a bare table is a wrong find: stripes and checks the detector
        # takes for rows of cards (docs/history.md).
        bare = data_root / f"bare-tables-{recipe.check_bare_seed}"
        if len(list(bare.glob("truth/*.json"))) != recipe.check_bare_tables:  # none, or cut short
            write_bare_tables(
                bare, recipe.check_bare_tables, recipe.check_bare_seed, recipe.check_bare_kind_p
            )
        bx, by = candidate_table([bare], counter, log)
        log(f"card check: bare tables: {len(bx)} candidates")
        x, y = np.concatenate([x, bx]), np.concatenate([y, by])
        notes["bare_tables"] = {
            "tables": recipe.check_bare_tables,
            "seed": recipe.check_bare_seed,
            "kind_p": list(recipe.check_bare_kind_p),
            "candidates": int(len(bx)),
        }

    def fit(x: np.ndarray, y: np.ndarray, path: Path, notes: dict[str, object]) -> None:
        fit_check(
            x,
            y,
            path,
            hidden=recipe.check_hidden,
            epochs=recipe.check_epochs,
            seed=recipe.check_seed,
            threads=recipe.threads,
            notes=notes,
            log=log,
        )

    photos: dict[str, object] = {}
    if recipe.check_photos is not None:
        # Live frames keep a check that learned from the drawn scenes alone (docs/history.md,
        # "The card check refitted with real photos"): fitted here from the same candidates.
        live = out.with_name(LIVE_CHECK_NAME)
        fit(x, y, live, notes)
        log(f"card check: wrote the live frames' check {live}")
        px, py = real_photo_table(Path(recipe.check_photos), counter, "train", log)
        log(f"card check: photos: {len(px)} candidates, {int(py.sum())} real cards")
        x = np.concatenate([x, *[px] * recipe.check_photos_repeat])
        y = np.concatenate([y, *[py] * recipe.check_photos_repeat])
        photos = {
            "photos": {
                "folder": "/".join(Path(recipe.check_photos).parts[-2:]),
                "split": "train",
                "candidates": int(len(px)),
                "real_cards": int(py.sum()),
                "repeat": recipe.check_photos_repeat,
            }
        }
    fit(x, y, out, {**notes, **photos})
    log(f"card check: wrote {out} in {time.time() - t0:.0f} s")
    return out


def train_card_look(
    data_root: Path,
    detector: Path,
    classifier: Path,
    check: Path,
    out: Path,
    recipe: TrainRecipe,
    log: Callable[[str], None] = log_line,
) -> Path:
    """Fit the card look on the crops of the candidates the shipped check is unsure of."""
    from vision.core.settings import VisionSettings
    from vision.detect.check import CardCheck
    from vision.train.check_fit import proposing_counter
    from vision.train.look_fit import LookShape, cached_table, fit_look, look_table

    if out.exists():
        log(f"card look: already trained ({out})")
        return out
    sets = (*recipe.check_sets, *recipe.look_extra_sets)
    dirs = [data_root / name for name, *_ in sets]
    require_models(
        (detector, classifier, check), "the export, classifier and card-check stages", []
    )
    draw_sets(data_root, sets, recipe, log)
    shape = LookShape()
    t0 = time.time()
    notes = {
        "sets": [list(s) for s in sets],
        "detector_sha256": file_sha256(detector),
        "classifier_sha256": file_sha256(classifier),
        "check_sha256": file_sha256(check),
    }

    def build() -> tuple:
        counter = proposing_counter(detector, classifier, VisionSettings(), threads=recipe.threads)
        return look_table(dirs, counter, CardCheck(check), shape, log)

    crops, facts, labels = cached_table(
        data_root / "card-look-table.npz",
        {**notes, "shape": asdict(shape), "features": list(FEATURES)},
        build,
        log,
    )
    took = time.time() - t0
    log(f"card look: {len(labels)} candidates in the band, {int(labels.sum())} cards, {took:.0f} s")
    fit_look(
        crops,
        facts,
        labels,
        out,
        shape,
        epochs=recipe.look_epochs,
        seed=recipe.look_seed,
        threads=recipe.threads,
        notes=notes,
        log=log,
    )
    log(f"card look: wrote {out} in {time.time() - t0:.0f} s")
    return out
