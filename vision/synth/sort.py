"""Webcam clips of the sort after a round, with the truth of every frame
(``dataset synth --kind sort``).

Each deck (player) gets a place on the table, in a grid, and its cards are laid there one at
a time, in a shuffled order of all decks' cards: onto a *stack* (each card a few mm off and
a few degrees turned from the one below) or a *spread* (a row, each card a little further
along, wrapping into a second row). A hand carries every card in from the bottom of the
picture, lays it and leaves. Now and then a card is laid beside its place and moved onto it
a moment later (it counts once), or laid and taken back at once (it does not count then; it
is laid again later). The clip is filmed with the drift, exposure, blur and noise of the
video clips (`vision.synth.video.Webcam`).

``NAME.avi`` (MJPG) sits beside ``NAME.json``: decks, frame rate, each deck's place kind,
the events (``lay``, ``move``, ``take_back``, with their frames), per frame the count per
deck of the cards lying on the table (``counts``), and ``final``: each deck's cards laid.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.synth import distractors as dis
from vision.synth.camera import Camera, frame_cards, project
from vision.synth.decks import CARD_H_MM, CARD_H_PX, CARD_W_MM, profile_decks
from vision.synth.generate import SceneOptions, scene_art
from vision.synth.layouts import all_corners
from vision.synth.scene import _A_CARD, _pose_matrix
from vision.synth.tables import render_table
from vision.synth.video import FRAME_PX, MARGIN, Webcam, _composite

CELL_MM = (390.0, 150.0)  # each deck's place on the table: w, h
ROW_CARDS = 22  # a spread wraps into a second row after this many cards
KINDS = ("stack", "spread")
DRIFT_PERIOD_S = 60.0  # the webcam's slow drift swings over about this long
SORT_JPEG_QUALITY = 85


@dataclass(frozen=True)
class SortOptions:
    """A set of sort clips: seed, decks (4, 8 or None for both), at most ``max_cards`` of
    each deck (each deck draws 0 to that many), frame rate, art, how often a card is moved
    or taken back (share of cards), and how long the table lies still before the first card
    and after the last (s)."""

    seed: int
    decks: int | None = None
    max_cards: int = 40
    fps: float = 10.0
    art: str = "standin"
    move_share: float = 0.06
    take_back_share: float = 0.04
    lead_s: float = 1.0
    tail_s: float = 1.5

    def check(self) -> None:
        """ValueError for options out of range."""
        if not 0 <= self.max_cards <= 40:
            raise ValueError(f"cards per deck must be 0-40, not {self.max_cards}")
        if not 5.0 <= self.fps <= 60.0:
            raise ValueError(f"clip frame rate must be 5-60, not {self.fps}")
        SceneOptions(self.seed, "sorted", decks=self.decks, art=self.art).check()


def _card_patch(
    cam: Camera, level: np.ndarray, f: float, pose: np.ndarray
) -> tuple[int, int, np.ndarray, np.ndarray] | None:
    """The card's picture warped to ``pose`` (mm, rad): x0, y0, BGR and alpha, or ``None``
    when it lies outside the picture."""
    corners = project(cam.H, all_corners(pose[None]))[0]
    lo = np.floor(corners.min(0)).astype(int) - 2
    hi = np.ceil(corners.max(0)).astype(int) + 2
    x0, y0 = max(0, lo[0]), max(0, lo[1])
    x1, y1 = min(cam.width, hi[0]), min(cam.height, hi[1])
    if x1 <= x0 or y1 <= y0:
        return None
    a_lvl = np.array([[1 / f, 0, 0.5 / f - 0.5], [0, 1 / f, 0.5 / f - 0.5], [0, 0, 1]])
    t = np.array([[1, 0, -0.5 - x0], [0, 1, -0.5 - y0], [0, 0, 1]])
    m = t @ cam.H @ _pose_matrix(pose) @ _A_CARD @ a_lvl
    warped = cv2.warpPerspective(level, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    return x0, y0, warped[..., :3].astype(np.float32), warped[..., 3:4] * np.float32(1 / 255)


def _lay(img: np.ndarray, patch: tuple[int, int, np.ndarray, np.ndarray] | None) -> None:
    """Lay a card's patch on ``img`` (float32 BGR), with a faint shadow along its edge."""
    if patch is None:
        return
    x0, y0, bgr, alpha = patch
    h, w = alpha.shape[:2]
    roi = img[y0 : y0 + h, x0 : x0 + w]
    shadow = cv2.blur(alpha[..., 0], (5, 5))[..., None]
    roi *= 1 - 0.25 * shadow
    roi[:] = roi * (1 - alpha) + bgr * alpha


