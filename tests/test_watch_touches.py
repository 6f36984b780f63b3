"""What holds `tallero watch`'s view SETTLING and what it says it waits for: a hand over the
cards, a card laid, a deck the frames do not yet agree on; and the part of a frame a slow
counter counts instead of the whole (`LiveSettings.part_max_share`).

The steady table is fed here with tracks and motion the test chooses (no tracker); the
watch loop is driven with the stub counter of ``test_watch``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np
from live_stubs import SPOTS, StubCounter, stub_cards
from test_watch import DECKS, FPS, picture
from test_watch_steady import changes, feed, shown_view

from vision.core.cards import Cards
from vision.count.result import Count
from vision.live.counting import InLoop
from vision.live.motion import Motion, MotionMeter, Touches
from vision.live.settings import LiveSettings
from vision.live.steady import SteadyTable, TableView
from vision.live.watch import Watcher


# A hand over the cards: the picture moves over them, and the view is SETTLING meanwhile.
def motion_over(*spots: str) -> Motion:
    """The motion of one counted frame: the named stub spots moved all over, nothing else."""
    moved = np.zeros((40, 50), np.float32)  # 4 px cells over the 200x160 picture
    for n in spots:
        (x, y), _ = SPOTS[n]
        moved[y // 4 : (y + 60) // 4, x // 4 : (x + 40) // 4] = 0.1
    return Motion(moved, 4.0)


def feed_touched(table: SteadyTable, frames: int, script: Any, touched: Any) -> list[TableView]:
    """As `feed`, with ``touched(k)`` the spots a hand or a card moved over at frame k."""
    views = []
    for k in range(frames):
        seen = script(k)
        cards = stub_cards("".join(spot for _, spot in seen))
        count = Count("frame", (200, 160), cards, DECKS, {"name": "stub"})
        matches = [(track, i) for i, (track, _) in enumerate(seen)]
        table.observe(k / FPS, count, matches, motion_over(*touched(k)))
        views.append(table.view(k / FPS))
    return views


def test_a_hand_over_the_counted_cards_makes_the_view_settling() -> None:
    # the hand moves over a from 2 s to 3 s; every card stays seen: SETTLING until 0.2 s
    # after it left, the count never changed
    views = feed_touched(
        SteadyTable(DECKS, LiveSettings()),
        50,
        lambda k: [(1, "a"), (3, "d")],
        lambda k: ("a",) if 20 <= k < 30 else (),
    )
    assert views[15].steady and views[25].steady is False
    assert views[29].steady is False and views[40].steady
    assert all(shown_view(v) == {"pump": 1, "pail": 1} for v in views[10:])
    # touches off: the hand, hiding no card, goes unnoticed
    off = feed_touched(
        SteadyTable(DECKS, LiveSettings(touch_settling_s=-1)),
        50,
        lambda k: [(1, "a"), (3, "d")],
        lambda k: ("a",) if 20 <= k < 30 else (),
    )
    assert all(v.steady for v in off[10:])


def test_a_card_laid_where_a_hand_moved_counts_once_the_hand_is_gone() -> None:
    # b is laid at 2 s by a hand moving over a and b until 2.5 s: the count goes from
    # a, d to a, b, d with the view SETTLING in between, never showing anything else
    def script(k: int) -> list[tuple[int, str]]:
        return [(1, "a"), (3, "d")] + ([(9, "b")] if k >= 20 else [])

    views = feed_touched(
        SteadyTable(DECKS, LiveSettings()),
        50,
        script,
        lambda k: ("a", "b") if 15 <= k < 25 else (),
    )
    assert views[14].steady and shown_view(views[14]) == {"pump": 1, "pail": 1}
    assert not any(v.steady for v in views[15:26])  # until 0.2 s after the hand left
    assert views[40].steady and shown_view(views[40]) == {"pump": 2, "pail": 1}
    assert {str(shown_view(v)) for v in views[10:]} == {
        str({"pump": 1, "pail": 1}),
        str({"pump": 2, "pail": 1}),
    }


def test_touches_ignore_exposure_and_thin_edges_but_see_a_hand() -> None:
    rng = np.random.default_rng(0)
    base = np.full((160, 200, 3), 90, np.uint8)
    cv2.rectangle(base, (40, 40), (100, 130), (230, 230, 230), -1)
    meter, touches = MotionMeter(exposure=True), Touches(open_cells=3)
    frames = [
        base,
        np.clip(base.astype(int) + 40, 0, 255).astype(np.uint8),  # exposure
        np.roll(np.clip(base.astype(int) + 40, 0, 255).astype(np.uint8), 1, axis=1),  # shake
    ]
    for k, f in enumerate(frames):
        noisy = np.clip(f.astype(int) + rng.integers(-3, 4, f.shape), 0, 255).astype(np.uint8)
        meter.add(noisy, k * 0.1)
    touches.stamp(meter.take(), 0.2)
    card = np.array([[40, 40], [100, 40], [100, 130], [40, 130]], np.float32)
    assert touches.share_since(card, 0.0) == 0.0
    hand = frames[-1].copy()
    cv2.rectangle(hand, (30, 60), (120, 160), (60, 120, 200), -1)
    meter.add(hand, 0.3)
    touches.stamp(meter.take(), 0.3)
    assert touches.share_since(card, 0.3) >= 0.5


def feed_named(table: SteadyTable, frames: int, name: Any) -> list[TableView]:
    """`feed` of card a alone (track 1), named ``name(k)``: a (deck, confidence) pair."""
    views = []
    for k in range(frames):
        cards = stub_cards("a")
        cards.deck[0], cards.deck_confidence[0] = name(k)
        count = Count("frame", (200, 160), cards, DECKS, {"name": "stub"})
        table.observe(k / FPS, count, [(1, 0)])
        views.append(table.view(k / FPS))
    return views


def test_a_deck_the_first_frames_got_wrong_is_never_shown_as_steady() -> None:
    # the pump card a is named pail (unsure) in its first 4 frames, pump after that
    def name(k: int) -> tuple[str, float]:
        return ("pail", 0.6) if k < 4 else ("pump", 0.97)

    hasty = feed_named(SteadyTable(DECKS, LiveSettings(decided_lead=0)), 30, name)
    assert changes(hasty) == [{"pail": 1}, {"pump": 1}]  # STEADY on pail, then changed
    views = feed_named(SteadyTable(DECKS, LiveSettings()), 30, name)
    assert changes(views) == [{"pump": 1}]
    # SETTLING until pump's votes lead pail's by 3 (frame 8: 5 x 0.97 - 4 x 0.6 = 2.45,
    # frame 9: 3.42), meanwhile the card counted so far is shown
    assert [v.steady for v in views].index(True) == 9
    assert shown_view(views[5]) == {"pail": 1} and not views[5].steady


def test_a_card_named_two_decks_by_turns_is_decided_after_decide_max_s() -> None:
    # the namer calls card a pump and pail by turns: its votes never lead by 3 frames
    def name(k: int) -> tuple[str, float]:
        return ("pump", 0.9) if k % 2 else ("pail", 0.6)

    views = feed_named(SteadyTable(DECKS, LiveSettings(decide_max_s=1.5)), 40, name)
    assert [v.steady for v in views].index(True) == 15
    assert changes(views) == [{"pump": 1}]  # pump's votes lead; the range shows the doubt
    assert views[-1].count.ranges["pail"] == (0, 1)


def test_a_camera_drifting_over_large_faces_touches_nothing_but_a_hand_still_does() -> None:
    # a table of large faces (white, a thick dark number and a figure each), filmed by a camera that
    # drifts 5 px a frame: with drift taken off no face is touched; a hand still touches
    rng = np.random.default_rng(1)
    table = np.full((400, 560, 3), 70, np.uint8)
    faces = []
    for x in range(40, 480, 130):
        for y in range(40, 300, 170):
            cv2.rectangle(table, (x, y), (x + 100, y + 140), (235, 235, 235), -1)
            cv2.putText(
                table, "10", (x + 4, y + 70), cv2.FONT_HERSHEY_SIMPLEX, 2.2, (30, 30, 30), 12
            )
            cv2.circle(table, (x + 50, y + 110), 18, (40, 60, 160), -1)  # the figure
            faces.append(
                np.array([[x, y], [x + 100, y], [x + 100, y + 140], [x, y + 140]], np.float32)
            )

    def frame(k: int) -> np.ndarray:
        m = np.float32([[1, 0, 5.0 * k], [0, 1, 2.5 * k]])
        moved = cv2.warpAffine(table, m, (560, 400), borderMode=cv2.BORDER_REPLICATE)
        noisy = moved.astype(int) + rng.integers(-3, 4, moved.shape)
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def touched(drift: bool, hand: bool) -> list[float]:
        meter, touches = MotionMeter(exposure=True, drift=drift), Touches(open_cells=3)
        for k in range(4):
            picture = frame(k)
            if hand and k == 3:
                cv2.rectangle(picture, (30, 30), (160, 200), (60, 120, 200), -1)
            meter.add(picture, k * 0.1)
        touches.stamp(meter.take(), 0.3)
        shift = np.float32([5.0 * 3, 2.5 * 3])  # where the faces lie in the last frame
        return [touches.share_since(f + shift, 0.3) for f in faces]

    assert max(touched(drift=False, hand=False)) >= 0.5  # the drift reads as a hand ...
    assert max(touched(drift=True, hand=False)) < 0.5  # ... not once it is taken off
    with_hand = touched(drift=True, hand=True)
    assert with_hand[0] >= 0.5 and max(with_hand[1:]) < 0.5


def test_the_view_says_what_it_waits_for() -> None:
    # a and d from the start; a hand over a from 2 s to 3 s; card b laid at 4 s (seen from
    # frame 40 on); card d hidden from 6 s to 6.5 s
    def script(k: int) -> list[tuple[int, str]]:
        seen = [(1, "a")] + ([(9, "b")] if k >= 40 else [])
        return seen + ([] if 60 <= k < 65 else [(3, "d")])

    views = feed_touched(
        SteadyTable(DECKS, LiveSettings()),
        80,
        script,
        lambda k: ("a",) if 20 <= k < 30 else (),
    )
    assert views[0].waiting == ("starting",)
    assert views[15].steady and views[15].waiting == ()
    assert views[25].waiting == ("touched",) and not views[25].steady
    assert "new" in views[41].waiting and not views[41].steady
    assert views[55].steady and views[55].waiting == ()
    assert views[64].waiting == ("unseen",) and not views[64].steady
    assert all(v.steady == (not v.waiting) for v in views)
    # a back whose deck the frames do not agree on
    split = feed_named(
        SteadyTable(DECKS, LiveSettings()), 12, lambda k: ("pump", 0.9) if k % 2 else ("pail", 0.6)
    )
    assert split[-1].waiting == ("undecided",)
    # held: a new count waits until it has held hold_s
    held = feed(
        SteadyTable(DECKS, LiveSettings(hold_s=1.2)),
        40,
        lambda k: [(1, "a")] + ([(9, "b")] if k >= 20 else []),
    )
    assert "holding" in {w for v in held[20:] for w in v.waiting}


class PartCounter(StubCounter):
    """`StubCounter` that also counts a part of a frame (`Counter.count_part`): the cards of
    the script lying wholly inside the box; keeps the boxes asked for."""

    def __init__(self, script: Any) -> None:
        super().__init__(script)
        self.boxes: list[tuple[int, int, int, int]] = []
        self.whole = 0

    def part_scale(self, h: int, w: int) -> float | None:
        return 1.0 if self.whole else None

    def count(self, image: Any, name: str | None = None, decks: Any = None) -> Count:
        self.whole += 1
        return super().count(image, name, decks)

    def count_part(
        self, image: Any, box: tuple[int, int, int, int], name: str | None = None, decks: Any = None
    ) -> Count:
        self.boxes.append(box)
        x0, y0, x1, y1 = box
        inside = "".join(
            n
            for n in self.script(self.frame)
            if SPOTS[n][0][0] >= x0
            and SPOTS[n][0][1] >= y0
            and SPOTS[n][0][0] + 40 <= x1
            and SPOTS[n][0][1] + 60 <= y1
        )
        self.calls += 1
        return Count(
            name or "frame", (200, 160), stub_cards(inside), tuple(decks), {"name": "stub"}
        )


def watch_parts(settings: LiveSettings, delay_s: float, frames: int) -> tuple[Any, Any, list]:
    """a, c, d, f on the table, b laid at 3 s, each count reaching the table ``delay_s``
    after its frame: the counter, the watcher and the views."""

    def script(k: int) -> str:
        return "acdf" + ("b" if k >= 30 else "")

    counter = PartCounter(script)
    watcher = Watcher(counter, DECKS, settings, FPS, pace=InLoop(delay_s))
    views = []
    for k in range(frames):
        counter.frame = k
        views.append(watcher.step(picture(script(k)), k / FPS))
    return counter, watcher, views


def test_a_card_laid_is_looked_at_in_the_part_of_the_frame_it_touched() -> None:
    # A counter slower than the due pace (counts 0.3 s late): the frames after b comes are
    # counted only around b; d and f lie outside those parts, are not looked at, and stay
    # counted without the view waiting for them. (The stub's cards are large: a part
    # around one of them is 0.65 of its frame.)
    parts = LiveSettings(count_every_s=0, part_max_share=0.9)
    counter, watcher, views = watch_parts(parts, 0.3, 90)
    assert watcher.part_counts == len(counter.boxes) > 0
    b = np.array([[70, 10], [110, 70]])
    for x0, y0, x1, y1 in counter.boxes:
        assert x0 <= b[0, 0] and y0 <= b[0, 1] and x1 >= b[1, 0] and y1 >= b[1, 1]
        assert (x1 - x0) * (y1 - y0) <= 0.9 * 200 * 160
    assert not any("unseen" in v.waiting for v in views[10:])
    assert views[-1].steady and shown_view(views[-1]) == {"pump": 2, "carriage": 1, "pail": 2}
    assert {str(shown_view(v)) for v in views if v.steady} == {
        str({"pump": 1, "carriage": 1, "pail": 2}),
        str({"pump": 2, "carriage": 1, "pail": 2}),
    }
    # a part takes its share of a whole count's delay: b is counted sooner than with
    # every frame whole (`part_max_share` 0)
    whole = watch_parts(replace(parts, part_max_share=0), 0.3, 90)
    assert whole[0].boxes == [] and whole[1].part_counts == 0
    settled = [
        next(k for k in range(30, 90) if v[k].steady and shown_view(v[k]).get("pump") == 2)
        for v in (views, whole[2])
    ]
    assert settled[0] < settled[1]
    # a counter that keeps up (each count on its frame: a file) counts every frame whole
    on_time = watch_parts(parts, 0.0, 60)
    assert on_time[0].boxes == [] and on_time[0].whole == on_time[1].counted_frames > 0


def test_a_card_inside_a_counted_part_and_not_found_there_is_missed_one_outside_is_not() -> None:
    table = SteadyTable(DECKS, LiveSettings())
    feed(table, 10, lambda k: [(1, "a"), (3, "d")])
    # the next counts look at the top row only (a's part) and find nothing there
    for k in range(10, 16):
        count = Count("frame", (200, 160), Cards.empty(), DECKS, {"name": "stub"})
        table.observe(k / FPS, count, [], part=(0, 0, 200, 80))
        view = table.view(k / FPS)
    assert view.waiting == ("unseen",)
    assert table.tracks[3].last_s == 1.5  # d, outside the part: still there
    assert table.tracks[1].last_s == 0.9  # a, inside it: missed since


def test_a_deck_is_decided_after_four_sure_frames() -> None:
    def sure(k: int) -> tuple[str, float]:
        return ("pump", 0.99)

    quick = LiveSettings(appear_s=0, appear_min_hits=1, appear_min_share=0)
    views = feed_named(SteadyTable(DECKS, quick), 8, sure)
    # 3 x 0.99 = 2.97: short of the lead of 3.0; the fourth frame decides it
    assert [v.steady for v in views].index(True) == 3
    assert "undecided" in views[2].waiting


def test_counts_coming_later_than_due_are_late_and_a_files_are_not() -> None:
    settings = LiveSettings(count_every_s=0.125, part_max_share=0)
    _, slow, _ = watch_parts(settings, 0.3, 20)
    assert slow.late
    _, file, _ = watch_parts(settings, 0.0, 20)
    assert not file.late
