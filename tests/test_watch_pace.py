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


def test_a_slow_count_does_not_slow_the_window_of_a_camera(tallero, monkeypatch) -> None:
    # Every count takes 0.45 s, as on a large table at 1280x720: the camera's 10 frames a
    # second still all come through, and the cards count.
    from vision.count.counter import Counter
    from vision.evaluate.bench import PacedCamera
    from vision.live import sources

    # a webcam at 10 fps showing the committed clip's first second, before the hand
    src = cv2.VideoCapture(str(CLIP))
    camera = PacedCamera([src.read()[1] for _ in range(10)], 10.0)
    src.release()
    monkeypatch.setattr(
        sources,
        "open_source",
        lambda *a, **k: sources.CaptureSource(0, live=True, opener=camera.open),
    )
    real = Counter.count

    def slow(self: Counter, *args: Any, **kwargs: Any) -> Count:
        time.sleep(0.45)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Counter, "count", slow)
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
