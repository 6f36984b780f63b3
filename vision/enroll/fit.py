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
than as the nearest enrolled one. The one exception is a deck's *kin*: the built-in deck
the best assignment pairs with an enrolled deck that it sees too faintly to anchor (the
expansion red plow for a red plow drawn otherwise). Its stand-in cards are left out of
training: teaching them as ``other`` would teach the enrolled deck's own object and ink
as unknown.

A deck's fan photos (`vision.enroll.run.enroll_fans`), if any, add a crop of every back
found in them, cut ``fan_copies`` times with corner jitter: the deck as a camera saw it in
a real pile, slivers and light included, which no drawn scene of its one picture shows.

The scenes drawn for the fit hold far more ``other`` cards, for every enrolled deck, than
the shipped classifier was trained with (every stand-in deck that is not anchored). So the
fitted classifier's ``other`` logit is moved by ``log(factor)`` (`other_prior_factor`),
bringing its odds of ``other`` against a deck back to the shipped classifier's (times
``other_prior_scale``): otherwise a back of an enrolled deck seen a little unlike its
enrolled picture is called unknown.
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

from scoring.decks import FACE_COLORS
from vision.core.models import DEFAULT_CLASSIFIER_WEIGHTS
from vision.name.classifier import FACE_PREFIX, OTHER

DEFAULT_WIDTH = 24  # convolution width of the shipped deck classifier (vision.train.stages)
# An enrolled deck is anchored to a built-in one when the shipped classifier gives that
# built-in deck at least this probability on the enrolled picture.
ANCHOR_MIN_PROBABILITY = 0.5
# Truth label of stand-in cards left out of the fit (a deck's kin): no class is named so.
LEFT_OUT = "~left-out"


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
    # Share of the user's art scenes photographed as `kind="hard"` (small cards, tilt, low
    # light, blur, JPEG), the rest sorted piles and Blitz leftovers.
    hard_share: float = 0.0
    # Crops cut (with corner jitter) of each back found in a deck's fan photos.
    fan_copies: int = 16
    # The fitted classifier's odds of "other" against a deck, as a multiple of the shipped
    # classifier's (see `other_prior_factor`; 1 is the shipped odds, 0 turns it off). Lower
    # names more of the user's own cards, but names more backs of decks that are not
    # enrolled as the nearest enrolled deck.
    other_prior_scale: float = 1.0
    # Share of the shipped classifier kept in the fitted one (a trial knob; 0 as shipped):
    # every weight becomes ``keep_shipped * shipped + (1 - keep_shipped) * fitted``, head
    # rows mapped as the fit started (`_init_state`); ``blend_head="none"`` blends the
    # features only. It trades the user's own cards called unknown for backs of decks not
    # enrolled named as enrolled ones, as other_prior_scale does. Heirloom tuning sets
    # (seeds 7504 / 7508, 200 scenes each), fit seeds 0 and 1: 4 decks, 0 / 0.3 / 0.5 /
    # 0.7 gave deck_exact 0.8812 / 0.8988 / 0.9038 / 0.9062 (seed 1: 0 / 0.5, 0.8888 /
    # 0.905); 8 decks, 0 / 0.5 / 0.7 / 0.85 gave 0.890 / 0.890 / 0.8831 / 0.8731 (seed 1:
    # 0.9038 / 0.8894). With pump, carriage and plow enrolled and pails not, on the 4-deck
    # set, 0 / 0.5 / 0.5 features only counted the three decks exactly in 0.8817 / 0.860 /
    # 0.8767 of the pairs, naming 18 / 144 / 43 of 1365 backs of other decks as enrolled.
    keep_shipped: float = 0.0
    blend_head: str = "all"

    def __post_init__(self) -> None:
        if not 0.0 <= self.keep_shipped <= 1.0:
            raise ValueError(f"keep_shipped must lie in 0..1, not {self.keep_shipped}")
        if self.blend_head not in ("all", "none"):
            raise ValueError(f"blend_head must be 'all' or 'none', not {self.blend_head!r}")


