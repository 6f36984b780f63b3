"""The detector and deck classifier trained further on an accelerator, in one timed run.

``python -m vision.train.gpu run --out DIR`` on a machine with a CUDA GPU and many cores:
every core draws scenes, then the shipped detector (``models/tallero-cards.pt``) continues
on them at 640 px for a fixed time while, beside it on the same GPU, the deck classifier
is fitted anew on truth crops of every scene. The 2-core recipe (`vision.train.stages`) spends
hours on far fewer scenes; this one spends minutes on many more.

``--recipe art`` continues the detector alone on endless card art, hard photos cut into
tiles, real photos (``--real``, the training split as ``python -m vision.train.real_photos
write`` leaves it) and stand-in scenes. ``--recipe art-more`` continues that run's
detector (``--start``, or its ``cards.pt`` copied to ``.gpu/art-detector.pt``) on fresh
scenes of the same kinds, with more hard tiles and the real photos shown more often.

``DIR`` receives ``cards.pt`` (the detector's best epoch; ``cards-last.pt`` its last),
``cards-results.csv``,
``decks-state.pt`` (classifier weights), ``decks.json`` (its classes, truth crops per
class and recipe) and logs. On any machine afterwards,
``python -m vision.train.gpu export --run DIR --out MODELS`` writes the ONNX files the
counter reads; the card check and card look are then refitted to them with
``tallero train --stage card-check`` and ``--stage card-look``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TypeVar

from vision.core.models import REPO_DIR
from vision.train.gpu_recipe import (
    EMPTY_TABLES,
    RECIPES,
    GpuRecipe,
    parse_scale,
    parse_sets,
    train_folders,
    write_empty_tables,
)

T = TypeVar("T")


def _log(out: Path, msg: str) -> None:
    line = f"[{time.strftime('%H:%M:%S')}] {msg}"
    print(line, flush=True)
    with (out / "run.log").open("a") as f:
        f.write(line + "\n")


def _draw_scenes(data: Path, recipe: GpuRecipe, workers: int, out: Path) -> None:
    from vision.synth.generate import synthesize
    from vision.train.finetune import write_tiles

    stand_in = [(*s, "standin", 640) for s in (*recipe.scene_sets, recipe.val_set)]
    for name, n, seed, kind, art, imgsz in (*stand_in, *recipe.art_sets, *recipe.art_val_sets):
        t0 = time.time()
        synthesize(
            data / name,
            n=n,
            seed=seed,
            kind=kind,
            art=art,
            imgsz=imgsz,
            min_visible=recipe.min_visible,
            workers=workers,
            progress=False,
        )
        if kind == "hard":
            write_tiles(data / name, data / f"{name}-tiles")
        _log(out, f"scenes: {name} {n} (seed {seed}, {kind}, {art}) in {time.time() - t0:.0f} s")
    if recipe.empty_tables:
        write_empty_tables(
            data / EMPTY_TABLES,
            recipe.empty_tables,
            recipe.empty_seed,
            recipe.empty_px_per_mm,
            recipe.empty_cloths,
        )
        lo, hi = recipe.empty_px_per_mm
        cloths = "" if recipe.empty_cloths is None else f", {recipe.empty_cloths:.0%} tablecloths"
        _log(
            out,
            f"scenes: {recipe.empty_tables} bare tables (seed {recipe.empty_seed}, "
            f"{lo:g}-{hi:g} px a mm{cloths})",
        )


def _read_results_csv(self) -> dict:  # noqa: ANN001
    """ultralytics' results.csv as a dict of columns, without polars."""
    try:
        with self.csv.open() as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return {}
    cols: dict[str, list] = {}
    for row in rows:
        for k, v in row.items():
            cols.setdefault(k.strip(), []).append(float(v))
    return cols


def _weights(path: str, what: str) -> Path:
    """``path`` as given, else under the repository (the shipped weights, from anywhere)."""
    found = Path(path)
    if not found.is_absolute() and not found.exists():
        found = REPO_DIR / found
    if not found.is_file():
        raise FileNotFoundError(f"{found}: no {what} weights to continue")
    return found


def preflight(recipe: GpuRecipe, part: str) -> None:
    """Import and find everything the run needs before any scene is drawn.

    A package missing on the accelerator's machine (ultralytics, platformdirs) or a missing
    weights file would otherwise surface only after minutes of drawing and training.
    """
    if part != "classifier":
        os.environ["YOLO_VERBOSE"] = "true"
        from vision.detect.offline import import_ultralytics

        import_ultralytics()
        _weights(recipe.detector_start, "detector")
        if recipe.real_dir and not any(Path(recipe.real_dir, "images").glob("*.jpg")):
            raise FileNotFoundError(f"{recipe.real_dir}/images: no real photos to train on")
    if part != "detector" and recipe.classifier_epochs and recipe.classifier_start:
        _weights(recipe.classifier_start, "classifier")


