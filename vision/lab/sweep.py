"""Run-time threshold sweeps: ``python -m vision.lab.sweep DIR --try KEY=V[,KEY=V] ...``.

Each ``--try`` is one set of `VisionSettings` overrides; the labelled synthetic set in DIR
(images/, truth/) is counted with each and the headline figures of ``tallero eval`` are
printed, one line per try. Thresholds are chosen this way on the tuning sets (seeds 2500
and 2600), never on the evaluation sets. ``--profile P`` counts with that profile's enrolled
classifier and decks, as ``tallero eval --profile`` (a profile with nothing enrolled counts
with the built-in decks).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import fields
from pathlib import Path
from typing import Any

from vision.core.settings import VisionSettings

HEADLINE = ("deck_exact", "image_exact", "mae", "card_precision", "card_recall")
# What the user is asked to look at, and how often a count given as one number is right.
DOUBT = ("flagged_share", "miscounting_flagged", "sure_share", "sure_exact", "wrong_counts_ranged")


def parse_try(text: str) -> dict[str, Any]:
    """``"detector_input_px=640,nms_iou=0.5"`` -> overrides typed like the settings fields."""
    return parse_overrides(text, VisionSettings(), "the vision settings")


def _field_type(f: Any, base: Any) -> type:
    """The type a field's value is parsed as: its default's, or for a ``X | None`` field
    whose default is None, ``X``."""
    value = getattr(base, f.name)
    if value is not None:
        return type(value)
    first = str(f.type).split("|")[0].strip()
    return {"bool": bool, "int": int, "float": float}.get(first, str)


def parse_overrides(text: str, base: Any, what: str) -> dict[str, Any]:
    """``"KEY=V,KEY=V"`` -> overrides of the dataclass ``base``, each typed like its field
    (``none`` for a field that may be None).

    ``what`` names the fields in errors ("not a KEY=VALUE of {what}").
    """
    types = {f.name: _field_type(f, base) for f in fields(base)}
    optional = {f.name for f in fields(base) if "None" in str(f.type)}
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or key not in types:
            raise ValueError(f"not a KEY=VALUE of {what}: {part!r}")
        if key in optional and value.lower() == "none":
            out[key] = None
        elif types[key] is bool:
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"{key} takes true or false, not {value!r}")
            out[key] = value.lower() in ("true", "1")
        else:
            try:
                out[key] = types[key](value)
            except ValueError:
                raise ValueError(f"{key} takes a {types[key].__name__}, not {value!r}") from None
    return out


def sweep(
    directory: Path,
    tries: list[dict[str, Any]],
    model: Path | None = None,
    limit: int | None = None,
    threads: int | None = None,
    classifier: Path | None = None,
    check: Path | None = None,
    look: Path | None = None,
    profile: str | None = None,
) -> list[dict[str, Any]]:
    """One result per try: its overrides, the headline figures, deck_exact per kind, seconds.

    ``classifier``, ``check``, ``look``: a deck classifier, card check or card look other
    than the shipped one (a trial's or a refit's output). ``profile``: count with its
    enrolled classifier and decks (not together with ``classifier``).
    """
    from vision.count.counter import Counter
    from vision.enroll.profiles import classifier_for
    from vision.evaluate.metrics import evaluate_dir

    decks = None
    if profile is not None:
        if classifier is not None:
            raise ValueError("give a classifier or a profile, not both")
        classifier, decks = classifier_for(profile)
    results = []
    for overrides in tries:
        counter = Counter(
            model_path=model,
            classifier_path=classifier,
            check_path=check,
            look_path=look,
            decks=decks,
            settings=VisionSettings(**overrides),
            threads=threads,
        )
        t0 = time.perf_counter()
        ev = evaluate_dir(directory, counter, limit=limit).to_json()
        results.append(
            {
                "settings": overrides,
                **{k: ev[k] for k in HEADLINE},
                **{k: ev[k] for k in DOUBT},
                "deck_exact_by_kind": {k: v["deck_exact"] for k, v in ev["by_kind"].items()},
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
    return results


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.sweep", description=__doc__)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--try", dest="tries", action="append", default=[], metavar="KEY=V,...")
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--classifier", type=Path, default=None, help="deck classifier (.onnx)")
    ap.add_argument("--check", type=Path, default=None, help="card check (.json)")
    ap.add_argument("--look", type=Path, default=None, help="card look (.onnx)")
    ap.add_argument("--profile", default=None, help="profile of enrolled decks ($TALLERO_HOME)")
    args = ap.parse_args(argv)
    try:
        tries = [parse_try(t) for t in args.tries] or [{}]
    except ValueError as exc:
        ap.error(str(exc))
    if not (args.directory / "truth").is_dir():
        ap.error(f"{args.directory}: not a labelled synthetic set (no truth/ folder)")
    for what, path in (("classifier", args.classifier), ("check", args.check), ("look", args.look)):
        if path is not None and not path.is_file():
            ap.error(f"{path}: no such {what} file")
    try:
        rows = sweep(
            args.directory,
            tries,
            args.model,
            args.limit,
            args.threads,
            args.classifier,
            args.check,
            args.look,
            args.profile,
        )
    except ValueError as exc:  # a classifier and a profile, or a setting out of its range
        ap.error(str(exc))
    for row in rows:
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