def relabel_truth(
    dataset: Path,
    slots: dict[str, str],
    anchors: dict[str, str] | None = None,
    left_out: frozenset[str] | set[str] = frozenset(),
) -> None:
    """Rename generator deck slots to enrolled names.

    ``slots`` maps the slots drawn with enrolled art; ``anchors`` maps built-in decks
    (drawn with stand-in art) to the enrolled deck they are. Built-in decks in
    ``left_out`` are labelled `LEFT_OUT` (no class: they still hide other cards but are
    not learnt from). Other decks become ``other``.
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
            elif card["deck"] in left_out:
                card["deck"] = LEFT_OUT
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
        m = np.array([[1, 0, dx * shift_fraction * w], [0, 1, dy * shift_fraction * h]], np.float32)
        out.append(cv2.warpAffine(picture, m, (w, h), borderMode=cv2.BORDER_REPLICATE))
    return out


def find_anchors(
    pictures: dict[str, list[np.ndarray]],
    classifier_path: Path,
    min_probability: float = ANCHOR_MIN_PROBABILITY,
) -> dict[str, str]:
    """Built-in deck -> enrolled deck, where the shipped classifier clearly sees it."""
    return pair_decks(pictures, classifier_path, min_probability)[0]


def _opened(classifier: Any) -> Any:
    """A `vision.name.classifier.DeckClassifier`: ``classifier`` itself, or the one at that path."""
    from vision.name.classifier import DeckClassifier

    return classifier if isinstance(classifier, DeckClassifier) else DeckClassifier(classifier, 1)


def pair_decks(
    pictures: dict[str, list[np.ndarray]],
    classifier_path: Any,
    min_probability: float = ANCHOR_MIN_PROBABILITY,
) -> tuple[dict[str, str], dict[str, str]]:
    """``(anchors, kin)``: built-in deck -> enrolled deck, seen clearly / seen faintly.

    Each enrolled deck's pictures are read by the shipped classifier, each as itself, turned
    half a turn and shifted by 3% each way (the framing it was trained to forgive), and the
    probabilities averaged. Of the best one-to-one assignment of enrolled decks to built-in
    decks, the pairs with a probability of at least ``min_probability`` are anchors, the
    others kin.
    """
    import itertools

    import cv2

    clf = _opened(classifier_path)
    names = [n for n in pictures if pictures[n]]
    if not names or not clf.decks:
        return {}, {}
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
    anchors: dict[str, str] = {}
    kin: dict[str, str] = {}
    for i, j in enumerate(best):
        (anchors if table[i, j] >= min_probability else kin)[clf.decks[j]] = names[i]
    return anchors, kin


def other_prior_factor(
    counts: list[int] | np.ndarray,
    classes: tuple[str, ...],
    shipped_counts: list[int],
    shipped_classes: tuple[str, ...],
    scale: float,
) -> float:
    """How much to multiply the fitted classifier's odds of ``other`` by (1: unchanged).

    Odds of ``other`` against a deck are measured as the ``other`` crops over the mean
    crops of a deck, in the fit (``counts``) and in the shipped classifier's training
    (``shipped_counts``); the factor brings the first to ``scale`` times the second.
    """
    if scale <= 0 or OTHER not in classes or OTHER not in shipped_classes:
        return 1.0

    def odds(n: list[int] | np.ndarray, cl: tuple[str, ...]) -> float:
        decks = [n[k] for k, c in enumerate(cl) if c != OTHER and not c.startswith(FACE_PREFIX)]
        mean = float(np.mean(decks)) if decks else 0.0
        return float(n[cl.index(OTHER)]) / mean if mean > 0 else 0.0

    fit, shipped = odds(counts, classes), odds(shipped_counts, shipped_classes)
    if fit <= 0 or shipped <= 0:
        return 1.0
    return scale * shipped / fit


def _class_counts(classifier: Any) -> tuple[tuple[str, ...], list[int]] | None:
    """A classifier's classes and training crops per class (None when it records none)."""
    meta = _opened(classifier).metadata
    if "class_counts" not in meta:
        return None
    return tuple(json.loads(meta["classes"])), list(json.loads(meta["class_counts"]))