def _train_detector(data: Path, runs: Path, recipe: GpuRecipe, device: str, out: Path) -> Path:
    """Continue the detector; ultralytics was imported offline by `preflight`."""
    try:
        import polars  # noqa: F401
    except ImportError:  # only its results.csv reader needs it
        from ultralytics.engine.trainer import BaseTrainer

        BaseTrainer.read_results_csv = _read_results_csv  # type: ignore[method-assign]
    from ultralytics import YOLO

    yaml_path = data / "cards-gpu.yaml"
    train_dirs = ", ".join(f"{name}/images" for name in train_folders(recipe))
    val_dirs = ", ".join(f"{v[0]}/images" for v in (recipe.val_set, *recipe.art_val_sets))
    yaml_path.write_text(
        f"path: {data.resolve()}\ntrain: [{train_dirs}]\nval: [{val_dirs}]\n"
        "names:\n  0: back\n  1: face\n"
    )
    start = _weights(recipe.detector_start, "detector")
    t0 = time.time()
    YOLO(str(start), task="obb").train(
        data=str(yaml_path),
        epochs=recipe.detector_max_epochs,
        time=recipe.detector_minutes / 60.0,
        imgsz=recipe.imgsz_px,
        batch=recipe.batch,
        workers=recipe.loader_workers,
        device=device,
        cache="ram",
        project=str(runs),
        name="cards-gpu",
        exist_ok=True,
        plots=False,
        amp=False,
        deterministic=False,
        seed=recipe.detector_seed,
        optimizer="AdamW",
        lr0=recipe.lr,
        lrf=recipe.lrf,
        warmup_epochs=recipe.warmup_epochs,
        warmup_bias_lr=recipe.warmup_bias_lr,
        close_mosaic=recipe.close_mosaic,
        patience=1000,
        fliplr=0.5,
        flipud=0.5,
        degrees=0.0,
        mosaic=1.0,
    )
    run = runs / "cards-gpu"
    shutil.copyfile(run / "weights" / "best.pt", out / "cards.pt")
    shutil.copyfile(run / "weights" / "last.pt", out / "cards-last.pt")
    if (run / "results.csv").is_file():
        shutil.copyfile(run / "results.csv", out / "cards-results.csv")
    _log(out, f"detector: trained in {time.time() - t0:.0f} s")
    return out / "cards.pt"


def _train_classifier(data: Path, recipe: GpuRecipe, device: str, out: Path) -> None:
    import numpy as np
    import torch

    from vision.synth.decks import ALL_DECKS, FACE_COLORS
    from vision.train.deck_net import collect_crops, default_classes, train_net

    classes = default_classes(ALL_DECKS, FACE_COLORS)
    w, h = recipe.classifier_crop_width_px, recipe.classifier_crop_height_px
    t0 = time.time()
    train = collect_crops(
        [data / name for name, *_ in recipe.scene_sets],
        classes,
        w,
        h,
        jitter_fraction=recipe.classifier_jitter,
        copies=1,
        seed=recipe.classifier_seed,
    )
    val = collect_crops(
        [data / recipe.val_set[0]],
        classes,
        w,
        h,
        jitter_fraction=recipe.classifier_jitter,
        copies=1,
        seed=recipe.classifier_seed + 1,
    )
    _log(
        out,
        f"classifier: {len(train.labels)} crops, {len(val.labels)} val ({time.time() - t0:.0f} s)",
    )
    init_state = None
    if recipe.classifier_start:
        start = _weights(recipe.classifier_start, "classifier")
        init_state = torch.load(start, map_location="cpu", weights_only=True)
        _log(out, f"classifier: continues {start}")
    net = train_net(
        train,
        val,
        epochs=recipe.classifier_epochs,
        seed=recipe.classifier_seed,
        threads=2,
        batch_size=recipe.classifier_batch,
        lr=recipe.classifier_lr,
        width=recipe.classifier_width,
        log=lambda m: _log(out, m),
        init_state=init_state,
        device=device,
    )
    torch.save(net.state_dict(), out / "decks-state.pt")
    counts = np.bincount(train.labels, minlength=len(classes)).tolist()
    (out / "decks.json").write_text(
        json.dumps({"classes": list(classes), "class_counts": counts, "recipe": asdict(recipe)})
    )
    _log(out, f"classifier: done in {time.time() - t0:.0f} s")


