"""The tally with the watch loop's motion: a card counts only where something passed over it.

Hand-made frames as in ``test_tally.py``: 10 counted frames a second, backs 40x60 px, and
per frame a `Motion` marking the boxes of the picture that moved since the frame before.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.core.geometry import xywhr_to_corners
from vision.live.motion import Motion, MotionMeter
from vision.live.tally import COUNTED, MOVED, Sighting, SortTally

FPS = 10.0
DECKS = ("pump", "carriage", "plow", "pail")
CELL = 4  # px a motion cell
SIZE = (480, 640)  # picture, px (h, w)

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (px)
CARD: Box = (80, 70, 120, 130)  # where a back 40x60 at (100, 100) lies
ABOVE: Box = (80, 10, 120, 70)  # one card length past each of its short sides
BELOW: Box = (80, 130, 120, 190)


def card(track: int, x: float, y: float, deg: float = 0.0, deck: str = "pump") -> Sighting:
    outline = xywhr_to_corners(np.array([[x, y, 40, 60, np.radians(deg)]], np.float32))[0]
    return Sighting(track, outline, deck, 0.95)


def moved(*boxes: Box) -> Motion:
    """A frame in which the picture moved inside ``boxes`` (for a whole frame, 0.1 s)."""
    out = np.zeros((SIZE[0] // CELL, SIZE[1] // CELL), np.float32)
    for x0, y0, x1, y1 in boxes:
        out[y0 // CELL : y1 // CELL, x0 // CELL : x1 // CELL] = 1 / FPS
    return Motion(out, float(CELL))


Script = Callable[[int], tuple[list[Sighting], Motion]]


def run(script: Script, frames: int) -> SortTally:
    tally = SortTally(DECKS)
    for k in range(frames):
        sightings, motion = script(k)
        tally.observe(k / FPS, k, sightings, motion)
    return tally


def test_a_still_card_whose_outline_wobbles_with_nothing_passing_over_never_counts_again() -> None:
    rng = np.random.default_rng(3)

    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 5:
            return [], moved()
        if rng.random() < 0.1:  # the detector misses it now and then
            return [], moved(CARD) if k < 7 else moved()
        dx, dy, deg = rng.normal(0, 1.5), rng.normal(0, 1.5), rng.normal(0, 2.5)
        return [card(1, 100 + dx, 100 + dy, deg)], moved(CARD) if k < 7 else moved()

    tally = run(script, 300)  # 30 s
    assert tally.counts() == {"pump": 1, "carriage": 0, "plow": 0, "pail": 0}
    assert [e.kind for e in tally.events] == [COUNTED]


def test_a_card_laid_squarely_on_a_stack_counts_once_after_a_hand_dwelt_over_it() -> None:
    # card 1 laid at 0.5 s; at 3 s a hand dwells over it for 0.4 s (hiding it for 0.2 s)
    # and leaves card 2 on it, 1 px off and turned 1 degree: no change of outline to see
    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 5:
            return [], moved()
        if k < 30:
            return [card(1, 100, 100)], moved(CARD) if k < 7 else moved()
        if k < 34:
            return ([] if k in (31, 32) else [card(1, 100, 100)]), moved(CARD)
        return [card(1, 101, 100, 1.0)], moved()

    tally = run(script, 70)
    assert tally.counts()["pump"] == 2
    assert [(e.kind, e.card) for e in tally.events] == [(COUNTED, 1), (COUNTED, 2)]
    assert 34 <= tally.events[1].frame <= 40


def test_a_hand_going_on_past_a_stack_lays_nothing_on_it() -> None:
    # as above, but the hand moves past the card on both sides (it reaches further)
    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 5:
            return [], moved()
        if k < 30 or k >= 34:
            return [card(1, 100, 100)], moved(CARD) if k < 7 else moved()
        return ([] if k in (31, 32) else [card(1, 100, 100)]), moved(ABOVE, CARD, BELOW)

    tally = run(script, 70)
    assert tally.counts()["pump"] == 1 and len(tally.events) == 1


def test_a_hand_passing_briefly_that_leaves_the_outline_where_it_was_lays_nothing() -> None:
    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 5:
            return [], moved()
        return [card(1, 100, 100)], moved(CARD) if k < 7 or k == 30 else moved()

    tally = run(script, 60)
    assert tally.counts()["pump"] == 1


def test_a_card_that_appears_with_nothing_moving_there_is_not_counted() -> None:
    # the detector's whole outline for covered cards of a spread: it shows up at 2 s while
    # the picture lies still there
    def script(k: int) -> tuple[list[Sighting], Motion]:
        return ([card(4, 300, 200)] if k >= 20 else []), moved()

    tally = run(script, 60)
    assert tally.counts()["pump"] == 0 and tally.events == []


def test_cards_on_the_table_before_the_first_frame_count_without_motion() -> None:
    tally = run(lambda k: ([card(1, 100, 100), card(2, 300, 100, deck="pail")], moved()), 30)
    assert tally.counts() == {"pump": 1, "carriage": 0, "plow": 0, "pail": 1}


def test_a_card_moved_onto_a_stack_of_its_deck_counts_once() -> None:
    # card 1 on the stack; card 2 laid beside it (counted), then carried onto the stack by a
    # hand that dwells there: a move, not a third card
    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 20:
            return [card(1, 100, 100)], moved()
        if k < 25:
            return [card(1, 100, 100)], moved((220, 70, 260, 130)) if k < 22 else moved()
        if k < 45:
            return [card(1, 100, 100), card(2, 240, 100)], moved()
        if k < 49:
            return ([] if k in (46, 47) else [card(1, 100, 100)]), moved(CARD, (220, 70, 260, 130))
        return [card(1, 101, 99, 1.0)], moved()

    tally = run(script, 90)
    assert tally.counts()["pump"] == 2
    assert [e.kind for e in tally.events] == [COUNTED, COUNTED, MOVED]


def test_motion_meter_marks_where_the_picture_changed_and_for_how_long() -> None:
    meter = MotionMeter(cell_px=4, threshold=20)
    still = np.zeros((120, 160, 3), np.uint8)
    laid = still.copy()
    laid[40:100, 60:100] = 200  # a card appears
    meter.add(still, 0.0)
    assert meter.take() is not None
    meter.add(laid, 0.1)
    meter.add(laid, 0.2)
    motion = meter.take()
    assert motion is not None
    outline = np.array([[60, 40], [100, 40], [100, 100], [60, 100]], np.float64)
    assert motion.share(outline) == 1.0
    assert abs(motion.dwell(outline) - 0.1) < 1e-6
    elsewhere = outline + (0, -70)
    assert motion.share(elsewhere + (0, 10)) == 0.0
    meter.add(laid, 0.3)
    after = meter.take()
    assert after is not None and after.share(outline) == 0.0


def test_a_covered_cards_outline_read_whole_within_a_spread_after_a_hand_is_not_a_new_card() -> (
    None
):
    # two cards of a spread, 14 px apart, each carried in; at 5 s a hand passes briefly over
    # the spread and the detector then also reads the covered card's region as a whole card
    spread: Box = (70, 60, 150, 140)

    def script(k: int) -> tuple[list[Sighting], Motion]:
        if k < 5:
            return [], moved()
        if k < 25:
            return [card(1, 100, 100)], moved(CARD) if k < 7 else moved()
        if k < 27:
            return [], moved(spread)
        if k < 50:
            return [card(2, 114, 100)], moved()
        if k < 51:
            return [], moved(spread)
        return [card(2, 114, 100), card(7, 104, 100)], moved()

    tally = run(script, 90)
    assert tally.counts()["pump"] == 2
    assert [e.kind for e in tally.events] == [COUNTED, COUNTED]
