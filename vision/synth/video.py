"""Short webcam clips of a table, with the truth of every frame (``dataset synth --kind video``).

A clip is one drawn scene (``sorted`` cards: each deck's backs in rows) filmed the way a
webcam sees it: slow drift and shake, auto-exposure that wanders and jumps, motion blur on
quick moves, sensor noise and JPEG. In most clips a hand reaches over part of the cards and
leaves; in some it takes cards away or has just put them down. ``NAME.avi`` (MJPG) sits
beside ``NAME.json``: the clip's decks, frame rate and events, and per frame the counts
per deck of the cards on the table (what a score sheet wants, hand or no hand).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth import distractors as dis
from vision.synth.camera import Camera, project
from vision.synth.generate import SceneOptions, scene_art
from vision.synth.labels import truth
from vision.synth.plans import make_plan
from vision.synth.scene import fit_plan, render

FRAME_PX = (640, 480)
MARGIN = 1.12  # the scene is drawn this much larger than a frame, for the drift
# The cards are framed inside the frame less this many px on each side, so that drift (up
# to 14 px), shake and the slight turn never carry a card of the truth out of the picture.
INSET_PX = 16
EVENTS = ("still", "hand", "remove", "add")
EVENT_WEIGHTS = (0.2, 0.4, 0.2, 0.2)


def lines_scale(frame: tuple[int, int]) -> float:
    """How much larger than in a 480-line frame a webcam's ``frame`` (w, h) shows the table:
    drift, shake, inset, blur and cards are given in 480-line pixels and grow by this."""
    return frame[1] / FRAME_PX[1]


@dataclass(frozen=True)
class ClipOptions:
    """A set of clips: seed, decks (4, 8 or None for both), length (s), frame rate, art,
    and the frame size (w, h px) the webcam gives."""

    seed: int
    decks: int | None = None
    seconds: float = 6.0
    fps: float = 15.0
    art: str = "standin"
    size: tuple[int, int] = FRAME_PX

    def check(self) -> None:
        """ValueError for options out of range."""
        w, h = self.size
        if not (320 <= w <= 1920 and 240 <= h <= 1080):
            raise ValueError(f"clip frames must be 320x240 to 1920x1080, not {w}x{h}")
        if not 2.0 <= self.seconds <= 60.0:
            raise ValueError(f"clip length must be 2-60 s, not {self.seconds}")
        if not 5.0 <= self.fps <= 60.0:
            raise ValueError(f"clip frame rate must be 5-60, not {self.fps}")
        SceneOptions(self.seed, "sorted", decks=self.decks, art=self.art).check()


def _counts(rec: dict[str, Any]) -> dict[str, int]:
    return {d: int(n) for d, n in rec["counts"].items()}


def _composite(img: np.ndarray, patch: dis.Patch, dx: int, dy: int) -> None:
    """Lay ``patch`` on ``img`` shifted by ``(dx, dy)`` px, clipped to the image."""
    h, w = patch.alpha.shape
    H, W = img.shape[:2]
    x0, y0 = patch.x0 + dx, patch.y0 + dy
    ax0, ay0 = max(0, -x0), max(0, -y0)
    ax1, ay1 = min(w, W - x0), min(h, H - y0)
    if ax1 <= ax0 or ay1 <= ay0:
        return
    a = patch.alpha[ay0:ay1, ax0:ax1, None]
    roi = img[y0 + ay0 : y0 + ay1, x0 + ax0 : x0 + ax1]
    roi *= 1 - a
    roi += patch.color[ay0:ay1, ax0:ax1]


@dataclass
class Webcam:
    """How a webcam films a drawn table (``draw``n once per clip from its film generator):
    slow drift and a little shake of the picture, auto-exposure that wanders and jumps,
    motion blur on quick moves, sensor noise; ``quality`` is the clip's JPEG quality."""

    rng: np.random.Generator
    size: tuple[int, int]  # the drawn table's w, h (px), MARGIN times a frame
    drift: np.ndarray
    shake_px: float
    exposure: float
    noise: float
    quality: int
    gain_step: float = 1.0
    frame: tuple[int, int] = FRAME_PX  # the frame's w, h (px)

    @classmethod
    def draw(
        cls, rng: np.random.Generator, size: tuple[int, int], frame: tuple[int, int] = FRAME_PX
    ) -> Webcam:
        """A webcam with its drift, shake, exposure, noise and quality drawn from ``rng``;
        drift, shake and motion blur are in 480-line pixels, grown with ``frame``'s height."""
        k = lines_scale(frame)
        drift = rng.uniform(4, 14, 2) * rng.choice([-1, 1], 2) * k
        shake_px = float(rng.uniform(0.3, 1.8)) * k
        exposure = float(rng.uniform(0.04, 0.15))
        noise = float(rng.uniform(1.5, 5.0))
        quality = int(rng.integers(70, 92))
        return cls(rng, size, drift, shake_px, exposure, noise, quality, frame=frame)

    def shoot(self, img: np.ndarray, phase: float, moving: bool) -> tuple[np.ndarray, int]:
        """One frame (uint8 BGR, ``frame`` px) of the drawn table ``img`` (float32) at
        ``phase`` (0 to 1 over the clip), and its motion blur (px); ``moving``: a hand in the
        picture blurs more often."""
        r_film, w, h = self.rng, self.size[0], self.size[1]
        fw, fh = self.frame
        if r_film.random() < 0.03:
            self.gain_step = float(r_film.uniform(0.85, 1.15))  # auto-exposure jumps
        gain = self.gain_step * (1 + self.exposure * np.sin(2 * np.pi * (phase * 1.3 + 0.2)))
        jitter = r_film.normal(0, self.shake_px, 2)
        angle = 0.8 * np.sin(2 * np.pi * phase * 0.7)
        cx, cy = (
            w / 2 + self.drift[0] * np.sin(2 * np.pi * phase * 0.5),
            h / 2 + self.drift[1] * np.cos(2 * np.pi * phase * 0.4),
        )
        M = cv2.getRotationMatrix2D((cx + jitter[0], cy + jitter[1]), angle, 1.0)
        M[:, 2] += np.array([fw / 2 - cx, fh / 2 - cy])
        frame = cv2.warpAffine(
            np.clip(img * gain, 0, 255).astype(np.uint8),
            M,
            (fw, fh),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REFLECT,
        )
        blur = 0
        if np.linalg.norm(jitter) > 1.5 * self.shake_px or moving and r_film.random() < 0.3:
            blur = int(round(int(r_film.integers(3, 8)) * lines_scale(self.frame)))
            kern = np.zeros((blur, blur), np.float32)
            a = r_film.uniform(0, np.pi)
            c0 = (blur - 1) / 2
            cv2.line(
                kern,
                (int(c0 - c0 * np.cos(a)), int(c0 - c0 * np.sin(a))),
                (int(c0 + c0 * np.cos(a)), int(c0 + c0 * np.sin(a))),
                1.0,
                1,
            )
            frame = cv2.filter2D(frame, -1, kern / max(kern.sum(), 1))
        noisy = frame.astype(np.float32) + r_film.normal(0, self.noise, frame.shape).astype(
            np.float32
        )
        return np.clip(noisy, 0, 255).astype(np.uint8), blur