def _shift_logit(net: Any, index: int, factor: float) -> None:
    """Multiply the odds of class ``index`` by ``factor`` (its head bias moves by the log)."""
    import torch

    if factor == 1.0:
        return
    with torch.no_grad():
        net.head.bias[index] += float(np.log(factor))


def blend_weights(net: Any, state: dict[str, Any], keep: float, skip: tuple[str, ...] = ()) -> None:
    """Move ``net``'s floating-point weights and statistics to ``keep * state + (1 - keep)
    * own`` (counters, such as batch norm's batches seen, and keys starting with one of
    ``skip`` stay the net's own)."""
    import torch

    own = net.state_dict()
    with torch.no_grad():
        for key, value in own.items():
            if key in state and value.is_floating_point() and not key.startswith(skip):
                value.mul_(1 - keep).add_(state[key].to(value.dtype), alpha=keep)


def _init_state(
    init: dict[str, Any], classes: tuple[str, ...], anchors: dict[str, str]
) -> dict[str, Any]:
    """The shipped classifier's weights with its head rows mapped onto ``classes``.

    Face colours and ``other`` keep their rows; an enrolled deck takes the row of the
    built-in deck it is paired with in ``anchors`` (anchored to, or kin to), and one
    without (whatever its name) the mean of the shipped deck rows.
    """
    import torch

    from scoring.decks import DECK_IDS as ALL_DECKS
    from vision.train.deck_net import default_classes

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


def base_crop_size(
    classifier: Any, asked: tuple[int, int], log: Callable[[str], None] = print
) -> tuple[int, int]:
    """The crop size ``classifier`` (or the one at that path) reads, logged when not
    ``asked``."""
    clf = _opened(classifier)
    size = (clf.width_px, clf.height_px)
    if size != tuple(asked):
        log(f"enroll: crops cut at {size[0]}x{size[1]} px, the size the base classifier reads")
    return size