# Loading the scenes, the detector's last validation and the copies take about this long.
DETECTOR_OVERHEAD_S = 75.0


def detector_minutes(planned: float, deadline_s: float, elapsed_s: float) -> float:
    """The detector's training minutes: ``planned``, cut so the run ends by ``deadline_s``.

    ``deadline_s`` <= 0 means no deadline; at least half a minute is always left.
    """
    if deadline_s <= 0:
        return planned
    left = (deadline_s - elapsed_s - DETECTOR_OVERHEAD_S) / 60.0
    return planned if left >= planned else max(0.5, left)


def run(
    out: Path, data: Path, runs: Path, recipe: GpuRecipe, part: str, deadline_s: float = 0.0
) -> None:
    """Draw the scenes, then train the detector and (in a second process) the classifier.

    ``deadline_s`` > 0: the whole run should end within that many seconds, so the
    detector's time shrinks by whatever drawing the scenes took beyond the plan.
    """
    import torch

    start = time.time()
    out.mkdir(parents=True, exist_ok=True)
    device = "0" if torch.cuda.is_available() else "cpu"
    if part == "classifier":  # the parent's recipe, scaled or not
        saved = json.loads((out / "recipe.json").read_text())
        recipe = GpuRecipe(**{k: v for k, v in saved.items() if k in asdict(recipe)})
        _train_classifier(data, recipe, "cuda" if device == "0" else "cpu", out)
        return
    preflight(recipe, part)
    (out / "recipe.json").write_text(json.dumps(asdict(recipe), indent=1))
    if part == "detector":  # continue a detector on the scenes an earlier run drew
        _train_detector(data, runs, recipe, device, out)
        return
    t0 = time.time()
    _draw_scenes(data, recipe, max(1, (os.cpu_count() or 2) - 1), out)
    _log(out, f"scenes: all drawn in {time.time() - t0:.0f} s")
    minutes = detector_minutes(recipe.detector_minutes, deadline_s, time.time() - start)
    if minutes != recipe.detector_minutes:
        recipe = replace(recipe, detector_minutes=minutes)
        _log(out, f"detector: {minutes:.2f} minutes left before the deadline")
    if not recipe.classifier_epochs:
        _train_detector(data, runs, recipe, device, out)
        _log(out, f"detector only; all done in {time.time() - t0:.0f} s")
        return
    # The classifier trains beside the detector, in its own process.
    with (out / "classifier.log").open("w") as log:
        cls = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "vision.train.gpu",
                "run",
                "--part",
                "classifier",
                "--out",
                str(out),
                "--data",
                str(data),
                "--runs",
                str(runs),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=REPO_DIR,
        )
        try:
            _train_detector(data, runs, recipe, device, out)
        finally:
            rc = cls.wait()
    _log(out, f"classifier process ended with {rc}; all done in {time.time() - t0:.0f} s")


def export(run_dir: Path, models: Path) -> None:
    """Write the ONNX files of a finished run into ``models``: the detector, and the
    classifier where the run trained one."""
    import torch

    from vision.train.deck_net import build_net, save_classifier

    models.mkdir(parents=True, exist_ok=True)
    if not (run_dir / "decks.json").is_file():
        recipe = json.loads((run_dir / "recipe.json").read_text())
        _export_detector(run_dir, models, recipe["imgsz_px"])
        return
    meta = json.loads((run_dir / "decks.json").read_text())
    recipe = meta["recipe"]
    classes = tuple(meta["classes"])
    net = build_net(len(classes), recipe["classifier_width"])
    net.load_state_dict(
        torch.load(run_dir / "decks-state.pt", map_location="cpu", weights_only=True)
    )
    target = models / "tallero-decks.onnx"
    save_classifier(
        net,
        target,
        classes,
        recipe["classifier_crop_width_px"],
        recipe["classifier_crop_height_px"],
        recipe,
        meta["class_counts"],
    )
    _export_detector(run_dir, models, recipe["imgsz_px"])
    print(f"exported {target}")