def framed_camera(
    plan: Any, w: int, h: int, rng: np.random.Generator, frame: tuple[int, int] = FRAME_PX
) -> Camera:
    """A camera for the drawn table (``w`` x ``h``, MARGIN times a ``frame``) that frames
    every card of ``plan`` inside the middle frame less ``INSET_PX`` a side (in 480-line
    pixels): a webcam pointed at the table shows all its cards, whatever the drift. A frame
    of more lines shows the same cards that many times larger, as a webcam asked for a
    larger picture does from the same place."""
    k = lines_scale(frame)
    fw, fh = int(round(frame[0] - 2 * INSET_PX * k)), int(round(frame[1] - 2 * INSET_PX * k))
    cam = fit_plan(plan, fw, fh, rng, card_scale=k)
    shift = np.array([[1, 0, (w - fw) / 2], [0, 1, (h - fh) / 2], [0, 0, 1]], np.float64)
    return dataclasses.replace(cam, H=shift @ cam.H, width=w, height=h)


def make_clip(opts: ClipOptions, index: int) -> tuple[list[np.ndarray], dict[str, Any]]:
    """Clip ``index``: its BGR frames and its truth record."""
    ss = np.random.SeedSequence([opts.seed, index, 0x71DE0])
    r_plan, r_render, r_misc, r_film = (np.random.default_rng(s) for s in ss.spawn(4))
    n_decks = opts.decks if opts.decks is not None else int(r_misc.choice([4, 8]))
    scene = SceneOptions(opts.seed, "sorted", decks=n_decks, art=opts.art)
    event = str(r_misc.choice(EVENTS, p=EVENT_WEIGHTS))
    pool, tiles, family = scene_art(scene, index)
    tile = tiles[int(r_misc.integers(len(tiles)))]
    w, h = (int(round(opts.size[0] * MARGIN)), int(round(opts.size[1] * MARGIN)))
    plan = make_plan("sorted", n_decks, r_plan, 0.3)
    cam = framed_camera(plan, w, h, r_render, opts.size)
    render_seed = int(r_misc.integers(2**31))

    def drawn(table: Any) -> tuple[Any, dict[str, Any]]:
        """The table drawn (the same light and camera every time) and its truth."""
        scene = render(table, pool, tile, w, h, 0.3, np.random.default_rng(render_seed), camera=cam)
        record = truth(
            table, scene, 0.3, image="", seed=opts.seed, index=index, art=opts.art,
            recipe_kind="video", jpeg_quality=90, family=family,
        )  # fmt: skip
        return scene, record

    full, rec_full = drawn(plan)
    images = [full.image]
    records = [rec_full]
    moved = 0
    if event in ("remove", "add"):
        # the top cards (drawn last) leave the table: everything below is drawn the same
        backs = [k for k, c in enumerate(plan.cards) if c.side == "back" and c.deck]
        moved = int(r_misc.integers(1, 3)) if len(backs) > 3 else 0
        if moved:
            fewer = copy.copy(plan)
            fewer.cards = plan.cards[: backs[-moved]]
            fewer.piles = []
            less, rec_less = drawn(fewer)
            images, records = ([full.image, less.image], [rec_full, rec_less])
            if event == "add":
                images.reverse()
                records.reverse()
    if not moved and event in ("remove", "add"):
        event = "hand"
    frames_n = int(round(opts.seconds * opts.fps))
    hand_from = int(r_film.uniform(0.3, 0.45) * frames_n)
    hand_to = hand_from + int(r_film.uniform(0.9, 1.5) * opts.fps)
    hand = None
    if event != "still":
        target = (
            plan.cards[-1].pose[:2]
            if moved
            else plan.cards[int(r_misc.integers(len(plan.cards)))].pose[:2]
        )
        centre = project(np.linalg.inv(cam.H), np.array([[w / 2, h / 2]]))[0]
        toward = float(np.arctan2(*(centre - target)[::-1]))
        hand = dis.hand(cam, np.asarray(target, np.float64), r_film, toward + np.pi)
        out = np.array([np.cos(toward + np.pi), np.sin(toward + np.pi)]) * max(w, h) * 0.9
    webcam = Webcam.draw(r_film, (w, h), opts.size)
    frames: list[np.ndarray] = []
    per_frame: list[dict[str, Any]] = []
    for k in range(frames_n):
        phase = k / max(frames_n - 1, 1)
        switched = k >= (hand_from + hand_to) // 2 and len(images) > 1
        img = images[1 if switched else 0].copy()
        on_table = records[1 if switched else 0]
        covering = hand is not None and hand_from <= k < hand_to
        if covering and hand is not None:
            s = (k - hand_from) / max(hand_to - hand_from, 1)
            reach = min(1.0, 3 * min(s, 1 - s))  # comes in, stays, goes
            off = out * (1 - reach)
            _composite(img, hand, int(off[0]), int(off[1]))
        frame, blur = webcam.shoot(img, phase, covering)
        frames.append(frame)
        per_frame.append({"counts": _counts(on_table), "hand": bool(covering), "blur_px": blur})
    changes = [0.0]
    if hand is not None:
        changes.append(round(hand_to / opts.fps, 3))  # the table settles when the hand leaves
    record = {
        "fps": opts.fps,
        "size": list(opts.size),
        "decks": list(plan.decks),
        "seed": opts.seed,
        "index": index,
        "art": opts.art,
        "event": event,
        "cards_moved": moved,
        "hand_s": [round(hand_from / opts.fps, 3), round(hand_to / opts.fps, 3)]
        if hand is not None
        else None,
        "settled_s": changes,
        "jpeg_quality": webcam.quality,
        "frames": per_frame,
    }
    return frames, record


