"""`tallero eval` on a folder of clips: how steady and how right the live counts are.

Each clip (``NAME.avi`` or ``.mp4`` beside its truth ``NAME.json``, as written by
``dataset synth --kind video``) goes through the watch loop frame by frame. Per frame the
*steady count* is the count the live view shows (the table as it was when last STEADY).

- ``settled_exact``: share of frames, from 1 s after the table last settled (the clip's
  start, a hand gone), whose steady count of a deck equals the truth, per (clip, deck),
  averaged over (clip, deck);
- ``time_to_steady_s``: from each settling of the table to the first frame that is STEADY
  with the true counts (median and worst; a clip that never gets there counts as its rest);
- ``flicker_per_min``: changes of the steady count per minute in the clips whose table
  never changes (a hand or nothing), after the view first turned STEADY;
- ``wrong_steady``: share of frames marked STEADY whose count is wrong (any deck);
- ``hand_restored``: share of clips with a hand and no card moved whose steady count after
  the hand equals the one before it;
- ``hand_broken``: share of those clips whose steady count was right just before the hand
  and is wrong at the end (a count that was wrong before and is put right while the hand is
  there is not restored, but not broken either);
- ``single_exact``: per (clip, deck), whether ``count`` (the photo counter) gets the
  clip's middle frame right: what one frame alone gives, for comparison.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.count.counter import Counter
from vision.live.counting import InLoop
from vision.live.settings import LiveSettings
from vision.live.sources import CaptureSource
from vision.live.watch import Watcher

SETTLE_MARGIN_S = 1.0
CLIP_SUFFIXES = (".avi", ".mp4", ".mkv")


def clip_files(folder: Path) -> list[Path]:
    """The clips of a folder that have a truth JSON beside them, in name order."""
    return sorted(
        p
        for p in folder.iterdir()
        if p.suffix.lower() in CLIP_SUFFIXES and p.with_suffix(".json").exists()
    )


@dataclass
class ClipResult:
    """The figures of one clip."""

    name: str
    decks: int
    event: str
    frames: int
    settled_exact: dict[str, float]  # per deck
    time_to_steady_s: list[float]
    flicker_changes: int
    flat_minutes: float
    steady_frames: int
    wrong_steady_frames: int
    hand_restored: bool | None
    hand_broken: bool | None
    single_exact: dict[str, bool]
    fps: float


def evaluate_clip(
    path: Path,
    live: Counter,
    single: Counter | None,
    settings: LiveSettings,
    delay_s: float = 0.0,
) -> ClipResult:
    """Run one clip through the watch loop and score it against its truth; ``delay_s``:
    each count reaches the table that long after its frame (`InLoop`), as with a counter
    that takes that long beside a camera."""
    import time

    rec = json.loads(path.with_suffix(".json").read_text())
    decks = tuple(rec["decks"])
    fps_clip = float(rec["fps"])
    truth = [f["counts"] for f in rec["frames"]]
    source = CaptureSource(str(path), live=False)
    source.open()
    watcher = Watcher(live, decks, settings, fps=fps_clip, pace=InLoop(delay_s))
    shown: list[dict[str, int]] = []
    steady: list[bool] = []
    middle = None
    t0 = time.perf_counter()
    try:
        k = 0
        while (image := source.read()) is not None:
            if k == len(truth) // 2:
                middle = image
            view = watcher.step(image, k / fps_clip)
            shown.append(view.count.counts)
            steady.append(view.steady)
            k += 1
    finally:
        source.close()
    wall = time.perf_counter() - t0
    single_ok: dict[str, bool] = {}
    if single is not None and middle is not None:
        c = single.count(middle, name=path.name, decks=decks).counts
        single_ok = {d: c[d] == truth[len(truth) // 2][d] for d in decks}
    return score_clip(
        path.name, rec, shown, steady, single_ok, len(shown) / wall if wall > 0 else 0.0
    )


def score_clip(
    name: str,
    rec: dict[str, Any],
    shown: list[dict[str, int]],
    steady: list[bool],
    single_ok: dict[str, bool],
    fps: float,
) -> ClipResult:
    """The figures of one clip from what the watch loop showed on each frame (``shown``: the
    steady counts, ``steady``: STEADY or not) against the clip's truth ``rec``; ``fps``: the
    loop's frames a second."""
    decks = tuple(rec["decks"])
    fps_clip = float(rec["fps"])
    truth = [f["counts"] for f in rec["frames"]]
    n = min(len(shown), len(truth))
    settled = [float(s) for s in rec["settled_s"]]

    def last_settle(t: float) -> float:
        return max(s for s in settled if s <= t)

    judged = [k for k in range(n) if k / fps_clip >= last_settle(k / fps_clip) + SETTLE_MARGIN_S]
    exact = {
        d: sum(shown[k][d] == truth[k][d] for k in judged) / len(judged) if judged else 0.0
        for d in decks
    }
    to_steady = []
    for s in settled:
        ks = [k for k in range(n) if k / fps_clip >= s]
        end = (settled + [n / fps_clip])[[*settled, n / fps_clip].index(s) + 1]
        hit = next((k for k in ks if steady[k] and shown[k] == truth[k]), None)
        to_steady.append((hit / fps_clip - s) if hit is not None else end - s)
    # flicker: changes of the shown count on a table that never changes (a clip where
    # cards are added or taken is not judged: its one right change comes late by design)
    first = next((k for k in range(n) if steady[k]), n)
    flat = all(truth[k] == truth[0] for k in range(n))
    changes = sum(1 for k in range(first + 1, n) if shown[k] != shown[k - 1]) if flat else 0
    flat_min = max(n - first, 0) / fps_clip / 60 if flat else 0.0
    steady_n = sum(steady[:n])
    wrong = sum(1 for k in range(n) if steady[k] and shown[k] != truth[k])
    restored = broken = None
    if rec.get("hand_s") and not rec.get("cards_moved"):
        before = max(int(rec["hand_s"][0] * fps_clip) - 1, 0)
        restored = shown[n - 1] == shown[before]
        broken = shown[before] == truth[before] and shown[n - 1] != truth[n - 1]
    return ClipResult(
        name,
        len(decks),
        rec.get("event", "?"),
        n,
        exact,
        to_steady,
        changes,
        flat_min,
        steady_n,
        wrong,
        restored,
        broken,
        single_ok,
        fps,
    )


