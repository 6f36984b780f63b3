"""Training the deck classifier: on truth crops, then continued on the detector's finds."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from vision.train.checks import require_models
from vision.train.stages import TrainRecipe, log_line


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
    data_root: Path, out: Path, recipe: TrainRecipe, log: Callable[[str], None] = log_line
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
    log: Callable[[str], None] = log_line,
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
    require_models((), "", refine_dirs + detected_dirs)
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
