"""Rendered cards sit exactly where their labels say, and occlusion gives true visibility."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.synth.art import make_texture
from vision.synth.camera import Camera, frame_cards
from vision.synth.decks import ART_PX_PER_MM, CARD_H_PX, CARD_W_PX, CORNER_RADIUS_MM
from vision.synth.labels import truth
from vision.synth.plans import CardSpec, Plan
from vision.synth.print_effects import card_alpha
from vision.synth.scene import render

W, H = 640, 480


class MarkedPool:
    """Every card is white with a red top-left quarter, so the art's orientation shows."""

    def __init__(self) -> None:
        img = np.full((CARD_H_PX, CARD_W_PX, 3), 255, np.uint8)
        img[: CARD_H_PX // 2, : CARD_W_PX // 2] = (0, 0, 255)
        self.tex = make_texture(
            img, card_alpha(CARD_W_PX, CARD_H_PX, CORNER_RADIUS_MM * ART_PX_PER_MM)
        )

    def back(self, deck: str, rng: np.random.Generator) -> object:
        return self.tex

    def face(self, color: str, value: int, rng: np.random.Generator) -> object:
        return self.tex

    def random(self, k: int) -> object:
        return self.tex


def _plan(poses: list[tuple[float, float, float]]) -> Plan:
    cards = [CardSpec("back", "pump", False, 0, None, None, np.array(p, float)) for p in poses]
    return Plan("layout", ("pump", "carriage", "plow", "pail"), cards)


def _render(plan: Plan, cam: Camera):
    tile = np.zeros((64, 64, 3), np.uint8)  # black table
    return render(
        plan, MarkedPool(), tile, W, H, 0.3, np.random.default_rng(0), clean=True, camera=cam
    )


def _top_down(px_per_mm: float, centre=(320.0, 240.0)) -> Camera:
    Hm = np.array([[px_per_mm, 0, centre[0]], [0, px_per_mm, centre[1]], [0, 0, 1]])
    return Camera(Hm, W, H, 0.0, 0.0, px_per_mm)


@pytest.mark.parametrize("tilt,yaw,angle", [(0, 0, 0.0), (35, 120, 0.6), (50, 250, -2.0)])
def test_single_card_corners_match_its_pixels(tilt: float, yaw: float, angle: float) -> None:
    plan = _plan([(0.0, 0.0, angle)])
    corners_mm = np.array([[-28, -43.5], [28, -43.5], [28, 43.5], [-28, 43.5]], float)
    cam = frame_cards(corners_mm * 2, 300, W, H, np.random.default_rng(1), tilt, yaw)
    r = _render(plan, cam)
    card = (r.image.max(axis=2) > 127).astype(np.uint8)
    quad = np.zeros_like(card)
    # corners are in continuous pixel coordinates; cv2 draws at pixel centres
    cv2.fillConvexPoly(quad, np.round((r.corners[0] - 0.5) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    inter = np.logical_and(card, quad).sum()
    union = np.logical_or(card, quad).sum()
    assert inter / union > 0.985  # only the rounded corners differ
    # the red quarter is at the art's top-left, the first corner
    red = (r.image[..., 2] > 127) & (r.image[..., 0] < 100)
    ys, xs = np.nonzero(red)
    centroid = np.array([xs.mean() + 0.5, ys.mean() + 0.5])
    d = np.linalg.norm(r.corners[0] - centroid, axis=1)
    assert int(np.argmin(d)) == 0
    # clockwise in the image too (the camera looks at the table from above)
    q = r.corners[0]
    signed = sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4))
    assert signed > 0


def test_corner_pixels_are_exact_top_down() -> None:
    r = _render(_plan([(0.0, 0.0, 0.0)]), _top_down(3.0))
    # a 56 x 87 mm card at 3 px/mm centred on (320, 240) spans x 236..404, y 109.5..370.5
    np.testing.assert_allclose(
        r.corners[0], [[236, 109.5], [404, 109.5], [404, 370.5], [236, 370.5]], atol=1e-6
    )
    mask = r.image.max(axis=2) > 127
    cols = np.nonzero(mask.any(axis=0))[0]
    rows = np.nonzero(mask.any(axis=1))[0]
    assert (cols[0], cols[-1] + 1) == (236, 404)
    assert abs(rows[0] - 109.5) <= 1 and abs(rows[-1] + 1 - 370.5) <= 1


@pytest.mark.parametrize("shift_mm,expected", [(28.0, 0.5), (14.0, 0.25), (42.0, 0.75)])
def test_visible_fraction_under_known_overlap(shift_mm: float, expected: float) -> None:
    # the second card lies on top, shifted right: the first keeps shift/width of its area
    r = _render(_plan([(0.0, 0.0, 0.0), (shift_mm, 0.0, 0.0)]), _top_down(2.5, (260, 240)))
    assert r.visible_fraction[1] == pytest.approx(1.0, abs=0.01)
    assert r.visible_fraction[0] == pytest.approx(expected, abs=0.02)


def test_buried_card_is_not_labelled() -> None:
    plan = _plan([(0.0, 0.0, 0.0), (3.0, 2.0, 0.02), (200.0, 0.0, 0.0)])
    r = _render(plan, _top_down(1.5, (200, 240)))
    assert r.visible_fraction[0] < 0.2
    rec = truth(
        plan,
        r,
        0.3,
        image="x.jpg",
        seed=0,
        index=0,
        art="standin",
        recipe_kind="layout",
        jpeg_quality=90,
    )
    assert len(rec["cards"]) == 2
    assert rec["counts"] == {"pump": 2, "carriage": 0, "plow": 0, "pail": 0}
    assert rec["hidden_cards"] == 1


def test_a_registered_style_draws_the_cards(tmp_path) -> None:
    from vision.synth import art_standin
    from vision.synth.art import register_style
    from vision.synth.generate import synthesize

    class Grey:
        def draw_back(self, deck, rng, w, h):
            return np.full((h, w, 3), 128, np.uint8)

        draw_face = staticmethod(art_standin.draw_face)
        draw_random_card = staticmethod(art_standin.draw_random_card)

    register_style("grey-test", Grey())
    out = synthesize(tmp_path, 1, seed=3, kind="layout", art="grey-test", workers=1, progress=False)
    rec = json.loads((out / "truth" / "000000.json").read_text())
    assert rec["art"] == "grey-test"
    with pytest.raises(TypeError):
        register_style("broken", object())  # type: ignore[arg-type]


def test_a_wide_spread_under_a_close_tilted_camera_fills_the_frame_not_a_speck() -> None:
    """A metre of table asked for with cards 644 px long, tilted 47 degrees (a round's
    sorted Dutch cards, 1920 px): part of it starts out behind the camera."""
    spread = np.array([[-447.0, -426.0], [445.0, -426.0], [445.0, 431.0], [-447.0, 431.0]])
    w, h = 1920, 1440
    args = (spread, 644.0, w, h)
    collapsed = frame_cards(*args, np.random.default_rng(3), 47.0, 124.0, k_dist=2.8)
    cam = frame_cards(*args, np.random.default_rng(3), 47.0, 124.0, k_dist=2.8, largest_fit=True)
    assert collapsed.px_per_mm * 87 < 10  # kept where a too small scene drops a group
    card_px = cam.px_per_mm * 87
    assert 60 < card_px < 644
    px = cam.project(spread)
    assert px.min() >= 0 and px[:, 0].max() <= w and px[:, 1].max() <= h
    # it fills the frame: the spread spans nearly all of one side
    span = (px.max(0) - px.min(0)) / np.array([w, h])
    assert span.max() > 0.85
