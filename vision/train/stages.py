"""`tallero train`: synthetic scenes -> oriented card detector + deck classifier -> ONNX.

Every stage is skipped when its output exists, so a stopped run resumes where it was;
the detector resumes from its last epoch checkpoint.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from scoring.home import file_sha256

DETECTOR_YAML = "yolo11n-obb.yaml"
# Data YAML of every scene (train/ + classifier/), written by refine, read by polish.
REFINE_DATA_YAML = "cards-refine.yaml"


@dataclass(frozen=True)
class TrainRecipe:
    """Everything that decides the shipped models (recorded in the model card)."""

    train_images: int = 1800
    val_images: int = 100
    train_seed: int = 1000
    val_seed: int = 2000
    min_visible: float = 0.3
    imgsz_px: int = 480
    epochs: int = 5
    batch: int = 16
    # Refinement: the trained detector is trained further on every scene (train/ and
    # classifier/), with a lower learning rate that decays to lr * lrf.
    refine_epochs: int = 7
    refine_lr: float = 0.001
    refine_lrf: float = 0.05
    # Polish: the refined detector trains on the same scenes at their full 640 px, where
    # the slivers of tight fans are a stride apart instead of less.
    polish_epochs: int = 5
    polish_imgsz_px: int = 640
    polish_lr: float = 0.0005
    polish_lrf: float = 0.1
    detector_yaml: str = DETECTOR_YAML
    classifier_epochs: int = 7
    classifier_width: int = 24
    # 0: every scene of train/ and classifier/
    classifier_images: int = 0
    # More scenes only the deck classifier learns from (cheap to use: crops, not photos).
    classifier_extra_images: int = 1800
    classifier_extra_seed: int = 1500
    classifier_crop_width_px: int = 32
    classifier_crop_height_px: int = 48
    classifier_seed: int = 7
    # Classifier refinement: a trained classifier continues, at a lower learning rate, on
    # its truth crops, the truth crops of more scenes (weighted towards sorted rows, where
    # most cards show only a sliver) and crops of the cards the detector finds.
    classifier_refine_epochs: int = 2
    classifier_refine_sets: tuple[tuple[str, int, int, str], ...] = (
        ("refine-mixed", 3000, 4200, "mixed"),
        ("refine-sorted", 1000, 4201, "sorted"),
    )
    # Scene sets searched by the detector for those crops.
    classifier_refine_detected_sets: tuple[str, ...] = ("train", "refine-mixed", "refine-sorted")
    classifier_refine_lr: float = 3e-4
    # Card check: scenes none of the models above trained on (name, scenes, seed, kind),
    # weighted towards the layouts counted worst, and its MLP.
    check_sets: tuple[tuple[str, int, int, str], ...] = (
        ("fresh-mixed", 1200, 1100, "mixed"),
        ("fresh-sorted", 600, 1101, "sorted"),
        ("fresh-blitz", 600, 1102, "blitz"),
    )
    check_hidden: tuple[int, ...] = (64, 32)
    check_epochs: int = 40
    check_seed: int = 0
    # Card look: a CNN over the candidates the check is unsure of, fitted on the check's
    # scenes and these (same layouts, other seeds; sorted piles, where most counts still
    # go wrong, and Blitz piles twice more).
    look_extra_sets: tuple[tuple[str, int, int, str], ...] = (
        ("more-mixed", 1200, 1103, "mixed"),
        ("more-sorted", 600, 1104, "sorted"),
        ("more-blitz", 600, 1105, "blitz"),
        ("more2-sorted", 1800, 1106, "sorted"),
        ("more2-mixed", 1200, 1107, "mixed"),
        ("more2-blitz", 1200, 1108, "blitz"),
    )
    look_epochs: int = 8
    look_seed: int = 0
    threads: int = 2


def _log_default(msg: str) -> None:
    print(msg, flush=True)


def make_data(root: Path, recipe: TrainRecipe, log: Callable[[str], None] = _log_default) -> Path:
    """Generate (or reuse) the train and val scenes and a data.yaml for ultralytics."""
    from vision.synth.generate import synthesize

    for split, n, seed, kind in (
        ("train", recipe.train_images, recipe.train_seed, "mixed"),
        ("val", recipe.val_images, recipe.val_seed, "mixed"),
        ("classifier", recipe.classifier_extra_images, recipe.classifier_extra_seed, "mixed"),
        *recipe.classifier_refine_sets,
        *recipe.check_sets,
        *recipe.look_extra_sets,
    ):
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
    log: Callable[[str], None] = _log_default,
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
    log: Callable[[str], None] = _log_default,
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
    log: Callable[[str], None] = _log_default,
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
    weights: Path, out: Path, recipe: TrainRecipe, log: Callable[[str], None] = _log_default
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


def _classifier_crops(  # noqa: ANN202
    data_root: Path, recipe: TrainRecipe, log: Callable[[str], None], jitter_seed: int
):
    from vision.synth.decks import ALL_DECKS, FACE_COLORS
    from vision.train.deck_net import collect_crops, default_classes

    classes = default_classes(ALL_DECKS, FACE_COLORS)
    w, h = recipe.classifier_crop_width_px, recipe.classifier_crop_height_px
    t0 = time.time()
    train = collect_crops(
        [data_root / "train", data_root / "classifier"],
        classes,
        w,
        h,
        jitter_fraction=0.03,
        copies=1,
        seed=jitter_seed,
        limit_images=recipe.classifier_images or None,
    )
    val = collect_crops(
        [data_root / "val"],
        classes,
        w,
        h,
        jitter_fraction=0.03,
        copies=1,
        seed=recipe.classifier_seed + 1,
    )
    log(
        f"classifier: {len(train.labels)} train crops, {len(val.labels)} val crops "
        f"({time.time() - t0:.0f} s)"
    )
    return train, val


def train_classifier(
    data_root: Path, out: Path, recipe: TrainRecipe, log: Callable[[str], None] = _log_default
) -> Path:
    """Fit the deck classifier on rectified crops of the training scenes; export ONNX."""
    from vision.train.deck_net import train_net

    t0 = time.time()
    train, val = _classifier_crops(data_root, recipe, log, recipe.classifier_seed)
    net = train_net(
        train,
        val,
        epochs=recipe.classifier_epochs,
        seed=recipe.classifier_seed,
        threads=1,
        width=recipe.classifier_width,
        log=log,
    )
    _save_classifier(net, out, train.classes, recipe, train.labels)
    log(f"classifier: exported {out} in {time.time() - t0:.0f} s total")
    return out


def refine_classifier(
    data_root: Path,
    base: Path,
    detector: Path,
    out: Path,
    recipe: TrainRecipe,
    log: Callable[[str], None] = _log_default,
) -> Path:
    """Continue the classifier ``base`` (its ``.pt`` state) on the crops it meets at run time.

    Its truth-corner crops of ``train/`` and ``classifier/`` are joined by the truth-corner
    crops of the recipe's refine sets and by crops of the cards the ``detector`` (ONNX)
    finds in the detected sets, cut from the *found* corners and labelled from the truth
    card they match. On all of them the classifier continues at a lower rate. ``base`` may
    be any classifier of the same classes and width (the accelerator run's, for one).
    """
    import torch

    from vision.count.counter import Counter
    from vision.train.deck_net import collect_crops, collect_detected_crops, merge_crops, train_net

    if not base.is_file():
        raise FileNotFoundError(f"{base}: no classifier to refine (run the classifier stage)")
    if not detector.is_file():
        raise FileNotFoundError(f"{detector}: no ONNX card detector to crop with")
    refine_dirs = [data_root / name for name, *_ in recipe.classifier_refine_sets]
    detected_dirs = [data_root / name for name in recipe.classifier_refine_detected_sets]
    _require((), "", refine_dirs + detected_dirs)
    t0 = time.time()
    state = torch.load(base, map_location="cpu", weights_only=True)
    train, val = _classifier_crops(data_root, recipe, log, recipe.classifier_seed + 10)
    w, h = recipe.classifier_crop_width_px, recipe.classifier_crop_height_px
    t1 = time.time()
    more = collect_crops(
        refine_dirs,
        train.classes,
        w,
        h,
        jitter_fraction=0.03,
        copies=1,
        seed=recipe.classifier_seed + 16,
    )
    log(f"classifier: {len(more.labels)} truth crops of the refine sets ({time.time() - t1:.0f} s)")
    counter = Counter(model_path=detector, threads=recipe.threads)
    t1 = time.time()

    def searched(done: int, total: int) -> None:
        if done % 500 == 0 or done == total:
            log(f"classifier: searched {done}/{total} scenes for cards ({time.time() - t1:.0f} s)")

    found = collect_detected_crops(
        detected_dirs, train.classes, w, h, counter.locator.locate, progress=searched
    )
    log(f"classifier: {len(found.labels)} crops of detected cards ({time.time() - t1:.0f} s)")
    net = train_net(
        merge_crops(merge_crops(train, more), found),
        val,
        epochs=recipe.classifier_refine_epochs,
        seed=recipe.classifier_seed + 2,
        threads=recipe.threads,
        lr=recipe.classifier_refine_lr,
        width=recipe.classifier_width,
        log=log,
        init_state=state,
    )
    _save_classifier(net, out, train.classes, recipe, train.labels)
    log(f"classifier: refined and exported {out} in {time.time() - t0:.0f} s total")
    return out


def stamp_class_counts(data_root: Path, classifier: Path) -> list[int]:
    """Write into a classifier trained on ``data_root`` how often it saw each class.

    The counts are its truth-corner crops' labels (every card of ``train/`` and
    ``classifier/``), as the classifier stages write them. Classic decks lie in every
    scene and expansion decks only in 8-deck ones, so each classic deck is seen about 2.5
    times as often; naming undoes that (`vision.name.classifier`).
    """
    from vision.name.classifier import DeckClassifier
    from vision.train.deck_net import class_counts, stamp_metadata

    classes = DeckClassifier(classifier, threads=1).classes
    counts = class_counts([data_root / "train", data_root / "classifier"], classes)
    stamp_metadata(classifier, {"class_counts": json.dumps(counts)})
    return counts


def _save_classifier(  # noqa: ANN001
    net, out: Path, classes: tuple[str, ...], recipe: TrainRecipe, labels
) -> None:
    """The classifier as ONNX with its recipe and its truth crops per class, and its weights."""
    import numpy as np

    from vision.train.deck_net import save_classifier

    save_classifier(
        net,
        out,
        classes,
        recipe.classifier_crop_width_px,
        recipe.classifier_crop_height_px,
        asdict(recipe),
        np.bincount(labels, minlength=len(classes)).tolist(),
    )


def _require(models: tuple[Path, ...], stages: str, scene_dirs: list[Path]) -> None:
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
    log: Callable[[str], None] = _log_default,
) -> Path:
    """Fit the card check on the shipped models' candidates in the fresh scenes."""
    from vision.core.settings import VisionSettings
    from vision.train.check_fit import candidate_table, fit_check, proposing_counter

    if out.exists():
        log(f"card check: already trained ({out})")
        return out
    dirs = [data_root / name for name, *_ in recipe.check_sets]
    _require((detector, classifier), "the export and classifier stages", dirs)
    settings = VisionSettings()
    t0 = time.time()
    counter = proposing_counter(detector, classifier, settings, threads=recipe.threads)
    x, y = candidate_table(dirs, counter, log)
    log(f"card check: {len(x)} candidates, {int(y.sum())} real cards, {time.time() - t0:.0f} s")
    notes = {
        "sets": [list(s) for s in recipe.check_sets],
        "detector_sha256": file_sha256(detector),
        "classifier_sha256": file_sha256(classifier),
        "candidate_min_confidence": settings.candidate_min_confidence,
        "candidate_nms_iou": settings.candidate_nms_iou,
    }
    fit_check(
        x,
        y,
        out,
        hidden=recipe.check_hidden,
        epochs=recipe.check_epochs,
        seed=recipe.check_seed,
        threads=recipe.threads,
        notes=notes,
        log=log,
    )
    log(f"card check: wrote {out} in {time.time() - t0:.0f} s")
    return out


def train_card_look(
    data_root: Path,
    detector: Path,
    classifier: Path,
    check: Path,
    out: Path,
    recipe: TrainRecipe,
    log: Callable[[str], None] = _log_default,
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
    _require((detector, classifier, check), "the export, classifier and card-check stages", dirs)
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
        data_root / "card-look-table.npz", {**notes, "shape": asdict(shape)}, build, log
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
