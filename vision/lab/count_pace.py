"""The live counter's pace with two sets of `VisionSettings`, side by side on one machine.

``python -m vision.lab.count_pace --a KEY=V,... --b KEY=V,... [--size 854x480]
[--seconds 20] [--rounds 3] [--clips DIR]``

The bench's camera table (`vision.evaluate.bench.camera_table`: a sorted table of 8 decks,
64 cards) at ``--size`` is watched from a 30 fps camera with the count beside the window
(`Beside`), as ``tallero watch`` does, for ``--seconds`` a run, the two counters taking
turns ``--rounds`` times (a noisy machine slows both alike). One JSON line a run: frames
shown a second, counts a second and the median count's delay (s). With ``--clips DIR``
(webcam clips, ``dataset synth --kind video``) it first times the count alone on 10
frames of each of the first 10 clips, each counter in turn clip by clip: ms a count each,
and the median ratio b / a over the clips.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from vision.core.settings import VisionSettings
from vision.count.counter import Counter


def clip_frames(path: Path, every: int = 4, n: int = 10) -> list[np.ndarray]:
    """Every ``every``-th frame of a clip, ``n`` of them."""
    cap = cv2.VideoCapture(str(path))
    frames = []
    k = 0
    while len(frames) < n:
        ok, frame = cap.read()
        if not ok:
            break
        if k % every == 0:
            frames.append(frame)
        k += 1
    cap.release()
    return frames


def time_alone(counters: dict[str, Counter], clips: list[Path]) -> dict[str, float]:
    """ms a count for each counter on the clips' frames, and the median ratio b / a."""
    total = dict.fromkeys(counters, 0.0)
    ratios = []
    n = 0
    for i, path in enumerate(clips):
        frames = clip_frames(path)
        spent = {}
        for name in sorted(counters, reverse=i % 2 == 1):
            counter = counters[name]
            counter.forget_looks()
            t0 = time.perf_counter()
            for frame in frames:
                counter.count(frame, name="frame")
            spent[name] = time.perf_counter() - t0
            total[name] += spent[name]
        ratios.append(spent["b"] / spent["a"])
        n += len(frames)
    return {
        **{f"{k}_ms": round(1000 * v / max(n, 1)) for k, v in total.items()},
        "ratio": round(statistics.median(ratios), 3),
    }


def main(argv: list[str] | None = None) -> None:
    from vision.lab.sweep import parse_try

    ap = argparse.ArgumentParser(prog="python -m vision.lab.count_pace", description=__doc__)
    ap.add_argument("--a", default="", metavar="KEY=V,...", help="the first counter's settings")
    ap.add_argument("--b", default="", metavar="KEY=V,...", help="the second's")
    ap.add_argument("--size", default="854x480", help="the camera's frames, WxH")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--clips", type=Path, default=None, help="webcam clips to time alone")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
        tries = {"a": parse_try(args.a), "b": parse_try(args.b)}
        counters = {
            k: Counter(threads=2, live=True, settings=VisionSettings(**v)) for k, v in tries.items()
        }
    except ValueError as exc:
        ap.error(str(exc))
    if args.clips is not None:
        from vision.evaluate.video import clip_files

        clips = clip_files(args.clips)[:10] if args.clips.is_dir() else []
        if not clips:
            ap.error(f"{args.clips}: no clips")
        print(json.dumps({"alone": time_alone(counters, clips), **tries}), flush=True)
    from vision.evaluate.bench import camera_table, watch_camera
    from vision.live.counting import Beside

    frames, decks, _ = camera_table((w, h))
    for counter in counters.values():
        counter.count(frames[0], name="warm-up", decks=decks)
    for r in range(args.rounds):
        for name in sorted(counters, reverse=r % 2 == 1):
            row = watch_camera(counters[name], frames, decks, Beside(), args.seconds)
            print(json.dumps({"counter": name, "size": args.size, **row}), flush=True)


if __name__ == "__main__":
    main()
