"""Live-view trials on webcam clips: each frame counted once, the watch loop replayed.

    python -m vision.lab.live_replay CLIPS --cache FILE [--try KEY=V,...] ...
        [--vision KEY=V,...] [--limit N] [--delay S] [--threads 1] [--profile P] [--model ONNX]

Each ``--try`` is one set of `LiveSettings` overrides (``appear_min_share=0.4``, ...). The
clips of CLIPS (``dataset synth --kind video``) go through the watch loop exactly as
``tallero eval CLIPS --json`` runs it, once per try, but the counter's work is kept: every
frame the loop asks to count (and each clip's middle frame, counted as a photo) is counted
once and kept in FILE, by the frame's pixels, so the next try or the next run replays the
tracker, the steady table and the scoring over the same counts in seconds. A try that counts
other frames (another ``count_every_s``) counts them once more and keeps them too.

One JSON line per try: its overrides (and ``vision``, where given), the figures per number
of decks (``settled_exact``, ``single_exact``, ``time_to_steady_s``, ``flicker_per_min``,
``wrong_steady``, ``hand_restored``, ``hand_broken``), frames counted anew, and seconds.
The counts depend on the models and the vision settings: a cache is for one set of them
(the models' files, the profile and both counters' `VisionSettings` are recorded in it,
and a cache made with others is refused). ``--vision`` counts with `VisionSettings`
overrides (both counters, ``scene_naming=false``, ...): a trial of the counter itself,
kept in a file of its own.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from vision.core.types import Array
from vision.count.counter import Counter
from vision.count.result import Count
from vision.live.settings import LiveSettings

FIGURES = (
    "clips",
    "settled_exact",
    "single_exact",
    "time_to_steady_s",
    "flicker_per_min",
    "wrong_steady",
    "hand_restored",
    "hand_broken",
    "hand_clips",
)


class KeptCounts:
    """Counts kept by role, decks and the frame's pixels, saved to ``path`` on `save`.

    ``models``: what made the counts (the counters' model files); a file made by other
    models is refused, so a trial never mixes two detectors' counts.
    """

    def __init__(self, path: Path, models: dict[str, Any]) -> None:
        self.path = Path(path)
        self.models = models
        self.counts: dict[tuple[Any, ...], Count] = {}
        # the scale the live counter kept after each whole frame it counted (a part of the
        # next frames is seen at it)
        self.scales: dict[tuple[Any, ...], float | None] = {}
        self.fresh = 0  # frames counted anew since the last save
        if self.path.is_file():
            with self.path.open("rb") as f:
                kept = pickle.load(f)
            if kept["models"] != models:
                raise ValueError(
                    f"{self.path}: counts made by other models or settings; use another file"
                )
            self.counts = kept["counts"]
            self.scales = kept.get("scales", {})

    def save(self) -> None:
        """Write the kept counts (whole, then renamed over the old file)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        part = self.path.with_name(self.path.name + ".part")
        with part.open("wb") as f:
            pickle.dump({"models": self.models, "counts": self.counts, "scales": self.scales}, f)
        os.replace(part, self.path)


class KeptCounter:
    """Stands in for a `Counter` in the watch loop: a frame's count is read from ``kept``
    when those pixels were counted before with those decks, else counted and kept. (A live
    counter sees a frame at the scale of the last frame it counted itself
    (`VisionSettings.live_reuse_looks`): a frame counted anew after kept ones may be seen
    at another scale than in a run from scratch; a try that counts the same frames
    replays exactly.)"""

    def __init__(self, counter: Counter, kept: KeptCounts, role: str) -> None:
        self.counter = counter
        self.kept = kept
        self.role = role
        # the frame size and scale the last whole frame left (a part is seen at it)
        self._scale: tuple[tuple[int, int], float | None] | None = None

    def forget_looks(self) -> None:
        self.counter.forget_looks()
        self._scale = None

    def count(self, image: Array, name: str | None = None, decks: Any = None) -> Count:
        digest = hashlib.blake2b(image.tobytes(), digest_size=16).hexdigest()
        key = (self.role, tuple(decks or ()), digest)
        h, w = image.shape[:2]
        hit = self.kept.counts.get(key)
        if hit is None:
            hit = self.counter.count(image, name=name, decks=decks)
            self.kept.counts[key] = hit
            self.kept.scales[key] = self.counter.part_scale(h, w)
            self.kept.fresh += 1
        self._scale = ((h, w), self.kept.scales.get(key))
        return hit

    def part_scale(self, h: int, w: int) -> float | None:
        """The scale the last whole frame counted (kept or not) left for this size."""
        if self._scale is None or self._scale[0] != (h, w):
            return None
        return self._scale[1]

    def count_part(
        self,
        image: Array,
        box: tuple[int, int, int, int],
        name: str | None = None,
        decks: Any = None,
    ) -> Count:
        h, w = image.shape[:2]
        scale = self.part_scale(h, w)
        digest = hashlib.blake2b(image.tobytes(), digest_size=16).hexdigest()
        key = (self.role + " part", tuple(decks or ()), digest, tuple(box), scale)
        hit = self.kept.counts.get(key)
        if hit is None:
            hit = self.counter.count_part(image, box, name=name, decks=decks, scale=scale)
            self.kept.counts[key] = hit
            self.kept.fresh += 1
        return hit


def counters(
    model: Path | None,
    profile: str | None,
    threads: int | None,
    vision: dict[str, Any] | None = None,
) -> tuple[Counter, Counter]:
    """The live counter and the photo counter, as ``tallero eval CLIPS`` makes them (with
    ``vision``: those `VisionSettings` overrides, for both)."""
    from vision.core.settings import VisionSettings
    from vision.enroll.profiles import profile_counter

    settings = VisionSettings(**(vision or {}))
    return (
        profile_counter(profile, model, None, threads, live=True, settings=settings),
        profile_counter(profile, model, None, threads, live=False, settings=settings),
    )


def replay(
    directory: Path,
    tries: list[dict[str, Any]],
    kept: KeptCounts,
    live: Counter,
    single: Counter,
    limit: int | None = None,
    delay_s: float = 0.0,
) -> list[dict[str, Any]]:
    """One result per try: the figures of `vision.evaluate.video` per number of decks, each
    count reaching the table ``delay_s`` after its frame."""
    from vision.evaluate.video import VideoEvaluation, clip_files, evaluate_clip

    files = clip_files(directory)[:limit]
    live_kept = KeptCounter(live, kept, "live")
    single_kept = KeptCounter(single, kept, "single")
    rows = []
    for overrides in tries:
        settings = replace(LiveSettings(), **overrides)
        t0 = time.perf_counter()
        fresh = kept.fresh
        ev = VideoEvaluation()
        for path in files:
            # the loop calls only .count(); the kept counter stands in for the real one
            ev.clips.append(evaluate_clip(path, live_kept, single_kept, settings, delay_s))  # type: ignore[arg-type]
            if kept.fresh:
                kept.save()
        by_decks = ev.to_json()["by_decks"]
        rows.append(
            {
                "settings": overrides,
                **({"delay_s": delay_s} if delay_s else {}),
                **{d: {k: s.get(k) for k in FIGURES} for d, s in by_decks.items()},
                "counted_anew": kept.fresh - fresh,
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    from vision.evaluate.video import clip_files
    from vision.lab.sweep import parse_overrides, parse_try

    ap = argparse.ArgumentParser(prog="python -m vision.lab.live_replay", description=__doc__)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--cache", type=Path, required=True, help="file the counts are kept in")
    ap.add_argument("--try", dest="tries", action="append", default=[], metavar="KEY=V,...")
    ap.add_argument("--vision", default="", metavar="KEY=V,...", help="VisionSettings overrides")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument(
        "--delay",
        type=float,
        default=0.0,
        metavar="S",
        help="each count reaches the table S seconds after its frame, none started meanwhile",
    )
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--profile", default=None, help="profile of enrolled decks ($TALLERO_HOME)")
    args = ap.parse_args(argv)
    try:
        tries = [parse_overrides(t, LiveSettings(), "the live settings") for t in args.tries]
        vision = parse_try(args.vision)
    except ValueError as exc:
        ap.error(str(exc))
    if not args.directory.is_dir() or not clip_files(args.directory):
        ap.error(f"{args.directory}: no clips with their truth JSON")
    try:
        live, single = counters(args.model, args.profile, args.threads, vision)
    except ValueError as exc:  # a setting out of its range
        ap.error(str(exc))
    models = {
        "live": live.model_info,
        "single": single.model_info,
        "profile": args.profile,
        "settings": [repr(live.settings), repr(single.settings)],
    }
    try:
        kept = KeptCounts(args.cache, models)
    except ValueError as exc:
        ap.error(str(exc))
    for row in replay(args.directory, tries or [{}], kept, live, single, args.limit, args.delay):
        print(json.dumps({"vision": vision, **row} if vision else row), flush=True)


if __name__ == "__main__":
    main()