def write_clip(out: Path, opts: ClipOptions, index: int) -> dict[str, Any]:
    """Render clip ``index`` into ``out`` as ``NNNNNN.avi`` (MJPG) and ``NNNNNN.json``."""
    frames, record = make_clip(opts, index)
    path = out / f"{index:06d}.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), opts.fps, opts.size)
    if not writer.isOpened():
        raise RuntimeError(f"cannot write {path}")
    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, record["jpeg_quality"])
    for f in frames:
        writer.write(f)
    writer.release()
    (out / f"{index:06d}.json").write_text(json.dumps(record, separators=(",", ":")))
    return {"event": record["event"], "frames": len(frames)}


def synthesize_clips(out: Path, n: int, opts: ClipOptions, start: int = 0) -> list[dict[str, Any]]:
    """Write ``n`` clips (indices ``start``...) into ``out``."""
    opts.check()
    out.mkdir(parents=True, exist_ok=True)
    return [write_clip(out, opts, i) for i in range(start, start + n)]


def painted_hand(size: tuple[int, int], palm: tuple[float, float], reach: float) -> np.ndarray:
    """An (h, w) float32 alpha of a simple hand and forearm reaching from the bottom edge to
    ``palm`` (px) by ``reach`` (0: out of the picture, 1: there)."""
    w, h = size
    alpha = np.zeros((h, w), np.float32)
    x, y = palm[0], h + 120 - (h + 120 - palm[1]) * reach
    cv2.ellipse(alpha, (int(x), int(y)), (48, 58), 0, 0, 360, 1.0, -1)
    cv2.rectangle(alpha, (int(x - 40), int(y + 30)), (int(x + 40), h + 200), 1.0, -1)
    for k, (dx, length) in enumerate(zip((-30, -10, 10, 30), (50, 62, 58, 44), strict=True)):
        cv2.line(alpha, (int(x + dx), int(y)), (int(x + dx * 1.3), int(y - length)), 1.0, 16 - k)
    return cv2.GaussianBlur(alpha, (5, 5), 0)


