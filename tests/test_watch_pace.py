"""When a count reaches the live view: in the watch loop, after a delay, or beside the loop
on a thread of its own (a camera), so that a slow count never holds the window still."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import pytest
from live_stubs import StubCounter
from test_watch import CLIP, CLIP_TRUTH, DECKS, picture

from vision.count.result import Count
from vision.live.counting import Beside, InLoop
from vision.live.settings import LiveSettings
from vision.live.watch import Watcher


def count_of(image: Any) -> Count:
    return StubCounter(lambda k: "ab").count(image, decks=DECKS)


def test_a_count_in_the_loop_is_taken_on_its_frame_or_after_its_delay() -> None:
    now = InLoop()
    now.start(count_of, picture("ab"), 7, 1.0)
    assert now.busy()
    done = now.take(1.0)
    assert done is not None and (done.frame, done.t) == (7, 1.0)
    assert not now.busy() and now.take(1.0) is None
    later = InLoop(0.3)
    later.start(count_of, picture("ab"), 7, 1.0)
    assert later.take(1.2) is None and later.busy()
    with pytest.raises(RuntimeError):
        later.start(count_of, picture("ab"), 8, 1.25)  # one count at a time
    done = later.take(1.3)
    assert done is not None and done.t == 1.0 and done.count.counts["pump"] == 2
    with pytest.raises(ValueError):
        InLoop(-0.1)


class GatedCounter(StubCounter):
    """A stub counter whose counts wait until the test opens the gate (at most 10 s)."""

    def __init__(self, script: Any) -> None:
        super().__init__(script)
        self.gate = threading.Event()
        self.threads: set[str] = set()

    def count(self, image: Any, name: str | None = None, decks: Any = None) -> Count:
        self.threads.add(threading.current_thread().name)
        assert self.gate.wait(10.0), "the gate was never opened"
        return super().count(image, name, decks)


def test_a_count_beside_the_loop_leaves_the_frames_coming() -> None:
    counter = GatedCounter(lambda k: "abc")
    pace = Beside()
    watcher = Watcher(counter, DECKS, LiveSettings(count_every_s=0), 10.0, pace=pace)
    try:
        start = time.monotonic()
        views = [watcher.step(picture("abc"), k / 10) for k in range(20)]
        # 2 s of frames went by while the first count waited: nothing held them, one count
        # was started, and nothing is STEADY before a count has reached the table
        assert time.monotonic() - start < 5.0
        assert counter.calls == 0 and watcher.counted_frames == 1
        assert not any(v.steady for v in views)
        assert all(sum(v.count.counts.values()) == 0 for v in views)
        counter.gate.set()
        for k in range(20, 60):
            pace.wait(10.0)
            view = watcher.step(picture("abc"), k / 10)
        assert view.steady and shown_of(view) == {"pump": 2, "carriage": 1}
        assert counter.threads and all(n.startswith("tallero-count") for n in counter.threads)
    finally:
        counter.gate.set()
        watcher.close()


def shown_of(view: Any) -> dict[str, int]:
    return {d: n for d, n in view.count.counts.items() if n}


def test_an_error_of_the_counter_beside_the_loop_is_raised_in_the_loop() -> None:
    def broken(image: Any) -> Count:
        raise OSError("the model file went away")

    pace = Beside()
    pace.start(broken, picture("a"), 0, 0.0)
    pace.wait(10.0)
    with pytest.raises(OSError, match="went away"):
        pace.take(0.1)
    assert not pace.busy()
    pace.close()


def slow_camera(monkeypatch: Any, frames: int, count_s: float) -> Any:
    """``watch 0`` films the committed clip's first ``frames`` frames at 10 fps, and every
    count takes ``count_s`` more; other sources open as usual. Returns the counter's own
    count (to put back)."""
    from vision.count.counter import Counter
    from vision.evaluate.bench import PacedCamera
    from vision.live import sources

    src = cv2.VideoCapture(str(CLIP))
    camera = PacedCamera([src.read()[1] for _ in range(frames)], 10.0)
    src.release()
    real_open = sources.open_source
    monkeypatch.setattr(
        sources,
        "open_source",
        lambda spec, *a, **k: (
            sources.CaptureSource(0, live=True, opener=camera.open)
            if spec == "0"
            else real_open(spec, *a, **k)
        ),
    )
    real = Counter.count

    def slow(self: Counter, *args: Any, **kwargs: Any) -> Count:
        time.sleep(count_s)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Counter, "count", slow)
    return real


def test_a_slow_count_does_not_slow_the_window_of_a_camera(tallero, monkeypatch) -> None:
    # Every count takes 0.45 s, as on a large table at 1280x720: the camera's 10 frames a
    # second still all come through, and the cards count (the clip's first second, before
    # the hand).
    slow_camera(monkeypatch, 10, 0.45)
    r = tallero("watch", "0", "--json", "--max-frames", "80")
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    final = lines[-1]
    assert final["final"] is True and final["frame"] == 79
    assert final["steady"] is True
    assert {d: n for d, n in final["counts"].items() if n} == CLIP_TRUTH
    # a count in the loop would show 2 frames a second at most
    assert final["fps"] >= 7.0


def test_a_file_waits_for_each_count(tallero, monkeypatch, tmp_path: Path) -> None:
    # a file is read at the pace its counts allow: the same steady counts every run
    r = tallero("watch", str(CLIP), "--json")
    again = tallero("watch", str(CLIP), "--json")
    assert r.code == 0 and again.code == 0
    strip = [
        [{k: v for k, v in json.loads(line).items() if k != "fps"} for line in out.splitlines()]
        for out in (r.out, again.out)
    ]
    assert strip[0] == strip[1]
    assert {d: n for d, n in strip[0][-1]["counts"].items() if n} == CLIP_TRUTH


def test_a_late_count_is_no_missed_card_but_a_count_that_misses_one_is() -> None:
    from live_stubs import stub_cards

    from vision.live.steady import SteadyTable

    table = SteadyTable(DECKS, LiveSettings())

    def observe(t: float, names: str) -> None:
        cards = stub_cards(names)
        count = Count("frame", (200, 160), cards, DECKS, {"name": "stub"})
        table.observe(t, count, [(k + 1, k) for k in range(len(names))])

    for k in range(10):
        observe(k / 10, "abc")
    assert table.view(0.9).steady
    # no count for 0.8 s (a slow counter): the cards were not missed, the view stays STEADY
    assert table.view(1.7).steady
    assert shown_of(table.view(1.7)) == {"pump": 2, "carriage": 1}
    # the next count does not see card c, last seen 0.8 s before it: SETTLING
    observe(1.7, "ab")
    assert not table.view(1.75).steady


def late_counts(touched: Any, script: Any, frames: int = 50) -> list[Any]:
    """The steady table of a camera at 10 fps whose counts take 0.4 s: a frame counted every
    0.5 s (``script(k)``: its cards), each reaching the table 0.4 s later; every frame
    touches the spots ``touched(k)``. The views, one a frame."""
    from live_stubs import stub_cards
    from test_watch_touches import motion_over

    from vision.live.steady import SteadyTable

    table = SteadyTable(DECKS, LiveSettings())
    views = []
    for k in range(frames):
        t = k / 10
        table.touch(t, motion_over(*touched(k)))
        if k >= 4 and (k - 4) % 5 == 0:  # the count of frame k - 4 reaches the table
            names = script(k - 4)
            count = Count("frame", (200, 160), stub_cards(names), DECKS, {"name": "stub"})
            table.observe(t, count, [(ord(c), i) for i, c in enumerate(names)], frame_t=t - 0.4)
        views.append(table.view(t))
    return views


def test_a_hand_between_late_counts_makes_the_view_settling_at_once() -> None:
    # a hand over card a from 2.0 s to 2.4 s, hiding nothing: SETTLING from its first frame
    # (not from the next count, 0.4-0.9 s later) until a count of a frame 0.2 s after it
    views = late_counts(lambda k: ("a",) if 20 <= k <= 24 else (), lambda k: "ad")
    assert views[19].steady
    assert not any(v.steady for v in views[20:34])  # frame 2.5 s, in at 2.9 s: too soon
    assert views[34].steady  # frame 3.0 s, in at 3.4 s
    assert all(shown_of(v) == {"pump": 1, "pail": 1} for v in views[15:])


def test_a_card_first_seen_where_a_hand_laid_it_is_settling_from_that_count() -> None:
    # b is laid by a hand from 2.0 s to 2.4 s: the first count that sees it makes the view
    # SETTLING (it waits no second sighting), and it shows up once counted
    views = late_counts(
        lambda k: ("a", "b") if 20 <= k <= 24 else (),
        lambda k: "ad" + ("b" if k >= 30 else ""),  # b is first seen in frame 3.0 s
        60,
    )
    assert views[19].steady and shown_of(views[19]) == {"pump": 1, "pail": 1}
    first_seen = 34  # frame 3.0 s reaches the table at 3.4 s
    assert not any(v.steady for v in views[20 : first_seen + 1])
    assert {str(shown_of(v)) for v in views[15:] if v.steady} == {
        str({"pump": 1, "pail": 1}),
        str({"pump": 2, "pail": 1}),
    }
    assert views[-1].steady and shown_of(views[-1]) == {"pump": 2, "pail": 1}


def test_a_slow_counter_decides_a_card_named_two_decks_by_its_votes_not_its_seconds() -> None:
    # one count each 0.5 s (a slow counter) names card a pump and pail by turns: after
    # decide_max_s (2 s) it has 5 votes; it is decided once seen in decide_min_hits (10)
    from live_stubs import stub_cards

    from vision.live.steady import SteadyTable

    def steady_from(settings: LiveSettings) -> float:
        table = SteadyTable(DECKS, settings)
        for k in range(20):
            cards = stub_cards("a")
            cards.deck[0], cards.deck_confidence[0] = ("pump", 0.9) if k % 2 else ("pail", 0.6)
            count = Count("frame", (200, 160), cards, DECKS, {"name": "stub"})
            table.observe(k / 2, count, [(1, 0)])
            if table.view(k / 2).steady:
                return k / 2
        return float("inf")

    assert steady_from(LiveSettings()) == 4.5  # its 10th count
    assert steady_from(LiveSettings(decide_min_hits=0)) == 2.0  # 5 votes


def test_touch_and_decision_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="touch_new_s"):
        LiveSettings(touch_new_s=-1.0)
    with pytest.raises(ValueError, match="decide_min_hits"):
        LiveSettings(decide_min_hits=-1)


def test_a_recorded_camera_session_replays_as_it_was_shown(
    tallero, monkeypatch, tmp_path: Path
) -> None:
    # A camera session whose counts take 0.3 s, kept with --record: replayed from the
    # folder, the same frames are counted and their counts reach the table at the same
    # times, so every line the session printed comes again (the frame rate aside).
    from vision.count.counter import Counter

    real = slow_camera(monkeypatch, 40, 0.3)  # the clip's hand comes and goes
    kept = tmp_path / "session"
    r = tallero("watch", "0", "--json", "--max-frames", "40", "--record", str(kept))
    assert r.code == 0, r.err
    monkeypatch.setattr(Counter, "count", real)  # the replay need not wait
    again = tallero("watch", str(kept), "--json")
    assert again.code == 0, again.err

    def lines(out: str) -> list[dict[str, Any]]:
        return [{k: v for k, v in json.loads(x).items() if k != "fps"} for x in out.splitlines()]

    live, replay = lines(r.out), lines(again.out)
    assert replay == live
    assert live[-1]["steady"] and {d: n for d, n in live[-1]["counts"].items() if n} == CLIP_TRUTH
    pace = [json.loads(x) for x in (kept / "pace.jsonl").read_text().splitlines()]
    assert len(pace) == 40 and 2 <= sum(bool(p.get("counted")) for p in pace) <= 14


def test_a_recording_cut_off_mid_line_replays_up_to_its_last_whole_frame(tmp_path: Path) -> None:
    from vision.live.counting import Replayed
    from vision.live.sources import read_pace

    pace = tmp_path / "pace.jsonl"
    pace.write_text(
        '{"t": 0.0, "counted": true}\n{"t": 0.1}\n{"t": 0.2, "took": [0]}\n'
        '{"t": 0.3, "counted": true}\n{"t": 0.4, "to'
    )
    times, taken = read_pace(pace)
    assert times == [0.0, 0.1, 0.2, 0.3] and taken == {0: 0.2}
    replay = Replayed(taken, times)
    replay.start(count_of, picture("ab"), 0, 0.0)
    assert replay.take(0.1) is None and replay.take(0.2) is not None
    # frame 3's count never came in: it is taken after the session's median delay
    replay.start(count_of, picture("ab"), 3, 0.3)
    assert replay.take(0.45) is None and replay.take(0.5) is not None


def test_frames_past_a_recordings_last_time_run_on_at_its_frame_rate(tmp_path: Path) -> None:
    from vision.live.sources import FolderSource

    for k in range(4):
        cv2.imwrite(str(tmp_path / f"{k:06d}.jpg"), picture("a"))
    (tmp_path / "watch.json").write_text('{"fps": 10.0}')
    (tmp_path / "pace.jsonl").write_text('{"t": 5.0}\n{"t": 5.12}\n{"t": 5.2')
    src = FolderSource(tmp_path)
    assert [round(src.time_of(k), 3) for k in range(4)] == [5.0, 5.12, 5.22, 5.32]