@dataclass
class _Deck:
    """One deck's place: its kind, centre (mm), the cards laid there so far."""

    kind: str
    centre: np.ndarray
    laid: int = 0

    def pose(self, rng: np.random.Generator) -> np.ndarray:
        """Where the next card goes (mm, rad), with a hand's slight shift and turn."""
        if self.kind == "stack":
            shift = rng.normal(0, 3.0, 2)
            return np.array([*(self.centre + shift), rng.normal(0, np.radians(5))])
        row, k = divmod(self.laid, ROW_CARDS)
        step = 8.5
        x = self.centre[0] - CELL_MM[0] / 2 + CARD_W_MM / 2 + 10 + k * step
        y = self.centre[1] - 20 + 40 * row
        return np.array([x + rng.normal(0, 1.0), y + rng.normal(0, 1.0), rng.normal(0, 0.04)])


def _plan_moves(n_cards: int, opts: SortOptions, rng: np.random.Generator) -> list[tuple[int, str]]:
    """The order of the lays: ``(card index, how)`` with how ``lay``, ``move`` (laid beside
    its place, then moved onto it) or ``take_back`` (laid and taken back; laid again later)."""
    queue = list(range(n_cards))
    out: list[tuple[int, str]] = []
    taken: set[int] = set()
    while queue:
        card = queue.pop(0)
        u = rng.random()
        if card not in taken and u < opts.take_back_share:
            out.append((card, "take_back"))
            taken.add(card)
            queue.insert(int(rng.integers(0, len(queue) + 1)), card)
        elif u < opts.take_back_share + opts.move_share:
            out.append((card, "move"))
        else:
            out.append((card, "lay"))
    return out


