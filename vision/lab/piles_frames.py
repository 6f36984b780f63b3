"""The Dutch piles read off webcam frames: one frame against several judged together.

    python -m vision.lab.piles_frames SET --frames 3 [--size 1280x720] [--limit N]
        [--seed S] [--profile P] [--threads 2] [--keep FILE]

SET is a piles set (``dataset synth --kind piles``) or a set of rounds (``--kind round``:
their piles photos). Each photo is filmed as a webcam films the middle of the table, the
way ``dataset synth --kind video`` films a table (`vision.synth.video.Webcam`): framed on
its cards at ``--size``, slow drift and shake, exposure that wanders, motion blur now and
then, sensor noise and JPEG; ``--frames`` frames over about two seconds. The piles of each
frame are read as ``watch``'s ``p`` reads them (the photo counter, `read_piles`), and
scored as ``tallero eval SET --piles`` scores a photo: the first frame alone, and the
first ``k`` frames judged together for every ``k`` from 2 to ``--frames``, both by the
frames alone (``frames_k``, `vision.piles.frames.merge_frames`) and as ``p`` judges them,
with their median picture (``frames_k_median``, `vision.piles.frames.judged`). One JSON
object: the figures of each. ``--keep`` pickles every frame's piles, each median's piles
and the truth, to judge them again without counting.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.evaluate.piles import PilesEvaluation
from vision.piles.frames import judged, median_picture, merge_frames
from vision.piles.read import piles_seen

# The photo's cards fill the frame less this share around them (a table seen whole).
MARGIN = 1.16


def _moved(points: Any, m: np.ndarray) -> list[list[float]]:
    p = np.asarray(points, np.float64)
    moved: list[list[float]] = (p @ m[:, :2].T + m[:, 2]).tolist()
    return moved


def film(
    photo: np.ndarray,
    truth: dict[str, Any],
    size: tuple[int, int],
    n: int,
    rng: Any,
    span: float = 0.25,
    jumps: bool = False,
    hand: tuple[int, int, tuple[float, float]] | None = None,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``n`` webcam frames of ``photo`` framed on its cards, and each frame's affine map
    from the photo's pixels. ``span``: the share of an eight-second wander the frames
    cover; ``jumps``: the auto-exposure jumps now and then, as a webcam's does; ``hand``:
    from frame to frame (end excluded), a hand reaches to a point of the photo (px) and
    leaves (`vision.synth.video.painted_hand`)."""
    from vision.synth.video import painted_hand

    fw, fh = size
    pts = [np.asarray(p["corners"]) for p in truth["dutch_piles"]]
    pts += [np.asarray(c["corners"]) for c in truth.get("cards", []) if "corners" in c]
    every = np.concatenate(pts)
    (x0, y0), (x1, y1) = every.min(axis=0), every.max(axis=0)
    w, h = (x1 - x0) * MARGIN, (y1 - y0) * MARGIN
    w, h = max(w, h * fw / fh), max(h, w * fh / fw)
    s = fw / w
    base = np.array(
        [[s, 0, fw / 2 - s * (x0 + x1) / 2], [0, s, fh / 2 - s * (y0 + y1) / 2], [0, 0, 1]]
    )
    drift = rng.uniform(4, 14, 2) * rng.choice([-1, 1], 2) * fw / 640
    shake = float(rng.uniform(0.3, 1.8)) * fw / 640
    exposure, noise = float(rng.uniform(0.04, 0.15)), float(rng.uniform(1.5, 5.0))
    quality = int(rng.integers(70, 92))
    frames, maps = [], []
    step = 1.0
    for k in range(n):
        phase = span * k / max(n - 1, 1)  # of an eight-second wander
        jitter = rng.normal(0, shake, 2)
        m = cv2.getRotationMatrix2D((fw / 2, fh / 2), 0.8 * np.sin(2 * np.pi * phase * 0.7), 1.0)
        m[:, 2] += jitter + drift * [np.sin(np.pi * phase), np.cos(2 * np.pi * phase * 0.4)]
        m = m @ base
        if jumps and rng.random() < 0.03:
            step = float(rng.uniform(0.85, 1.15))  # the auto-exposure jumps
        gain = step * (1 + exposure * np.sin(2 * np.pi * (phase * 1.3 + 0.2)))
        seen = photo.astype(np.float32)
        if hand is not None and hand[0] <= k < hand[1]:
            ph, pw = photo.shape[:2]
            scale = max(pw, ph) / 640  # a hand as large as on a 640 px frame of the photo
            s_hand = (k - hand[0]) / max(hand[1] - hand[0], 1)
            reach = min(1.0, 3 * min(s_hand, 1 - s_hand))  # comes in, stays, goes
            palm = (hand[2][0] / scale, hand[2][1] / scale)
            small = painted_hand((round(pw / scale), round(ph / scale)), palm, reach)
            a = cv2.resize(small, (pw, ph), interpolation=cv2.INTER_LINEAR)[..., None]
            seen = seen * (1 - a) + np.array([110, 150, 205], np.float32) * a
        lit = np.clip(seen * gain, 0, 255).astype(np.uint8)
        frame = cv2.warpAffine(
            lit, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        if np.linalg.norm(jitter) > 1.5 * shake or rng.random() < 0.1:
            b = int(rng.integers(3, 8))
            kern = np.zeros((b, b), np.float32)
            a, c = rng.uniform(0, np.pi), (b - 1) / 2
            ends = [
                (int(c - c * np.cos(a)), int(c - c * np.sin(a))),
                (int(c + c * np.cos(a)), int(c + c * np.sin(a))),
            ]
            cv2.line(kern, ends[0], ends[1], 1.0, 1)
            frame = cv2.filter2D(frame, -1, kern / max(float(kern.sum()), 1.0))
        noisy = frame.astype(np.float32) + rng.normal(0, noise, frame.shape)
        frame = np.clip(noisy, 0, 255).astype(np.uint8)
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        assert decoded is not None and ok
        frames.append(decoded)
        maps.append(m[:2])
    return frames, maps


def piles_photos(directory: Path) -> list[tuple[dict[str, Any], Path, tuple[str, ...]]]:
    """Each piles photo of a piles set or a set of rounds: its truth, its file, its decks."""
    out = []
    for path in sorted((directory / "truth").glob("*.json")):
        rec = json.loads(path.read_text())
        if "photos" in rec:  # a round: its piles photo
            truth, decks = rec["photos"]["piles"], tuple(rec["round"]["players"])
        else:
            truth, decks = rec, tuple(rec["decks"])
        image = directory / "images" / truth["image"]
        out.append((truth, image if image.exists() else directory / truth["image"], decks))
    return out


def main(argv: list[str] | None = None) -> None:
    from vision.enroll.profiles import profile_counter
    from vision.live.sources import parse_size

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("set", type=Path)
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", default=None)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--keep", type=Path, default=None)
    a = ap.parse_args(argv)
    size = parse_size(a.size)
    if size is None or a.frames < 1:
        ap.error("--size WxH and --frames of at least 1 are needed")
    counter = profile_counter(a.profile, threads=a.threads)
    rng = np.random.default_rng(a.seed)
    evs = {k: PilesEvaluation() for k in range(1, a.frames + 1)}
    medians = {k: PilesEvaluation() for k in range(2, a.frames + 1)}
    kept = []
    t0 = time.perf_counter()
    photos = piles_photos(a.set)[: a.limit]
    for n, (truth, image, decks) in enumerate(photos, 1):
        photo = cv2.imread(str(image))
        if photo is None:
            raise SystemExit(f"cannot read {image}")
        frames, maps = film(photo, truth, size, a.frames, rng)
        reads = [piles_seen(counter.count(f, name=truth["image"], decks=decks)) for f in frames]
        first = dict(
            truth,
            dutch_piles=[
                dict(p, corners=_moved(p["corners"], maps[0])) for p in truth["dutch_piles"]
            ],
        )
        for k, ev in evs.items():
            ev.add(first, merge_frames(reads[:k]))
        stacked = {}
        for k, ev in medians.items():
            picture = median_picture(frames[:k])
            stacked[k] = piles_seen(counter.count(picture, name=truth["image"], decks=decks))
            ev.add(first, judged(reads[:k], stacked[k]))
        kept.append((first, reads, stacked))
        if n % 10 == 0 or n == len(photos):
            print(f"{n}/{len(photos)} photos, {time.perf_counter() - t0:.0f} s", file=sys.stderr)

    def figures(ev: PilesEvaluation) -> dict[str, Any]:
        return {n: v for n, v in ev.to_json().items() if n != "failures"}

    out: dict[str, Any] = {f"frames_{k}": figures(ev) for k, ev in evs.items()}
    out.update({f"frames_{k}_median": figures(ev) for k, ev in medians.items()})
    out["seconds"] = round(time.perf_counter() - t0, 1)
    if a.keep is not None:
        a.keep.write_bytes(pickle.dumps(kept))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
