"""Real photos of cards as training scenes: each labelled upright box to the card's outline.

The photos carry one upright box per card; the detector learns oriented outlines. A card
lying turned in its box touches each side of the box with one corner, so the outline is
found where the card's paper meets the four sides of the box: the card is the bright,
unsaturated paper in the box, told from the table by a threshold chosen per box (Otsu). A
side the paper covers along most of its length is a side of an upright card, so the box
itself is the outline. An outline that does not look like a card (shape, or the paper it
holds) is marked unsure and left out of training. Check the outlines by eye on a contact
sheet (``python -m vision.train.real_photos sheet``) before they are used.

    python -m vision.train.real_photos write VOC_DIR OUT [--split train]
    python -m vision.train.real_photos sheet VOC_DIR OUT.png [--split train] [--limit 48]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.core.geometry import canonical_corners
from vision.evaluate.photos import LabelledPhoto, labelled_photos

# The rows (or columns) next to a side searched for the card's corner, as a share of the box.
EDGE_BAND = 0.04
# A derived outline's long side over its short side must lie in this range (a playing card
# is 88 x 63 mm; perspective moves it).
ASPECT_RANGE = (1.15, 1.75)
# The outline must overlap the paper found in its box at least this much (IoU).
MIN_PAPER_IOU = 0.8
FACE = 1  # the detector's class of a face-up card


@dataclass(frozen=True)
class Outline:
    """A card's outline in a photo and how it was found: "turned", "upright" or "unsure"."""

    corners: np.ndarray  # (4, 2) image pixels, clockwise, short edge first
    how: str