def film_photo(
    photo: np.ndarray,
    counts: dict[str, int],
    out: Path,
    seconds: float = 4.0,
    fps: float = 10.0,
    seed: int = 0,
) -> dict[str, Any]:
    """Film a still ``photo`` (whose cards are ``counts``) as a short webcam clip with a hand
    passing over the cards: ``out`` (``.mp4``, mp4v) and its truth beside it (``.json``)."""
    rng = np.random.default_rng(seed)
    h, w = photo.shape[:2]
    n = int(round(seconds * fps))
    hand_from, hand_to = int(n * 0.3), int(n * 0.3) + int(fps)
    skin = np.array([110, 150, 205], np.float32)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
    if not writer.isOpened():
        raise RuntimeError(f"cannot write {out}")
    frames = []
    for k in range(n):
        img = photo.astype(np.float32)
        covering = hand_from <= k < hand_to
        if covering:
            s = (k - hand_from) / max(hand_to - hand_from, 1)
            a = painted_hand((w, h), (w * 0.5, h * 0.45), min(1.0, 3 * min(s, 1 - s)))[..., None]
            img = img * (1 - a) + skin * a
        img *= 1 + 0.08 * np.sin(2 * np.pi * k / n)
        dx, dy = 3 * np.sin(2 * np.pi * k / n) + rng.normal(0, 0.7), rng.normal(0, 0.7)
        M = np.float32([[1, 0, dx], [0, 1, dy]])
        frame = cv2.warpAffine(
            np.clip(img, 0, 255).astype(np.uint8), M, (w, h), borderMode=cv2.BORDER_REFLECT
        )
        noisy = frame.astype(np.float32) + rng.normal(0, 1.0, frame.shape).astype(np.float32)
        writer.write(np.clip(noisy, 0, 255).astype(np.uint8))
        frames.append({"counts": dict(counts), "hand": covering, "blur_px": 0})
    writer.release()
    record = {
        "fps": fps,
        "size": [w, h],
        "decks": list(counts),
        "event": "hand",
        "cards_moved": 0,
        "hand_s": [round(hand_from / fps, 3), round(hand_to / fps, 3)],
        "settled_s": [0.0, round(hand_to / fps, 3)],
        "frames": frames,
    }
    out.with_suffix(".json").write_text(json.dumps(record, separators=(",", ":")))
    return record
