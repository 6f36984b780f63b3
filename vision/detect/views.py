"""The detector's input seen in up to four mirrorings, its outputs averaged anchor by anchor.

A table photo mirrored left to right, upside down, or both (turned half round) is as
plausible a photo as the original, so the detector's reading of each is a fair second
opinion. The detector reads its input on grids of cells (strides 8, 16, 32); mirroring the
input mirrors the grids, so each anchor of a mirrored look answers for one anchor of the
original. Each look's boxes are mapped back (x -> width - x, y -> height - y, the angle's
sign flipped by one mirroring and kept by two), put in the angle branch of the original
look's box at that anchor, and all looks' boxes, angles and class scores are averaged.
The mean is a single prediction per anchor, decoded as one look would be.

A half-covered card that one look is unsure of is often seen better in another, and a
second box on one card seldom survives in all four looks. What it gained is measured in
`VisionSettings.detector_views`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

# The looks beyond the first, in the order they are added: (mirror left-right, upside down).
MIRRORINGS = ((True, False), (False, True), (True, True))
STRIDES = (8, 16, 32)


@cache
def anchor_order(height: int, width: int, lr: bool, ud: bool) -> np.ndarray:
    """For each anchor of the original look, the index of its anchor in the mirrored look
    (kept per input size, read-only)."""
    parts, offset = [], 0
    for s in STRIDES:
        rows, cols = height // s, width // s
        grid = np.arange(rows * cols).reshape(rows, cols)
        if lr:
            grid = grid[:, ::-1]
        if ud:
            grid = grid[::-1, :]
        parts.append(grid.reshape(-1) + offset)
        offset += rows * cols
    order = np.concatenate(parts)
    order.flags.writeable = False
    return order


def nearest_branch(
    angle: np.ndarray, w: np.ndarray, h: np.ndarray, other_angle: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same rotated boxes ``(w, h, angle)`` written with the angle nearest
    ``other_angle``: a box is itself turned by pi, and with w and h swapped turned by pi/2."""
    turn = (angle - other_angle + np.pi / 2) % np.pi - np.pi / 2
    swap = np.abs(turn) > np.pi / 4
    turn = np.where(swap, (angle + np.pi / 2 - other_angle + np.pi / 2) % np.pi - np.pi / 2, turn)
    return other_angle + turn, np.where(swap, h, w), np.where(swap, w, h)


def fuse(raws: list[np.ndarray], height: int, width: int, classes: int) -> np.ndarray:
    """Average raw head outputs ``(4 + classes + 1, anchors)`` of the original look and the
    mirrored looks of `MIRRORINGS` (in that order; input ``height`` x ``width``)."""
    first = raws[0]
    if len(raws) == 1:
        return first
    a = 4 + classes  # the angle's row
    total = first.astype(np.float64)
    for raw, (lr, ud) in zip(raws[1:], MIRRORINGS, strict=False):
        order = anchor_order(height, width, lr, ud)
        if len(order) != first.shape[1]:
            raise ValueError(f"{first.shape[1]} anchors, not those of strides {STRIDES}")
        r = raw[:, order].astype(np.float64)
        if lr:
            r[0] = width - r[0]
        if ud:
            r[1] = height - r[1]
        if lr != ud:
            r[a] = -r[a]
        r[a], r[2], r[3] = nearest_branch(r[a], r[2], r[3], first[a])
        total += r
    return (total / len(raws)).astype(np.float32)


def mirrored(blob: np.ndarray, lr: bool, ud: bool) -> np.ndarray:
    """An NCHW input blob mirrored left-right and/or upside down."""
    if lr:
        blob = blob[:, :, :, ::-1]
    if ud:
        blob = blob[:, :, ::-1, :]
    return np.ascontiguousarray(blob)
