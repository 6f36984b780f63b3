"""Tables with no card on them: how many cards the counter finds where there are none.

    python -m vision.lab.empty_tables [--n 100] [--seed 61] [--kind tablecloth] [--px 640]
        [--model ONNX] [--check JSON] [--threads 2]

Each picture is a table of the scene generator (`vision.synth.tables`: wood, cloth,
laminate, or tablecloths of stripes, gingham and dots) seen from above at a card-table
scale (1.5-4 px a mm: a card 84-224 px long at 640 px), nothing on it. Prints one JSON
line: the pictures, the share with any card found, cards found a picture (mean, max), the
cards named a deck, and the worst picture.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth.tables import KINDS, bare_table


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from vision.count.counter import Counter

    counter = Counter(model_path=args.model, check_path=args.check, threads=args.threads)
    rng = np.random.default_rng(args.seed)
    found: list[int] = []
    named = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.n):
            path = Path(tmp) / f"{k:04d}.jpg"
            cv2.imwrite(str(path), bare_table(rng, args.kind, args.px, args.px * 3 // 4))
            count = counter.count(path)
            found.append(len(count.cards))
            named += sum(count.counts.values())
    worst = int(np.argmax(found)) if found else 0
    return {
        "pictures": args.n,
        "kind": args.kind or "any",
        "with_a_find": round(float(np.mean([f > 0 for f in found])), 4),
        "finds_mean": round(float(np.mean(found)), 3),
        "finds_max": int(max(found, default=0)),
        "named_a_deck": named,
        "worst": {"picture": worst, "finds": found[worst] if found else 0},
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.empty_tables", description=__doc__)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=61)
    ap.add_argument("--kind", choices=KINDS, default=None, help="one kind of table (default: any)")
    ap.add_argument("--px", type=int, default=640, help="picture width")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--check", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    print(json.dumps(measure(ap.parse_args(argv))), flush=True)


if __name__ == "__main__":
    main()
