"""Face cards as the number reader sees them: rectified crops of one face each.

Two sources, both labelled with the face's value (1..10):

- :func:`drawn_crops`: a face drawn by an art style (the stand-in art or a training art
  family), photographed in miniature: the card small in the photo (its long side 36 to
  220 px), the detector's corners a little off, blur, light, noise, JPEG, sometimes
  turned half a turn and sometimes partly covered by a neighbouring card.
- :func:`scene_crops`: the face-up cards of rendered table scenes (``tallero dataset
  synth``), cut out at their true corners, shifted a little as a detector would find them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.core.rectify import CardRectifier
from vision.synth.art import load_style
from vision.synth.art_family import TRAIN_FAMILIES
from vision.synth.art_family_style import FamilyStyle
from vision.synth.decks import CARD_H_MM, CARD_H_PX, CARD_W_PX, FACE_COLORS

VALUES = tuple(range(1, 11))
# The share of an index's corner that a neighbouring card must cover for it to be hidden.
INDEX_COVERED = 0.3
# Where an index's digit lies on a face (shares of its width and height, from the top left;
# the other index mirrored): an object over the card hides the index when it covers
# `INDEX_COVERED` of this box, and leaves it readable when it covers under `INDEX_GRAZED`
# (a placing in between is drawn again: its label would be a guess). A neighbouring card's
# straight edge keeps the wider corner the shipped reader was labelled with (`photograph`).
INDEX_BOX = ((0.03, 0.32), (0.02, 0.20))
INDEX_GRAZED = 0.1
# Skin tones (BGR) of the hands `vision.synth.distractors` draws, and the colours of pens
# and pencils (dark, red, blue, white, green, wood, yellow) and of phones.
SKIN = ((120, 160, 215), (95, 135, 190), (60, 95, 140), (45, 70, 100))
PEN = ((30, 30, 30), (160, 60, 20), (30, 30, 170), (220, 220, 220), (40, 140, 40),
       (120, 170, 200), (40, 190, 230))  # fmt: skip
PHONE = ((20, 20, 20), (40, 40, 45), (180, 180, 180), (120, 60, 30), (60, 60, 160))


def _style(rng: np.random.Generator, family_share: float) -> object:
    if rng.random() < family_share:
        return FamilyStyle(int(rng.integers(TRAIN_FAMILIES.start, TRAIN_FAMILIES.stop)))
    return load_style("standin")


# How long a photographed face lies in the photo, pixels (its long side; log-uniform).
LONG_PX = (36.0, 220.0)


def _capsule(a: np.ndarray, b: np.ndarray, r0: float, r1: float) -> np.ndarray:
    """The outline of a tapered stroke from ``a`` (half width ``r0``) to ``b`` (``r1``),
    both ends round: a finger, a pen, a pencil."""
    d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
    n = np.array([-d[1], d[0]])
    t = np.linspace(0, np.pi, 9)[:, None]
    tip = b + r1 * (np.cos(t) * n + np.sin(t) * d)
    tail = a - r0 * (np.cos(t) * n + np.sin(t) * d)
    return np.vstack([tip, tail]).astype(np.float32)


def _object_over(
    small: np.ndarray, card: tuple[int, int, int, int], rng: np.random.Generator
) -> np.ndarray:
    """Draws a finger, a pen or pencil, or a phone's corner over the card lying at ``card``
    (x, y, w, h) in ``small``, most often over one of its indices; returns its mask."""
    x, y, w, h = card
    mm = h / CARD_H_MM
    (u0, u1), (v0, v1) = INDEX_BOX
    corner = int(rng.integers(3))  # top-left index, bottom-right index, anywhere
    if corner == 2:
        u, v = rng.uniform(0.1, 0.9), rng.uniform(0.1, 0.9)
    else:
        u, v = (u0 + u1) / 2, (v0 + v1) / 2
        if corner == 1:
            u, v = 1 - u, 1 - v
    target = np.array([x + u * w, y + v * h]) + rng.normal(0, 0.06 * w, 2)
    angle = rng.uniform(0, 2 * np.pi)
    along = np.array([np.cos(angle), np.sin(angle)])
    mask = np.zeros(small.shape[:2], np.uint8)
    kind = rng.choice(3, p=[0.45, 0.4, 0.15])
    if kind == 0:  # a finger: its tip at the target, reaching in from outside
        r = rng.uniform(7, 9.5) * mm
        shape = _capsule(target + along * rng.uniform(60, 90) * mm, target, r * 1.1, r * 0.8)
        color = np.array(SKIN[int(rng.integers(len(SKIN)))]) * rng.uniform(0.85, 1.1)
    elif kind == 1:  # a pen or pencil lying across the target
        r = rng.uniform(3.5, 5.5) * mm
        half = rng.uniform(60, 75) * mm
        off = rng.uniform(-0.6, 0.6) * half
        a = target + along * (off - half)
        b = target + along * (off + half)
        shape = _capsule(a, b, r, r * rng.uniform(0.6, 1.0))
        color = np.array(PEN[int(rng.integers(len(PEN)))], np.float64)
    else:  # a phone whose corner lies on the target
        pw, ph = rng.uniform(68, 78) * mm, rng.uniform(140, 162) * mm
        across = np.array([-along[1], along[0]])
        shape = np.array(
            [target, target + along * ph, target + along * ph + across * pw, target + across * pw]
        ).astype(np.float32)
        color = np.array(PHONE[int(rng.integers(len(PHONE)))], np.float64)
    cv2.fillPoly(mask, [np.round(shape).astype(np.int32)], 1)
    shade = rng.uniform(0.75, 1.1) * color
    small[mask > 0] = np.clip(shade + rng.normal(0, 4, 3), 0, 255).astype(np.uint8)
    if kind < 2:  # its outline a little darker, as the drawn hands and pens have
        cv2.polylines(small, [np.round(shape).astype(np.int32)], True,
                      tuple(float(c) for c in np.clip(shade * 0.7, 0, 255)), 1)  # fmt: skip
    return mask


def index_covered(mask: np.ndarray, card: tuple[int, int, int, int]) -> tuple[float, float]:
    """The share of the top-left and of the bottom-right index box (`INDEX_BOX`) of the
    card lying at ``card`` (x, y, w, h) that ``mask`` covers."""
    x, y, w, h = card
    (u0, u1), (v0, v1) = INDEX_BOX
    top = mask[y + int(v0 * h) : y + int(v1 * h) + 1, x + int(u0 * w) : x + int(u1 * w) + 1]
    bottom = mask[
        y + h - int(v1 * h) - 1 : y + h - int(v0 * h), x + w - int(u1 * w) - 1 : x + w - int(u0 * w)
    ]
    return float((top > 0).mean()), float((bottom > 0).mean())


def photograph(
    face: np.ndarray,
    rng: np.random.Generator,
    width_px: int,
    height_px: int,
    long_px_range: tuple[float, float] = LONG_PX,
    objects: float = 0.0,
) -> tuple[np.ndarray, bool, bool]:
    """One crop of ``face`` (a full card picture) as a table photo would give it, and
    whether the index in the crop's top band, and in its bottom band, is covered. With
    ``objects``, that share of the faces has a finger, a pen or a phone over it, most often
    over an index (`_object_over`)."""
    # how big the card lies in the photo: its long side in pixels; all else at that size
    lo, hi = long_px_range
    long_px = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    scale = long_px / face.shape[0]
    face = cv2.resize(
        face,
        (max(4, round(face.shape[1] * scale)), max(4, round(face.shape[0] * scale))),
        interpolation=cv2.INTER_AREA,
    )
    h, w = face.shape[:2]
    pad = max(2, int(0.25 * h))
    ground = np.empty((h + 2 * pad, w + 2 * pad, 3), np.float32)
    ground[:] = rng.uniform(40, 230, 3)
    ground += rng.normal(0, 6, ground.shape[:2])[..., None]
    small = np.clip(ground, 0, 255).astype(np.uint8)
    small[pad : pad + h, pad : pad + w] = face
    if rng.random() < 0.3:  # a neighbouring card lies over one side of this one
        cover = rng.uniform(60, 240, 3)
        side = int(rng.integers(4))
        depth = rng.uniform(0.1, 0.5)
        tilt = rng.uniform(-0.3, 0.3)
        ys, xs = np.mgrid[0 : small.shape[0], 0 : small.shape[1]].astype(np.float32)
        u = [xs / small.shape[1], ys / small.shape[0]][side % 2]
        v = [ys / small.shape[0], xs / small.shape[1]][side % 2]
        edge = (0.2 + depth * 0.6) + tilt * (v - 0.5)
        mask = u < edge if side < 2 else u > 1 - edge
        small[mask] = cover.astype(np.uint8)
        hidden = [
            float(mask[pad : pad + int(0.22 * h), pad : pad + w // 2].mean()) >= INDEX_COVERED,
            float(mask[pad + h - int(0.22 * h) : pad + h, pad + w // 2 : pad + w].mean())
            >= INDEX_COVERED,
        ]
    else:
        hidden = [False, False]
    if objects and rng.random() < objects:
        card = (pad, pad, w, h)
        for _ in range(20):  # a placing that clearly hides an index or clearly does not
            base = small.copy()
            covered = index_covered(_object_over(base, card, rng), card)
            if all(c < INDEX_GRAZED or c >= INDEX_COVERED for c in covered):
                small = base
                hidden = [hidden[0] or covered[0] >= INDEX_COVERED,
                          hidden[1] or covered[1] >= INDEX_COVERED]  # fmt: skip
                break
    # the detector's corners: the card's, each off by ~2.5% of the card's width
    quad = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    quad += rng.normal(0, 0.025 * w, (4, 2)).astype(np.float32)
    if rng.random() < 0.5:
        quad = np.roll(quad, 2, axis=0)  # the card found the other way up
        hidden = hidden[::-1]
    f = small.astype(np.float32)
    if rng.random() < 0.6:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.3))
    gain = rng.uniform(0.55, 1.3) * rng.uniform(0.85, 1.15, 3)
    f = f * gain + rng.uniform(-20, 20)
    ramp = np.linspace(rng.uniform(0.8, 1.0), rng.uniform(1.0, 1.2), f.shape[1], dtype=np.float32)
    f = f * ramp[None, :, None]
    f += rng.normal(0, rng.uniform(1, 7), f.shape).astype(np.float32)
    img = np.clip(f, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 96))])
    if ok:
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return CardRectifier(img, width_px, height_px).crop(quad), hidden[0], hidden[1]


def drawn_crops(
    n: int,
    seed: int,
    width_px: int,
    height_px: int,
    family_share: float = 0.5,
    looks_per_face: int = 4,
    long_px_range: tuple[float, float] = LONG_PX,
    objects: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` photographed faces: crops ``(n, height_px, width_px, 3)`` uint8 BGR, their
    values ``(n,)`` and ``(n, 2)`` whether the index in the crop's top band, and in its
    bottom band, is covered.

    Each drawn face gives ``looks_per_face`` photographs; ``family_share`` of the faces
    come from a random training art family, the rest from the stand-in art; each card's
    long side in the photo is drawn from ``long_px_range`` pixels (log-uniform);
    ``objects`` of the photographs have a finger, a pen or a phone over the card.
    """
    rng = np.random.default_rng([seed, 0xFACE])
    crops = np.empty((n, height_px, width_px, 3), np.uint8)
    values = np.empty(n, np.int64)
    covered = np.zeros((n, 2), bool)
    k = 0
    while k < n:
        style = _style(rng, family_share)
        value = int(rng.integers(1, 11))
        color = str(rng.choice(FACE_COLORS))
        face = style.draw_face(color, value, rng, CARD_W_PX, CARD_H_PX)  # type: ignore[attr-defined]
        for _ in range(min(looks_per_face, n - k)):
            crops[k], covered[k, 0], covered[k, 1] = photograph(
                face, rng, width_px, height_px, long_px_range, objects
            )
            values[k] = value
            k += 1
    return crops, values, covered