def _export_detector(run_dir: Path, models: Path, imgsz: int) -> None:
    from vision.train.detector import _export_onnx

    detector = models / "tallero-cards.pt"
    shutil.copyfile(run_dir / "cards.pt", detector)
    onnx_path = _export_onnx(detector, imgsz, threads=2)
    if onnx_path != models / "tallero-cards.onnx":
        shutil.move(onnx_path, models / "tallero-cards.onnx")
    print(f"exported {models / 'tallero-cards.onnx'}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m vision.train.gpu", description=__doc__.split("\n")[0]
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="draw scenes, train the detector and the classifier")
    r.add_argument("--out", type=Path, required=True)
    r.add_argument(
        "--recipe",
        choices=tuple(RECIPES),
        default="decks",
        help="decks: stand-in scenes, detector and classifier; art: the detector alone on "
        "endless art, hard tiles and real photos (--real); art-more: the art recipe's "
        "detector (--start) continued on fresh scenes of the same kinds",
    )
    r.add_argument("--real", default=None, help="real photos' training folder (art recipe)")
    r.add_argument(
        "--empty-tables", type=int, default=None, help="bare tables to train on (no card found)"
    )
    r.add_argument(
        "--empty-scale",
        type=parse_scale,
        default=None,
        help="the bare tables' scale, LO,HI px a mm at 640 px (default 1.5,4: a card 84-224 "
        "px long; 0.6 draws a stripe as wide as a small card is long)",
    )
    r.add_argument(
        "--empty-cloths",
        type=float,
        default=None,
        help="the share of tablecloths (stripes, gingham, dots) among the bare tables",
    )
    r.add_argument("--data", type=Path, default=Path("data/gpu"))
    r.add_argument("--runs", type=Path, default=Path("runs"))
    r.add_argument("--minutes", type=float, default=None, help="detector minutes")
    r.add_argument("--scale", type=float, default=1.0, help="scale every scene count (trials)")
    r.add_argument("--classifier-epochs", type=int, default=None)
    r.add_argument("--classifier-lr", type=float, default=GpuRecipe.classifier_lr)
    r.add_argument(
        "--classifier-width",
        type=int,
        default=GpuRecipe.classifier_width,
        help="classifier convolution width (wider tells foreign backs apart better; "
        "enrollment and counting read it from the weights)",
    )
    r.add_argument(
        "--classifier-start", default="", help="continue this classifier state dict (.pt)"
    )
    r.add_argument(
        "--sets",
        type=parse_sets,
        default=None,
        help="scene sets to draw, NAME:SCENES:SEED:KIND,... (default: the recipe's)",
    )
    r.add_argument(
        "--part",
        choices=("all", "detector", "classifier"),
        default="all",
        help="detector: continue --start on the scenes already in --data, nothing else",
    )
    r.add_argument("--start", default=None, help="detector weights (.pt; the recipe's)")
    r.add_argument("--lr", type=float, default=None)
    r.add_argument("--lrf", type=float, default=None)
    r.add_argument("--warmup-epochs", type=float, default=None)
    r.add_argument("--close-mosaic", type=int, default=None)
    r.add_argument("--deadline-s", type=float, default=0.0, help="end the run within this")
    e = sub.add_parser("export", help="ONNX files of a finished run")
    e.add_argument("--run", type=Path, required=True)
    e.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.cmd == "export":
        export(args.run, args.out)
        return
    base = RECIPES[args.recipe]
    if args.empty_cloths is not None and not 0 <= args.empty_cloths <= 1:
        ap.error(f"--empty-cloths {args.empty_cloths}: a share from 0 to 1")

    def scaled(n: int) -> int:
        return max(4, int(round(n * args.scale)))

    def given(value: T | None, default: T) -> T:
        return default if value is None else value

    recipe = replace(
        base,
        scene_sets=tuple(
            (name, scaled(n), seed, kind) for name, n, seed, kind in (args.sets or base.scene_sets)
        ),
        val_set=(base.val_set[0], scaled(base.val_set[1]), *base.val_set[2:]),
        art_sets=tuple((a[0], scaled(a[1]), *a[2:]) for a in base.art_sets),
        art_val_sets=tuple((a[0], scaled(a[1]), *a[2:]) for a in base.art_val_sets),
        real_dir=given(args.real, base.real_dir),
        empty_tables=given(args.empty_tables, base.empty_tables),
        empty_px_per_mm=given(args.empty_scale, base.empty_px_per_mm),
        empty_cloths=given(args.empty_cloths, base.empty_cloths),
        detector_minutes=given(args.minutes, base.detector_minutes),
        detector_start=given(args.start, base.detector_start),
        lr=given(args.lr, base.lr),
        lrf=given(args.lrf, base.lrf),
        warmup_epochs=given(args.warmup_epochs, base.warmup_epochs),
        close_mosaic=given(args.close_mosaic, base.close_mosaic),
        classifier_epochs=given(args.classifier_epochs, base.classifier_epochs),
        classifier_lr=args.classifier_lr,
        classifier_width=args.classifier_width,
        classifier_start=args.classifier_start,
    )
    run(args.out, args.data, args.runs, recipe, args.part, args.deadline_s)


if __name__ == "__main__":
    main()
