"""`tallero eval` on real photos labelled with Pascal VOC boxes: cards found, class-agnostic."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scoring.errors import UsageError
from vision.evaluate.photos import (
    box_iou,
    labelled_photos,
    match_boxes,
    read_voc,
    split_of,
    upright_boxes,
)

ROOT = Path(__file__).resolve().parents[1]
SCENE = ROOT / "tests" / "data" / "scene_4242_000002"


def voc(boxes: list[list[float]], name: str = "photo.jpg") -> str:
    objects = "".join(
        f"<object><name>card</name><bndbox><xmin>{a}</xmin><ymin>{b}</ymin>"
        f"<xmax>{c}</xmax><ymax>{d}</ymax></bndbox></object>"
        for a, b, c, d in boxes
    )
    return f"<annotation><filename>{name}</filename>{objects}</annotation>"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A committed scene as a 'real photo': its truth cards as upright VOC boxes."""
    truth = json.loads(SCENE.with_suffix(".json").read_text())
    boxes = upright_boxes(np.asarray([c["corners"] for c in truth["cards"]], np.float32))
    (tmp_path / "table.jpg").write_bytes(SCENE.with_suffix(".jpg").read_bytes())
    (tmp_path / "table.xml").write_text(voc(boxes.tolist(), "table.jpg"))
    # A photo whose label holds a card nothing shows: one miss.
    (tmp_path / "blank.jpg").write_bytes(SCENE.with_suffix(".jpg").read_bytes())
    (tmp_path / "blank.xml").write_text(voc([[1, 1, 40, 60], *boxes.tolist()], "blank.jpg"))
    return tmp_path


def test_boxes_match_one_to_one_at_iou_04() -> None:
    found = np.array([[0, 0, 10, 10], [0, 0, 10, 10], [20, 20, 30, 30]], np.float32)
    labelled = np.array([[0, 0, 10, 12], [21, 21, 31, 31]], np.float32)
    np.testing.assert_allclose(box_iou(found[:1], labelled[:1]), [[100 / 120]])
    # The copy of the first box finds nothing left to match; the third overlaps 81/119.
    assert match_boxes(found, labelled) == 2
    assert match_boxes(found, labelled, min_iou=0.7) == 1


def test_upright_box_of_a_turned_card() -> None:
    quad = np.array([[[10, 0], [20, 10], [10, 20], [0, 10]]], np.float32)
    np.testing.assert_array_equal(upright_boxes(quad), [[0, 0, 20, 20]])


def test_the_validation_split_is_fixed_by_the_name() -> None:
    names = [f"IMG_{k}.JPG" for k in range(1000)]
    val = [n for n in names if split_of(n) == "val"]
    assert split_of("IMG_7.JPG") == split_of("/elsewhere/IMG_7.JPG")
    assert 150 < len(val) < 250  # about one in five


def test_eval_reports_recall_precision_and_photos_right(tallero, folder: Path) -> None:
    r = tallero("eval", str(folder), "--json")
    assert r.code == 0, r.err
    out = r.json()
    # 8 cards on the table, 8 found (the golden count of this scene); the blank label's
    # extra card is the one miss.
    assert (out["photos"], out["cards"]) == (2, 17)
    assert out["card_recall"] == round(16 / 17, 4)
    assert out["card_precision"] == 1.0
    assert (out["count_right"], out["photos_exact"]) == (0.5, 0.5)
    assert out["failures"] == [{"image": "blank.jpg", "cards": 9, "found": 8, "matched": 8}]
    table = tallero("eval", str(folder)).out
    assert "card recall     0.9412" in table


def test_a_split_with_no_photo_and_a_broken_label_are_clear_errors(tallero, folder: Path) -> None:
    wanted = "val" if split_of("table.jpg") == "train" else "train"
    if split_of("blank.jpg") == wanted:
        (folder / "blank.xml").unlink()
    r = tallero("eval", str(folder), "--split", wanted)
    assert r.code == 2 and f"no labelled photos (NAME.jpg with NAME.xml) in {wanted}" in r.err
    r = tallero("eval", str(folder), "--split", "both")
    assert r.code == 2 and "--split must be one of all, val, train" in r.err
    (folder / "table.xml").write_text("<annotation><object><bndbox><xmin>5")
    with pytest.raises(UsageError, match="not a readable VOC file"):
        read_voc(folder / "table.xml")
    (folder / "table.xml").write_text(voc([[10, 10, 5, 20]]))
    with pytest.raises(UsageError, match="positive width and height"):
        labelled_photos(folder)


def test_eval_of_a_missing_folder_a_file_or_an_unlabelled_folder_says_which(
    tallero, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "one.jpg").write_bytes(b"x")
    for name, message in [
        ("nowhere", "nowhere: no such folder"),
        ("one.jpg", "one.jpg: not a folder"),
        ("empty", "empty: no truth/ folder and no VOC files; not a labelled set"),
    ]:
        r = tallero("eval", str(tmp_path / name))
        assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1
