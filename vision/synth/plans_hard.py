"""Hard tables: long spreads and arcs of one deck, tight heaps where each card shows a sliver.

These are the layouts the other scene kinds leave out: a deck's 30-40 cards spread in one
long row or arc, and loose heaps packed as tightly as the visibility threshold allows, so
most cards show only the strip or corner a player would still count. Poses are table mm as
in :mod:`vision.synth.layouts`; every layout checks on a raster that each card keeps at
least ``target`` (plus a small margin) visible.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth import layouts
from vision.synth.decks import CARD_H_MM, CARD_W_MM
from vision.synth.plans import CardSpec, Plan, _back, _extras, _loose_plan, _players
from vision.synth.rounds import simulate_round

VARIANTS = {"spread": 0.35, "heaps": 0.35, "round": 0.3}
MARGIN = 0.04  # visible fraction kept above the threshold, for rasterisation differences


def spread(n: int, target: float, rng: np.random.Generator) -> np.ndarray:
    """One long overlapping row, each card showing a strip of ``target`` plus a little:
    sideways (strips of the width) or downwards (strips of the height), slightly bowed."""
    down = rng.random() < 0.3
    f = rng.uniform(target + MARGIN + 0.01, min(0.7, target + 0.15))
    bow = rng.normal(0, 0.0006)  # mm^-1: a gentle curve, as a spread drawn by hand
    for _ in range(25):
        step = (CARD_H_MM if down else CARD_W_MM) * f
        t = (np.arange(n) - (n - 1) / 2) * step
        poses = np.zeros((n, 3))
        if down:
            poses[:, 0], poses[:, 1], poses[:, 2] = bow * t**2, t, -np.arctan(2 * bow * t)
        else:
            poses[:, 0], poses[:, 1], poses[:, 2] = t, bow * t**2, np.arctan(2 * bow * t)
        poses += _jitter(rng, n, rng.uniform(0.2, 1.2), rng.uniform(0.2, 1.5))
        if layouts.plane_visibility(poses).min(initial=1) >= target + MARGIN:
            return poses
        f = min(1.0, f + 0.03)
    return layouts.rows(n, target, rng)


def arc(n: int, target: float, rng: np.random.Generator) -> np.ndarray:
    """A long fan: cards turned about a pivot below them, each showing a wedge at the top."""
    f = rng.uniform(target + MARGIN + 0.02, min(0.7, target + 0.25))
    radius = CARD_H_MM * rng.uniform(1.0, 4.0)
    # keep the whole arc under ~150 degrees, opening the radius if needed
    radius = max(radius, f * CARD_W_MM * n / 2.6 - CARD_H_MM / 2)
    step = f * CARD_W_MM / (radius + CARD_H_MM / 2)
    for _ in range(30):
        ang = (np.arange(n) - (n - 1) / 2) * step
        poses = np.stack([radius * np.sin(ang), -radius * np.cos(ang) + radius, ang], 1)
        poses += _jitter(rng, n, 0.4, 0.6)
        if layouts.plane_visibility(poses).min(initial=1) >= target + MARGIN:
            return poses
        step *= 1.08
    return spread(n, target, rng)


def sliver_heap(n: int, target: float, rng: np.random.Generator) -> np.ndarray:
    """A tight heap: each card dropped where it covers the most of the cards below while
    every one of them keeps ``target`` + margin visible (1 px/mm raster of the table)."""
    radius = CARD_H_MM * (0.15 + 0.14 * np.sqrt(n)) * rng.uniform(0.8, 1.2)
    half = int(radius * 3 + 2 * CARD_H_MM)
    idm = np.full((2 * half, 2 * half), -1, np.int16)
    full, vis, poses = np.zeros(n), np.zeros(n), np.zeros((n, 3))
    spill = 0
    for k in range(n):
        best: tuple[float, np.ndarray, tuple[int, int, int, int], np.ndarray, np.ndarray] | None
        best, tried = None, 0
        for attempt in range(60):
            r = radius * (1 + attempt / 30) * np.sqrt(rng.random())
            t = rng.uniform(0, 2 * np.pi)
            cand = np.array([r * np.cos(t), r * np.sin(t), rng.uniform(-np.pi, np.pi)])
            q = layouts.card_corners_mm(cand) + half
            x0, y0 = np.floor(q.min(0)).astype(int)
            x1, y1 = np.ceil(q.max(0)).astype(int) + 1
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, np.round((q - (x0, y0)) * 16).astype(np.int32), 1, 8, 4)
            lost = np.bincount(idm[y0:y1, x0:x1][mask > 0] + 1, minlength=k + 1)[1 : k + 1]
            if k and np.any(vis[:k] - lost < (target + MARGIN) * full[:k]):
                continue
            score = float(lost.sum()) + rng.uniform(0, 1)
            if best is None or score > best[0]:
                best = (score, cand, (x0, y0, x1, y1), mask, lost)
            tried += 1
            if tried >= 10:
                break
        if best is None:  # no room: start the card beside the heap
            spill += 1
            poses[k] = (radius * 1.5 + CARD_W_MM * 1.2 * spill, radius * 1.5 + CARD_H_MM, 0)
            full[k] = vis[k] = 1e9
            continue
        _, cand, (x0, y0, x1, y1), mask, lost = best
        idm[y0:y1, x0:x1][mask > 0] = k
        vis[:k] -= lost
        vis[k] = full[k] = mask.sum()
        poses[k] = cand
    if spill and layouts.plane_visibility(poses).min() < target + 0.03:
        return layouts.rows(n, target, rng)
    return poses


def _jitter(rng: np.random.Generator, n: int, pos_mm: float, ang_deg: float) -> np.ndarray:
    j = np.zeros((n, 3))
    j[:, :2] = rng.normal(0, pos_mm, (n, 2))
    j[:, 2] = np.deg2rad(rng.normal(0, ang_deg, n))
    return j


def hard_group(
    n: int, target: float, rng: np.random.Generator, style: str | None = None
) -> np.ndarray:
    """One deck's cards in a hard layout, turned towards the player's seat."""
    if style is None:
        style = str(rng.choice(["spread", "arc", "sliver_heap", "rows"], p=[0.3, 0.2, 0.35, 0.15]))
    if style == "sliver_heap" and n > 30:
        style = "spread"
    maker = {"spread": spread, "arc": arc, "sliver_heap": sliver_heap, "rows": layouts.rows}[style]
    poses = maker(n, target, rng) if n else np.zeros((0, 3))
    quarter = float(rng.choice([0.0, 0.5 * np.pi, np.pi, 1.5 * np.pi]))
    return layouts.rotate(poses, quarter + rng.normal(0, np.deg2rad(10)))


def plan_hard(profile: tuple[str, ...], rng: np.random.Generator, target: float) -> Plan:
    """A hard table: ``spread`` (1-3 decks of 30-40 cards in long rows or arcs, sometimes
    a small heap of another deck beside them), ``heaps`` (2 or more decks, 5-30 cards each,
    in tight sliver heaps) or ``round`` (a simulated round's Dutch cards in hard layouts)."""
    variant = str(rng.choice(list(VARIANTS), p=list(VARIANTS.values())))
    outcome = None
    groups: list[list[CardSpec]] = []
    if variant == "spread":
        k = int(rng.integers(1, min(3, len(profile)) + 1))
        decks = [str(d) for d in rng.choice(profile, min(k + 2, len(profile)), replace=False)]
        counts = {d: int(rng.integers(30, 41)) for d in decks[:k]}
        for d in decks[k:]:
            if rng.random() < 0.3:
                counts[d] = int(rng.integers(1, 13))
        for d, n in counts.items():
            style = str(rng.choice(["spread", "arc"])) if n >= 30 else "sliver_heap"
            groups.append([_back(d, p) for p in hard_group(n, target, rng, style)])
    elif variant == "heaps":
        k = int(rng.integers(2, len(profile) + 1))
        counts = {str(d): int(rng.integers(5, 31)) for d in rng.choice(profile, k, replace=False)}
        for d, n in counts.items():
            groups.append([_back(d, p) for p in hard_group(n, target, rng, "sliver_heap")])
    else:
        outcome = simulate_round(_players(profile, rng), rng)
        counts = {d: n for d, n in outcome.dutch.items() if n}
        for d, n in counts.items():
            groups.append([_back(d, p) for p in hard_group(n, target, rng)])
    groups += _extras(rng, target)
    plan = _loose_plan("hard", profile, groups, outcome, (60.0, 150.0), rng)
    plan.variant = variant
    plan.dealt = {d: counts.get(d, 0) for d in profile}
    return plan
