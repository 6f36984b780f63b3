"""How players lay cards on a table: overlapping rows, fans, grids, loose heaps and piles.

Poses are (x_mm, y_mm, angle_rad) on the table plane, later cards on top. Every layout that
overlaps cards checks, on a rasterised table plane, that each card keeps at least
``target`` of its area visible.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.decks import CARD_H_MM, CARD_W_MM

_HALF = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * (CARD_W_MM / 2, CARD_H_MM / 2)


def card_corners_mm(pose: np.ndarray) -> np.ndarray:
    """The 4 corners (TL, TR, BR, BL of the art) of a card at ``pose``, table mm."""
    x, y, a = pose
    c, s = np.cos(a), np.sin(a)
    rot = np.array([[c, -s], [s, c]])
    return _HALF @ rot.T + (x, y)


def all_corners(poses: np.ndarray) -> np.ndarray:
    """Corners of every card, (n, 4, 2) table mm, same order as :func:`card_corners_mm`."""
    p = np.asarray(poses, np.float64).reshape(-1, 3)
    c, s = np.cos(p[:, 2])[:, None], np.sin(p[:, 2])[:, None]
    x = _HALF[None, :, 0] * c - _HALF[None, :, 1] * s + p[:, 0:1]
    y = _HALF[None, :, 0] * s + _HALF[None, :, 1] * c + p[:, 1:2]
    return np.stack([x, y], -1)


def plane_visibility(poses: np.ndarray, px_per_mm: float = 1.5) -> np.ndarray:
    """Visible fraction of each card (later cards on top), rasterised on the table plane."""
    n = len(poses)
    if n == 0:
        return np.zeros(0)
    quads = all_corners(poses)
    lo = quads.reshape(-1, 2).min(0) - 2
    hi = quads.reshape(-1, 2).max(0) + 2
    size = np.ceil((hi - lo) * px_per_mm).astype(int) + 1
    idm = np.full((size[1], size[0]), -1, np.int16)
    full = np.zeros(n)
    for k in range(n):
        q = np.round((quads[k] - lo) * px_per_mm * 16).astype(np.int32)
        cv2.fillConvexPoly(idm, q, k, cv2.LINE_8, 4)
        full[k] = abs(cv2.contourArea(q.astype(np.float32) / 16))
    vis = np.bincount(idm.ravel() + 1, minlength=n + 1)[1:].astype(np.float64)
    return vis / np.maximum(full, 1)


def _jitter(rng: np.random.Generator, n: int, pos_mm: float, ang_deg: float) -> np.ndarray:
    j = np.zeros((n, 3))
    j[:, :2] = rng.normal(0, pos_mm, (n, 2))
    j[:, 2] = np.deg2rad(rng.normal(0, ang_deg, n))
    return j


def rows(n: int, target: float, rng: np.random.Generator) -> np.ndarray:
    """Overlapping rows, each card covering the right part of the one before, rows covering
    the bottom of the row above: a card keeps its top-left ``fx * fy`` visible."""
    per_row = int(rng.integers(3, 13)) if n > 3 else n
    per_row = max(1, min(per_row, n))
    messy_mm, messy_deg = rng.uniform(0.4, 3.0), rng.uniform(0.5, 4.0)
    for _ in range(30):
        fx = rng.uniform(min(target + 0.08, 1.0), 1.12) if rng.random() < 0.85 else 1.1
        fy_min = min(1.0, (target + 0.08) / min(fx, 1.0))
        fy = rng.uniform(fy_min, max(fy_min, 1.12)) if rng.random() < 0.7 else 1.08
        k = np.arange(n)
        poses = np.zeros((n, 3))
        poses[:, 0] = (k % per_row) * CARD_W_MM * fx
        poses[:, 1] = (k // per_row) * CARD_H_MM * fy
        poses += _jitter(rng, n, messy_mm, messy_deg)
        if plane_visibility(poses).min(initial=1) >= target + 0.03:
            return poses
        target = min(1.0, target + 0.05)
    return grid(n, rng)


def fan(n: int, target: float, rng: np.random.Generator) -> np.ndarray:
    """A hand-held style fan around a pivot near the bottom of the cards (up to 12 a fan)."""
    radius = CARD_H_MM * rng.uniform(0.4, 1.5)
    step = np.deg2rad(rng.uniform(4, 8))
    for _ in range(40):
        ang = (np.arange(n) - (n - 1) / 2) * step
        poses = np.stack([radius * np.sin(ang), -radius * np.cos(ang) + radius, ang], 1)
        poses += _jitter(rng, n, 0.5, 1.0)
        if plane_visibility(poses).min(initial=1) >= target + 0.03:
            return poses
        step *= 1.15
    return rows(n, target, rng)


def grid(n: int, rng: np.random.Generator) -> np.ndarray:
    """Cards side by side with small gaps, as for a display."""
    cols = max(1, int(round(np.sqrt(n * 1.2))))
    gap = rng.uniform(2, 15, 2)
    k = np.arange(n)
    poses = np.zeros((n, 3))
    poses[:, 0] = (k % cols) * (CARD_W_MM + gap[0])
    poses[:, 1] = (k // cols) * (CARD_H_MM + gap[1])
    return poses + _jitter(rng, n, 0.5, 1.0)


def heap(n: int, target: float, rng: np.random.Generator) -> np.ndarray:
    """A loose heap: cards dropped at random, each placed only where every card below keeps
    ``target`` visible (checked incrementally on a 1 px/mm raster of the table)."""
    radius = CARD_H_MM * (0.35 + 0.28 * np.sqrt(n)) * rng.uniform(0.8, 1.2)
    half = int(radius * 3 + 2 * CARD_H_MM)
    idm = np.full((2 * half, 2 * half), -1, np.int16)
    full = np.zeros(n)
    vis = np.zeros(n)
    poses = np.zeros((n, 3))
    spill = 0
    for k in range(n):
        for attempt in range(60):
            r = radius * (1 + attempt / 30) * np.sqrt(rng.random())
            t = rng.uniform(0, 2 * np.pi)
            cand = np.array([r * np.cos(t), r * np.sin(t), rng.uniform(-np.pi, np.pi)])
            q = card_corners_mm(cand) + half
            x0, y0 = np.floor(q.min(0)).astype(int)
            x1, y1 = np.ceil(q.max(0)).astype(int) + 1
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, np.round((q - (x0, y0)) * 16).astype(np.int32), 1, 8, 4)
            sub = idm[y0:y1, x0:x1]
            lost = np.bincount(sub[mask > 0] + 1, minlength=k + 1)[1:]
            if k and np.any((vis[:k] - lost[:k]) < (target + 0.04) * full[:k]):
                continue
            sub[mask > 0] = k
            vis[:k] -= lost[:k]
            vis[k] = full[k] = mask.sum()
            poses[k] = cand
            break
        else:  # no room: start the card beside the heap
            spill += 1
            poses[k] = (radius * 1.5 + CARD_W_MM * 1.2 * spill, radius * 1.5 + CARD_H_MM, 0)
            full[k] = vis[k] = 1e9  # outside the raster, never covered by the heap
    if spill and plane_visibility(poses).min() < target + 0.03:
        return rows(n, target, rng)  # too crowded for a heap: lay the cards in rows
    return poses


def pile(count: int, rng: np.random.Generator, messy: float) -> np.ndarray:
    """A Dutch pile: ``count`` cards stacked, edges peeking out by ``messy`` (0..1)."""
    poses = np.zeros((count, 3))
    poses[:, :2] = rng.normal(0, 0.4 + 1.6 * messy, (count, 2))
    poses[:, 2] = np.deg2rad(rng.normal(0, 0.5 + 3.5 * messy, count))
    return poses


def group(n: int, target: float, rng: np.random.Generator, style: str | None = None) -> np.ndarray:
    """One deck's cards in one of the layouts players make; rotated a little as a whole."""
    if n == 0:
        return np.zeros((0, 3))
    if style is None:
        style = str(rng.choice(["rows", "fan", "grid", "heap"], p=[0.4, 0.2, 0.1, 0.3]))
    if style == "fan" and n > 12:
        style = "rows"
    if style == "grid" and n > 16:
        style = "rows"
    if style == "heap" and n > 25:
        style = "rows"
    if style == "rows":
        poses = rows(n, target, rng)
    elif style == "fan":
        poses = fan(n, target, rng)
    elif style == "grid":
        poses = grid(n, rng)
    else:
        poses = heap(n, target, rng)
    # players sit around the table: each lays their cards facing themselves
    quarter = float(rng.choice([0.0, 0.5 * np.pi, np.pi, 1.5 * np.pi], p=[0.55, 0.15, 0.15, 0.15]))
    return rotate(poses, quarter + rng.normal(0, np.deg2rad(8)))