@dataclass
class VideoEvaluation:
    """The figures over a folder of clips, per number of decks and over all; ``delay_s``:
    how late each count reached the table (`evaluate_clip`)."""

    clips: list[ClipResult] = field(default_factory=list)
    delay_s: float = 0.0

    def summary(self, decks: int | None = None) -> dict[str, Any]:
        """The table's figures for clips with ``decks`` decks (``None``: every clip)."""
        cs = [c for c in self.clips if decks is None or c.decks == decks]
        if not cs:
            return {"clips": 0}
        pairs = [v for c in cs for v in c.settled_exact.values()]
        single = [v for c in cs for v in c.single_exact.values()]
        tts = [t for c in cs for t in c.time_to_steady_s]
        minutes = sum(c.flat_minutes for c in cs)
        steady_frames = sum(c.steady_frames for c in cs)
        restored = [c.hand_restored for c in cs if c.hand_restored is not None]
        broken = [c.hand_broken for c in cs if c.hand_broken is not None]
        return {
            "clips": len(cs),
            "frames": sum(c.frames for c in cs),
            "settled_exact": round(statistics.mean(pairs), 4),
            "single_exact": round(statistics.mean(single), 4) if single else None,
            "time_to_steady_s": {
                "median": round(statistics.median(tts), 3),
                "max": round(max(tts), 3),
            },
            "flicker_per_min": round(sum(c.flicker_changes for c in cs) / minutes, 3)
            if minutes
            else None,
            "wrong_steady": round(sum(c.wrong_steady_frames for c in cs) / steady_frames, 4)
            if steady_frames
            else None,
            "hand_restored": round(sum(restored) / len(restored), 4) if restored else None,
            "hand_broken": round(sum(broken) / len(broken), 4) if broken else None,
            "hand_clips": len(restored),
            "fps": round(statistics.median(c.fps for c in cs), 1),
        }

    def to_json(self) -> dict[str, Any]:
        """``tallero eval CLIPS --json``: the figures by decks and over all, and per clip."""
        return {
            "kind": "video",
            "delay_s": self.delay_s,
            "by_decks": {str(d): self.summary(d) for d in sorted({c.decks for c in self.clips})},
            "all": self.summary(),
            "per_clip": [
                {
                    "clip": c.name,
                    "decks": c.decks,
                    "event": c.event,
                    "settled_exact": round(statistics.mean(c.settled_exact.values()), 4),
                    "single_exact": round(statistics.mean(c.single_exact.values()), 4)
                    if c.single_exact
                    else None,
                    "time_to_steady_s": [round(t, 3) for t in c.time_to_steady_s],
                    "flicker_changes": c.flicker_changes,
                    "wrong_steady_frames": c.wrong_steady_frames,
                    "hand_restored": c.hand_restored,
                    "hand_broken": c.hand_broken,
                }
                for c in self.clips
            ],
        }


def evaluate_clips(
    folder: Path,
    live: Counter,
    single: Counter | None,
    settings: LiveSettings | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    delay_s: float = 0.0,
) -> VideoEvaluation:
    """Every clip of ``folder`` (its first ``limit``) through the watch loop, each count
    reaching the table ``delay_s`` after its frame (`evaluate_clip`)."""
    files = clip_files(folder)[:limit]
    ev = VideoEvaluation(delay_s=delay_s)
    for i, path in enumerate(files):
        ev.clips.append(evaluate_clip(path, live, single, settings or LiveSettings(), delay_s))
        if progress is not None:
            progress(i + 1, len(files))
    return ev


def format_video_table(ev: VideoEvaluation) -> str:
    """The table of ``tallero eval CLIPS``: steady against single-frame counts."""
    head = (
        f"{'decks':>5} {'clips':>5} {'settled_exact':>13} {'single_exact':>12} "
        f"{'tts_med_s':>9} {'tts_max_s':>9} {'flicker/min':>11} {'wrong_steady':>12} "
        f"{'hand_restored':>13} {'hand_broken':>11} {'fps':>5}"
    )
    lines = [head]
    groups = [str(d) for d in sorted({c.decks for c in ev.clips})] + ["all"]
    for g in groups:
        s = ev.summary(None if g == "all" else int(g))
        if not s["clips"]:
            continue
        lines.append(
            f"{g:>5} {s['clips']:>5} {s['settled_exact']:>13} {str(s['single_exact']):>12} "
            f"{s['time_to_steady_s']['median']:>9} {s['time_to_steady_s']['max']:>9} "
            f"{str(s['flicker_per_min']):>11} {str(s['wrong_steady']):>12} "
            f"{str(s['hand_restored']):>13} {str(s['hand_broken']):>11} {s['fps']:>5}"
        )
    if ev.delay_s:
        lines.append(f"each count reached the live view {ev.delay_s:g} s after its frame")
    return "\n".join(lines)
