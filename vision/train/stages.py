"""`tallero train`: synthetic scenes -> oriented card detector + deck classifier -> ONNX.

Every stage is skipped when its output exists, so a stopped run resumes where it was;
the detector resumes from its last epoch checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DETECTOR_YAML = "yolo11n-obb.yaml"


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
    # Real photos of cards (a Pascal VOC folder; its training part only) whose candidates
    # join the check's, each photo's repeated this many times; None: drawn scenes alone.
    check_photos: str | None = None
    check_photos_repeat: int = 10
    # Tables with nothing on them (`vision.synth.generate.write_bare_tables`, this seed,
    # half of them tablecloths) whose every candidate is a wrong find: 0 leaves them out.
    check_bare_tables: int = 0
    check_bare_seed: int = 1190
    check_bare_kind_p: tuple[float, ...] = (0.2, 0.15, 0.15, 0.5)
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


def log_line(msg: str) -> None:
    print(msg, flush=True)


STAGES: tuple[str, ...] = (
    "data",
    "detector",
    "detector-refine",
    "detector-polish",
    "classifier",
    "classifier-refine",
    "export",
    "card-check",
    "card-look",
)


def run_stages(
    stage: str,
    data: Path,
    runs: Path,
    out: Path,
    recipe: TrainRecipe,
    classifier_base: Path | None = None,
    crop_detector: Path | None = None,
) -> None:
    """Run ``stage`` ("all" or one of `STAGES`) of the shipped models' recipe.

    ``data``: where the scenes go; ``runs``: training runs and checkpoints; ``out``: the
    exported models. ``classifier_base`` (weights ``.pt``) is what the classifier-refine
    stage continues (default: the classifier stage's); ``crop_detector`` (ONNX) the
    detector whose finds it learns from (default: the detector-refine stage's, exported).
    """
    from vision.train import checks, classifier, detector

    if stage != "all" and stage not in STAGES:
        raise ValueError(f"--stage must be all or one of {', '.join(STAGES)}")
    todo = STAGES if stage == "all" else (stage,)
    runs = runs.resolve()
    data_yaml = data / "cards.yaml"
    if "data" in todo:
        data_yaml = detector.make_data(data, recipe)
    base = runs / "cards" / "weights" / "best.pt"
    if "detector" in todo:
        base = detector.train_detector(data_yaml, runs, recipe)
    refined = runs / "cards-refine" / "weights" / "best.pt"
    if "detector-refine" in todo:
        refined = detector.refine_detector(data, runs, base, recipe)
    final = runs / "cards-polish" / "weights" / "best.pt"
    if "detector-polish" in todo:
        final = detector.polish_detector(data, runs, refined, recipe)
    trained = runs / "classifier" / "tallero-decks.onnx"
    if "classifier" in todo:
        if trained.exists():
            log_line(f"classifier: already trained ({trained})")
        else:
            classifier.train_classifier(data, trained, recipe)
    if "classifier-refine" in todo:
        # Cropped with the refined detector (exported to ONNX beside its .pt) unless
        # crop_detector names another.
        classifier.refine_classifier(
            data,
            trained.with_suffix(".pt") if classifier_base is None else classifier_base,
            detector.export_onnx_beside(refined, recipe)
            if crop_detector is None
            else crop_detector,
            out / "tallero-decks.onnx",
            recipe,
        )
    if "export" in todo:
        detector.export_detector(final, out / "tallero-cards.onnx", recipe)
    models = (out / "tallero-cards.onnx", out / "tallero-decks.onnx", out / "tallero-check.json")
    if "card-check" in todo:
        checks.train_card_check(data, *models, recipe)
    if "card-look" in todo:
        checks.train_card_look(data, *models, out / "tallero-look.onnx", recipe)
