"""What decides an accelerator run (`vision.train.gpu`): its recipes, the folders its
detector trains on and the scene sets read from the command line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class GpuRecipe:
    """Everything that decides a timed accelerator run (recorded with its outputs)."""

    # (folder, scenes, seed, kind): seeds apart from every other set (vision.train.stages, eval).
    scene_sets: tuple[tuple[str, int, int, str], ...] = (
        ("gpu-mixed", 7000, 4100, "mixed"),
        ("gpu-sorted", 2000, 4101, "sorted"),
        ("gpu-blitz", 1000, 4102, "blitz"),
    )
    val_set: tuple[str, int, int, str] = ("val", 200, 2000, "mixed")
    # (folder, scenes, seed, kind, art, long side px) as `vision.train.finetune` draws them:
    # other art than the stand-in etchings; a "hard" set is cut into detector tiles.
    art_sets: tuple[tuple[str, int, int, str, str, int], ...] = ()
    # More validation sets in the same form (validation picks the detector's best epoch).
    art_val_sets: tuple[tuple[str, int, int, str, str, int], ...] = ()
    # Real photos as `python -m vision.train.real_photos write` leaves them (train split
    # only), shown this many times an epoch; "" for none.
    real_dir: str = ""
    real_repeats: int = 3
    # Bare tables (`vision.synth.tables.bare_table`, seed ``empty_seed``), no card on them:
    # pictures where nothing may be found (stripes and dots are no rows of cards).
    empty_tables: int = 0
    empty_seed: int = 5417
    # Their scale, px a mm at 640 px (`bare_table`), and the share of tablecloths (None:
    # the generator's own mix, a fifth).
    empty_px_per_mm: tuple[float, float] = (1.5, 4.0)  # `vision.synth.tables.BARE_PX_PER_MM`
    empty_cloths: float | None = None
    min_visible: float = 0.3
    # Detector: continues the shipped weights for a fixed time (ultralytics' `time`).
    detector_start: str = "models/tallero-cards.pt"
    detector_minutes: float = 5.0
    detector_max_epochs: int = 60
    imgsz_px: int = 640
    batch: int = 64
    lr: float = 0.001
    lrf: float = 0.05
    warmup_epochs: float = 0.5
    # Trained weights: the biases start near their rate, not ultralytics' 0.1.
    warmup_bias_lr: float = 0.01
    close_mosaic: int = 2
    loader_workers: int = 12
    detector_seed: int = 4100
    # Classifier: fitted anew on truth crops of every scene, or continued from
    # ``classifier_start`` (a state dict with the same classes and width) when it is set;
    # not trained at all with 0 epochs.
    classifier_start: str = ""
    classifier_epochs: int = 30
    classifier_batch: int = 256
    classifier_lr: float = 3e-3
    classifier_width: int = 24
    classifier_crop_width_px: int = 32
    classifier_crop_height_px: int = 48
    classifier_jitter: float = 0.03
    classifier_seed: int = 41


# The detector continued on endless card art, hard photos cut into tiles, real photos and
# stand-in scenes (so nothing is forgotten); the classifier is left as it ships. Seeds
# 5401-5406: no other set draws them; ``val-endless`` is `vision.train.finetune`'s.
ART_RECIPE = GpuRecipe(
    scene_sets=(
        ("gpu3-standin-mixed", 2000, 5401, "mixed"),
        ("gpu3-standin-sorted", 800, 5402, "sorted"),
        ("gpu3-standin-blitz", 400, 5403, "blitz"),
    ),
    art_sets=(
        ("gpu3-endless-mixed", 3500, 5404, "mixed", "endless", 640),
        ("gpu3-endless-sorted", 1000, 5405, "sorted", "endless", 640),
        ("gpu3-endless-hard", 400, 5406, "hard", "endless", 1920),
    ),
    art_val_sets=(("val-endless", 150, 5199, "mixed", "endless", 640),),
    real_dir=".gpu/real",
    real_repeats=5,
    detector_minutes=5.5,
    lr=0.0005,
    lrf=0.05,
    warmup_epochs=0.2,
    detector_seed=5400,
    classifier_epochs=0,
)
# The art recipe's detector continued (its ``cards.pt`` copied to ``detector_start``) on
# fresh scenes with more hard tiles and the real photos shown twice as often, at a lower
# rate. Seeds 5410-5416: no other set draws them.
ART_MORE_RECIPE = replace(
    ART_RECIPE,
    scene_sets=(
        ("gpu4-standin-mixed", 1600, 5411, "mixed"),
        ("gpu4-standin-sorted", 600, 5412, "sorted"),
        ("gpu4-standin-blitz", 300, 5413, "blitz"),
    ),
    art_sets=(
        ("gpu4-endless-mixed", 2800, 5414, "mixed", "endless", 640),
        ("gpu4-endless-sorted", 800, 5415, "sorted", "endless", 640),
        ("gpu4-endless-hard", 1000, 5416, "hard", "endless", 1920),
    ),
    real_repeats=10,
    detector_start=".gpu/art-detector.pt",
    detector_minutes=6.0,
    lr=0.0003,
    lrf=0.1,
    warmup_epochs=0.1,
    close_mosaic=1,
    detector_seed=5410,
)
RECIPES = {"decks": GpuRecipe(), "art": ART_RECIPE, "art-more": ART_MORE_RECIPE}


EMPTY_TABLES = "empty-tables"  # the bare tables' folder under the data folder


def write_empty_tables(
    folder: Path,
    n: int,
    seed: int,
    px_per_mm: tuple[float, float] = GpuRecipe.empty_px_per_mm,
    cloths: float | None = None,
) -> None:
    """``n`` bare-table pictures with empty label files (ultralytics' background images);
    ``cloths``: the share of tablecloths (the other kinds in the generator's proportions)."""
    from vision.synth.generate import write_bare_tables
    from vision.synth.tables import kinds_with_cloths

    kind_p = None if cloths is None else kinds_with_cloths(cloths)
    write_bare_tables(folder, n, seed, kind_p, px_per_mm=px_per_mm)


def train_folders(recipe: GpuRecipe) -> list[str]:
    """The detector's training folders (relative to the data folder), repeats included."""
    folders = [name for name, *_ in recipe.scene_sets]
    folders += [f"{a[0]}-tiles" if a[3] == "hard" else a[0] for a in recipe.art_sets]
    if recipe.empty_tables:
        folders.append(EMPTY_TABLES)
    if recipe.real_dir:
        folders += [str(Path(recipe.real_dir).resolve())] * recipe.real_repeats
    return folders


def parse_scale(text: str) -> tuple[float, float]:
    """``LO,HI`` px a mm as the bare tables' scale; argparse.ArgumentTypeError if bad."""
    import argparse

    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LO,HI (px a mm)") from None
    if not 0.2 <= lo <= hi <= 20:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0.2 <= LO <= HI <= 20 px a mm")
    return lo, hi


def parse_sets(text: str) -> tuple[tuple[str, int, int, str], ...]:
    """``NAME:SCENES:SEED:KIND,...`` as scene sets; ValueError (argparse's message) if bad."""
    from vision.synth.generate import RECIPE_KINDS

    sets = []
    for part in text.split(","):
        fields = part.strip().split(":")
        if len(fields) != 4 or not fields[0] or not fields[1].isdigit() or not fields[2].isdigit():
            raise ValueError(f"{part.strip()!r} is not NAME:SCENES:SEED:KIND")
        if fields[3] not in RECIPE_KINDS:
            raise ValueError(f"kind {fields[3]!r} is not one of {', '.join(RECIPE_KINDS)}")
        if int(fields[1]) < 1:
            raise ValueError(f"{fields[0]}: at least one scene")
        sets.append((fields[0], int(fields[1]), int(fields[2]), fields[3]))
    return tuple(sets)
