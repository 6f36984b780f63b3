"""The Dutch piles read with ``watch``'s key ``p`` on webcam clips of the middle of the table
(a measurement, not a test).

    python scripts/piles_watch.py SET [--size 1280x720] [--seconds 4] [--fps 10]
        [--hand 0.5] [--limit N] [--seed S] [--profile P] [--threads 2] [--live KEY=V,...]

SET is a piles set (``dataset synth --kind piles``) or a set of rounds (their piles
photos). Each photo is filmed as a webcam films the middle of the table
(`vision.lab.piles_frames.film`: framed on its cards, drift, shake, exposure that wanders
and jumps, motion blur, noise, JPEG). In a share ``--hand`` of the clips a hand reaches
over one pile, at a time drawn from the clip's first half, and leaves 1.2 s later. Each
clip runs through the watch loop as ``watch`` runs it (`Watcher` with the live counter,
the window's `RoundTaker` with the photo counter for the piles and the calm check), and
``p`` is pressed on the first STEADY frame from 0.5 s (again on the next STEADY frame
where a press is turned away). At the end of the clip the piles taken are scored against
the truth: complete and right, not complete (they ask for a look), complete and wrong, or
never taken; with the seconds of the clip from the first press to the piles taken, and how
often a changed picture started the reading again, and in how many clips the piles taken
were the median picture's (``median_taken``). Each clip not right lists its piles to
look at (``look_at``: id, top, face down, how sure, long side in px) and those left unread
small (``small_unread``; ``small_tip`` counts the clips where ``p``'s reply says to bring the
camera closer). ``--live`` overrides
`LiveSettings` (``touch_drift=false``, ...). ``--keep FILE`` pickles, for each clip whose
piles were taken, the truth, each frame's piles judged together (None: a frame where none
was found) and the median picture's piles, so the rules of `vision.piles.frames` can be
judged again without filming the clips again.
"""

from __future__ import annotations

import argparse
import json
import pickle
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from commands.piles import PilesReader  # noqa: E402
from commands.taker import RoundTaker  # noqa: E402
from vision.enroll.profiles import profile_counter  # noqa: E402
from vision.lab.piles_frames import film, piles_photos  # noqa: E402
from vision.lab.sweep import parse_overrides  # noqa: E402
from vision.live.settings import LiveSettings  # noqa: E402
from vision.live.sources import parse_size  # noqa: E402
from vision.live.still import StillCheck  # noqa: E402
from vision.live.watch import Tick, Watcher  # noqa: E402

PRESS_FROM_S = 0.5
HAND_S = 1.2


class Recorded:
    """A piles reader that keeps what it read, call by call (None: it found no pile)."""

    def __init__(self, read: Any) -> None:
        self.read = read
        self.calls: list[Any] = []

    def __call__(self, image: np.ndarray) -> Any:
        try:
            piles = self.read(image)
        except Exception:
            self.calls.append(None)
            raise
        self.calls.append(piles)
        return piles


