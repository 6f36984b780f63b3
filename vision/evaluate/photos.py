"""Real photographs with whole-card boxes (Pascal VOC): how many real cards Tallero finds.

A folder of photos, each with a VOC file ``NAME.xml`` holding one upright box per card
(whatever its label: rank, suit or deck are not Tallero's business here). A found card
matches a labelled one when the upright box around its corners overlaps the label's box
at an IoU of at least `MATCH_IOU` (one to one, best pairs first). Reported: card recall and
precision over all photos, and the share of photos where the number of cards found is
right.

The photos are split once, by a hash of their file name, into a validation part that no
training may use (`split_of`) and the rest.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import UsageError

MATCH_IOU = 0.4
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
# One photo in VAL_EVERY goes to validation, chosen by the hash of its name.
VAL_EVERY = 5
SPLITS = ("all", "val", "train")


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo and its cards' upright boxes ``(n, 4)`` x0, y0, x1, y1 in pixels."""

    image: Path
    boxes: np.ndarray


def split_of(name: str) -> str:
    """``"val"`` or ``"train"``: the part a photo belongs to, fixed by its file name."""
    digest = hashlib.sha256(Path(name).name.encode()).digest()
    return "val" if digest[0] % VAL_EVERY == 0 else "train"


def is_voc_folder(directory: Path) -> bool:
    """Whether ``directory`` holds photos labelled with VOC files."""
    return any(Path(directory).glob("*.xml"))


def read_voc(xml_path: Path) -> np.ndarray:
    """``(n, 4)`` float32 boxes of one VOC file."""
    try:
        root = ET.parse(xml_path).getroot()
        boxes = [
            [float(obj.findtext(f"bndbox/{k}", "nan")) for k in ("xmin", "ymin", "xmax", "ymax")]
            for obj in root.iter("object")
        ]
    except (ET.ParseError, ValueError) as exc:
        raise UsageError(f"{xml_path}: not a readable VOC file ({exc})") from None
    out = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not np.isfinite(out).all() or (out[:, 2:] <= out[:, :2]).any():
        raise UsageError(f"{xml_path}: a box without a positive width and height")
    return out


def labelled_photos(directory: Path, split: str = "all") -> list[LabelledPhoto]:
    """The photos of a VOC folder (every image with a VOC file beside it) in one split."""
    if split not in SPLITS:
        raise UsageError(f"--split must be one of {', '.join(SPLITS)}, not {split!r}")
    out = []
    for xml_path in sorted(Path(directory).glob("*.xml")):
        image = next(
            (
                p
                for p in sorted(xml_path.parent.glob(xml_path.stem + ".*"))
                if p.suffix.lower() in IMAGE_SUFFIXES
            ),
            None,
        )
        if image is None or (split != "all" and split_of(image.name) != split):
            continue
        out.append(LabelledPhoto(image, read_voc(xml_path)))
    if not out:
        raise UsageError(f"{directory}: no labelled photos (NAME.jpg with NAME.xml) in {split}")
    return out


def upright_boxes(corners: np.ndarray) -> np.ndarray:
    """``(n, 4)`` the upright box around each ``(n, 4, 2)`` quad."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    return np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(len(a), len(b))`` IoU of upright boxes."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    union = area_a[:, None] + area_b[None, :] - inter
    iou: np.ndarray = np.where(union > 0, inter / np.maximum(union, 1e-12), 0.0)
    return iou


def match_boxes(found: np.ndarray, labelled: np.ndarray, min_iou: float = MATCH_IOU) -> int:
    """How many found boxes match a labelled one, one to one, best pairs first."""
    iou = box_iou(found, labelled)
    pairs = sorted(
        ((iou[i, j], i, j) for i, j in zip(*np.nonzero(iou >= min_iou), strict=True)),
        reverse=True,
    )
    used_f: set[int] = set()
    used_l: set[int] = set()
    for _, i, j in pairs:
        if i not in used_f and j not in used_l:
            used_f.add(int(i))
            used_l.add(int(j))
    return len(used_f)


@dataclass
class PhotoEvaluation:
    """Card recall and precision on real photos, and the photos whose card number is right."""

    photos: int = 0
    photos_count_right: int = 0  # as many cards found as labelled
    photos_exact: int = 0  # every labelled card found, nothing else
    found: int = 0
    labelled: int = 0
    matched: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)

    def add(self, photo: LabelledPhoto, corners: np.ndarray) -> None:
        found = upright_boxes(corners)
        matched = match_boxes(found, photo.boxes)
        self.photos += 1
        self.found += len(found)
        self.labelled += len(photo.boxes)
        self.matched += matched
        exact = matched == len(photo.boxes) == len(found)
        self.photos_count_right += len(found) == len(photo.boxes)
        self.photos_exact += exact
        if not exact:
            self.failures.append(
                {
                    "image": photo.image.name,
                    "cards": len(photo.boxes),
                    "found": len(found),
                    "matched": matched,
                }
            )

    def to_json(self) -> dict[str, Any]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "photos": self.photos,
            "cards": self.labelled,
            "card_recall": ratio(self.matched, self.labelled),
            "card_precision": ratio(self.matched, self.found),
            "count_right": ratio(self.photos_count_right, self.photos),
            "photos_exact": ratio(self.photos_exact, self.photos),
            "match_iou": MATCH_IOU,
            "failures": self.failures,
        }


def counted_photos(
    photos: list[LabelledPhoto],
    count: Callable[[Path], Any],
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[LabelledPhoto, Any]]:
    """``(photo, count)`` for each labelled photo."""
    for k, photo in enumerate(photos):
        yield photo, count(photo.image)
        if progress:
            progress(k + 1, len(photos))


def evaluate_photos(
    directory: Path,
    counter: Any,
    split: str = "all",
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PhotoEvaluation:
    """Count every labelled photo of ``directory`` (one split) and score the cards found."""
    photos = labelled_photos(directory, split)[:limit]
    ev = PhotoEvaluation()
    for photo, count in counted_photos(photos, counter.count, progress):
        ev.add(photo, count.cards.corners)
    return ev


def format_photo_table(ev: PhotoEvaluation, split: str) -> str:
    """A plain-text report of a real-photo evaluation."""
    j = ev.to_json()
    return (
        f"real photos ({split}): {j['photos']} photos, {j['cards']} cards\n"
        f"  card recall     {j['card_recall']}\n"
        f"  card precision  {j['card_precision']}\n"
        f"  count right     {j['count_right']} (of the photos, as many cards found as there are)\n"
        f"  photos exact    {j['photos_exact']} (every card found, nothing else)\n"
        f"  (a find matches a labelled card at upright-box IoU >= {MATCH_IOU})"
    )
