"""Webcam clips watched as a camera gives them: in real time, the count beside the window.

``python -m vision.lab.live_realtime CLIPS --a KEY=V,... --b KEY=V,... [--a-vision KEY=V,...]
[--b-vision KEY=V,...] [--limit N] [--threads 1]``

`vision.lab.live_replay` replays clips with each count reaching the table a fixed delay
after its frame (`InLoop`): a model of a counter beside a camera. Here nothing is modelled:
each clip of CLIPS (``dataset synth --kind video``) is served frame by frame on the wall
clock at its own frame rate, as a camera serves it, through `watch_events` with the count
beside the window (`Beside`) and the window drawn, exactly as ``tallero watch`` runs on a
camera; what the view showed on each frame is scored against the clip's truth
(`vision.evaluate.video.score_clip`). Each clip is watched with the `LiveSettings` of
``--a`` and then of ``--b`` (a machine slowing down slows both alike), each counted with
the `VisionSettings` of ``--a-vision`` / ``--b-vision`` (the count's own pace and what it
finds both change: how that plays out on a camera is what this measures). Prints the figures
of `tallero eval CLIPS` per number of decks for each, with the counts' median delay and the
share of counts made of a part of the frame. Run it on an otherwise idle machine: it takes
the clips' own length twice.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.evaluate.bench import PacedCamera
from vision.live.settings import LiveSettings


class ClipCamera(PacedCamera):
    """A camera (OpenCV's capture calls) serving a clip's ``frames`` on the wall clock at
    ``fps``: a read waits for the next frame's time, and a frame whose time has passed while
    the loop was busy is skipped, as a camera drops it; past the clip's end its last frame.
    ``served``: the frames given."""

    def __init__(self, frames: list[np.ndarray], fps: float) -> None:
        super().__init__(frames, fps)
        self.served: list[int] = []

    def read(self) -> tuple[bool, np.ndarray]:
        now = time.perf_counter()
        if self.start is None:
            self.start = now
        k = int((now - self.start) * self.fps)
        if self.served and k <= self.served[-1]:
            k = self.served[-1] + 1
            time.sleep(max(0.0, self.start + k / self.fps - time.perf_counter()))
        k = min(k, len(self.frames) - 1)
        self.served.append(k)
        return True, self.frames[k].copy()


def watch_clip(counter: Counter, path: Path, settings: LiveSettings) -> tuple[Any, float, float]:
    """One clip watched in real time with ``settings``: its `ClipResult`, the counts' median
    delay (s) and the share of counts made of a part of the frame."""
    from vision.evaluate.video import score_clip
    from vision.live.counting import Beside
    from vision.live.sources import CaptureSource
    from vision.live.watch import Tick, Watcher, watch_events
    from vision.live.window import Panel, draw_window

    rec = json.loads(path.with_suffix(".json").read_text())
    decks = tuple(rec["decks"])
    fps = float(rec["fps"])
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    cap.release()
    camera = ClipCamera(frames, fps)
    source = CaptureSource(0, live=True, opener=camera.open)
    watcher = Watcher(counter, decks, settings, fps=fps, pace=Beside())
    panel = Panel([(d, d) for d in decks])
    n = len(frames)
    shown: list[dict[str, int] | None] = [None] * n
    steady = [False] * n
    events = watch_events(source, watcher)
    try:
        for event in events:
            if not isinstance(event, Tick):
                continue
            draw_window(event, panel)
            k = camera.served[-1]
            shown[k], steady[k] = event.view.count.counts, event.view.steady
            if k >= n - 1:
                break
    finally:
        events.close()  # the count under way is let finish
    # a frame the camera dropped shows what the frame before it showed
    last: dict[str, int] = {d: 0 for d in decks}
    was = False
    for k in range(n):
        if shown[k] is None:
            shown[k], steady[k] = last, was
        last, was = shown[k] or last, steady[k]
    result = score_clip(path.name, rec, [s or {} for s in shown], steady, {}, fps)
    counted = max(watcher.counted_frames, 1)
    return result, watcher.count_delay_s, watcher.part_counts / counted


def main(argv: list[str] | None = None) -> None:
    from vision.evaluate.video import VideoEvaluation, clip_files
    from vision.lab.sweep import parse_overrides

    ap = argparse.ArgumentParser(prog="python -m vision.lab.live_realtime", description=__doc__)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--a", default="", metavar="KEY=V,...", help="LiveSettings overrides")
    ap.add_argument("--b", default="", metavar="KEY=V,...", help="LiveSettings overrides")
    ap.add_argument("--a-vision", default="", metavar="KEY=V,...", help="VisionSettings of a")
    ap.add_argument("--b-vision", default="", metavar="KEY=V,...", help="VisionSettings of b")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    try:
        ways = {
            name: replace(LiveSettings(), **parse_overrides(text, LiveSettings(), "live settings"))
            for name, text in (("a", args.a), ("b", args.b))
        }
        visions = {
            name: VisionSettings().with_overrides(
                **parse_overrides(text, VisionSettings(), "vision settings")
            )
            for name, text in (("a", args.a_vision), ("b", args.b_vision))
        }
    except (ValueError, TypeError) as exc:
        ap.error(str(exc))
    files = clip_files(args.directory)[: args.limit] if args.directory.is_dir() else []
    if not files:
        ap.error(f"{args.directory}: no clips with their truth JSON")
    counters = {
        name: Counter(live=True, threads=args.threads, settings=visions[name]) for name in ways
    }
    evals = {name: VideoEvaluation() for name in ways}
    delays: dict[str, list[float]] = {name: [] for name in ways}
    parts: dict[str, list[float]] = {name: [] for name in ways}
    for path in files:
        for name, settings in ways.items():
            result, delay, part = watch_clip(counters[name], path, settings)
            evals[name].clips.append(result)
            delays[name].append(delay)
            parts[name].append(part)
    for name, text, vision in (("a", args.a, args.a_vision), ("b", args.b, args.b_vision)):
        by_decks = evals[name].to_json()["by_decks"]
        print(
            json.dumps(
                {
                    "way": name,
                    "settings": text,
                    "vision": vision,
                    "count_delay_s": round(statistics.median(delays[name]), 3),
                    "part_share": round(statistics.mean(parts[name]), 3),
                    **{
                        d: {
                            k: s.get(k)
                            for k in (
                                "clips",
                                "settled_exact",
                                "time_to_steady_s",
                                "flicker_per_min",
                                "wrong_steady",
                                "hand_restored",
                            )
                        }
                        for d, s in by_decks.items()
                    },
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
