"""Generation speed: ``python -m vision.synth.bench [--n 300] [--workers 2] [--kind mixed]
[--art standin|endless|family:N] [--imgsz 640]``.

Prints scenes per second for a fresh dataset in a temporary folder (art pools included, as a
real run pays for them too), plus the single-process time per scene kind.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import cv2

from vision.synth.art_family import ENDLESS
from vision.synth.generate import RECIPE_KINDS, SceneOptions, _pools, make_scene, synthesize


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kind", default="mixed", choices=RECIPE_KINDS)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--seed", type=int, default=123)
    ap.add_argument("--art", default="standin", help="standin, endless, family:<N>, ...")
    ap.add_argument("--per-kind", type=int, default=20, help="scenes per kind (0: skip)")
    args = ap.parse_args()
    print(f"cpus {os.cpu_count()}, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        synthesize(
            Path(tmp),
            args.n,
            args.seed,
            kind=args.kind,
            imgsz=args.imgsz,
            workers=args.workers,
            progress=False,
            art=args.art,
        )
        dt = time.perf_counter() - t0
    print(
        f"{args.n} {args.kind} scenes ({args.art}) at {args.imgsz} px, {args.workers} workers: "
        f"{dt:.1f} s, {args.n / dt:.1f} scenes/s (files written, art pools built)"
    )
    if args.per_kind:
        cv2.setNumThreads(1)
        if args.art != ENDLESS:
            _pools(args.art, args.seed, 0)  # per-kind times leave out the block's pool
        for kind in RECIPE_KINDS:
            opts = SceneOptions(args.seed, kind, imgsz=args.imgsz, art=args.art)
            t0 = time.perf_counter()
            for i in range(args.per_kind):
                make_scene(opts, i)
            ms = (time.perf_counter() - t0) / args.per_kind * 1000
            print(f"  {kind:7s} {ms:6.1f} ms/scene in one process")


if __name__ == "__main__":
    main()
