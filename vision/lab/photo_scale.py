"""Real photos seen at smaller scales: how many of their cards the counter, and the detector
alone, find when each photo is shrunk onto a grey canvas of its own size.

    python -m vision.lab.photo_scale VOC_DIR [--split val] [--scales 1,0.5,0.33] [--model ONNX]

Prints one JSON line per scale: card recall and precision of the whole counter and of the
detector's boxes at the sure confidence (upright boxes matched at IoU >= 0.4, as `tallero
eval` scores real photos). It measured why cards held close were missed (docs/history.md,
`far_below_confidence`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

from vision.core.imageio import load_image
from vision.count.counter import Counter
from vision.evaluate.photos import labelled_photos, match_boxes, upright_boxes


def shrunk(image: np.ndarray, boxes: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """``image`` at ``scale`` centred on a grey canvas of its size, and its boxes moved."""
    if scale == 1.0:
        return image, boxes
    h, w = image.shape[:2]
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    canvas = np.full_like(image, 114)
    oy, ox = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    canvas[oy : oy + small.shape[0], ox : ox + small.shape[1]] = small
    return canvas, boxes * scale + np.array([ox, oy, ox, oy])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.photo_scale", description=__doc__)
    ap.add_argument("voc", type=Path)
    ap.add_argument("--split", default="val")
    ap.add_argument("--scales", default="1,0.5,0.33")
    ap.add_argument("--model", type=Path)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    counter = Counter(model_path=args.model, threads=args.threads)
    photos = labelled_photos(args.voc, args.split)
    for scale in (float(v) for v in args.scales.split(",")):
        n = found = matched = raw_found = raw_matched = 0
        for photo in photos:
            image, boxes = shrunk(load_image(photo.image), photo.boxes, scale)
            count = counter.count(image, name=photo.image.name)
            boxes_found = upright_boxes(count.cards.corners)
            sure = counter.locator.sure(counter.locator.locate(image))
            raw = upright_boxes(sure.corners)
            n += len(boxes)
            found += len(boxes_found)
            matched += match_boxes(boxes_found, boxes)
            raw_found += len(raw)
            raw_matched += match_boxes(raw, boxes)
        row = {
            "scale": scale,
            "photos": len(photos),
            "cards": n,
            "card_recall": round(matched / max(n, 1), 3),
            "card_precision": round(matched / max(found, 1), 3),
            "detector_recall": round(raw_matched / max(n, 1), 3),
            "detector_precision": round(raw_matched / max(raw_found, 1), 3),
        }
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
