"""Checking the detector's candidate cards against each other before they are counted.

A crowded pile makes the detector propose a true half-covered card and a misplaced second
box over a card it already found with about the same confidence, so no single confidence
or overlap threshold keeps the one and drops the other. Cards have one size and shape,
though, their uncovered sides lie on edges of the image, and the cards of a pile lie along
the same directions: a box that is the wrong shape or size, at an odd angle to the box it
overlaps, whose sides cross card faces or that reaches out of the picture is suspect, and
one that overlaps nothing but matches its neighbours is not. `CardCheck` is a small
network that reads these facts about every candidate (`candidate_features`) and gives the
chance that it is a real card; candidates are then kept by that chance instead of by the
detector's confidence alone (`vision.count.counter.Counter.checked`). It is fitted by
`vision.train.check_fit` on scenes none of the other models trained on.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from scoring.errors import ModelError
from scoring.home import file_sha256
from vision.core.geometry import quad_overlaps

# Card shape: long side over short side of a Dutch Blitz card.
CARD_ASPECT = 1.5
# Candidates the detector is clear about set the image's typical card size and are the
# neighbours a candidate is lined up against.
CLEAR_CONFIDENCE = 0.5
# How many candidates pass the detector's own bar (VisionSettings' default) says how
# crowded the image is.
DETECTOR_SURE = 0.35

FEATURES = (
    "confidence",
    "is_face",
    "log_area_ratio",
    "log_aspect_ratio",
    "max_iou_stronger",
    "confidence_of_that",
    "angle_to_that",
    "cover_by_stronger",
    "stronger_overlapping",
    "max_iou_weaker",
    "max_iou_any",
    "angle_to_neighbours",
    "touching_neighbours",
    "best_deck_probability",
    "other_probability",
    "face_probability",
    "same_name_as_that",
    "log_candidates",
    "edge_best_sides",
    "edge_worst_side",
    "edge_peak_best_sides",
    "edge_peak_worst_side",
    "inside_image",
    "edge_long_sides",
    "edge_short_sides",
)


def feature_columns(names: tuple[str, ...], path: Path) -> list[int]:
    """Where a model's facts (``names``, in its order) are in `FEATURES`; a model fitted
    before a fact was added reads only the facts it knows. ModelError for an unknown one."""
    unknown = [name for name in names if name not in FEATURES]
    if unknown or len(set(names)) != len(names):
        raise ModelError(f"{path}: made for other features than this Tallero reads")
    return [FEATURES.index(name) for name in names]


def _long_axis_deg(corners: np.ndarray) -> np.ndarray:
    """Direction of each quad's long axis in degrees, in [0, 180)."""
    e01 = corners[:, 1] - corners[:, 0]
    e12 = corners[:, 2] - corners[:, 1]
    long = np.where((np.linalg.norm(e01, axis=1) >= np.linalg.norm(e12, axis=1))[:, None], e01, e12)
    degrees: np.ndarray = np.degrees(np.arctan2(long[:, 1], long[:, 0])) % 180.0
    return degrees


