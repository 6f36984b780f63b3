"""Which deck classifier tells foreign backs from a deck: ``python -m vision.lab.classifier_trial``.

Most finds named for a deck they are not are backs of no deck of the game (a foreign
deck's cards, printed in one ink with a border and a motif, like a Dutch Blitz back):
the 32x48 px classifier reads the ink and the rough shape and names them after the deck
of that ink. Whether more pixels or a wider network tell the drawings apart is a question
for a short trial before a long run (`vision.train.gpu`): this fits a classifier from
scratch on truth crops of some scenes, with the crop size and width given, and measures
it on truth crops of others:

- ``accuracy`` over all crops;
- ``foreign_named_deck``: of the backs of no deck (class ``other``), the share named a
  deck; ``deck_named_other``: of the decks' backs, the share named ``other``;
  ``deck_named_deck``: named another deck;
- ``foreign_named_deck_at``: the first share again once the ``other`` logit is moved so
  that a given share of the decks' backs (1%, 2%, 5%) is named ``other``, so classifiers
  that lean differently between deck and ``other`` are compared at the same cost;
- the same split into backs showing under half of themselves and the rest.

``--model`` measures an exported classifier (the shipped one) the same way instead.
``--init PT`` continues a classifier's weights (``models/tallero-decks.pt``, with its
width) instead of starting from scratch, at ``--lr``; ``--export ONNX`` writes the trial
classifier (with its weights beside it) so ``python -m vision.lab.sweep DIR --classifier ONNX``
can count with it.
One JSON object is printed and, with ``--out``, written there. Nothing is shipped: what
wins goes into the accelerator recipe.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from scoring.errors import ModelError
from vision.core.rectify import to_blob
from vision.name.classifier import FACE_PREFIX, OTHER
from vision.train.deck_net import CropSet, collect_crops

LOSS_SHARES = (0.01, 0.02, 0.05)


def _shifted_predictions(logits: np.ndarray, other: int, shift: float) -> np.ndarray:
    z = np.asarray(logits, np.float64).copy()
    z[:, other] += shift
    return z.argmax(axis=1)


def open_set_figures(
    logits: np.ndarray,
    labels: np.ndarray,
    classes: tuple[str, ...],
    loss_shares: tuple[float, ...] = LOSS_SHARES,
) -> dict[str, object]:
    """Accuracy and how foreign backs and deck backs are told apart (module docstring).

    ``logits`` ``(n, classes)``, ``labels`` ``(n,)`` class indices. A figure whose crops
    are missing (no foreign backs, no deck backs) is ``None``.
    """
    logits = np.asarray(logits, np.float64)
    labels = np.asarray(labels)
    if logits.ndim != 2 or logits.shape != (len(labels), len(classes)):
        raise ValueError("logits must be (n, classes) with one label per row")
    if OTHER not in classes:
        raise ValueError(f"the classes have no {OTHER!r} class")
    other = classes.index(OTHER)
    is_deck_class = np.array([c != OTHER and not c.startswith(FACE_PREFIX) for c in classes])
    pred = logits.argmax(axis=1)
    foreign = labels == other
    deck = is_deck_class[labels]

    def share(mask: np.ndarray, hit: np.ndarray) -> float | None:
        return round(float(hit[mask].mean()), 4) if mask.any() else None

    out: dict[str, object] = {
        "crops": int(len(labels)),
        "foreign_backs": int(foreign.sum()),
        "deck_backs": int(deck.sum()),
        "accuracy": round(float((pred == labels).mean()), 4) if len(labels) else None,
        "foreign_named_deck": share(foreign, is_deck_class[pred]),
        "deck_named_other": share(deck, pred == other),
        "deck_named_deck": share(deck, is_deck_class[pred] & (pred != labels)),
    }
    at: dict[str, float | None] = {}
    if foreign.any() and deck.any():
        # How far the deck backs' best deck logit lies above their other logit: moving
        # the other logit by the share's quantile of that margin names that share other.
        z = logits[deck]
        best_deck = np.where(is_deck_class[None, :], z, -np.inf).max(axis=1)
        margin = best_deck - z[:, other]
        for s in loss_shares:
            shift = float(np.quantile(margin, s))
            p = _shifted_predictions(logits, other, shift)
            at[f"{s:g}"] = round(float(is_deck_class[p][foreign].mean()), 4)
    out["foreign_named_deck_at"] = at or None
    return out


def trial_figures(
    logits: np.ndarray, labels: np.ndarray, visible: np.ndarray, classes: tuple[str, ...]
) -> dict[str, object]:
    """`open_set_figures` over all crops and per visibility (under half, the rest)."""
    visible = np.asarray(visible)
    out = open_set_figures(logits, labels, classes)
    for name, mask in (("under_half", visible < 0.5), ("half_or_more", visible >= 0.5)):
        out[name] = open_set_figures(logits[mask], labels[mask], classes) if mask.any() else None
    return out


def _truth_crops(
    args: argparse.Namespace,
    dirs: list[Path],
    classes: tuple[str, ...],
    size: tuple[int, int],
    val: bool,
) -> CropSet:
    """Truth crops as the shipped recipe cuts them (3% corner jitter, one copy)."""
    return collect_crops(
        dirs,
        classes,
        *size,
        jitter_fraction=0.03,
        copies=1,
        seed=args.seed + (1 if val else 0),
        min_visible=args.min_visible,
        limit_images=args.val_limit if val else args.limit,
    )


def measure_model(args: argparse.Namespace) -> dict[str, object]:
    """The figures of an exported classifier (``--model``) on the validation crops."""
    from vision.name.classifier import DeckClassifier

    clf = DeckClassifier(args.model, threads=args.threads)
    val = _truth_crops(args, [args.val], clf.classes, (clf.width_px, clf.height_px), val=True)
    logits = [
        clf.session.run(["logits"], {"crops": to_blob(val.images[s : s + 1024])})[0]
        for s in range(0, len(val.labels), 1024)
    ]
    logits = np.concatenate(logits) if logits else np.zeros((0, len(clf.classes)))
    return {
        "model": str(args.model),
        "size": [clf.width_px, clf.height_px],
        "val": str(args.val),
        **trial_figures(logits, val.labels, val.visible, clf.classes),
    }


def set_recipe(directory: Path) -> dict[str, object]:
    """A scene set as its ``recipe.json`` tells how to draw it again, with its name."""
    path = Path(directory) / "recipe.json"
    drawn = json.loads(path.read_text()) if path.is_file() else {}
    return {"name": Path(directory).name, **drawn}


def init_recipe(init: Path) -> dict[str, object]:
    """The weights a trial continued: their file's sha256 and, from the ONNX beside them,
    the recipe they were made with (so a continued classifier keeps its whole history)."""
    from scoring.home import file_sha256
    from vision.name.classifier import DeckClassifier

    out: dict[str, object] = {"file": Path(init).name, "sha256": file_sha256(Path(init))}
    onnx = Path(init).with_suffix(".onnx")
    if onnx.is_file():
        meta = DeckClassifier(onnx, threads=1).metadata
        if "recipe" in meta:
            out["recipe"] = json.loads(meta["recipe"])
    return out


def trial_recipe(args: argparse.Namespace) -> dict[str, object]:
    """What a trial classifier was made from, stored in its ONNX as ``recipe``."""
    return {
        "trial": {
            "train": [set_recipe(d) for d in args.train],
            "min_visible": args.min_visible,
            "limit": args.limit,
            "size": list(args.size),
            "width": args.width,
            "epochs": args.epochs,
            "lr": args.lr,
            "seed": args.seed,
            "init": init_recipe(args.init) if args.init is not None else None,
        }
    }


def run_trial(args: argparse.Namespace) -> dict[str, object]:
    from vision.synth.decks import ALL_DECKS, FACE_COLORS
    from vision.train.deck_net import default_classes, logits_torch, state_width, train_net

    classes = default_classes(ALL_DECKS, FACE_COLORS)
    w, h = args.size
    t0 = time.time()
    train = _truth_crops(args, args.train, classes, args.size, val=False)
    val = _truth_crops(args, [args.val], classes, args.size, val=True)
    crops_s = time.time() - t0
    print(
        f"trial {w}x{h} width {args.width}: {len(train.labels)} train crops, "
        f"{len(val.labels)} val crops ({crops_s:.0f} s)",
        file=sys.stderr,
    )
    init_state = None
    if args.init is not None:
        import torch

        init_state = torch.load(args.init, map_location="cpu", weights_only=True)
        head = init_state.get("head.weight")
        widths_match = "features.0.weight" in init_state and state_width(init_state) == args.width
        if head is None or len(head) != len(classes) or not widths_match:
            raise ModelError(
                f"{args.init}: not a width-{args.width} classifier of the {len(classes)} "
                "built-in classes (give its --width)"
            )
    t1 = time.time()
    net = train_net(
        train,
        None,
        epochs=args.epochs,
        seed=args.seed,
        threads=args.threads,
        lr=args.lr,
        width=args.width,
        log=lambda m: print(m, file=sys.stderr, flush=True),
        init_state=init_state,
    )
    fit_s = time.time() - t1
    figures = trial_figures(logits_torch(net, val.images), val.labels, val.visible, classes)
    if args.export is not None:
        from vision.train.deck_net import save_classifier

        counts = np.bincount(train.labels, minlength=len(classes)).tolist()
        save_classifier(net, args.export, classes, w, h, trial_recipe(args), counts)
    return {
        "size": [w, h],
        "width": args.width,
        "epochs": args.epochs,
        "init": str(args.init) if args.init else None,
        "lr": args.lr,
        "seed": args.seed,
        "train": [str(p) for p in args.train],
        "train_crops": int(len(train.labels)),
        "val": str(args.val),
        "fit_s": round(fit_s, 1),
        **figures,
    }


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must be WxH, like 32x48 (got {text!r})") from None
    if not (8 <= w <= 256 and 8 <= h <= 256):
        raise argparse.ArgumentTypeError("each side of the size must be within 8..256 px")
    return w, h


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.classifier_trial", description=__doc__)
    ap.add_argument("--train", type=Path, nargs="+", help="labelled scene sets to fit on")
    ap.add_argument(
        "--model", type=Path, default=None, help="measure this exported classifier instead"
    )
    ap.add_argument("--val", type=Path, required=True, help="a labelled scene set")
    ap.add_argument("--size", type=_size, default=(32, 48), help="crop WxH (default 32x48)")
    ap.add_argument("--width", type=int, default=24, help="network width (shipped: 24)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--init", type=Path, default=None, help="continue these weights (.pt)")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one cycle)")
    ap.add_argument("--export", type=Path, default=None, help="write the classifier here")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--min-visible", type=float, default=0.3)
    ap.add_argument("--limit", type=int, default=None, help="train scenes at most")
    ap.add_argument("--val-limit", type=int, default=None, help="val scenes at most")
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args(argv)
    if bool(args.train) == bool(args.model):
        ap.error("give either --train (fit a trial classifier) or --model (measure one)")
    if args.init is not None and not args.init.is_file():
        ap.error(f"{args.init}: no such weights file")
    if args.export is not None and args.export.suffix != ".onnx":
        ap.error(f"{args.export}: the exported classifier must end in .onnx")
    for d in [*(args.train or []), args.val]:
        if not (d / "truth").is_dir():
            ap.error(f"{d}: not a labelled scene set (no truth/ folder)")
    try:
        result = measure_model(args) if args.model else run_trial(args)
    except ModelError as exc:
        ap.exit(2, f"error: {exc}\n")
    text = json.dumps(result)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