def stretch_ends(quad: np.ndarray, top: float, bottom: float) -> np.ndarray:
    """``quad`` (corners clockwise from a short edge) lengthened along its long side: its
    first short edge moved out by ``top`` and its other by ``bottom`` of the long side (a
    negative share moves it in), as a detector finds the top card of a pile longer, the
    cards under it peeking out at its ends."""
    q = np.asarray(quad, np.float32)
    p0, p1, p2, p3 = q
    out: np.ndarray = np.array(
        [p0 + (p0 - p3) * top, p1 + (p1 - p2) * top, p2 + (p2 - p1) * bottom,
         p3 + (p3 - p0) * bottom],
        np.float32,
    )  # fmt: skip
    return out


def scene_crops(
    folder: Path,
    width_px: int,
    height_px: int,
    seed: int = 0,
    min_visible: float = 0.95,
    stretch: float = 0.0,
) -> Iterator[tuple[np.ndarray, int]]:
    """The face-up cards of a ``dataset synth`` folder that show at least ``min_visible``
    of themselves, cut out at their true corners jittered by ~2% of the card width; with
    ``stretch``, seven in ten also lengthened at each end by up to that share of their
    long side (`stretch_ends`)."""
    rng = np.random.default_rng([seed, 0x5CE])
    for truth_path in sorted((folder / "truth").glob("*.json")):
        rec = json.loads(truth_path.read_text())
        img = cv2.imread(str(folder / "images" / rec["image"]))
        if img is None:
            continue
        rect = CardRectifier(img, width_px, height_px)
        for c in rec["cards"]:
            if c["side"] != "face" or c["value"] is None or c["visible_fraction"] < min_visible:
                continue
            quad = np.asarray(c["corners"], np.float32)
            width = float(np.linalg.norm(quad[1] - quad[0]))
            quad = quad + rng.normal(0, 0.02 * width, (4, 2)).astype(np.float32)
            if stretch > 0 and rng.random() < 0.7:
                quad = stretch_ends(quad, *rng.uniform(0, stretch, 2))
            yield rect.crop(quad), int(c["value"])
