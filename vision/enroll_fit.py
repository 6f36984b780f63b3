"""Fitting a profile's deck classifier on scenes drawn with the user's enrolled cards.

The scene generator renders the table layouts players make (rows, fans, heaps, piles)
with the enrolled pictures in place of the stand-in backs; the crops of those scenes,
with the detector's corner error simulated, train the small deck classifier.

What the shipped classifier already knows is kept: each enrolled deck is *anchored* to
the built-in deck the shipped classifier sees in its picture (same ink, same object),
when it sees one clearly and no other enrolled deck claims it. Stand-in cards of an
anchored deck then count as that enrolled deck (the same deck in other art), and the
new classifier starts from the shipped one's weights, including its head rows for the
anchors, the face colours and ``other``. Stand-in decks no enrolled deck is anchored to
teach ``other``, so a back of a deck that is not enrolled is reported as unknown rather
than as the nearest enrolled one.
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
# An enrolled deck is anchored to a built-in one when the shipped classifier gives that
# built-in deck at least this probability on the enrolled picture.
ANCHOR_MIN_PROBABILITY = 0.5


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
    # Share of the scenes drawn with the stand-in art (anchored decks named as enrolled).
    standin_share: float = 0.35
    # Learning rate when starting from the shipped classifier.
    lr: float = 1e-3


def relabel_truth(
    dataset: Path, slots: dict[str, str], anchors: dict[str, str] | None = None
) -> None:
    """Rename generator deck slots to enrolled names.

    ``slots`` maps the slots drawn with enrolled art; ``anchors`` maps built-in decks
    (drawn with stand-in art) to the enrolled deck they are. Other decks become ``other``.
    """
    anchors = anchors or {}
    for path in sorted((dataset / "truth").glob("*.json")):
        truth = json.loads(path.read_text())
        for card in truth["cards"]:
            if card["side"] != "back" or card.get("deck") is None:
                continue
            if card["deck"] in slots:
                card["deck"] = slots[card["deck"]]
            elif card["deck"] in anchors:
                card["deck"] = anchors[card["deck"]]
            else:
                card["deck"] = None
                card["random_art"] = True
        path.write_text(json.dumps(truth))


def _framings(picture: np.ndarray, shift_fraction: float = 0.03) -> list[np.ndarray]:
    """A rectified card as itself, turned 180 degrees, and shifted each way."""
    import cv2

    h, w = picture.shape[:2]
    out = [picture, np.ascontiguousarray(picture[::-1, ::-1])]
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        m = np.float32([[1, 0, dx * shift_fraction * w], [0, 1, dy * shift_fraction * h]])
        out.append(cv2.warpAffine(picture, m, (w, h), borderMode=cv2.BORDER_REPLICATE))
    return out


def find_anchors(
    pictures: dict[str, list[np.ndarray]],
    classifier_path: Path,
    min_probability: float = ANCHOR_MIN_PROBABILITY,
) -> dict[str, str]:
    """Built-in deck -> enrolled deck, where the shipped classifier clearly sees it.

    Each enrolled deck's pictures are read by the shipped classifier, each as itself, turned
    half a turn and shifted by 3% each way (the framing it was trained to forgive), and the
    probabilities averaged; the best one-to-one assignment of enrolled decks to built-in
    decks is kept where its probability is at least ``min_probability``.
    """
    import itertools

    import cv2

    from vision.classifier import DeckClassifier

    clf = DeckClassifier(classifier_path, threads=1)
    names = [n for n in pictures if pictures[n]]
    if not names or not clf.decks:
        return {}
    rows = []
    for name in names:
        crops = np.stack(
            [
                cv2.resize(v, (clf.width_px, clf.height_px), interpolation=cv2.INTER_AREA)
                for p in pictures[name]
                for v in _framings(p)
            ]
        )
        prob = clf.probabilities(crops).mean(axis=0)
        rows.append([float(prob[clf.classes.index(d)]) for d in clf.decks])
    table = np.array(rows)  # (enrolled, built-in)
    best, best_score = None, -1.0
    # At most 8 enrolled decks against 8 built-in ones: try every assignment.
    for perm in itertools.permutations(range(len(clf.decks)), len(names)):
        score = float(sum(table[i, j] for i, j in enumerate(perm)))
        if score > best_score:
            best, best_score = perm, score
    assert best is not None
    return {clf.decks[j]: names[i] for i, j in enumerate(best) if table[i, j] >= min_probability}


def _init_state(init: dict, classes: tuple[str, ...], anchors: dict[str, str]) -> dict:
    """The shipped classifier's weights with its head rows mapped onto ``classes``.

    Face colours and ``other`` keep their rows; an enrolled deck takes the row of the
    built-in deck it is anchored to, and one without an anchor (whatever its name) the
    mean of the shipped deck rows.
    """
    import torch

    from vision.deck_net import default_classes
    from vision.synth.decks import ALL_DECKS

    shipped = default_classes(ALL_DECKS, FACE_COLORS)
    back_to_shipped = {v: k for k, v in anchors.items()}
    weight, bias = init["head.weight"], init["head.bias"]
    deck_rows = [shipped.index(d) for d in ALL_DECKS]
    new_w = torch.empty((len(classes), weight.shape[1]), dtype=weight.dtype)
    new_b = torch.empty(len(classes), dtype=bias.dtype)
    for k, c in enumerate(classes):
        is_deck = not c.startswith(FACE_PREFIX) and c != OTHER
        source = back_to_shipped.get(c) if is_deck else c
        if source is not None:
            new_w[k], new_b[k] = weight[shipped.index(source)], bias[shipped.index(source)]
        else:
            new_w[k], new_b[k] = weight[deck_rows].mean(0), bias[deck_rows].mean()
    state = dict(init)
    state["head.weight"], state["head.bias"] = new_w, new_b
    return state


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
    from vision.synth.art_enrolled import EnrolledStyle, slot_names
    from vision.synth.generate import synthesize

    slots = slot_names(folder)
    names = tuple(slots.values())
    classes = default_classes(names, FACE_COLORS)
    timings: dict[str, float] = {}
    style_name = ENROLLED_PREFIX + str(Path(folder).resolve())
    init = None
    if init_weights is not None and Path(init_weights).is_file():
        import torch

        init = torch.load(init_weights, map_location="cpu", weights_only=True)
    anchors: dict[str, str] = {}
    shipped_onnx = Path(init_weights).with_suffix(".onnx") if init_weights else None
    if init is not None and shipped_onnx is not None and shipped_onnx.is_file():
        style = EnrolledStyle(folder)
        anchors = find_anchors({slots[k]: v for k, v in style.backs.items()}, shipped_onnx)
    log(
        "enroll: anchored "
        + (", ".join(f"{v} = built-in {k}" for k, v in anchors.items()) or "no deck")
    )
    with tempfile.TemporaryDirectory(prefix="tallero-enroll-") as tmp:
        t0 = time.perf_counter()
        dirs = []
        # Mostly sorted piles (rows, fans, heaps of each deck), some Blitz leftovers; the
        # user's art, and (a share of scenes) the stand-in art with anchored names.
        n_standin = round(recipe.scenes * recipe.standin_share) if anchors else 0
        n_enrolled = recipe.scenes - n_standin
        for art, n_art, slot_map in (
            (style_name, n_enrolled, slots),
            ("standin", n_standin, {}),
        ):
            for kind, share in (("sorted", 0.7), ("blitz", 0.3)):
                n = max(1, round(n_art * share)) if n_art else 0
                if not n:
                    continue
                data = Path(tmp) / f"{kind}-{len(dirs)}"
                synthesize(
                    data,
                    n=n,
                    seed=recipe.seed + len(dirs),
                    kind=kind,
                    min_visible=recipe.min_visible,
                    imgsz=recipe.imgsz_px,
                    workers=recipe.threads,
                    progress=False,
                    art=art,
                )
                relabel_truth(data, slot_map, anchors)
                dirs.append(data)
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
    # The features keep the shipped classifier's shape, so they can start from its weights.
    width = int(init["features.0.weight"].shape[0]) if init is not None else DEFAULT_WIDTH
    net = train_net(
        crops,
        None,
        epochs=recipe.epochs,
        seed=recipe.seed,
        threads=recipe.threads,
        lr=recipe.lr if init is not None else 3e-3,
        log=log,
        init_state=_init_state(init, classes, anchors) if init is not None else None,
        width=width,
    )
    timings["fit_s"] = time.perf_counter() - t0
    export_onnx(
        net,
        out,
        classes,
        crop_width_px,
        crop_height_px,
        extra={
            "profile_decks": json.dumps(list(names)),
            "anchors": json.dumps(anchors),
            "class_counts": json.dumps(counts.tolist()),
        },
    )
    return {
        "anchors": anchors,
        "classes": list(classes),
        "decks": list(names),
        "crops": int(len(crops.labels)),
        "recipe": recipe.__dict__,
        "timings_s": {k: round(v, 1) for k, v in timings.items()},
        "faces": [c[len(FACE_PREFIX) :] for c in classes if c.startswith(FACE_PREFIX)],
        "other": OTHER,
    }
