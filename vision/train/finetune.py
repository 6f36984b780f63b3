"""The shipped detector continued on cards nobody has drawn and on real photographs, in
chunks that a 2-core machine can run between other work.

    python -m vision.train.finetune data DATA [--real VOC_DIR] [--recipe NAME]
    python -m vision.train.finetune run DATA RUNS --minutes M [--chunk-minutes C] [--recipe NAME]
    python -m vision.train.finetune export RUNS --out MODELS

``data`` draws the scene sets of a recipe (`RECIPES`; ``first``: `FINETUNE_SETS`, a fresh
art family per scene, hard photos cut into the tiles the detector is shown at run time,
and stand-in scenes so nothing is forgotten; ``cloths``: the same kinds of sets beside bare
tables, mostly tablecloths seen close, where nothing may be found) and writes the training
part of the real photos with their card outlines (`vision.train.real_photos`); the photos'
validation part is never written.
``run`` trains chunk after chunk, each from the last chunk's weights, until ``--minutes``
are spent: a chunk is one ultralytics run stopped by its own time budget, which checkpoints
every epoch, and an interrupted chunk resumes where it stopped. ``manifest.json`` keeps
every chunk's start and end weights (sha256), its minutes, epochs and validation figures,
so the recipe of any checkpoint is exact. ``export`` writes the last chunk's weights as
the detector ONNX beside a copy of the ``.pt``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.home import file_sha256
from vision.core.models import MODELS_DIR
from vision.train.stages import log_line

# (folder, scenes, seed, kind, art, long side px). Seeds 5101-5199: no other set draws them.
FINETUNE_SETS: tuple[tuple[str, int, int, str, str, int], ...] = (
    ("endless-mixed", 1000, 5101, "mixed", "endless", 640),
    ("standin-mixed", 400, 5102, "mixed", "standin", 640),
    ("endless-hard", 150, 5103, "hard", "endless", 1920),
)
VAL_SET = ("val-endless", 150, 5199, "mixed", "endless", 640)
# Hard photos are cut into tiles seen as the detector sees them: the photo scaled so its
# median card is this long (at most MAX_TILE_SCALE times its own pixels), in 640 px tiles.
TILE_PX = 640
TILE_CARD_PX = 72.0
MAX_TILE_SCALE = 1.5
TILE_OVERLAP = 0.25
# Each epoch shows every real photo this many times.
REAL_REPEATS = 3


@dataclass(frozen=True)
class ChunkRecipe:
    """How every chunk trains (recorded in the manifest)."""

    imgsz_px: int = 640
    batch: int = 16
    lr0: float = 3e-4
    lrf: float = 0.3
    seed: int = 0
    threads: int = 2
    mosaic: float = 1.0
    # Keep every epoch's weights (``weights/epochN.pt``), so an epoch before the last can
    # be measured against the floors too (0: the last and best only).
    save_period: int = 1


@dataclass(frozen=True)
class FinetuneRecipe:
    """What a continuation draws and how each of its chunks trains."""

    sets: tuple[tuple[str, int, int, str, str, int], ...] = FINETUNE_SETS
    val_set: tuple[str, int, int, str, str, int] = VAL_SET
    real_repeats: int = REAL_REPEATS
    # Bare tables (`vision.synth.generate.write_bare_tables`), shown as pictures with
    # nothing to find: how many (0: none), their seed, the share of tablecloths and the
    # scale in px a mm at 640 px.
    bare_tables: int = 0
    bare_seed: int = 0
    bare_cloths: float = 0.8
    bare_px_per_mm: tuple[float, float] = (0.6, 4.0)
    chunk: ChunkRecipe = ChunkRecipe()
    yaml_name: str = "finetune.yaml"


# The art-more detector (an accelerator run, `vision.train.gpu_recipe.ART_MORE_RECIPE`)
# took the white stripes of a tablecloth for tight rows of cards: continued on bare
# tables, four in five of them tablecloths drawn from 0.6 px a mm (a stripe as wide as a
# card is long), beside cards of both arts and the real photos, at a third of its rate.
# Seeds 5601-5699: no other set draws them.
CLOTHS_RECIPE = FinetuneRecipe(
    sets=(
        ("cloths-standin-mixed", 220, 5602, "mixed", "standin", 640),
        ("cloths-endless-mixed", 220, 5603, "mixed", "endless", 640),
        ("cloths-standin-sorted", 100, 5604, "sorted", "standin", 640),
        ("cloths-endless-hard", 40, 5605, "hard", "endless", 1920),
    ),
    val_set=("cloths-val-endless", 80, 5699, "mixed", "endless", 640),
    real_repeats=2,
    bare_tables=400,
    bare_seed=5601,
    chunk=ChunkRecipe(lr0=1e-4, lrf=0.5, seed=56, mosaic=0.5),
    yaml_name="finetune-cloths.yaml",
)
RECIPES = {"first": FinetuneRecipe(), "cloths": CLOTHS_RECIPE}


def _scenes(out: Path, n: int, seed: int, kind: str, art: str, imgsz: int) -> None:
    from vision.synth.generate import synthesize

    have = len(list((out / "truth").glob("*.json"))) if (out / "truth").is_dir() else 0
    if have >= n:
        log_line(f"data: {out.name} has {have} scenes, reusing it")
        return
    t0 = time.time()
    synthesize(out, n=n, seed=seed, kind=kind, art=art, imgsz=imgsz, workers=2, progress=True)
    log_line(f"data: {out.name}: {n} scenes in {time.time() - t0:.0f} s")


def tile_scene(image: np.ndarray, truth: dict[str, Any]) -> list[tuple[np.ndarray, list[str]]]:
    """The tiles of one hard photo with their OBB label lines (cards wholly inside)."""
    cards = truth["cards"]
    if not cards:
        return []
    quads = np.asarray([c["corners"] for c in cards], np.float32)
    sides = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2).max(axis=1)
    scale = min(TILE_CARD_PX / float(np.median(sides)), MAX_TILE_SCALE)
    big = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    quads = quads * scale
    h, w = big.shape[:2]
    step = int(TILE_PX * (1 - TILE_OVERLAP))
    out = []
    for y0 in range(0, max(h - TILE_PX, 0) + 1, step):
        for x0 in range(0, max(w - TILE_PX, 0) + 1, step):
            tile = np.full((TILE_PX, TILE_PX, 3), 114, np.uint8)
            part = big[y0 : y0 + TILE_PX, x0 : x0 + TILE_PX]
            tile[: part.shape[0], : part.shape[1]] = part
            local = quads - np.array([x0, y0], np.float32)
            inside = ((local >= 1) & (local <= TILE_PX - 1)).all(axis=(1, 2))
            lines = []
            for k in np.flatnonzero(inside):
                cls = 1 if cards[k]["side"] == "face" else 0
                xy = local[k] / TILE_PX
                lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in xy.reshape(-1)))
            if lines:
                out.append((tile, lines))
    return out


def write_tiles(source: Path, out: Path) -> None:
    """Write the tiles of every hard photo of ``source`` as a training set in ``out``."""
    if (out / "done.json").is_file():
        log_line(f"data: {out.name} exists, reusing it")
        return
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    n = 0
    for tf in sorted((source / "truth").glob("*.json")):
        truth = json.loads(tf.read_text())
        image = cv2.imread(str(source / "images" / truth["image"]))
        for k, (tile, lines) in enumerate(tile_scene(image, truth)):
            name = f"{tf.stem}-{k:02d}"
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), tile, [cv2.IMWRITE_JPEG_QUALITY, 92])
            (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
            n += 1
    (out / "done.json").write_text(json.dumps({"tiles": n, "source": source.name}))
    log_line(f"data: {out.name}: {n} tiles")


def make_data(data: Path, real: Path | None, recipe: FinetuneRecipe = RECIPES["first"]) -> Path:
    """Draw every set of ``recipe``, cut its hard photos into tiles, write its bare tables
    and the real photos; the YAML."""
    from vision.train.real_photos import write_scenes

    train_dirs = []
    if recipe.bare_tables:
        from vision.train.gpu_recipe import write_empty_tables

        bare = data / f"bare-tables-{recipe.bare_seed}"
        if len(list(bare.glob("truth/*.json"))) != recipe.bare_tables:  # none, or cut short
            write_empty_tables(
                bare, recipe.bare_tables, recipe.bare_seed, recipe.bare_px_per_mm,
                recipe.bare_cloths,
            )  # fmt: skip
            log_line(f"data: {bare.name}: {recipe.bare_tables} bare tables")
        train_dirs.append(bare.name)
    for name, n, seed, kind, art, imgsz in (*recipe.sets, recipe.val_set):
        _scenes(data / name, n, seed, kind, art, imgsz)
        if kind == "hard":
            write_tiles(data / name, data / f"{name}-tiles")
            train_dirs.append(f"{name}-tiles")
        elif name != recipe.val_set[0]:
            train_dirs.append(name)
    if real is not None:
        if not (data / "real" / "real_photos.json").is_file():
            log_line(f"data: real photos (train split) {write_scenes(real, data / 'real')}")
        # The few real photos weigh as much as they would if there were more of them.
        train_dirs += ["real"] * recipe.real_repeats
    yaml_path = data / recipe.yaml_name
    yaml_path.write_text(
        f"path: {data.resolve()}\ntrain: [{', '.join(f'{d}/images' for d in train_dirs)}]\n"
        f"val: {recipe.val_set[0]}/images\nnames:\n  0: back\n  1: face\n"
    )
    return yaml_path


def _manifest(runs: Path) -> dict[str, Any]:
    path = runs / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else {"chunks": []}


def _save_manifest(runs: Path, manifest: dict[str, Any]) -> None:
    tmp = runs / "manifest.json.part"
    tmp.write_text(json.dumps(manifest, indent=2))
    tmp.replace(runs / "manifest.json")


def _val_figures(run_dir: Path) -> dict[str, float]:
    """The last epoch's validation figures of an ultralytics run (results.csv)."""
    path = run_dir / "results.csv"
    if not path.is_file():
        return {}
    rows = [r.split(",") for r in path.read_text().strip().splitlines()]
    head = [h.strip() for h in rows[0]]
    last = [float(v) for v in rows[-1]]
    keep = ("epoch", "metrics/precision(B)", "metrics/recall(B)", "metrics/mAP50(B)")
    return {k: last[head.index(k)] for k in keep if k in head}