def run_clip(
    frames: list[np.ndarray],
    fps: float,
    decks: tuple[str, ...],
    live: Any,
    reader: Any,
    settings: LiveSettings,
) -> dict[str, Any]:
    """One clip through the watch loop, ``p`` pressed as a user presses it; with the
    frames' and the median picture's piles of the reading taken (``kept``)."""
    reader = Recorded(reader)
    watcher = Watcher(live, decks, settings, fps)
    with tempfile.TemporaryDirectory() as home:
        taker = RoundTaker(
            Path(home),
            None,
            Path(home) / "snapshots",
            read_piles=reader,
            piles_frames=settings.piles_frames,
            piles_every_s=settings.piles_every_s,
            same_table=StillCheck(settings).same_table,
        )
        pressed_t = taken_t = kept = None
        restarts = presses = 0
        for k, image in enumerate(frames):
            t = k / fps
            tick = Tick(watcher.step(image, t), image, k, t, fps)
            reply = taker.follow(tick)
            if reply is not None and "the picture changed" in reply.message:
                restarts += 1
            if taker.piles is None and not taker.reading and t >= PRESS_FROM_S:
                if tick.view.steady:  # a user presses p once the view is STEADY
                    presses += 1
                    reply = taker.press("p", tick)
                    pressed_t = t if pressed_t is None else pressed_t
            if taker.piles is not None and taken_t is None:
                taken_t = t
                # the last reading is the median picture's (none of one frame), the frames' before
                n = settings.piles_frames
                calls = reader.calls
                kept = (calls[-1:], None) if n == 1 else (calls[-1 - n : -1], calls[-1])
        return {
            "piles": taker.piles.read if taker.piles is not None else None,
            "pressed_s": pressed_t,
            "taken_after_s": None if taken_t is None or pressed_t is None else taken_t - pressed_t,
            "restarts": restarts,
            "presses": presses,
            "kept": kept,
        }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set", type=Path)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--fps", type=float, default=10.0)
    ap.add_argument("--hand", type=float, default=0.5, help="share of clips with a hand")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default=None, help="clip numbers (0-based, commas): these alone")
    ap.add_argument("--live", default="", metavar="KEY=V,...", help="LiveSettings overrides")
    ap.add_argument("--keep", type=Path, default=None, help="pickle each clip's readings here")
    a = ap.parse_args(argv)
    try:
        settings = LiveSettings(**parse_overrides(a.live, LiveSettings(), "LiveSettings"))
    except (TypeError, ValueError) as e:
        ap.error(str(e))
    size = parse_size(a.size)
    if size is None or a.seconds <= 1 or a.fps <= 0 or not 0 <= a.hand <= 1:
        ap.error("--size WxH, --seconds over 1, --fps over 0 and --hand in 0..1 are needed")
    photos = list(enumerate(piles_photos(a.set)[: a.limit]))
    if a.only:
        wanted = {int(i) for i in a.only.split(",")}
        photos = [(i, p) for i, p in photos if i in wanted]
    n = int(round(a.seconds * a.fps))
    tally = {"right": 0, "not_complete": 0, "wrong": 0, "never": 0}
    by_hand: dict[str, dict[str, int]] = {"hand": dict(tally), "still": dict(tally)}
    after, restarts, presses, median_taken = [], 0, 0, 0
    failures, kept = [], []
    t0 = time.perf_counter()
    live = reader = None
    for done, (i, (truth, image, decks)) in enumerate(photos, 1):
        rng = np.random.default_rng([a.seed, i])  # each clip drawn alike, alone or not
        if live is None or reader is None or reader.decks != decks:
            live = profile_counter(a.profile, decks=decks, threads=a.threads, live=True)
            reader = PilesReader(None, a.profile, a.threads, decks)
        photo = cv2.imread(str(image))
        if photo is None:
            raise SystemExit(f"cannot read {image}")
        hand = None
        if rng.random() < a.hand:
            pile = truth["dutch_piles"][int(rng.integers(len(truth["dutch_piles"])))]
            palm = np.asarray(pile["corners"], np.float64).mean(axis=0)
            start = int(rng.uniform(PRESS_FROM_S, a.seconds / 2) * a.fps)
            hand = (start, start + int(HAND_S * a.fps), (float(palm[0]), float(palm[1])))
        frames, _ = film(photo, truth, size, n, rng, span=a.seconds / 8, jumps=True, hand=hand)
        out = run_clip(frames, a.fps, decks, live, reader.read, settings)
        total = sum(p["top"] for p in truth["dutch_piles"])
        piles = out["piles"]
        kind = (
            "never"
            if piles is None
            else "not_complete"
            if not piles.complete
            else "right"
            if piles.total == total
            else "wrong"
        )
        tally[kind] += 1
        by_hand["hand" if hand else "still"][kind] += 1
        restarts += out["restarts"]
        presses += out["presses"]
        median_taken += piles is not None and piles.median
        if out["kept"] is not None:
            kept.append((truth, *out["kept"]))
        if out["taken_after_s"] is not None:
            after.append(out["taken_after_s"])
        if kind != "right":
            failures.append(
                {
                    "clip": i,
                    "image": truth["image"],
                    "kind": kind,
                    "hand": hand,
                    "truth_total": total,
                    "total": None if piles is None else piles.total,
                    "uncertain": None if piles is None else piles.uncertain,
                    # unread tops small in the frame: `p`'s reply says to come closer
                    "small_unread": None if piles is None else piles.small_unread,
                    # each pile to look at: its top (None unread), face down, sure, long side
                    "look_at": None
                    if piles is None
                    else [
                        [i, p.top, p.down, round(p.confidence, 3), round(p.long_side_px)]
                        for i, p in enumerate(piles.piles, 1)
                        if p.uncertain
                    ],
                    "pressed_s": out["pressed_s"],
                    "presses": out["presses"],
                    "restarts": out["restarts"],
                }
            )
        if done % 10 == 0 or done == len(photos):
            print(f"{done}/{len(photos)} clips, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    clips = len(photos)
    if a.keep is not None:
        a.keep.write_bytes(pickle.dumps(kept))
    print(
        json.dumps(
            {
                "live": a.live,
                "clips": clips,
                **{k: round(v / clips, 4) for k, v in tally.items()},
                "by_hand": by_hand,
                "taken_after_s_median": round(statistics.median(after), 2) if after else None,
                "taken_after_s_max": round(max(after), 2) if after else None,
                "restarts": restarts,
                "presses": presses,
                "median_taken": median_taken,
                "small_tip": sum(bool(f["small_unread"]) for f in failures),
                "seconds": round(time.perf_counter() - t0, 1),
                "failures": failures,
            }
        )
    )


if __name__ == "__main__":
    main()
