"""Real photos written as detector training scenes: card outlines derived inside the
labelled boxes, and photos shrunk without moving the labels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.train.real_photos import write_scenes


def _photo(folder: Path, name: str) -> np.ndarray:
    """A 1600x1200 'photo' of one white card turned 20 degrees on a dark cloth, with its
    upright VOC box; returns the card's corners."""
    image = np.full((1200, 1600, 3), (40, 70, 30), np.uint8)
    corners = cv2.boxPoints(((800.0, 600.0), (300.0, 450.0), 20.0)).astype(np.float32)
    cv2.fillPoly(image, [corners.astype(np.int32)], (235, 235, 240))
    cv2.imwrite(str(folder / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    (folder / f"{name}.xml").write_text(
        f"<annotation><filename>{name}.jpg</filename><object><name>card</name><bndbox>"
        f"<xmin>{x0:.0f}</xmin><ymin>{y0:.0f}</ymin><xmax>{x1:.0f}</xmax><ymax>{y1:.0f}</ymax>"
        "</bndbox></object></annotation>"
    )
    return corners


def _label_corners(path: Path, width: int, height: int) -> np.ndarray:
    values = [float(v) for v in path.read_text().split()]
    assert values[0] == 1  # a face: the photos' cards lie face up
    return np.asarray(values[1:], np.float32).reshape(4, 2) * [width, height]


def test_a_shrunk_photo_keeps_its_card_outline(tmp_path: Path):
    voc = tmp_path / "voc"
    voc.mkdir()
    corners = _photo(voc, "IMG_1")
    full, small = tmp_path / "full", tmp_path / "small"
    assert write_scenes(voc, full, "all")["cards"] == 1
    tally = write_scenes(voc, small, "all", max_side_px=800)
    assert tally["photos"] == 1 and tally["cards"] == 1 and tally["photos_left_out"] == 0
    assert cv2.imread(str(full / "images" / "real-IMG_1.jpg")).shape[:2] == (1200, 1600)
    assert cv2.imread(str(small / "images" / "real-IMG_1.jpg")).shape[:2] == (600, 800)
    label = (small / "labels" / "real-IMG_1.txt").read_text()
    assert label == (full / "labels" / "real-IMG_1.txt").read_text()
    # The outline found sits on the card's turned corners, not on its upright box.
    found = _label_corners(small / "labels" / "real-IMG_1.txt", 1600, 1200)
    gaps = np.linalg.norm(found[:, None] - corners[None], axis=2).min(axis=1)
    assert gaps.max() < 12.0