def make_sort(opts: SortOptions, index: int, sink: Callable[[np.ndarray], None]) -> dict[str, Any]:
    """Sort clip ``index``: each BGR frame goes to ``sink`` as it is filmed (a long clip
    does not fit in memory); returns the truth record."""
    ss = np.random.SeedSequence([opts.seed, index, 0x5027])
    r_plan, r_render, r_hand, r_film = (np.random.default_rng(s) for s in ss.spawn(4))
    n_decks = opts.decks if opts.decks is not None else int(r_plan.choice([4, 8]))
    decks = profile_decks(n_decks)
    scene = SceneOptions(opts.seed, "sorted", decks=n_decks, art=opts.art)
    pool, tiles, _family = scene_art(scene, index)
    tile = tiles[int(r_plan.integers(len(tiles)))]
    cards_per = {d: int(r_plan.integers(0, opts.max_cards + 1)) for d in decks}
    cols = 2
    places: dict[str, _Deck] = {}
    for k, d in enumerate(decks):
        row, col = divmod(k, cols)
        centre = np.array([(col + 0.5) * CELL_MM[0], (row + 0.5) * CELL_MM[1]])
        places[d] = _Deck(str(r_plan.choice(KINDS)), centre)
    cards = [d for d in decks for _ in range(cards_per[d])]
    r_plan.shuffle(cards)
    lays = _plan_moves(len(cards), opts, r_plan)

    w, h = int(round(FRAME_PX[0] * MARGIN)), int(round(FRAME_PX[1] * MARGIN))
    rows = (n_decks + cols - 1) // cols
    content = np.array([[0, 0], [cols * CELL_MM[0], rows * CELL_MM[1]]], np.float64)
    tilt, yaw = float(r_render.uniform(0, 20)), float(r_render.normal(0, 6))
    cam = frame_cards(content, 80.0, w, h, r_render, tilt, yaw, margin=0.12, centre_jitter=0.0)
    table = render_table(tile, cam, r_render).astype(np.float32)
    prints = {d: pool.back(d, r_render) for d in decks}
    px_per_texel = cam.px_per_mm * CARD_H_MM / CARD_H_PX
    levels = {d: prints[d].level_for(px_per_texel) for d in decks}
    # one hand for the clip, reaching up from the bottom of the picture
    palm_px = np.array([w / 2, h / 2])
    inv = np.linalg.inv(cam.H)
    c_mm, up_mm = project(inv, np.array([palm_px, palm_px - (0, 60)]))
    toward = float(np.arctan2(*(up_mm - c_mm)[::-1]))
    hand = dis.hand(cam, c_mm, r_hand, toward)
    entry = np.array([0.0, h * 0.75])  # off the bottom edge, px from the target

    fps = opts.fps
    approach, hold, leave = (max(2, int(round(s * fps))) for s in (0.4, 0.15, 0.3))
    webcam = Webcam.draw(r_film, (w, h))
    on_table = dict.fromkeys(decks, 0)
    per_frame: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []

    def add(img: np.ndarray, moving: bool) -> None:
        # the drift's slow swings last about a minute, whatever the clip's length
        sink(webcam.shoot(img, len(per_frame) / (DRIFT_PERIOD_S * fps), moving)[0])
        per_frame.append({"counts": dict(on_table), "hand": moving})

    def carry(base: np.ndarray, deck: str, start: np.ndarray, end: np.ndarray, n: int) -> None:
        """The hand brings the card from ``start`` to ``end`` (px offsets and poses)."""
        for j in range(n):
            s = (j + 1) / n
            img = base.copy()
            pose = end if s >= 1 else start + (end - start) * s
            level, f = levels[deck]
            _lay(img, _card_patch(cam, level, f, pose))
            palm = project(cam.H, pose[None, :2])[0] + (0, 18)
            shift = palm - palm_px
            _composite(img, hand, int(shift[0]), int(shift[1]))
            add(img, True)

    def walk_away(base: np.ndarray, at: np.ndarray, n: int) -> None:
        palm = project(cam.H, at[None, :2])[0] + (0, 18)
        for j in range(n):
            img = base.copy()
            shift = palm - palm_px + entry * (j + 1) / n
            _composite(img, hand, int(shift[0]), int(shift[1]))
            add(img, True)

    def rest(base: np.ndarray, n: int) -> None:
        for _ in range(n):
            add(base, False)

    rest(table, int(round(opts.lead_s * fps)))
    for card, how in lays:
        deck = cards[card]
        place = places[deck]
        target = place.pose(r_hand)
        from_px = project(inv, (project(cam.H, target[None, :2])[0] + entry)[None])[0]
        start = np.array([*from_px, target[2] + r_hand.normal(0, 0.3)])
        level, f = levels[deck]
        if how == "move":
            beside = target + np.array([r_hand.choice([-1, 1]) * CARD_W_MM * 1.6, 0, 0.3])
            beside[:2] += r_hand.normal(0, 6, 2)
            carry(table, deck, start, beside, approach)
            laid = table.copy()
            _lay(laid, _card_patch(cam, level, f, beside))
            on_table[deck] += 1
            events.append({"kind": "move", "deck": deck, "frame": len(per_frame)})
            rest(laid, hold)
            walk_away(laid, beside, leave)
            rest(laid, int(r_hand.uniform(1.5, 2.5) * fps))
            carry(laid, deck, beside, beside, 1)  # the hand comes back over it
            carry(table, deck, beside, target, approach)
        elif how == "take_back":
            carry(table, deck, start, target, approach)
            laid = table.copy()
            _lay(laid, _card_patch(cam, level, f, target))
            on_table[deck] += 1
            events.append({"kind": "take_back", "deck": deck, "frame": len(per_frame)})
            rest(laid, hold)
            walk_away(laid, target, leave)
            rest(laid, int(r_hand.uniform(0.2, 0.5) * fps))
            on_table[deck] -= 1
            carry(table, deck, target, start, approach)  # and out of the picture again
            continue
        else:
            carry(table, deck, start, target, approach)
        _lay(table, _card_patch(cam, level, f, target))
        place.laid += 1
        if how == "lay":
            on_table[deck] += 1
            events.append({"kind": "lay", "deck": deck, "frame": len(per_frame)})
        rest(table, hold)
        walk_away(table, target, leave)
        rest(table, int(r_hand.integers(0, max(1, int(0.3 * fps)) + 1)))
    rest(table, int(round(opts.tail_s * fps)))

    return {
        "kind": "sort",
        "fps": fps,
        "size": list(FRAME_PX),
        "decks": list(decks),
        "seed": opts.seed,
        "index": index,
        "art": opts.art,
        "places": {d: places[d].kind for d in decks},
        "card_px": round(cam.px_per_mm * CARD_H_MM, 1),
        "final": cards_per,
        "events": events,
        "jpeg_quality": SORT_JPEG_QUALITY,
        "frames": per_frame,
    }


def write_sort(out: Path, opts: SortOptions, index: int, mp4: bool = False) -> dict[str, Any]:
    """Render sort clip ``index`` into ``out`` as ``NNNNNN.avi`` (MJPG; ``mp4``: ``.mp4``,
    mp4v, a fraction of the size) and ``NNNNNN.json``."""
    path = out / f"{index:06d}.{'mp4' if mp4 else 'avi'}"
    fourcc = cv2.VideoWriter_fourcc(*("mp4v" if mp4 else "MJPG"))
    writer = cv2.VideoWriter(str(path), fourcc, opts.fps, FRAME_PX)
    if not writer.isOpened():
        raise RuntimeError(f"cannot write {path}")
    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, SORT_JPEG_QUALITY)
    try:
        record = make_sort(opts, index, writer.write)
    finally:
        writer.release()
    (out / f"{index:06d}.json").write_text(json.dumps(record, separators=(",", ":")))
    return {"frames": len(record["frames"]), "cards": sum(record["final"].values())}


def synthesize_sorts(out: Path, n: int, opts: SortOptions, start: int = 0) -> list[dict[str, Any]]:
    """Write ``n`` sort clips (indices ``start``...) into ``out``."""
    opts.check()
    out.mkdir(parents=True, exist_ok=True)
    return [write_sort(out, opts, i) for i in range(start, start + n)]
