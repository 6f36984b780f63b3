"""The tally with the watch loop's picture: a hand that passed over a known card laid a card
on it only if the picture there changed (`vision.live.motion.picture_change`).

Hand-made frames as in ``test_tally_motion.py`` (10 counted frames a second, backs 40x60 px
at (100, 100), a `Motion` marking the boxes that moved), each with a grey picture drawn from
the cards lying on a textured table, half size, shaken by the camera.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.core.geometry import xywhr_to_corners
from vision.live.motion import Motion, MotionMeter, picture_change
from vision.live.tally import COUNTED, TAKEN_BACK, Sighting, SortTally

FPS = 10.0
DECKS = ("pump", "carriage", "plow", "pail")
CELL = 4
SIZE = (480, 640)  # picture, px (h, w)
Box = tuple[int, int, int, int]
CARD: Box = (80, 70, 120, 130)  # where a back 40x60 at (100, 100) lies
ABOVE: Box = (80, 10, 120, 70)
BELOW: Box = (80, 130, 120, 190)
Pose = tuple[float, float, float]  # x, y (px), turn (degrees)

_TABLE = cv2.GaussianBlur(
    np.random.default_rng(0).uniform(60, 140, SIZE).astype(np.float32), (0, 0), 3
)


def outline(pose: Pose) -> np.ndarray:
    x, y, deg = pose
    return xywhr_to_corners(np.array([[x, y, 40, 60, np.radians(deg)]], np.float32))[0]


def picture(poses: list[Pose], shake: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """The table with backs at ``poses`` (the later on top), shifted by ``shake`` (px), in
    grey, half size (as `MotionMeter.take` hands it on)."""
    img = _TABLE.copy()
    for pose in poses:
        q = outline(pose)
        cv2.fillPoly(img, [np.round(q).astype(np.int32)], 170.0)
        inner = q + (q.mean(0) - q) * 0.25  # the back's print: a dark panel and a stripe
        cv2.fillPoly(img, [np.round(inner).astype(np.int32)], 130.0)
        a, b = np.round(q[0]).astype(int), np.round(q[2]).astype(int)
        cv2.line(img, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 150.0, 2)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)  # the lens
    m = np.float32([[1, 0, shake[0]], [0, 1, shake[1]]])
    img = cv2.warpAffine(img, m, (SIZE[1], SIZE[0]), borderMode=cv2.BORDER_REFLECT)
    small = cv2.resize(img, (SIZE[1] // 2, SIZE[0] // 2), interpolation=cv2.INTER_AREA)
    return np.clip(small, 0, 255).astype(np.uint8)


def moved(poses: list[Pose], k: int, *boxes: Box) -> Motion:
    out = np.zeros((SIZE[0] // CELL, SIZE[1] // CELL), np.float32)
    for x0, y0, x1, y1 in boxes:
        out[y0 // CELL : y1 // CELL, x0 // CELL : x1 // CELL] = 1 / FPS
    rng = np.random.default_rng(k)
    shake = (float(rng.normal(0, 1.2)), float(rng.normal(0, 1.2)))
    return Motion(out, float(CELL), picture(poses, shake), 2.0)


def card(track: int, pose: Pose, deck: str = "pump") -> Sighting:
    return Sighting(track, outline(pose), deck, 0.95)


Script = Callable[[int], tuple[list[Sighting], Motion]]


def run(script: Script, frames: int) -> SortTally:
    tally = SortTally(DECKS)
    for k in range(frames):
        sightings, motion = script(k)
        tally.observe(k / FPS, k, sightings, motion)
    return tally


FIRST: Pose = (100.0, 100.0, 0.0)
SECOND: Pose = (102.0, 101.0, 6.0)  # laid on it, 2 px off and turned 6 degrees
TURNED: Pose = (106.0, 104.0, 15.0)  # laid on it further off and turned more


def stack_script(
    hand: tuple[Box, ...], laid: Pose | None, taken_back_at: int | None = None
) -> Script:
    """Card 1 carried in at 0.5 s; at 3 s a hand passes over it for 0.4 s (moving ``hand``;
    hiding it for 0.2 s), laying a card at ``laid`` on it (``None``: nothing); from frame
    ``taken_back_at`` a hand takes that card back within 0.4 s."""

    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 5:
            return [], moved([], k)
        if k < 7:
            return [card(1, FIRST)], moved([FIRST], k, CARD)
        if k < 30:
            return [card(1, FIRST)], moved([FIRST], k)
        lying = [FIRST] if laid is None else [FIRST, laid]
        top = FIRST if laid is None else laid
        if taken_back_at is not None and k >= taken_back_at:
            if k < taken_back_at + 4:
                return [], moved(lying, k, *hand)
            return [card(1, FIRST)], moved([FIRST], k)
        if k < 34:
            return ([] if k in (31, 32) else [card(1, FIRST)]), moved(lying, k, *hand)
        return [card(1, top)], moved(lying, k)

    return script


def test_a_hand_dwelling_over_a_stack_that_leaves_the_picture_as_it_was_lays_nothing() -> None:
    # the motion alone says a hand dwelt there (it moved over all of it for 0.4 s and not
    # beyond): without the picture a card would count
    tally = run(stack_script((CARD,), None), 70)
    assert tally.counts()["pump"] == 1
    assert [e.kind for e in tally.events] == [COUNTED]


def test_a_card_laid_on_a_stack_by_a_dwelling_hand_counts_once() -> None:
    tally = run(stack_script((CARD,), SECOND), 90)
    assert tally.counts() == {"pump": 2, "carriage": 0, "plow": 0, "pail": 0}
    assert [(e.kind, e.card) for e in tally.events] == [(COUNTED, 1), (COUNTED, 2)]


def test_a_hand_reaching_past_a_stack_counts_a_card_where_the_picture_changed_much() -> None:
    # the hand moves beyond both sides of the stack (by its motion, one going on past it):
    # it laid nothing where the picture is as it was, and a card where it changed much
    past = (ABOVE, CARD, BELOW)
    assert run(stack_script(past, None), 90).counts()["pump"] == 1
    tally = run(stack_script(past, TURNED), 90)
    assert tally.counts()["pump"] == 2
    assert [(e.kind, e.card) for e in tally.events] == [(COUNTED, 1), (COUNTED, 2)]


def test_a_card_laid_on_a_stack_and_taken_back_at_once_does_not_count() -> None:
    # laid at 3.0-3.4 s, lying still from 3.4 s; the hand is back at 3.6 s and takes it
    # before it is counted
    tally = run(stack_script((CARD,), SECOND, taken_back_at=36), 90)
    assert tally.counts()["pump"] == 1
    assert [e.kind for e in tally.events] == [COUNTED]


def test_a_card_counted_on_a_stack_and_taken_back_soon_after_no_longer_counts() -> None:
    # counted at about 3.7 s; taken back at 4.5-4.9 s: the stack looks as it did before
    tally = run(stack_script((CARD,), SECOND, taken_back_at=45), 90)
    assert tally.counts()["pump"] == 1
    events = [(e.kind, e.card) for e in tally.events]
    assert events == [(COUNTED, 1), (COUNTED, 2), (TAKEN_BACK, 2)]
    assert tally.events[2].undone_frame == tally.events[1].frame


def test_picture_change_takes_off_the_camera_shake_and_sees_a_card_laid() -> None:
    q = outline(FIRST)
    still = picture([FIRST])
    shaken = picture([FIRST], (1.7, -1.3))
    brighter = np.clip(shaken.astype(np.float32) * 1.12, 0, 255).astype(np.uint8)
    laid = picture([FIRST, SECOND], (-1.1, 0.6))
    turned = picture([FIRST, TURNED], (0.4, 0.9))
    assert picture_change(still, turned, q, 2.0) > 5.0
    assert picture_change(still, shaken, q, 2.0) < 1.0
    assert picture_change(still, brighter, q, 2.0) < 1.0
    assert picture_change(still, laid, q, 2.0) > 2.0


def test_motion_meter_hands_on_the_last_frame_in_grey_at_half_size() -> None:
    meter = MotionMeter(cell_px=4, threshold=20)
    frame = np.zeros((120, 160, 3), np.uint8)
    frame[40:100, 60:100] = 200
    meter.add(np.zeros_like(frame), 0.0)
    meter.add(frame, 0.1)
    motion = meter.take()
    assert motion is not None and motion.picture is not None
    assert motion.picture.shape == (60, 80) and motion.picture_px == 2.0
    assert motion.picture[30, 40] == 200 and motion.picture[5, 5] == 0
