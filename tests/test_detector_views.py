"""The detector's mirrored looks: anchors line up, boxes map back, a single box survives."""

from __future__ import annotations

import numpy as np
import pytest

from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.detect.views import MIRRORINGS, anchor_order, fuse, mirrored, nearest_branch

H, W = 64, 96  # an input of 8x12, 4x6 and 2x3 cells
ANCHORS = 8 * 12 + 4 * 6 + 2 * 3


def cell_centres(lr: bool, ud: bool) -> np.ndarray:
    """Each anchor's cell centre in the input, as a mirrored look's anchors see it."""
    out = []
    for s in (8, 16, 32):
        ys, xs = np.mgrid[0 : H // s, 0 : W // s]
        cx, cy = (xs + 0.5) * s, (ys + 0.5) * s
        if lr:
            cx = W - cx
        if ud:
            cy = H - cy
        out.append(np.stack([cx.ravel(), cy.ravel()], 1))
    return np.concatenate(out)


@pytest.mark.parametrize(("lr", "ud"), MIRRORINGS)
def test_each_anchor_answers_for_the_cell_it_mirrors(lr: bool, ud: bool) -> None:
    order = anchor_order(H, W, lr, ud)
    assert sorted(order) == list(range(ANCHORS))
    # The mirrored look's anchor order[k], mapped back, sits where anchor k sits.
    assert np.allclose(cell_centres(lr, ud)[order], cell_centres(False, False))
    assert np.array_equal(order[order], np.arange(ANCHORS))  # mirroring twice is no change


def test_a_box_is_rewritten_in_the_angle_branch_nearest_another() -> None:
    # (w, h, angle) and (h, w, angle + pi/2) are one box.
    angle, w, h = nearest_branch(
        np.array([0.1 + np.pi / 2]), np.array([60.0]), np.array([40.0]), np.array([0.12])
    )
    assert np.allclose([angle[0], w[0], h[0]], [0.1, 40.0, 60.0])
    angle, w, h = nearest_branch(
        np.array([-0.05 + np.pi]), np.array([40.0]), np.array([60.0]), np.array([0.0])
    )
    assert np.allclose([angle[0], w[0], h[0]], [-0.05, 40.0, 60.0])


def head(box: tuple[float, ...], at: int, score: float) -> np.ndarray:
    raw = np.zeros((7, ANCHORS), np.float32)  # x, y, w, h, back, face, angle
    raw[[0, 1, 2, 3, 6], at] = [box[0], box[1], box[2], box[3], box[4]]
    raw[4, at] = score
    return raw


def test_four_looks_at_one_card_fuse_to_that_card() -> None:
    x, y, w, h, r = 30.0, 20.0, 20.0, 30.0, 0.3
    raws = [head((x, y, w, h, r), 5, 0.9)]
    for (lr, ud), score in zip(MIRRORINGS, (0.7, 0.8, 0.6), strict=True):
        at = int(np.nonzero(anchor_order(H, W, lr, ud) == 5)[0][0])
        mx, my = (W - x if lr else x), (H - y if ud else y)
        mr = -r if lr != ud else r
        if ud:  # the same box, written in the other angle branch
            raws.append(head((mx, my, h, w, mr + np.pi / 2), at, score))
        else:
            raws.append(head((mx, my, w, h, mr), at, score))
    fused = fuse(raws, H, W, classes=2)
    assert np.allclose(fused[[0, 1, 2, 3, 6], 5], [x, y, w, h, r], atol=1e-5)
    assert fused[4, 5] == pytest.approx(0.75)
    assert np.count_nonzero(fused[4]) == 1
    assert fuse(raws[:1], H, W, 2) is raws[0]


def test_mirrored_blobs_and_a_wrong_grid() -> None:
    blob = np.arange(2 * 3 * 4, dtype=np.float32).reshape(1, 1, 4, 6)
    assert np.array_equal(mirrored(blob, True, True), blob[:, :, ::-1, ::-1])
    with pytest.raises(ValueError, match="anchors"):
        fuse([np.zeros((7, 10)), np.zeros((7, 10))], H, W, 2)


def test_looks_are_bounded() -> None:
    assert VisionSettings().live_detector_views == 1
    for bad in (0, 5):
        with pytest.raises(ValueError, match="detector_views"):
            VisionSettings(detector_views=bad)


def test_the_card_check_bar_follows_the_looks_taken() -> None:
    s = VisionSettings()
    assert s.card_chance_bar(s.detector_views) == s.min_card_chance == 0.3
    assert s.card_chance_bar(s.live_detector_views) == s.one_look_min_card_chance == 0.4
    assert VisionSettings(detector_views=1).card_chance_bar(1) == 0.4


def test_live_frames_take_one_look_of_each_kind_and_photos_the_settings() -> None:
    s = VisionSettings(detector_views=3, naming_views=2)
    photo = Counter(settings=s, threads=1)
    live = Counter(settings=s, threads=1, live=True)
    assert (photo.detector_views, photo.naming_views) == (3, 2)
    assert (live.detector_views, live.naming_views) == (1, 1)


def test_anchor_orders_are_kept_and_read_only() -> None:
    order = anchor_order(H, W, True, False)
    assert anchor_order(H, W, True, False) is order
    with pytest.raises(ValueError, match="read-only"):
        order[0] = 1