def fit_profile_classifier(
    folder: Path,
    out: Path,
    crop_width_px: int,
    crop_height_px: int,
    recipe: FitRecipe = FitRecipe(),
    log: Callable[[str], None] = print,
    init_weights: Path | None = DEFAULT_CLASSIFIER_WEIGHTS,
) -> dict[str, Any]:
    """Fit and export (ONNX, to ``out``) the classifier of the profile in ``folder``.

    Crops are cut at ``crop_width_px`` x ``crop_height_px``, or, when the fit starts from
    a base classifier's weights, at the size that classifier reads (its ONNX beside the
    weights), since its features only know cards at that size.
    """
    from vision.enroll.fans import fan_dataset, join_crops
    from vision.synth.art import ENROLLED_PREFIX
    from vision.synth.art_enrolled import EnrolledStyle, slot_names
    from vision.synth.generate import synthesize
    from vision.train.deck_net import (
        collect_crops,
        default_classes,
        export_onnx,
        state_width,
        train_net,
    )

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
    kin: dict[str, str] = {}
    shipped_onnx = Path(init_weights).with_suffix(".onnx") if init_weights else None
    # The base classifier (the ONNX beside the weights), opened once for all it tells.
    base = None
    if init is not None and shipped_onnx is not None and shipped_onnx.is_file():
        base = _opened(shipped_onnx)
        crop_width_px, crop_height_px = base_crop_size(base, (crop_width_px, crop_height_px), log)
        style = EnrolledStyle(folder)
        anchors, kin = pair_decks({slots[k]: v for k, v in style.backs.items()}, base)
    log(
        "enroll: anchored "
        + (", ".join(f"{v} = built-in {k}" for k, v in anchors.items()) or "no deck")
        + "".join(f"; {v} is kin to built-in {k} (left out)" for k, v in kin.items())
    )
    with tempfile.TemporaryDirectory(prefix="tallero-enroll-") as tmp:
        t0 = time.perf_counter()
        dirs: list[Path] = []
        # Mostly sorted piles (rows, fans, heaps of each deck), some Blitz leftovers; the
        # user's art, and (a share of scenes) the stand-in art with anchored names.
        n_standin = round(recipe.scenes * recipe.standin_share) if anchors else 0
        n_enrolled = recipe.scenes - n_standin
        for art, n_art, slot_map in (
            (style_name, n_enrolled, slots),
            ("standin", n_standin, {}),
        ):
            hard = recipe.hard_share if slot_map else 0.0
            for kind, share in (
                ("sorted", 0.7 * (1 - hard)),
                ("blitz", 0.3 * (1 - hard)),
                ("hard", hard),
            ):
                n = max(1, round(n_art * share)) if n_art and share else 0
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
                relabel_truth(data, slot_map, anchors, left_out=set(kin))
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
        fan_dir = fan_dataset(folder, Path(tmp) / "fans")  # None without fan photos
        if fan_dir is not None and recipe.fan_copies > 0:
            fan_crops = collect_crops(
                [fan_dir],
                classes,
                crop_width_px,
                crop_height_px,
                jitter_fraction=recipe.crop_jitter_fraction,
                copies=recipe.fan_copies,
                seed=recipe.seed + 1,
            )
            log(f"enroll: {len(fan_crops.labels)} crops of the decks' fan photos")
            crops = join_crops(crops, fan_crops)
        timings["crops_s"] = time.perf_counter() - t0
    counts = np.bincount(crops.labels, minlength=len(classes))
    log("enroll: " + ", ".join(f"{c} {n}" for c, n in zip(classes, counts, strict=True)))
    t0 = time.perf_counter()
    # The features keep the shipped classifier's shape, so they can start from its weights.
    width = state_width(init) if init is not None else DEFAULT_WIDTH
    net = train_net(
        crops,
        None,
        epochs=recipe.epochs,
        seed=recipe.seed,
        threads=recipe.threads,
        lr=recipe.lr if init is not None else 3e-3,
        log=log,
        # A deck's kin is still its likeliest built-in deck: a better start than the mean.
        init_state=_init_state(init, classes, anchors | kin) if init is not None else None,
        width=width,
    )
    timings["fit_s"] = time.perf_counter() - t0
    if init is not None and recipe.keep_shipped > 0:
        skip = ("head.",) if recipe.blend_head == "none" else ()
        blend_weights(net, _init_state(init, classes, anchors | kin), recipe.keep_shipped, skip)
        log(f"enroll: kept {recipe.keep_shipped:.0%} of the shipped classifier's weights")
    factor = 1.0
    shipped = _class_counts(base) if base is not None else None
    if shipped is not None:
        scale = recipe.other_prior_scale
        factor = other_prior_factor(counts, classes, shipped[1], shipped[0], scale)
        _shift_logit(net, classes.index(OTHER), factor)
        log(f"enroll: odds of {OTHER} multiplied by {factor:.3f}")
    export_onnx(
        net,
        out,
        classes,
        crop_width_px,
        crop_height_px,
        extra={
            "profile_decks": json.dumps(list(names)),
            "anchors": json.dumps(anchors),
            "kin": json.dumps(kin),
            "class_counts": json.dumps(counts.tolist()),
            "other_prior_factor": json.dumps(round(factor, 6)),
        },
    )
    return {
        "anchors": anchors,
        "kin": kin,
        "other_prior_factor": round(factor, 6),
        "classes": list(classes),
        "decks": list(names),
        "crops": int(len(crops.labels)),
        "recipe": recipe.__dict__,
        "timings_s": {k: round(v, 1) for k, v in timings.items()},
        "faces": [c[len(FACE_PREFIX) :] for c in classes if c.startswith(FACE_PREFIX)],
        "other": OTHER,
    }
