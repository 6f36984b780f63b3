"""Training the card detector: scenes, the three detector stages and the ONNX export."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from scoring.home import file_sha256
from vision.train.stages import TrainRecipe, log_line

# Data YAML of every scene (train/ + classifier/), written by refine, read by polish.
REFINE_DATA_YAML = "cards-refine.yaml"


def draw_sets(
    root: Path,
    sets: tuple[tuple[str, int, int, str], ...],
    recipe: TrainRecipe,
    log: Callable[[str], None] = log_line,
) -> None:
    """Draw each ``(name, scenes, seed, kind)`` set into ``root / name``; a set already
    holding that many scenes is reused."""
    from vision.synth.generate import synthesize

    for split, n, seed, kind in sets:
        out = root / split
        have = len(list((out / "truth").glob("*.json"))) if (out / "truth").is_dir() else 0
        if have >= n:
            log(f"data: {split} has {have} scenes, reusing {out}")
            continue
        log(f"data: generating {n} {split} scenes (seed {seed}) into {out}")
        t0 = time.time()
        synthesize(
            out,
            n=n,
            seed=seed,
            kind=kind,
            min_visible=recipe.min_visible,
            workers=recipe.threads,
            progress=True,
        )
        log(f"data: {split} done in {time.time() - t0:.0f} s")


def make_data(root: Path, recipe: TrainRecipe, log: Callable[[str], None] = log_line) -> Path:
    """Generate (or reuse) the train and val scenes and a data.yaml for ultralytics."""
    sets = (
        ("train", recipe.train_images, recipe.train_seed, "mixed"),
        ("val", recipe.val_images, recipe.val_seed, "mixed"),
        ("classifier", recipe.classifier_extra_images, recipe.classifier_extra_seed, "mixed"),
        *recipe.classifier_refine_sets,
        *recipe.check_sets,
        *recipe.look_extra_sets,
    )
    draw_sets(root, sets, recipe, log)
    yaml_path = root / "cards.yaml"
    yaml_path.write_text(
        f"path: {root.resolve()}\ntrain: train/images\nval: val/images\n"
        "names:\n  0: back\n  1: face\n"
    )
    return yaml_path


def _run_detector(
    start: str,
    data_yaml: Path,
    epochs: int,
    seed: int,
    recipe: TrainRecipe,
    runs: Path,
    name: str,
    what: str,
    schedule: dict,
    log: Callable[[str], None],
    imgsz_px: int | None = None,
) -> Path:
    """One resumable ultralytics OBB run from ``start`` (a model YAML or local weights).

    A finished run (``done.json``) is skipped, an interrupted one resumes from its
    ``last.pt``; returns the run's ``best.pt``.
    """
    import os

    os.environ["YOLO_VERBOSE"] = "true"
    from vision.detect.offline import import_ultralytics

    import_ultralytics(recipe.threads)
    from ultralytics import YOLO

    run_dir = runs / name
    last = run_dir / "weights" / "last.pt"
    best = run_dir / "weights" / "best.pt"
    done = run_dir / "done.json"
    if done.exists() and best.exists():
        log(f"{what}: already trained ({best})")
        return best
    t0 = time.time()
    if last.exists():
        log(f"{what}: resuming from {last}")
        YOLO(str(last)).train(resume=True, workers=0, device="cpu")
    else:
        YOLO(start, task="obb").train(
            **schedule,
            data=str(data_yaml),
            epochs=epochs,
            seed=seed,
            imgsz=imgsz_px or recipe.imgsz_px,
            batch=recipe.batch,
            workers=0,
            device="cpu",
            project=str(runs),
            name=name,
            exist_ok=True,
            plots=False,
            amp=False,
            deterministic=False,
            fliplr=0.5,
            flipud=0.5,
            degrees=0.0,
            mosaic=1.0,
            cache=False,
        )
    done.write_text(json.dumps({"wall_s": time.time() - t0}))
    log(f"{what}: trained in {time.time() - t0:.0f} s")
    return best


def train_detector(
    data_yaml: Path,
    runs: Path,
    recipe: TrainRecipe,
    name: str = "cards",
    log: Callable[[str], None] = log_line,
) -> Path:
    """Train (or resume) the OBB detector from a model YAML, offline; returns best.pt."""
    log(f"detector: {recipe.detector_yaml} for {recipe.epochs} epochs at {recipe.imgsz_px} px")
    return _run_detector(
        recipe.detector_yaml,
        data_yaml,
        recipe.epochs,
        recipe.train_seed,
        recipe,
        runs,
        name,
        "detector",
        {
            "patience": 100,
            "warmup_epochs": 1.0,
            "close_mosaic": max(1, recipe.epochs // 6),
        },
        log,
    )


def _fine_tune_schedule(lr: float, lrf: float) -> dict:
    """Schedule of a run that continues trained weights: AdamW from ``lr`` decaying to
    ``lr * lrf``, a short warm-up, mosaic off for the last epoch."""
    return {"optimizer": "AdamW", "lr0": lr, "lrf": lrf, "warmup_epochs": 0.2, "close_mosaic": 1}


def refine_detector(
    data_root: Path,
    runs: Path,
    base: Path,
    recipe: TrainRecipe,
    name: str = "cards-refine",
    log: Callable[[str], None] = log_line,
) -> Path:
    """Train the detector ``base`` further on train/ and classifier/ scenes; returns best.pt.

    Resumable like :func:`train_detector`. The scenes of classifier/ were drawn with a
    later generator (plate tone, worn edges), so the refined detector sees both.
    """
    if not base.is_file():
        raise FileNotFoundError(f"{base}: no detector to refine (run the detector stage)")
    splits = [s for s in ("train", "classifier") if (data_root / s / "labels").is_dir()]
    yaml_path = data_root / REFINE_DATA_YAML
    yaml_path.write_text(
        f"path: {data_root.resolve()}\n"
        f"train: [{', '.join(f'{s}/images' for s in splits)}]\n"
        "val: val/images\nnames:\n  0: back\n  1: face\n"
    )
    log(
        f"refine: {base} for {recipe.refine_epochs} more epochs on {' + '.join(splits)} "
        f"at {recipe.imgsz_px} px"
    )
    return _run_detector(
        str(base),
        yaml_path,
        recipe.refine_epochs,
        recipe.train_seed + 1,
        recipe,
        runs,
        name,
        "refine",
        _fine_tune_schedule(recipe.refine_lr, recipe.refine_lrf),
        log,
    )


def polish_detector(
    data_root: Path,
    runs: Path,
    base: Path,
    recipe: TrainRecipe,
    name: str = "cards-polish",
    log: Callable[[str], None] = log_line,
) -> Path:
    """Train the refined detector ``base`` at ``polish_imgsz_px``; returns best.pt.

    Same scenes as :func:`refine_detector` (its data YAML), resumable like it.
    """
    if not base.is_file():
        raise FileNotFoundError(f"{base}: no detector to polish (run the detector-refine stage)")
    yaml_path = data_root / REFINE_DATA_YAML
    if not yaml_path.is_file():
        raise FileNotFoundError(f"{yaml_path}: missing (run the detector-refine stage)")
    log(f"polish: {base} for {recipe.polish_epochs} more epochs at {recipe.polish_imgsz_px} px")
    return _run_detector(
        str(base),
        yaml_path,
        recipe.polish_epochs,
        recipe.train_seed + 2,
        recipe,
        runs,
        name,
        "polish",
        _fine_tune_schedule(recipe.polish_lr, recipe.polish_lrf),
        log,
        imgsz_px=recipe.polish_imgsz_px,
    )


def _export_onnx(weights: Path, imgsz_px: int, threads: int) -> Path:
    """ultralytics' ONNX export of ``weights`` (opset 17, dynamic axes), written beside it."""
    from vision.detect.offline import import_ultralytics

    import_ultralytics(threads)
    from ultralytics import YOLO

    return Path(
        YOLO(str(weights), task="obb").export(
            format="onnx", imgsz=imgsz_px, simplify=True, dynamic=True, opset=17
        )
    )


def export_onnx_beside(weights: Path, recipe: TrainRecipe) -> Path:
    """The ONNX export of ``weights`` next to it (``best.pt`` -> ``best.onnx``), made once."""
    onnx_path = weights.with_suffix(".onnx")
    if onnx_path.is_file():
        return onnx_path
    return _export_onnx(weights, recipe.imgsz_px, recipe.threads)


def export_detector(
    weights: Path, out: Path, recipe: TrainRecipe, log: Callable[[str], None] = log_line
) -> Path:
    """Export the detector to ONNX at its last training size; returns the ONNX path in ``out``."""
    onnx_path = _export_onnx(weights, recipe.polish_imgsz_px, recipe.threads)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx_path, out)
    # The .pt travels along: the benchmark's plain-ultralytics baseline and fine-tuning.
    shutil.copyfile(weights, out.with_suffix(".pt"))
    log(
        f"detector: exported {out} ({out.stat().st_size / 1e6:.1f} MB, sha256 "
        f"{file_sha256(out)[:12]})"
    )
    return out
