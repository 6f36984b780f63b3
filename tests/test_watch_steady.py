"""How `tallero watch` keeps its counts steady and spares the counter: doubled boxes, the
count hold, and still pictures not counted again.

The steady table is fed here with tracks the test chooses (no tracker), so that what it
does with them is checked on its own; the watch loop is driven with the stub counter of
``test_watch`` and pictures drawn to match, and once with the real counter on the
committed clip.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from live_stubs import StubCounter, stub_cards
from test_watch import CLIP, CLIP_TRUTH, DECKS, FPS, picture, shown

from vision.count.result import Count
from vision.live.settings import LiveSettings
from vision.live.sources import CaptureSource
from vision.live.steady import SteadyTable, TableView
from vision.live.still import StillCheck
from vision.live.watch import Watcher


def feed(table: SteadyTable, frames: int, script: Any) -> list[TableView]:
    """Views of ``frames`` counted frames at 10 fps; ``script(k)`` gives the frame's cards
    as ``(track id, spot)`` pairs."""
    views = []
    for k in range(frames):
        seen = script(k)
        cards = stub_cards("".join(spot for _, spot in seen))
        count = Count("frame", (200, 160), cards, DECKS, {"name": "stub"})
        table.observe(k / FPS, count, [(track, i) for i, (track, _) in enumerate(seen)])
        views.append(table.view(k / FPS))
    return views


def test_a_card_boxed_two_ways_by_turns_counts_once() -> None:
    # card a is boxed now as track 1, now as track 2 (never both in one frame); d and e are
    # two cards seen together every frame
    table = SteadyTable(DECKS, LiveSettings())
    views = feed(table, 30, lambda k: [(1 if k % 2 else 2, "a"), (3, "d"), (4, "e")])
    assert {tid: rec.counted for tid, rec in table.tracks.items()} == dict.fromkeys(
        (1, 2, 3, 4), True
    )
    assert all(shown_view(v) == {"pump": 1, "pail": 2} for v in views[10:])
    assert views[-1].steady


def test_two_cards_on_one_spot_seen_together_both_count() -> None:
    # tracks 1 and 2 lie on one spot (a card over another) and are seen together
    table = SteadyTable(DECKS, LiveSettings())
    views = feed(table, 20, lambda k: [(1, "a"), (2, "a")])
    assert shown_view(views[-1]) == {"pump": 2}


def test_with_doubles_off_a_card_boxed_two_ways_counts_twice() -> None:
    table = SteadyTable(DECKS, LiveSettings(double_together=0))
    views = feed(table, 30, lambda k: [(1 if k % 2 else 2, "a")])
    assert shown_view(views[-1]) == {"pump": 2}


def test_hold_keeps_a_count_that_lasts_less_than_hold_s_from_the_screen() -> None:
    # track 9 (card b) is seen for 0.8 s then never again: without a hold it counts for a
    # while; with hold_s longer than its stay nothing of it is shown
    def script(k: int) -> list[tuple[int, str]]:
        return [(1, "a"), (3, "d")] + ([(9, "b")] if 10 <= k < 18 else [])

    plain = [shown_view(v) for v in feed(SteadyTable(DECKS, LiveSettings()), 60, script)]
    assert {"pump": 2, "pail": 1} in plain
    held = feed(SteadyTable(DECKS, LiveSettings(hold_s=1.2)), 60, script)
    # from the first STEADY view on (a count that held 1.2 s), never the count with b
    first = next(k for k, v in enumerate(held) if v.steady)
    assert all(shown_view(v) == {"pump": 1, "pail": 1} for v in held[first:])
    assert shown_view(held[-1]) == {"pump": 1, "pail": 1} and held[-1].steady


def test_hold_lets_a_lasting_change_through_after_hold_s() -> None:
    # card b is put down at frame 20 and stays
    def script(k: int) -> list[tuple[int, str]]:
        return [(1, "a")] + ([(9, "b")] if k >= 20 else [])

    views = feed(SteadyTable(DECKS, LiveSettings(hold_s=0.5)), 50, script)
    counts = [shown_view(v) for v in views]
    first = counts.index({"pump": 2})
    # b counts once seen 0.5 s (frame 25), and is shown once that count held 0.5 s more
    assert first == 30
    assert all(c == {"pump": 1} for c in counts[10:first])  # first shown at 1 s (held 0.5 s)
    assert all(not v.steady for v in views[25:30]) and views[first].steady


def shown_view(view: TableView) -> dict[str, int]:
    return {d: n for d, n in view.count.counts.items() if n}


def noisy(image: np.ndarray, seed: int, gain: float = 1.0) -> np.ndarray:
    """The picture as a webcam gives it again: sensor noise, and ``gain`` of exposure."""
    rng = np.random.default_rng(seed)
    out = image.astype(np.float32) * gain + rng.normal(0, 4, image.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_still_check_tells_noise_and_exposure_from_a_card_put_down() -> None:
    check = StillCheck(LiveSettings())
    base = picture("abde")
    assert not check.still(check.thumbnail(base))  # the first picture begins a spell
    assert check.still(check.thumbnail(noisy(base, 1)))
    assert check.still(check.thumbnail(noisy(base, 2, gain=1.15)))
    assert not check.still(check.thumbnail(noisy(picture("abcde"), 3)))
    # the card stays: the new picture is the spell's reference now
    assert check.still(check.thumbnail(noisy(picture("abcde"), 4)))
    check.counted(0.0)
    assert not check.due(0.9) and check.due(1.0)


def test_two_frames_of_one_picture_are_told_from_a_frame_with_a_hand() -> None:
    """`StillCheck.same_table` (how `p` keeps its frames to a calm table)."""
    from vision.synth.video import painted_hand

    check = StillCheck(LiveSettings())
    base = picture("abde")
    assert check.same_table(base, noisy(base, 1, gain=1.1))
    h, w = base.shape[:2]
    alpha = painted_hand((w, h), (w * 0.5, h * 0.5), 1.0)[..., None]
    hand = base * (1 - alpha) + np.array([110, 150, 205], np.float32) * alpha
    assert not check.same_table(base, hand.astype(np.uint8))


def test_still_check_off_never_says_still() -> None:
    check = StillCheck(LiveSettings(still_px=-1))
    base = picture("ab")
    check.still(check.thumbnail(base))
    assert not check.still(check.thumbnail(base))


def run_watcher(script: Any, table: Any, frames: int, settings: LiveSettings) -> tuple[Any, Any]:
    counter = StubCounter(script)
    watcher = Watcher(counter, DECKS, settings, FPS)
    views = []
    for k in range(frames):
        counter.frame = k
        views.append(watcher.step(noisy(picture(table(k)), k), k / FPS))
    return views, counter


def test_a_still_steady_table_is_counted_once_a_second() -> None:
    views, counter = run_watcher(
        lambda k: "abde", lambda k: "abde", 60, LiveSettings(count_every_s=0)
    )
    assert all(shown_view(v) == {"pump": 2, "pail": 2} for v in views[5:])
    assert all(v.steady for v in views[5:])
    # frames 0-5 counted until STEADY, then one frame a second (still_max_s)
    assert counter.calls == 6 + 5


def test_skipping_still_frames_gives_the_counts_of_counting_every_frame() -> None:
    # a hand hides c-f from frame 10 to 17; f is taken at 30; the detector misses d one
    # frame in three while it lies there
    def table(k: int) -> str:
        return "ab" if 10 <= k < 18 else "abcde" + ("f" if k < 30 else "")

    def script(k: int) -> str:
        return "".join(c for c in table(k) if not (c == "d" and k % 3 == 0))

    still, still_counter = run_watcher(script, table, 70, LiveSettings(count_every_s=0))
    every, every_counter = run_watcher(  # the still check off: every frame counted
        script, table, 70, LiveSettings(count_every_s=0, still_px=-1)
    )
    assert shown_view(still[-1]) == shown_view(every[-1]) == {"pump": 2, "carriage": 1, "pail": 2}
    # the same counts one after the other (a change may come a frame later), with far
    # fewer frames counted (the cards hidden and taken away touch the picture: the view is
    # SETTLING, and counted, a little longer)
    assert (
        changes(still)
        == changes(every)
        == [{"pump": 2, "carriage": 1, "pail": 3}, {"pump": 2, "carriage": 1, "pail": 2}]
    )
    assert still_counter.calls <= 45 and every_counter.calls == 70


def changes(views: list[TableView]) -> list[dict[str, int]]:
    """The steady counts shown from the first STEADY view on, each once, in order."""
    out: list[dict[str, int]] = []
    first = next((k for k, v in enumerate(views) if v.steady), len(views))
    for v in views[first:]:
        if not out or shown_view(v) != out[-1]:
            out.append(shown_view(v))
    return out


def test_the_committed_clip_skipping_still_frames_ends_with_the_truth() -> None:
    from commands.app import make_counter

    counter = make_counter(None, None, None, threads=1, live=True)
    finals = {}
    counted = {}
    for still_px in (-1, LiveSettings().still_px):
        settings = LiveSettings(still_px=still_px)
        watcher = Watcher(counter, DECKS, settings, fps=10.0)
        source = CaptureSource(str(CLIP), live=False)
        source.open()
        k = 0
        view = None
        while (image := source.read()) is not None:
            view = watcher.step(image, k / 10.0)
            k += 1
        source.close()
        assert view is not None
        finals[still_px] = shown_view(view)
        counted[still_px] = watcher.counted_frames
    assert finals[-1] == finals[LiveSettings().still_px] == CLIP_TRUTH
    # 20 frames due (every second frame of 40); the still frames of the steady table are not
    # counted again
    assert counted[-1] == 20
    assert counted[LiveSettings().still_px] <= 14


def test_shown_helper_of_test_watch_agrees() -> None:
    # the helpers shared with test_watch read counts the same way
    from vision.live.watch import Tick

    views, _ = run_watcher(lambda k: "ab", lambda k: "ab", 12, LiveSettings(count_every_s=0))
    image = picture("ab")
    assert shown(Tick(views[-1], image, 11, 1.1, FPS)) == shown_view(views[-1]) == {"pump": 2}


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("double_together", 1.5, "double_together must be in [0, 1]"),
        ("still_thumb_px", 4, "still_thumb_px must be >= 8"),
        ("still_px", -2, "still_px >= -1"),
        ("hold_s", -0.1, "hold_s must be >= 0 seconds"),
    ],
)
def test_odd_live_settings_are_refused(field: str, value: float, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        LiveSettings(**{field: value})


def feed_unsure(table: SteadyTable, frames: int, script: Any, unsure: float) -> list[TableView]:
    """`feed`, with the cards of track 9 found at detection confidence ``unsure``."""
    views = []
    for k in range(frames):
        seen = script(k)
        cards = stub_cards("".join(spot for _, spot in seen))
        for i, (track, _) in enumerate(seen):
            if track == 9:
                cards.confidence[i] = unsure
        count = Count("frame", (200, 160), cards, DECKS, {"name": "stub"})
        table.observe(k / FPS, count, [(track, i) for i, (track, _) in enumerate(seen)])
        views.append(table.view(k / FPS))
    return views


def test_an_unsure_box_seen_now_and_then_needs_the_evidence_of_sure_sightings() -> None:
    # track 9 (card b) is found at confidence 0.5 in frames 3, 7 and 11 only: three
    # sightings make a card without the evidence bar, not with it (1.5 < 3.0)
    def script(k: int) -> list[tuple[int, str]]:
        return [(1, "a"), (3, "d")] + ([(9, "b")] if k in (3, 7, 11) else [])

    # (each deck taken at its first sighting: b's three sightings never lead by 3 frames;
    # seen in a third of the frames, b is let count by its share)
    plain = feed_unsure(
        SteadyTable(DECKS, LiveSettings(decided_lead=0, appear_min_share=0)), 40, script, 0.5
    )
    assert {"pump": 2, "pail": 1} in [shown_view(v) for v in plain]
    bar = LiveSettings(appear_min_evidence=3.0, decided_lead=0, appear_min_share=0)
    barred = feed_unsure(SteadyTable(DECKS, bar), 40, script, 0.5)
    assert all(shown_view(v) == {"pump": 1, "pail": 1} for v in barred[5:])
    # the sure cards count as soon as before
    assert shown_view(plain[5]) == shown_view(barred[5]) == {"pump": 1, "pail": 1}


def test_an_unsure_card_seen_often_enough_counts_with_the_evidence_bar() -> None:
    # card b, found in every frame from frame 10, lies there: found at confidence 0.4 it
    # counts once its sightings add up to 3.0 (8 frames: frame 17), found surely (0.95) at
    # 0.5 s as before (frame 15)
    def script(k: int) -> list[tuple[int, str]]:
        return [(1, "a")] + ([(9, "b")] if k >= 10 else [])

    settings = LiveSettings(appear_min_evidence=3.0)
    unsure = feed_unsure(SteadyTable(DECKS, settings), 40, script, 0.4)
    counts = [shown_view(v) for v in unsure]
    assert counts[-1] == {"pump": 2} and unsure[-1].steady
    assert counts.index({"pump": 2}) == 17
    sure = feed_unsure(SteadyTable(DECKS, settings), 40, script, 0.95)
    assert [shown_view(v) for v in sure].index({"pump": 2}) == 15


def test_a_box_found_in_few_frames_never_counts_however_long_it_stays() -> None:
    # track 9 (card b) is found surely in every fourth frame for 60 frames: fifteen
    # sightings, but in a quarter of the frames (a box the detector draws now and then);
    # seen that often, it keeps the view SETTLING, never counted
    def every(n: int) -> Any:
        def script(k: int) -> list[tuple[int, str]]:
            return [(1, "a")] + ([(9, "b")] if k % n == 0 else [])

        return script

    rare = feed_unsure(SteadyTable(DECKS, LiveSettings()), 60, every(4), 0.95)
    assert all(shown_view(v) == {"pump": 1} for v in rare[5:])  # from a's appear_s
    # without the share bar it counts; a card found in every other frame counts with it
    unbarred = feed_unsure(SteadyTable(DECKS, LiveSettings(appear_min_share=0)), 60, every(4), 0.95)
    assert shown_view(unbarred[-1]) == {"pump": 2}
    half = feed_unsure(SteadyTable(DECKS, LiveSettings()), 60, every(2), 0.95)
    assert shown_view(half[-1]) == {"pump": 2}


def test_appear_bars_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError):
        LiveSettings(appear_min_evidence=-1.0)
    with pytest.raises(ValueError):
        LiveSettings(appear_min_share=1.5)
