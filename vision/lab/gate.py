"""Whether a candidate set of models may replace the shipped ones: ``python -m vision.lab.gate
MODELS [--real VOC_DIR] [--set DIR[=PROFILE] ...] [--threads N]``.

A detector continued in chunks (`vision.train.finetune`), with its card checks fitted again
beside it (``tallero train --stage card-check --out MODELS ...``), is committed only when it
holds every floor of the committed regression scenes (``tests/data/regression/floors.json``,
the floors `tests/test_accuracy_floor.py` guards) and finds more of the real photos' cards.
MODELS is a folder holding any of ``tallero-cards.onnx``, ``tallero-check.json``,
``tallero-look.onnx`` and ``tallero-decks.onnx``: each file there stands in for the shipped
one, the others are the shipped ones. Every set is counted with the candidate and with the
shipped models, and one JSON object a set is printed, then a last one with ``"below"``: the
floors the candidate falls under (``{set: {figure: [got, floor]}}``). Exit 1 when it falls
under any.

The real photos' figures are those of ``tallero eval VOC_DIR --split val`` (recall,
precision). Each ``--set`` is a labelled synthetic set (``tallero dataset synth``), such as
the held-out sets of the model card, with the figures of ``tallero eval DIR``; ``=PROFILE``
counts it with a committed regression profile's classifier (``h4``: the heirloom art).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.core.models import REPO_DIR

REGRESSION = REPO_DIR / "tests" / "data" / "regression"
FIGURES = ("deck_exact", "card_precision", "card_recall")
# Each regression set and the committed profile it is counted with (None: built-in decks).
SETS: dict[str, str | None] = {"standin4": None, "standin8": None, "heirloom4": "h4"}
# Model files a candidate folder may hold, by the `Counter` argument each one fills.
MODEL_FILES = {
    "model_path": "tallero-cards.onnx",
    "check_path": "tallero-check.json",
    "look_path": "tallero-look.onnx",
    "classifier_path": "tallero-decks.onnx",
}


@dataclass(frozen=True)
class Models:
    """The model files a counter is made with; ``None``: the shipped one."""

    files: dict[str, Path]

    @classmethod
    def shipped(cls) -> Models:
        return cls({})

    @classmethod
    def candidate(cls, folder: Path) -> Models:
        """The files of ``folder`` that stand in for shipped ones (at least one)."""
        if not folder.is_dir():
            raise SystemExit(f"{folder}: no such folder of models")
        files = {
            arg: folder / name for arg, name in MODEL_FILES.items() if (folder / name).is_file()
        }
        if not files:
            raise SystemExit(f"{folder}: holds none of {', '.join(MODEL_FILES.values())}")
        return cls(files)

    def counter(self, profile: str | None, threads: int) -> Any:
        """A photo counter with these models; a profile's own classifier where it has one."""
        from vision.count.counter import Counter
        from vision.enroll.profiles import CLASSIFIER_FILE

        kwargs: dict[str, Any] = dict(self.files)
        if profile is not None:
            kwargs["classifier_path"] = REGRESSION / "profiles" / profile / CLASSIFIER_FILE
        return Counter(threads=threads, **kwargs)


def floors() -> dict[str, dict[str, float]]:
    """The committed floors, per regression set and figure."""
    loaded: dict[str, dict[str, float]] = json.loads((REGRESSION / "floors.json").read_text())
    return loaded


def regression_figures(name: str, models: Models, threads: int = 2) -> dict[str, float]:
    """One regression set's headline figures (and its scene count) counted with ``models``."""
    result = set_figures(REGRESSION / name, SETS[name], models, threads)
    return {k: float(result[k]) for k in (*FIGURES, "images")}


def below_floors(got: dict[str, dict[str, float]]) -> dict[str, dict[str, list[float]]]:
    """The floors ``got`` (per set and figure) falls under: ``{set: {figure: [got, floor]}}``."""
    out: dict[str, dict[str, list[float]]] = {}
    for name, set_floors in floors().items():
        under = {k: [got[name][k], v] for k, v in set_floors.items() if got[name][k] < v}
        if under:
            out[name] = under
    return out


def set_figures(
    directory: Path, profile: str | None, models: Models, threads: int
) -> dict[str, Any]:
    """A labelled synthetic set's headline figures counted with ``models``."""
    from vision.evaluate.metrics import evaluate_dir

    j = evaluate_dir(directory, models.counter(profile, threads)).to_json()
    keys = ("images", "deck_exact", "card_precision", "card_recall", "sure_share", "sure_exact")
    return {k: j[k] for k in keys}


def real_figures(directory: Path, models: Models, threads: int) -> dict[str, Any]:
    """The real photos' validation split counted with ``models``."""
    from vision.evaluate.photos import evaluate_photos

    j = evaluate_photos(directory, models.counter(None, threads), split="val").to_json()
    return {k: j[k] for k in ("photos", "cards", "card_recall", "card_precision", "photos_exact")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.gate", description=__doc__)
    ap.add_argument("models", type=Path, help="folder of the candidate's model files")
    ap.add_argument("--real", type=Path, help="real photos with Pascal VOC boxes (val split)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="DIR[=PROFILE]",
        help="a labelled synthetic set, with a regression profile's classifier after =",
    )
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    candidate, shipped = Models.candidate(args.models), Models.shipped()
    sets = []
    for spec in args.set:
        folder, _, profile = spec.partition("=")
        if not (Path(folder) / "truth").is_dir():
            raise SystemExit(f"{folder}: not a labelled set (no truth/ folder)")
        if profile and not (REGRESSION / "profiles" / profile).is_dir():
            raise SystemExit(f"{profile}: no such regression profile in {REGRESSION / 'profiles'}")
        sets.append((Path(folder), profile or None))
    committed = floors()
    got: dict[str, dict[str, float]] = {}
    for name in SETS:
        got[name] = regression_figures(name, candidate, args.threads)
        was = regression_figures(name, shipped, args.threads)
        row = {"set": name, "floors": committed[name], "candidate": got[name], "shipped": was}
        print(json.dumps(row), flush=True)
    if args.real is not None:
        row = {
            "set": "real-val",
            "candidate": real_figures(args.real, candidate, args.threads),
            "shipped": real_figures(args.real, shipped, args.threads),
        }
        print(json.dumps(row), flush=True)
    for folder, profile in sets:
        row = {
            "set": str(folder),
            "profile": profile,
            "candidate": set_figures(folder, profile, candidate, args.threads),
            "shipped": set_figures(folder, profile, shipped, args.threads),
        }
        print(json.dumps(row), flush=True)
    below = below_floors(got)
    print(json.dumps({"models": str(args.models), "below": below}))
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
