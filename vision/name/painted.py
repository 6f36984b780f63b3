"""A face's outline found again from its printed colour.

The detector's outline of a face is sometimes turned 20 to 40 degrees away from the card
(a pile's top among cards peeking out at other angles), and then the corner indices fall
outside the crop the number is read from: the face goes unread, or is read wrong. A face
is printed in one strong colour up to a thin light margin, so the card can be found again
in the picture itself: around the outline found, the pixels of the face's own colour, the
patch of them that holds most of the colour inside the outline (with its nearby pieces),
that patch's hull fitted with four corners and widened by the margin. The outline is given
only where the patch has a card's shape and about the size of the outline found, on faces
large enough; otherwise there is none.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.core.geometry import canonical_corners
from vision.core.types import Array

# The picture looked at: the outline found, grown about its centre by this.
GROW = 1.35
# Faces found shorter than this (long side, pixels) are not looked for: on small cards the
# patch's corners are a few pixels off, enough to read a wrong number.
MIN_LONG_PX = 120.0
# The face's colour: the median of the most colourful pixels (this percentile up, and at
# least MIN_CHROMA) within the outline found, shrunk about its centre by SEED_SHRINK.
SEED_SHRINK = 0.9
SEED_PERCENTILE = 60.0
MIN_CHROMA = 20.0
# How far (CIELAB, lightness at half weight) a pixel's colour may lie from the face's.
TOLERANCE = 18.0
# The face's colour can lie in pieces (a large index cuts a frame at two corners): the
# pieces holding at least this share of the colour the largest piece holds, and within this
# share of the outline's short side of it, are one patch (a striped cloth's bands are not).
JOIN_SHARE = 0.25
JOIN_GAP = 0.15
# The light margin around the printed colour, as a share of the card's size.
MARGIN = 1.06
# A card's shape: long over short side of the patch's smallest rectangle at most this (a
# low camera squeezes a card's far side to under half its width, or makes it nearly
# square), how much of that rectangle the patch's hull fills, and its area against the
# outline found.
MAX_ASPECT = 3.0
MIN_FILL = 0.7
AREA_RANGE = (0.5, 1.5)
# A face read in its outline as found is read again in its painted outline when the two
# overlap less than this (IoU): the outline found may be turned away from the card.
CHECK_IOU = 0.85
# Shares of the hull's perimeter tried, in turn, to fit it with four corners.
FIT_EPSILONS = (0.02, 0.03, 0.04, 0.06, 0.08)


def _sides(quad: Array) -> tuple[float, float]:
    """The mean lengths of a quad's shorter and longer pairs of opposite sides."""
    a = np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[3] - quad[2])
    b = np.linalg.norm(quad[2] - quad[1]) + np.linalg.norm(quad[0] - quad[3])
    return float(min(a, b)) / 2, float(max(a, b)) / 2


def _colour_patch(image_bgr: Array, found: Array) -> tuple[Array, Array] | None:
    """The hull of the patch of the face's colour around ``found`` (image pixels), and the
    region's top-left corner; None where the region is too small or has no colour."""
    centre = found.mean(axis=0)
    region = (found - centre) * GROW + centre
    h, w = image_bgr.shape[:2]
    x0, y0 = np.maximum(np.floor(region.min(axis=0)).astype(int), 0)
    x1 = min(int(np.ceil(region[:, 0].max())), w)
    y1 = min(int(np.ceil(region[:, 1].max())), h)
    if x1 - x0 < 12 or y1 - y0 < 12:
        return None
    origin = np.array([x0, y0], np.float32)
    roi = image_bgr[y0:y1, x0:x1]
    lab = cv2.cvtColor(cv2.GaussianBlur(roi, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    inner = np.zeros(roi.shape[:2], np.uint8)
    cv2.fillConvexPoly(
        inner, np.round((found - centre) * SEED_SHRINK + centre - origin).astype(np.int32), 1
    )
    inside = inner > 0
    if not inside.any():
        return None
    ys, xs = np.nonzero(inside)
    within = lab[ys, xs]
    chroma = np.hypot(within[:, 1] - 128.0, within[:, 2] - 128.0)
    colourful = chroma >= max(float(np.percentile(chroma, SEED_PERCENTILE)), MIN_CHROMA)
    if colourful.sum() < 30:
        return None
    seed = np.zeros(inside.shape, bool)
    seed[ys[colourful], xs[colourful]] = True
    colour = np.median(within[colourful], axis=0)
    # squared distance, lightness at half weight
    diff = lab - colour.astype(np.float32)
    d2 = cv2.transform(diff * diff, np.array([[0.25, 1.0, 1.0]], np.float32))
    mask = cv2.morphologyEx(
        (d2 < TOLERANCE * TOLERANCE).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)
    )
    n, labels = cv2.connectedComponents(mask)
    if n < 2:
        return None
    held = np.bincount(labels[seed], minlength=n)
    held[0] = 0
    largest = (labels == int(held.argmax())).astype(np.uint8)
    reach = max(3, round(JOIN_GAP * _sides(found)[0]))
    near = np.unique(labels[cv2.dilate(largest, np.ones((reach, reach), np.uint8)) > 0])
    pieces = [k for k in near if k and held[k] >= JOIN_SHARE * held.max()]
    patch = np.isin(labels, pieces).astype(np.uint8)
    contours, _ = cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return cv2.convexHull(np.vstack(contours)), origin


def painted_outline(image_bgr: Array, found: Array) -> Array | None:
    """The ``(4, 2)`` outline (canonical corners, image pixels) of the face whose outline
    was found at ``found`` ``(4, 2)``, from the patch of its printed colour; None where the
    colour does not make a card's shape of about that size."""
    found = np.asarray(found, np.float32).reshape(4, 2)
    if _sides(found)[1] < MIN_LONG_PX:
        return None
    got = _colour_patch(image_bgr, found)
    if got is None:
        return None
    hull, origin = got
    rect = cv2.minAreaRect(hull)
    short, long_ = sorted(rect[1])
    if short < 6:
        return None
    area = short * long_
    found_area = abs(float(cv2.contourArea(found)))
    if not (
        long_ / short <= MAX_ASPECT
        and cv2.contourArea(hull) / area > MIN_FILL
        and AREA_RANGE[0] <= area * MARGIN**2 / max(found_area, 1.0) <= AREA_RANGE[1]
    ):
        return None
    quad = cv2.boxPoints(rect)
    perimeter = cv2.arcLength(hull, True)
    for eps in FIT_EPSILONS:
        corners = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(corners) == 4:
            quad = corners.reshape(4, 2)
            break
    quad = np.asarray(quad, np.float32) + origin
    centre = quad.mean(axis=0)
    out: Array = canonical_corners(((quad - centre) * MARGIN + centre)[None])[0]
    return out


def outline_iou(a: Array, b: Array) -> float:
    """Intersection over union of two convex ``(4, 2)`` outlines."""
    a = np.asarray(a, np.float32).reshape(4, 2)
    b = np.asarray(b, np.float32).reshape(4, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0