def run_chunks(
    data_yaml: Path, runs: Path, minutes: float, chunk_minutes: float, start: Path,
    recipe: ChunkRecipe,
) -> dict[str, Any]:  # fmt: skip
    """Train chunks until ``minutes`` are spent; each continues the last chunk's weights."""
    from vision.detect.offline import import_ultralytics

    import_ultralytics(recipe.threads)
    from ultralytics import YOLO

    runs.mkdir(parents=True, exist_ok=True)
    manifest = _manifest(runs)
    manifest.setdefault("recipe", asdict(recipe))
    manifest.setdefault("data", str(data_yaml))
    t_end = time.time() + minutes * 60
    while time.time() < t_end - 60:
        k = len(manifest["chunks"])
        name = f"chunk-{k:02d}"
        run_dir = runs / name
        last = run_dir / "weights" / "last.pt"
        open_chunk = manifest.get("open")
        t0 = time.time()
        if open_chunk == name and last.is_file():
            log_line(f"finetune: {name} resumes from {last}")
            YOLO(str(last)).train(resume=True, workers=0, device="cpu")
            begin = manifest["open_start"]
        else:
            prev = runs / manifest["chunks"][-1]["name"] / "weights" / "last.pt" if k else start
            budget = min(chunk_minutes, (t_end - time.time()) / 60)
            begin = {"path": str(prev), "sha256": file_sha256(prev)}
            manifest["open"], manifest["open_start"] = name, begin
            _save_manifest(runs, manifest)
            log_line(f"finetune: {name} from {prev} for {budget:.0f} min")
            YOLO(str(prev), task="obb").train(
                data=str(data_yaml), epochs=1000, time=budget / 60.0, imgsz=recipe.imgsz_px,
                batch=recipe.batch, workers=0, device="cpu", project=str(runs), name=name,
                exist_ok=True, plots=False, amp=False, deterministic=False, seed=recipe.seed + k,
                optimizer="AdamW", lr0=recipe.lr0, lrf=recipe.lrf, warmup_epochs=0.0,
                close_mosaic=0, patience=1000, fliplr=0.5, flipud=0.5, degrees=0.0,
                mosaic=recipe.mosaic, cache=False, save_period=recipe.save_period or -1,
            )  # fmt: skip
        end = run_dir / "weights" / "last.pt"
        manifest["chunks"].append(
            {
                "name": name,
                "start": begin,
                "end": {"path": str(end), "sha256": file_sha256(end)},
                "minutes": round((time.time() - t0) / 60, 1),
                "val": _val_figures(run_dir),
            }
        )
        manifest.pop("open", None)
        manifest.pop("open_start", None)
        _save_manifest(runs, manifest)
        log_line(f"finetune: {name} done: {manifest['chunks'][-1]['val']}")
    return manifest