def _angle_gap(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Smallest difference between two axis directions, as a fraction of 90 degrees."""
    d = np.abs(np.asarray(a) - np.asarray(b)) % 180.0
    gap: np.ndarray = np.minimum(d, 180.0 - d) / 90.0
    return gap


# Edges are read with the image scaled so a typical card's long side is at most this long.
EDGE_CARD_LONG_SIDE_PX = 56.0


def edge_features(gray: np.ndarray, corners: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """``(n, 6)`` how well each quad's sides lie on edges of the image.

    For each side, the image gradient across it is sampled along its middle 70%: on the
    side itself and a little inside and outside. A real card's uncovered sides lie on a
    step in brightness (its edge); a misplaced box's sides cut across card faces. Returns
    the mean strength of the two strongest sides, the weakest side's, and the same two for
    the step's sharpness (on the side minus beside it); then the mean strength of the two
    long sides and of the two short sides. A card, even one showing a sliver, has a long
    side on its own edge; a stripe of a tablecloth as wide as a card is long, has edges
    only where the stripe ends a box across it, and none along the box's long sides.
    Strengths are relative to the image's 90th percentile gradient.
    """
    n = len(corners)
    if n == 0:
        return np.zeros((0, 6), np.float32)
    g: np.ndarray = np.asarray(gray, np.float32)
    if scale < 1.0:
        g = cv2.resize(g, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    g = cv2.GaussianBlur(g, (0, 0), 1.0)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    strength = float(np.percentile(np.hypot(gx, gy), 90)) + 1e-3
    a = np.asarray(corners, np.float32).reshape(n, 4, 2) * scale
    d = np.roll(a, -1, axis=1) - a
    length = np.linalg.norm(d, axis=2, keepdims=True) + 1e-6
    u = d / length
    normal = np.stack([-u[..., 1], u[..., 0]], -1)
    short = np.minimum(length[:, 0, 0], length[:, 1, 0])
    along = np.linspace(0.15, 0.85, 12, dtype=np.float32)
    across = np.array([-0.12, 0.0, 0.12], np.float32)
    pts = (
        a[:, :, None, None, :]
        + d[:, :, None, None, :] * along[None, None, :, None, None]
        + normal[:, :, None, None, :]
        * (across[None, None, None, :, None] * short[:, None, None, None, None])
    )
    per_row = len(along) * len(across) * 4
    mx = pts[..., 0].reshape(-1, per_row).astype(np.float32)
    my = pts[..., 1].reshape(-1, per_row).astype(np.float32)
    sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    sx, sy = sx.reshape(pts.shape[:-1]), sy.reshape(pts.shape[:-1])
    proj = np.abs(sx * normal[:, :, None, None, 0] + sy * normal[:, :, None, None, 1]) / strength
    on = np.median(proj[..., 1], axis=2)
    beside = np.median(np.maximum(proj[..., 0], proj[..., 2]), axis=2)
    on_sorted = np.sort(on, axis=1)
    sharp_sorted = np.sort(on - beside, axis=1)
    # Sides 0 and 2 are opposite, as are 1 and 3.
    first_long = length[:, 0, 0] >= length[:, 1, 0]
    pairs = np.stack([on[:, [0, 2]].mean(axis=1), on[:, [1, 3]].mean(axis=1)], axis=1)
    return np.stack(
        [
            on_sorted[:, 2:].mean(axis=1),
            on_sorted[:, 0],
            sharp_sorted[:, 2:].mean(axis=1),
            sharp_sorted[:, 0],
            np.where(first_long, pairs[:, 0], pairs[:, 1]),
            np.where(first_long, pairs[:, 1], pairs[:, 0]),
        ],
        axis=1,
    ).astype(np.float32)


def candidate_features(
    gray: np.ndarray,
    corners: np.ndarray,
    confidence: np.ndarray,
    is_face: np.ndarray,
    probabilities: np.ndarray,
    back_classes: np.ndarray,
    other_class: int,
) -> np.ndarray:
    """``(n, len(FEATURES))`` facts about each candidate card, in `FEATURES` order.

    Args:
        gray: the image, one channel (edges are read from it).
        corners: ``(n, 4, 2)`` candidate quads in image pixels.
        confidence: ``(n,)`` detector confidence.
        is_face: ``(n,)`` bool, the detector's side.
        probabilities: ``(n, k)`` deck classifier probabilities, already limited to the
            profile's decks and renormalised.
        back_classes: ``(k,)`` bool, which classes are decks of the profile (not faces, not
            ``other``).
        other_class: index of the ``other`` class (-1: the classifier has none).
    """
    n = len(corners)
    if n == 0:
        return np.zeros((0, len(FEATURES)), np.float32)
    quads = np.asarray(corners, np.float64).reshape(n, 4, 2)
    conf = np.asarray(confidence, np.float64)
    inter, area = quad_overlaps(quads)
    union = area[:, None] + area[None, :] - inter
    iou = np.where(union > 0, inter / np.maximum(union, 1e-9), 0.0)
    np.fill_diagonal(iou, 0.0)
    # "Stronger" = higher detector confidence (ties by order), as in NMS.
    order = np.argsort(-conf, kind="stable")
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    stronger = rank[None, :] < rank[:, None]  # stronger[i, j]: j outranks i
    iou_s = np.where(stronger, iou, 0.0)
    iou_w = np.where(stronger.T, iou, 0.0)
    that = iou_s.argmax(axis=1)
    has_that = iou_s.max(axis=1) > 0
    axis = _long_axis_deg(quads)
    sure = conf >= CLEAR_CONFIDENCE
    ref_area = float(np.median(area[sure])) if sure.any() else float(np.median(area))
    e01 = np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1)
    e12 = np.linalg.norm(quads[:, 2] - quads[:, 1], axis=1)
    aspect = np.maximum(e01, e12) / np.maximum(np.minimum(e01, e12), 1e-6)
    cover = np.where(stronger, inter, 0.0).sum(axis=1) / np.maximum(area, 1e-9)
    touching = (inter > 0.02 * np.minimum(area[:, None], area[None, :])) & sure[None, :]
    np.fill_diagonal(touching, False)
    gaps = _angle_gap(axis[:, None], axis[None, :])
    n_touch = touching.sum(axis=1)
    neighbour_gap = np.where(
        n_touch > 0, np.where(touching, gaps, 0.0).sum(axis=1) / np.maximum(n_touch, 1), 0.0
    )
    p = np.asarray(probabilities, np.float64)
    deck_p = np.where(back_classes[None, :], p, 0.0)
    best_deck = deck_p.argmax(axis=1)
    face_p = p.copy()
    face_p[:, back_classes] = 0.0
    other_p = p[:, other_class] if other_class >= 0 else np.zeros(n)
    if other_class >= 0:
        face_p[:, other_class] = 0.0
    long_side = np.maximum(e01, e12)
    typical = float(np.median(long_side[sure])) if sure.any() else float(np.median(long_side))
    edges = edge_features(gray, quads, min(1.0, EDGE_CARD_LONG_SIDE_PX / max(typical, 1.0)))
    h, w = gray.shape[:2]
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inside = np.array(
        [cv2.intersectConvexConvex(q.astype(np.float32), frame)[0] for q in quads]
    ) / np.maximum(area, 1e-9)
    columns = {
        "confidence": conf,
        "is_face": np.asarray(is_face, bool),
        "log_area_ratio": np.log(np.maximum(area, 1.0) / max(ref_area, 1.0)),
        "log_aspect_ratio": np.log(aspect / CARD_ASPECT),
        "max_iou_stronger": iou_s.max(axis=1),
        "confidence_of_that": np.where(has_that, conf[that], 0.0),
        "angle_to_that": np.where(has_that, gaps[np.arange(n), that], 0.0),
        "cover_by_stronger": np.minimum(cover, 3.0),
        "stronger_overlapping": np.log1p((iou_s > 0.2).sum(axis=1)),
        "max_iou_weaker": iou_w.max(axis=1),
        "max_iou_any": iou.max(axis=1),
        "angle_to_neighbours": neighbour_gap,
        "touching_neighbours": np.log1p(n_touch),
        "best_deck_probability": deck_p.max(axis=1),
        "other_probability": other_p,
        "face_probability": face_p.max(axis=1),
        "same_name_as_that": np.where(has_that, best_deck == best_deck[that], False),
        "log_candidates": np.full(n, np.log1p((conf >= DETECTOR_SURE).sum())),
        "edge_best_sides": edges[:, 0],
        "edge_worst_side": edges[:, 1],
        "edge_peak_best_sides": edges[:, 2],
        "edge_peak_worst_side": edges[:, 3],
        "inside_image": inside,
        "edge_long_sides": edges[:, 4],
        "edge_short_sides": edges[:, 5],
    }
    return np.column_stack([columns[name] for name in FEATURES]).astype(np.float32)


class CardCheck:
    """The chance that each candidate is a real card: a small MLP read from JSON.

    The file holds ``features`` (names, each one of `FEATURES`: the facts it reads),
    ``mean`` and ``scale`` (their standardisation) and ``layers``: a list of
    ``{"weight": [[...]], "bias": [...]}``, ReLU between them, a sigmoid on the single output.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such card check model")
        try:
            data = json.loads(self.path.read_text())
            names = tuple(data["features"])
            self.mean = np.asarray(data["mean"], np.float64)
            self.scale = np.asarray(data["scale"], np.float64)
            self.layers = [
                (np.asarray(layer["weight"], np.float64), np.asarray(layer["bias"], np.float64))
                for layer in data["layers"]
            ]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"{self.path}: not a usable card check model ({exc})") from None
        self.columns = feature_columns(names, self.path)
        if not self.layers:
            raise ModelError(f"{self.path}: no layers")
        width = len(names)
        for weight, bias in self.layers:
            if weight.ndim != 2 or weight.shape[1] != width or bias.shape != (weight.shape[0],):
                raise ModelError(f"{self.path}: layer shapes do not chain")
            width = weight.shape[0]
        if width != 1 or self.mean.shape != (len(names),) or self.scale.shape != self.mean.shape:
            raise ModelError(f"{self.path}: layer shapes do not chain")
        self.sha256 = file_sha256(self.path)
        self.name = self.path.stem

    def chance(self, features: np.ndarray) -> np.ndarray:
        """``(n,)`` probability that each candidate is a real card."""
        x = (np.asarray(features, np.float64)[:, self.columns] - self.mean) / self.scale
        for k, (weight, bias) in enumerate(self.layers):
            x = x @ weight.T + bias
            if k < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return 1.0 / (1.0 + np.exp(-x[:, 0]))