def rotate(poses: np.ndarray, angle: float) -> np.ndarray:
    """Turn a group of cards by ``angle`` (rad) about its centre."""
    if len(poses) == 0:
        return poses
    c, s = np.cos(angle), np.sin(angle)
    ctr = poses[:, :2].mean(0)
    out = poses.copy()
    out[:, :2] = (poses[:, :2] - ctr) @ np.array([[c, -s], [s, c]]).T
    out[:, 2] += angle
    return out


def pack_groups(
    groups: list[np.ndarray],
    rng: np.random.Generator,
    aspect: float,
    gap_mm: tuple[float, float] = (8, 50),
) -> list[np.ndarray]:
    """Place groups side by side in shelves, about ``aspect`` wide:high, centred on 0."""
    boxes = []
    for g in groups:
        if len(g) == 0:
            boxes.append((np.zeros(2), np.zeros(2)))
            continue
        q = all_corners(g).reshape(-1, 2)
        boxes.append((q.min(0), q.max(0)))
    sizes = [hi - lo for lo, hi in boxes]
    area = sum((s[0] + gap_mm[1] / 2) * (s[1] + gap_mm[1] / 2) for s in sizes)
    width = max(
        max((s[0] for s in sizes), default=0), np.sqrt(area * aspect) * rng.uniform(0.9, 1.3)
    )
    out: list[np.ndarray] = []
    x = y = shelf_h = 0.0
    for g, (lo, _hi), s in zip(groups, boxes, sizes, strict=True):
        if len(g) == 0:
            out.append(g)
            continue
        if x > 0 and x + s[0] > width:
            x = 0.0
            y += shelf_h + rng.uniform(*gap_mm)
            shelf_h = 0.0
        shift = np.array([x, y + rng.uniform(0, gap_mm[0])]) - lo
        g2 = g.copy()
        g2[:, :2] += shift
        out.append(g2)
        x += s[0] + rng.uniform(*gap_mm)
        shelf_h = max(shelf_h, s[1])
    allp = np.vstack([g for g in out if len(g)]) if any(len(g) for g in out) else np.zeros((0, 3))
    if len(allp):
        q = all_corners(allp).reshape(-1, 2)
        ctr = (q.min(0) + q.max(0)) / 2
        for g in out:
            if len(g):
                g[:, :2] -= ctr
    return out