def export(runs: Path, out: Path, threads: int = 2) -> Path:
    """The last chunk's weights as ``tallero-cards.onnx`` (and ``.pt``) in ``out``."""
    from vision.train.detector import _export_onnx

    manifest = _manifest(runs)
    if not manifest["chunks"]:
        raise SystemExit(f"{runs}: no finished chunk to export")
    weights = Path(manifest["chunks"][-1]["end"]["path"])
    onnx_path = _export_onnx(weights, 640, threads)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(onnx_path, out / "tallero-cards.onnx")
    shutil.copyfile(weights, out / "tallero-cards.pt")
    log_line(f"finetune: exported {weights} -> {out} (sha256 {file_sha256(onnx_path)[:12]})")
    return out / "tallero-cards.onnx"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.train.finetune", description=__doc__)
    sub = ap.add_subparsers(dest="what", required=True)
    d = sub.add_parser("data")
    d.add_argument("data", type=Path)
    d.add_argument("--real", type=Path)
    d.add_argument("--recipe", choices=sorted(RECIPES), default="first")
    r = sub.add_parser("run")
    r.add_argument("data", type=Path)
    r.add_argument("runs", type=Path)
    r.add_argument("--minutes", type=float, required=True)
    r.add_argument("--chunk-minutes", type=float, default=30.0)
    r.add_argument("--start", type=Path, default=MODELS_DIR / "tallero-cards.pt")
    r.add_argument("--recipe", choices=sorted(RECIPES), default="first")
    e = sub.add_parser("export")
    e.add_argument("runs", type=Path)
    e.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.what == "data":
        print(make_data(args.data, args.real, RECIPES[args.recipe]))
    elif args.what == "run":
        recipe = RECIPES[args.recipe]
        yaml_path = args.data / recipe.yaml_name
        if not yaml_path.is_file():
            raise SystemExit(f"{yaml_path}: missing (run `data --recipe {args.recipe}` first)")
        if not args.start.is_file():
            raise SystemExit(f"{args.start}: no such detector weights (--start)")
        run_chunks(yaml_path, args.runs, args.minutes, args.chunk_minutes, args.start, recipe.chunk)
    else:
        export(args.runs, args.out)


if __name__ == "__main__":
    main()
