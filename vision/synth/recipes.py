"""Dataset recipes (``datasets/recipes/*.yaml``): the options of a set, written down.

A recipe holds one set (``out``, ``seed``, ``n``, ``kind``, ``min_visible``, ``decks``, and
optionally ``imgsz`` and ``art``) or several under ``parts``, with shared defaults at the top
level. ``python -m vision.synth.recipes datasets/recipes/eval.yaml`` makes every part.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import yaml

from vision.synth.generate import synthesize

_KEYS = {"out", "seed", "n", "kind", "min_visible", "decks", "imgsz", "art"}
_DEFAULTS: dict[str, Any] = {
    "kind": "mixed",
    "min_visible": 0.3,
    "decks": None,
    "imgsz": 640,
    "art": "standin",
}


def load_recipe(path: Path) -> list[dict[str, Any]]:
    """The sets of a recipe file, each a dict of :func:`synthesize` options plus ``out``."""
    doc = yaml.safe_load(Path(path).read_text())
    if not isinstance(doc, dict):
        raise ValueError(f"{path}: a recipe is a mapping")
    unknown = set(doc) - _KEYS - {"name", "parts"}
    if unknown:
        raise ValueError(f"{path}: unknown keys {sorted(unknown)}")
    shared = {k: v for k, v in doc.items() if k in _KEYS}
    parts = doc.get("parts") or [{}]
    sets = []
    for part in parts:
        spec = {**_DEFAULTS, **shared, **part}
        unknown = set(spec) - _KEYS
        if unknown:
            raise ValueError(f"{path}: unknown keys {sorted(unknown)}")
        missing = {"out", "seed", "n"} - set(spec)
        if missing:
            raise ValueError(f"{path}: missing {sorted(missing)}")
        sets.append(spec)
    return sets


def make_recipe(
    path: Path, root: Path = Path("."), workers: int = 2, progress: bool = True
) -> list[Path]:
    """Generate every set of the recipe under ``root``; returns the dataset folders."""
    done = []
    for spec in load_recipe(path):
        opts = dict(spec)
        out = root / str(opts.pop("out"))
        done.append(synthesize(out, workers=workers, progress=progress, **opts))
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("recipe", type=Path)
    ap.add_argument("--root", type=Path, default=Path("."))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    for out in make_recipe(args.recipe, args.root, args.workers):
        print(out / "data.yaml")


if __name__ == "__main__":
    main()
