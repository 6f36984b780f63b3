"""Card outlines as geometry: quads, rotated boxes, their overlaps and rotated NMS.

A quad is ``(4, 2)`` image pixels, clockwise on screen (y down), its first two corners
spanning a short edge; a rotated box is ``(5,)`` centre x, y, width, height (pixels) and
angle (radians).
"""

from __future__ import annotations

import cv2
import numpy as np


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (4, 2)."""
    a32, b32 = np.asarray(a, np.float32), np.asarray(b, np.float32)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    union = abs(cv2.contourArea(a32)) + abs(cv2.contourArea(b32)) - inter
    return float(inter / union) if union > 0 else 0.0


def rotated_nms(xywhr: np.ndarray, scores: np.ndarray, iou: float, limit: int) -> np.ndarray:
    """Indices kept by class-agnostic NMS on rotated boxes (angle in radians)."""
    if not len(xywhr):
        return np.zeros(0, np.int64)
    rects = [
        ((float(x), float(y)), (float(w), float(h)), float(np.degrees(r)))
        for x, y, w, h, r in xywhr
    ]
    found = cv2.dnn.NMSBoxesRotated(rects, scores.astype(np.float32).tolist(), 0.0, iou)
    keep: np.ndarray = np.asarray(found, dtype=np.int64).reshape(-1)
    return keep[:limit]


def quads_to_xywhr(corners: np.ndarray) -> np.ndarray:
    """``(n, 4, 2)`` quads to rotated boxes ``(n, 5)``: centre, width (edge 0-1), height, angle."""
    c = corners.mean(axis=1)
    e01 = corners[:, 1] - corners[:, 0]
    e12 = corners[:, 2] - corners[:, 1]
    w = np.linalg.norm(e01, axis=1)
    h = np.linalg.norm(e12, axis=1)
    r = np.arctan2(e01[:, 1], e01[:, 0])
    return np.column_stack([c, w, h, r]).astype(np.float32)


def xywhr_to_corners(xywhr: np.ndarray) -> np.ndarray:
    """Rotated boxes ``(n, 5)`` to corners ``(n, 4, 2)`` in canonical order.

    Canonical order: clockwise on screen (y down), the first two corners span a short
    edge, and that short edge is the upper one (the card is read upright, up to 180 deg).
    """
    xywhr = np.asarray(xywhr, dtype=np.float32).reshape(-1, 5)
    cx, cy, w, h, r = xywhr.T
    # Make h the long side so a card is portrait in its own frame.
    swap = w > h
    w2 = np.where(swap, h, w)
    h2 = np.where(swap, w, h)
    r2 = np.where(swap, r + np.pi / 2, r)
    cos, sin = np.cos(r2), np.sin(r2)
    local = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], np.float32)
    lx = local[None, :, 0] * w2[:, None]
    ly = local[None, :, 1] * h2[:, None]
    x = cx[:, None] + lx * cos[:, None] - ly * sin[:, None]
    y = cy[:, None] + lx * sin[:, None] + ly * cos[:, None]
    corners = np.stack([x, y], axis=-1).astype(np.float32)
    return canonical_corners(corners)


def canonical_corners(corners: np.ndarray) -> np.ndarray:
    """Reorder ``(n, 4, 2)`` quads clockwise, short edge first, upper short edge first."""
    corners = np.asarray(corners, dtype=np.float32).reshape(-1, 4, 2).copy()
    if not len(corners):
        return corners
    # Clockwise on screen (y down) means a positive shoelace sum.
    x, y = corners[..., 0], corners[..., 1]
    area2 = (x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y).sum(axis=1)
    ccw = area2 < 0
    corners[ccw] = corners[ccw][:, ::-1]
    e01 = np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1)
    e12 = np.linalg.norm(corners[:, 2] - corners[:, 1], axis=1)
    long_first = e01 > e12
    corners[long_first] = np.roll(corners[long_first], -1, axis=1)
    # Of the two short edges (0-1 and 2-3) put the upper one first.
    top = corners[:, 0:2, 1].mean(axis=1)
    bottom = corners[:, 2:4, 1].mean(axis=1)
    flip = bottom < top
    corners[flip] = np.roll(corners[flip], 2, axis=1)
    return corners


def quad_overlaps(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(n, n)`` intersection areas of the quads (0 on the diagonal) and each quad's area."""
    n = len(corners)
    quads = np.asarray(corners, np.float32).reshape(n, 4, 2)
    area = np.abs(np.array([cv2.contourArea(q) for q in quads], np.float64) if n else np.zeros(0))
    inter = np.zeros((n, n))
    if n < 2:
        return inter, area
    centres = quads.mean(axis=1)
    radius = np.linalg.norm(quads - centres[:, None, :], axis=2).max(axis=1)
    dist = np.linalg.norm(centres[:, None, :] - centres[None, :, :], axis=2)
    for i, j in np.argwhere(np.triu(dist < radius[:, None] + radius[None, :], k=1)):
        a, _ = cv2.intersectConvexConvex(quads[i], quads[j])
        inter[i, j] = inter[j, i] = a
    return inter, area


def cut_by_inner_edges(
    corners: np.ndarray,
    window: tuple[int, int],
    inner: tuple[bool, bool, bool, bool],
    margin: float = 2.0,
) -> np.ndarray:
    """Which quads ``(n, 4, 2)``, in the pixels of a window ``(width, height)`` cut out of a
    larger picture, reach within ``margin`` px of one of its inner edges (``inner``: left,
    top, right, bottom lie inside the picture): those cards go on past the window, so the
    window shows only part of them."""
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    left, top, right, bottom = inner
    w, h = window
    cut = np.zeros(len(corners), bool)
    if left:
        cut |= lo[:, 0] < margin
    if top:
        cut |= lo[:, 1] < margin
    if right:
        cut |= hi[:, 0] > w - margin
    if bottom:
        cut |= hi[:, 1] > h - margin
    return cut


def widened(corners: np.ndarray, margin: float) -> np.ndarray:
    """``(n, 4, 2)`` quads grown about their centres by ``margin`` (1.3: 30% larger)."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    centres = corners.mean(axis=1, keepdims=True)
    grown: np.ndarray = (centres + (corners - centres) * np.float32(margin)).astype(np.float32)
    return grown


def long_side(outline: np.ndarray) -> float:
    """The long side of a card's outline (px)."""
    q = np.asarray(outline, np.float64)
    return max(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[2] - q[1])), 1.0)


def outline_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean distance (px) between the corners of two card outlines, the card turned half a
    turn or not (a canonical order may start at either short edge)."""
    qa, qb = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(
        min(
            np.linalg.norm(qa - qb, axis=1).mean(),
            np.linalg.norm(qa - np.roll(qb, 2, axis=0), axis=1).mean(),
        )
    )


def covered_share(below: np.ndarray, above: np.ndarray) -> float:
    """Share of ``below``'s outline that ``above`` lies on."""
    b32, a32 = np.asarray(below, np.float32), np.asarray(above, np.float32)
    area = abs(cv2.contourArea(b32))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(b32, a32)
    return float(inter / area)


def card_area(counted: np.ndarray, candidates: np.ndarray) -> float:
    """A card's area, px^2: the median counted card's, else the median candidate's."""
    quads = counted if len(counted) else candidates
    if not len(quads):
        return 0.0
    return float(np.median([abs(cv2.contourArea(q)) for q in quads.astype(np.float32)]))