def paper_mask(image_bgr: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Boolean mask of card paper (bright, unsaturated) over the box's pixels."""
    x0, y0, x1, y1 = np.round(box).astype(int)
    crop = image_bgr[max(y0, 0) : y1, max(x0, 0) : x1]
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV).astype(np.int16)
    whiteness = np.clip(hsv[..., 2] - hsv[..., 1], 0, 255).astype(np.uint8)
    whiteness = cv2.GaussianBlur(whiteness, (5, 5), 0)
    _, mask = cv2.threshold(whiteness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    # The card is the largest piece of paper; printed pips inside it are filled in.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    if n < 2:
        return np.zeros(mask.shape, bool)
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    card = (labels == biggest).astype(np.uint8)
    contours, _ = cv2.findContours(card, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(card)
    cv2.drawContours(filled, contours, -1, 1, thickness=cv2.FILLED)
    return filled.astype(bool)


def _contact(line: np.ndarray) -> tuple[float, float]:
    """Where the paper touches one side: the middle of its run there, and its length share."""
    idx = np.flatnonzero(line)
    if not len(idx):
        return float("nan"), 0.0
    return float(idx[0] + idx[-1]) / 2.0, float(idx[-1] - idx[0] + 1) / len(line)


def outline_card(image_bgr: np.ndarray, box: np.ndarray) -> Outline:
    """The outline of the card in the upright ``box`` (x0, y0, x1, y1).

    Three outlines are weighed against the paper found in the box: the box itself (an
    upright card), the quad through the points where the paper touches the box's sides (a
    turned card), and the smallest turned rectangle around the paper (a card seen whole).
    The one that covers the paper best, at an IoU of at least `MIN_PAPER_IOU`, with a
    card's shape, is the outline.
    """
    h_img, w_img = image_bgr.shape[:2]
    box = np.array(
        [max(box[0], 0), max(box[1], 0), min(box[2], w_img), min(box[3], h_img)], np.float32
    )
    x0, y0, x1, y1 = box
    upright = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    mask = paper_mask(image_bgr, box)
    h, w = mask.shape
    if h < 8 or w < 8 or not mask.any():
        return Outline(canonical_corners(upright[None])[0], "unsure")
    candidates = {"upright": upright}
    band_y = max(1, round(EDGE_BAND * h))
    band_x = max(1, round(EDGE_BAND * w))
    top, top_share = _contact(mask[:band_y].any(axis=0))
    bottom, bottom_share = _contact(mask[-band_y:].any(axis=0))
    left, left_share = _contact(mask[:, :band_x].any(axis=1))
    right, right_share = _contact(mask[:, -band_x:].any(axis=1))
    if min(top_share, bottom_share, left_share, right_share) > 0.0:
        candidates["turned"] = np.array(
            [[x0 + top, y0], [x1, y0 + right], [x0 + bottom, y1], [x0, y0 + left]], np.float32
        )
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if contours:
        rect = cv2.minAreaRect(max(contours, key=cv2.contourArea))
        candidates["whole"] = cv2.boxPoints(rect).astype(np.float32) + box[:2]
    best_how, best_corners, best_iou = "unsure", canonical_corners(upright[None])[0], 0.0
    for how, quad in candidates.items():
        corners = canonical_corners(quad[None])[0]
        if not _card_shaped(corners):
            continue
        iou = _paper_iou(corners, mask, box)
        if iou > best_iou:
            best_how, best_corners, best_iou = how, corners, iou
    if best_iou < MIN_PAPER_IOU:
        return Outline(best_corners, "unsure")
    # Turned and whole rectangles agree on a card seen whole: one name for both.
    return Outline(best_corners, "upright" if best_how == "upright" else "turned")


def _card_shaped(corners: np.ndarray) -> bool:
    """A card's proportions (perspective allowed)."""
    e01 = float(np.linalg.norm(corners[1] - corners[0]))
    e12 = float(np.linalg.norm(corners[2] - corners[1]))
    if min(e01, e12) < 4:
        return False
    aspect = max(e01, e12) / min(e01, e12)
    return ASPECT_RANGE[0] <= aspect <= ASPECT_RANGE[1]


def _paper_iou(corners: np.ndarray, mask: np.ndarray, box: np.ndarray) -> float:
    """IoU of the outline (clipped to the box) and the paper found in the box."""
    inside = np.zeros(mask.shape, np.uint8)
    cv2.fillConvexPoly(inside, np.round(corners - box[:2]).astype(np.int32), 1)
    outline = inside.astype(bool)
    union = int((outline | mask).sum())
    return int((outline & mask).sum()) / union if union else 0.0


def outlines(photo: LabelledPhoto) -> tuple[np.ndarray, list[Outline]]:
    """The photo's pixels and the outline of each of its labelled cards."""
    image = cv2.imread(str(photo.image))
    if image is None:
        raise ValueError(f"{photo.image}: not readable")
    return image, [outline_card(image, box) for box in photo.boxes]


def obb_line(corners: np.ndarray, width: int, height: int, cls: int = FACE) -> str:
    """One ultralytics OBB label line: class, then the 4 corners normalised to 0..1."""
    xy = np.clip(corners / np.array([width, height], np.float32), 0.0, 1.0)
    return f"{cls} " + " ".join(f"{v:.6f}" for v in xy.reshape(-1))


def write_scenes(
    voc_dir: Path, out: Path, split: str = "train", max_side_px: int = 0
) -> dict[str, int]:
    """Write the photos of ``split`` as a detector training set (images/, labels/).

    A photo with an unsure outline is left out whole, since one of its cards would be an
    unlabelled card to the detector. ``max_side_px`` > 0 shrinks larger photos to that long
    side (the labels are fractions of the photo, so they hold). Returns how many photos and
    cards went in and out.
    """
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    tally = {"photos": 0, "cards": 0, "photos_left_out": 0, "turned": 0, "upright": 0}
    for photo in labelled_photos(voc_dir, split):
        image, found = outlines(photo)
        if any(o.how == "unsure" for o in found):
            tally["photos_left_out"] += 1
            continue
        h, w = image.shape[:2]
        name = f"real-{photo.image.stem}"
        if 0 < max_side_px < max(h, w):
            scale = max_side_px / max(h, w)
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(out / "images" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        lines = [obb_line(o.corners, w, h) for o in found]
        (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
        tally["photos"] += 1
        tally["cards"] += len(found)
        for o in found:
            tally[o.how] += 1
    (out / "real_photos.json").write_text(json.dumps({"source": str(voc_dir), **tally}))
    return tally


def contact_sheet(
    voc_dir: Path, target: Path, split: str = "train", limit: int = 48, cols: int = 8
) -> Path:
    """Photos with their outlines drawn: green turned, blue upright, red unsure."""
    colour = {"turned": (0, 200, 0), "upright": (255, 120, 0), "unsure": (0, 0, 255)}
    tile = 240
    tiles = []
    for photo in labelled_photos(voc_dir, split)[:limit]:
        image, found = outlines(photo)
        for o in found:
            cv2.polylines(image, [np.round(o.corners).astype(np.int32)], True, colour[o.how], 3)
        scale = tile / max(image.shape[:2])
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        canvas = np.full((tile, tile, 3), 255, np.uint8)
        canvas[: small.shape[0], : small.shape[1]] = small
        tiles.append(canvas)
    while len(tiles) % cols:
        tiles.append(np.full((tile, tile, 3), 255, np.uint8))
    rows = [np.hstack(tiles[i : i + cols]) for i in range(0, len(tiles), cols)]
    target.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(target), np.vstack(rows))
    return target


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.train.real_photos", description=__doc__)
    sub = ap.add_subparsers(dest="what", required=True)
    w = sub.add_parser("write", help="write a split as detector training scenes")
    w.add_argument("voc_dir", type=Path)
    w.add_argument("out", type=Path)
    w.add_argument("--split", default="train")
    w.add_argument("--max-side", type=int, default=0, help="shrink photos to this long side")
    s = sub.add_parser("sheet", help="draw the outlines on a contact sheet")
    s.add_argument("voc_dir", type=Path)
    s.add_argument("out", type=Path)
    s.add_argument("--split", default="train")
    s.add_argument("--limit", type=int, default=48)
    s.add_argument("--start", type=int, default=0)
    args = ap.parse_args(argv)
    if args.what == "write":
        print(json.dumps(write_scenes(args.voc_dir, args.out, args.split, args.max_side)))
    else:
        print(contact_sheet(args.voc_dir, args.out, args.split, args.limit))


if __name__ == "__main__":
    main()
