"""Enrollment recipe trials: ``python -m vision.lab.enroll_tune PROFILE DIR --try KEY=V ...``.

Each ``--try`` is one set of `FitRecipe` overrides (``other_prior_scale=0.5``,
``epochs=6``, ...). The enrolled pictures of PROFILE (a folder under
``$TALLERO_HOME/profiles``, or its name) are fitted again with each recipe into a scratch
copy, the profile itself left as it is, and the labelled synthetic set in DIR is counted
with that classifier and the profile's decks. One JSON line per try: the recipe changes,
the headline figures of ``tallero eval``, deck_exact per layout kind, the cards of each
deck called unknown, the fit's anchors, kin and ``other`` factor, and its seconds. This
is how enrollment recipes are chosen, on heirloom sets drawn for tuning (seeds 7504 and
7508), never on the sets reported in the README.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.enroll.fit import FitRecipe

HEADLINE = ("deck_exact", "deck_accuracy", "card_precision", "card_recall")


def parse_recipe(text: str, base: FitRecipe) -> FitRecipe:
    """``"epochs=6,other_prior_scale=0.5"`` -> ``base`` with those fields, typed like them."""
    from vision.lab.sweep import parse_overrides

    return replace(base, **parse_overrides(text, base, "the enrollment recipe"))


def profile_folder(profile: str) -> Path:
    """A profile's folder: the path given, or the named profile of ``$TALLERO_HOME``."""
    path = Path(profile)
    if (path / "profile.json").is_file():
        return path
    from scoring.home import tallero_home
    from vision.enroll.profiles import profiles_root

    named = profiles_root(tallero_home()) / profile
    if (named / "profile.json").is_file():
        return named
    raise ValueError(f"{profile}: no enrolled profile there or by that name")


def trial(
    folder: Path, directory: Path, recipe: FitRecipe, threads: int | None = None
) -> dict[str, Any]:
    """Fit ``folder``'s pictures with ``recipe`` in a scratch copy; count ``directory``."""
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter
    from vision.enroll.fit import fit_profile_classifier
    from vision.evaluate.metrics import evaluate_dir

    decks = tuple(json.loads((folder / "profile.json").read_text())["decks"])
    settings = VisionSettings()
    with tempfile.TemporaryDirectory(prefix="tallero-enroll-tune-") as tmp:
        copy = Path(tmp) / folder.name
        shutil.copytree(folder, copy)
        t0 = time.perf_counter()
        info = fit_profile_classifier(
            copy,
            copy / "decks.onnx",
            settings.crop_width_px,
            settings.crop_height_px,
            recipe=recipe,
            log=lambda _msg: None,
        )
        fit_s = time.perf_counter() - t0
        counter = Counter(classifier_path=copy / "decks.onnx", decks=decks, threads=threads)
        ev = evaluate_dir(directory, counter).to_json()
    return {
        **{k: ev[k] for k in HEADLINE},
        "deck_exact_by_kind": {k: v["deck_exact"] for k, v in ev["by_kind"].items()},
        "unknown_by_deck": {
            k: v.get("unknown", 0) for k, v in ev["confusion"].items() if k in decks
        },
        "anchors": info["anchors"],
        "kin": info["kin"],
        "other_prior_factor": info["other_prior_factor"],
        "fit_s": round(fit_s, 1),
    }


def main(argv: list[str] | None = None) -> None:
    from vision.enroll.run import FIT_RECIPE

    ap = argparse.ArgumentParser(prog="python -m vision.lab.enroll_tune", description=__doc__)
    ap.add_argument("profile", help="enrolled profile: its folder, or its name")
    ap.add_argument("directory", type=Path, help="labelled synthetic set of the same art")
    ap.add_argument(
        "--try",
        dest="tries",
        action="append",
        default=None,
        help="recipe overrides KEY=V[,KEY=V]; repeat for more trials (default: as shipped)",
    )
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if not (args.directory / "truth").is_dir():
        ap.error(f"{args.directory}: not a labelled synthetic set (no truth/ folder)")
    try:
        folder = profile_folder(args.profile)
        recipes = [parse_recipe(t, FIT_RECIPE) for t in (args.tries or [""])]
    except ValueError as exc:
        ap.error(str(exc))
    for text, recipe in zip(args.tries or [""], recipes, strict=True):
        result = trial(folder, args.directory, recipe, args.threads)
        print(json.dumps({"try": text, **result}), flush=True)


if __name__ == "__main__":
    main()
