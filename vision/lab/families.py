"""Card art nobody has drawn: each held-out art family enrolled from one layout photo (or
more), then counted on hard scenes of that family.

    python -m vision.lab.families OUT [--families 10000001,...] [--decks 4] [--n 100]
        [--imgsz 1920] [--kind hard] [--model ONNX] [--classifier ONNX] [--check JSON]
        [--look ONNX] [--no-enroll] [--layouts 1] [--fans] [--fit KEY=V,...]
        [--try KEY=V,...] [--annotate DIR [--worst 3]]

For each family: the layout scenes (one card of each deck in a row, drawn 1600 px wide; 6
for each photo enrolled) are tried in turn until one (``--layouts N``: N) shows one back of
every deck and nothing else, and the decks are enrolled from it (them, as one profile
named ``f{family}-{decks}-xN``); with ``--fans``, also one fan photo of each deck (the
first fan scene of it of `FAN_SCENES` a deck, ``kind="fan"``; profile ``...-fans``);
``--fit`` fits the profiles with that enrollment recipe (named after it); ``--try`` counts
with those `VisionSettings` overrides. The family's
scenes are drawn; the counter with the profile counts them. Everything lives under OUT
(scenes, a scratch ``$TALLERO_HOME``), so a second run with other models reuses the scenes
and profiles. Prints one JSON line per
family and a last line with the worst and the mean: deck_exact over the decks present
(``present_deck_exact``), card recall and precision, how often a count given as one number
is right (``sure_exact``), how often the range holds the truth (``range_covers``), and
whole decks lost (a deck of 10 or more counted under half). ``--annotate DIR`` draws each
family's worst scenes (most wrong deck counts) as counted, with a JSON of their errors.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import cv2

from scoring.decks import DECK_IDS
from scoring.errors import TalleroError
from vision.lab.sweep import parse_try

HEADLINE = (
    "present_deck_exact",
    "deck_exact",
    "card_recall",
    "card_precision",
    "sure_share",
    "sure_exact",
    "range_covers",
    "decks_lost",
)
# Layout scenes drawn for each photo a profile enrolls (some lay other cards beside the row).
LAYOUT_SCENES = 6
# Fan scenes (one deck each, `kind="fan"`) drawn for each deck when fans are enrolled.
FAN_SCENES = 6
# The kinds of card error (vision.lab.count_errors) the detector makes, and naming makes.
DETECTOR_ERRORS = ("missed_under_half", "missed", "double_find", "off_find", "false_find")
NAMING_ERRORS = ("named_otherwise", "deck_named_this", "other_art_named_this", "face_named_this")


def scenes(out: Path, n: int, seed: int, kind: str, decks: int, art: str, imgsz: int) -> Path:
    """Draw (or reuse) ``n`` scenes."""
    from vision.synth.generate import synthesize

    have = len(list((out / "truth").glob("*.json"))) if (out / "truth").is_dir() else 0
    if have < n:
        synthesize(
            out, n=n, seed=seed, kind=kind, decks=decks, art=art, imgsz=imgsz, progress=False
        )
    return out


def enroll_family(
    out: Path, family: int, decks: int, profile: str, layouts: int = 1
) -> dict[str, Any]:
    """Enroll the family's decks from the first ``layouts`` layout scenes that each show one
    back per deck."""
    from scoring.home import tallero_home
    from vision.enroll.run import enroll_layout, layout_pictures

    names = list(DECK_IDS[:decks])
    found = scenes(
        out / "layout", LAYOUT_SCENES * layouts, 8000 + family % 1000, "layout", decks,
        f"family:{family}", 1600,
    )  # fmt: skip
    usable: list[Path] = []
    tried = []
    for image in sorted((found / "images").glob("*.jpg"))[: LAYOUT_SCENES * layouts]:
        try:
            layout_pictures([image], names, "decks", None, tallero_home(), lambda _m: None)
        except TalleroError as exc:
            tried.append(f"{image.name}: {exc}")
            continue
        usable.append(image)
        if len(usable) == layouts:
            result = enroll_layout(usable, names, "decks", profile, None, lambda _m: None)
            photos = [p.name for p in usable]
            return {"photos": photos, "seconds": result["seconds"], "refused": tried}
    raise RuntimeError(
        f"family {family}: {len(usable)} of {layouts} layout scenes enrolled: {tried}"
    )


def enroll_family_fans(out: Path, family: int, decks: int, profile: str) -> dict[str, Any]:
    """Enroll one fan photo of each of the family's decks (the first fan scene drawn of
    it) into ``profile``, whose backs are enrolled already."""
    from vision.enroll.run import enroll_fans

    names = list(DECK_IDS[:decks])
    found = scenes(
        out / "fan", FAN_SCENES * decks, 8500 + family % 1000, "fan", decks,
        f"family:{family}", 1600,
    )  # fmt: skip
    photos: dict[str, Path] = {}
    for path in sorted((found / "truth").glob("*.json")):
        truth = json.loads(path.read_text())
        deck = truth["cards"][0]["deck"]
        photos.setdefault(deck, found / "images" / truth["image"])
    lacking = [d for d in names if d not in photos]
    if lacking:
        raise RuntimeError(f"family {family}: no fan scene of {', '.join(lacking)}")
    result = enroll_fans([photos[d] for d in names], names, profile, None, lambda _m: None)
    return {
        "fans": [photos[d].name for d in names],
        "backs": result["fans"],
        "seconds": result["seconds"],
    }


def count_family(directory: Path, profile: str | None, args: argparse.Namespace) -> dict[str, Any]:
    """The headline figures of the family's scenes, counted with the profile's classifier."""
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter
    from vision.enroll.profiles import classifier_for
    from vision.evaluate.metrics import Evaluation, counted_scenes
    from vision.lab.count_errors import pair_errors, summarize

    classifier, enrolled = classifier_for(profile) if profile else (None, None)
    counter = Counter(
        model_path=args.model,
        classifier_path=args.classifier or classifier,
        check_path=args.check,
        look_path=args.look,
        decks=enrolled,
        threads=args.threads,
        settings=VisionSettings().with_overrides(**args.tries),
    )
    ev = Evaluation()
    records: list[tuple[str, dict[str, Any]]] = []
    pairs = 0
    # (wrong decks, image, truth, count, the errors behind them)
    worst: list[tuple[int, str, dict[str, Any], Any, list[dict[str, Any]]]] = []
    for truth, count in counted_scenes(directory, counter, args.n):
        ev.add(truth, count)
        pairs += len(truth["decks"])
        wrong = pair_errors(truth, count.cards, count.ranges)
        records.extend(("all", r) for r in wrong)
        if args.annotate and wrong:
            worst.append((len(wrong), truth["image"], truth, count, wrong))
            worst = sorted(worst, key=lambda w: (-w[0], w[1]))[: args.worst]
    if args.annotate:
        write_worst(directory, args.annotate / directory.parent.name, worst)
    figures = ev.to_json()
    why = summarize(records, pairs)
    events = why["events"]
    return {
        **{k: figures[k] for k in (*HEADLINE, "images")},
        "errors_detector": sum(events.get(k, 0) for k in DETECTOR_ERRORS),
        "errors_naming": sum(events.get(k, 0) for k in NAMING_ERRORS),
        "pairs_due_only_to": why["pairs_due_only_to"],
    }


def write_worst(
    directory: Path, out: Path, worst: list[tuple[int, str, dict, Any, list[dict[str, Any]]]]
) -> None:
    """The scenes with the most wrong deck counts, drawn with what was counted, and beside
    each a JSON of every deck's true and counted number and the errors behind it."""
    from vision.count.annotate import CountAnnotator

    out.mkdir(parents=True, exist_ok=True)
    for rank, (_, image, truth, count, why) in enumerate(worst, 1):
        picture = cv2.imread(str(directory / "images" / image))
        drawn = CountAnnotator().annotate(picture, count)
        cv2.imwrite(str(out / f"{rank:02d}-{Path(image).stem}.jpg"), drawn)
        decks = {
            d: {
                "truth": int(truth["counts"].get(d, 0)),
                "counted": count.counts.get(d, 0),
                "range": list(count.ranges.get(d, ())) or None,
            }
            for d in truth["decks"]
        }
        (out / f"{rank:02d}-{Path(image).stem}.json").write_text(
            json.dumps({"image": image, "decks": decks, "wrong": why}, indent=1)
        )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.families", description=__doc__)
    ap.add_argument("out", type=Path)
    ap.add_argument("--families", default="10000001,10000002,10000003,10000004,10000005")
    ap.add_argument("--decks", type=int, default=4)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--kind", default="hard")
    ap.add_argument("--imgsz", type=int, default=1920)
    ap.add_argument("--model", type=Path)
    ap.add_argument("--classifier", type=Path)
    ap.add_argument("--check", type=Path)
    ap.add_argument("--look", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-enroll", action="store_true", help="count with the built-in decks")
    ap.add_argument("--layouts", type=int, default=1, help="layout photos each profile enrolls")
    ap.add_argument(
        "--fit", default="", help="enrollment recipe overrides KEY=V[,KEY=V] (`FitRecipe`)"
    )
    ap.add_argument(
        "--try", dest="tries", default="", help="vision settings KEY=V[,KEY=V] to count with"
    )
    ap.add_argument(
        "--fans", action="store_true", help="also enroll a fan photo of each deck (`enroll fan`)"
    )
    ap.add_argument(
        "--annotate", type=Path, help="draw each family's worst scenes here, with their errors"
    )
    ap.add_argument("--worst", type=int, default=3, help="scenes drawn per family (--annotate)")
    args = ap.parse_args(argv)
    if args.layouts < 1:
        ap.error(f"--layouts must be 1 or more, not {args.layouts}")
    try:
        args.tries = parse_try(args.tries)
    except ValueError as exc:
        ap.error(str(exc))
    if args.fit:
        from vision.enroll import run as enroll_run
        from vision.lab.enroll_tune import parse_recipe

        try:
            enroll_run.FIT_RECIPE = parse_recipe(args.fit, enroll_run.FIT_RECIPE)
        except ValueError as exc:
            ap.error(str(exc))
    os.environ["TALLERO_HOME"] = str((args.out / "home").resolve())
    rows = []
    for family in (int(f) for f in args.families.split(",")):
        base = args.out / f"family-{family}-{args.decks}"
        t0 = time.perf_counter()
        hard = scenes(
            base / args.kind, args.n, 9000 + family % 1000, args.kind, args.decks,
            f"family:{family}", args.imgsz,
        )  # fmt: skip
        profile = None
        enrolled: dict[str, Any] = {}
        if not args.no_enroll:
            profile = f"f{family}-{args.decks}" + (f"-x{args.layouts}" if args.layouts > 1 else "")
            profile += "-fans" if args.fans else ""
            profile += "-" + re.sub(r"[^a-z0-9_]+", "-", args.fit.lower()) if args.fit else ""
            if not (args.out / "home" / "profiles" / profile / "decks.onnx").is_file():
                enrolled = enroll_family(base, family, args.decks, profile, args.layouts)
                if args.fans:
                    enrolled["fans"] = enroll_family_fans(base, family, args.decks, profile)
        row = {"family": family, "decks": args.decks, **count_family(hard, profile, args)}
        row["seconds"] = round(time.perf_counter() - t0, 1)
        if enrolled:
            row["enrolled"] = enrolled
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary: dict[str, Any] = {"families": len(rows), "decks": args.decks}
    for k in HEADLINE:
        values = [r[k] for r in rows if r[k] is not None]
        if not values:
            continue
        summary[f"mean_{k}"] = round(sum(values) / len(values), 4)
        summary[f"worst_{k}"] = max(values) if k == "decks_lost" else min(values)
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
