"""`tallero watch`: steady counts from a live picture, faults, the window's keys and commit.

The committed clip (``tests/data/watch/hand_over_cards.mp4``, 4 s at 10 fps, from the
sample scene ``scene_4242_000002``) holds one back each of pump, carriage, plow and pail;
a hand passes over the cards from 1.2 s to 2.2 s. The other tests drive the watch loop with
a stub counter whose cards per frame the test decides, so that what the tracker and the
steady table do is checked on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from live_stubs import SPOTS, StubCounter, StubScreen, keyed_window

from vision.live.settings import LiveSettings
from vision.live.sources import CaptureSource, SourceFault
from vision.live.watch import Fault, JsonLines, Tick, Watcher, watch_events

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "tests" / "data" / "watch" / "hand_over_cards.mp4"
CLIP_TRUTH = {"pump": 1, "carriage": 1, "plow": 1, "pail": 1}
DECKS = ("pump", "carriage", "plow", "pail")
FPS = 10.0


def picture(names: str) -> np.ndarray:
    """A 200x160 frame of a dark table with the named cards on it, drawn light."""
    image = np.full((160, 200, 3), 40, np.uint8)
    for n in names:
        (x, y), _ = SPOTS[n]
        image[y : y + 60, x : x + 40] = 200
    return image


def run_script(
    script: Any,
    frames: int,
    unsure: str = "",
    settings: LiveSettings | None = None,
    table: Any = None,
) -> list[Tick]:
    """The ticks of ``frames`` frames at 10 fps, each frame due to be counted; ``script``
    says what the counter finds at each frame, ``table`` what lies on the table (the
    picture; default: what the counter finds)."""
    counter = StubCounter(script, unsure)
    watcher = Watcher(counter, DECKS, settings or LiveSettings(count_every_s=0), FPS)
    ticks = []
    for k in range(frames):
        image = picture((table or script)(k))
        counter.frame = k
        ticks.append(Tick(watcher.step(image, k / FPS), image, k, k / FPS, FPS))
    return ticks


def shown(tick: Tick) -> dict[str, int]:
    return {d: n for d, n in tick.view.count.counts.items() if n}


def test_clip_through_watch_json_gives_the_truth_in_its_final_object(tallero) -> None:
    r = tallero("watch", str(CLIP), "--json")
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    final = lines[-1]
    assert final["final"] is True and final["frame"] == 39
    assert final["steady"] is True
    assert {d: n for d, n in final["counts"].items() if n} == CLIP_TRUTH
    assert final["ranges"]["pump"] == [1, 1] and final["unknown"] == 0
    for line in lines:
        assert set(line) >= {"frame", "t", "steady", "counts", "ranges", "unknown", "fps"}
        assert isinstance(line["uncertain"], list)
        # The hand over the cards never changes a steady count.
        if line["steady"]:
            assert {d: n for d, n in line["counts"].items() if n} == CLIP_TRUTH
    assert any(not line["steady"] for line in lines[1:])  # the hand: SETTLING


def hand_resting_on_the_plow(out: Path) -> Path:
    """The committed clip with a flat hand drawn over the whole plow card for 0.8 s."""
    import cv2

    src = cv2.VideoCapture(str(CLIP))
    fps = src.get(cv2.CAP_PROP_FPS)
    writer: Any = None
    k = 0
    while True:
        ok, frame = src.read()
        if not ok:
            break
        if writer is None:
            size = (frame.shape[1], frame.shape[0])
            writer = cv2.VideoWriter(str(out), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
        if 14 <= k <= 21:
            cv2.rectangle(frame, (215, 195), (350, 360), (150, 180, 225), -1)  # the palm
            cv2.rectangle(frame, (240, 360), (320, 640), (150, 180, 225), -1)  # the arm
        writer.write(frame)
        k += 1
    writer.release()
    return out


def test_a_hand_hiding_a_card_makes_the_view_settling_and_the_count_comes_back(
    tallero, tmp_path: Path
) -> None:
    # The committed clip's hand hides parts of two cards; here a hand hides the plow card
    # whole for 0.8 s (8 frames at 10 fps).
    r = tallero("watch", str(hand_resting_on_the_plow(tmp_path / "hand.avi")), "--json")
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    first = next(k for k, line in enumerate(lines) if line["steady"])
    assert lines[first]["frame"] < 14
    settling = [line["frame"] for line in lines[first:] if not line["steady"]]
    # once STEADY, SETTLING from the hand's first frame (14) to 0.2 s after its last (21)
    assert settling and all(14 <= f <= 24 for f in settling)
    for line in lines[first:]:
        assert {d: n for d, n in line["counts"].items() if n} == CLIP_TRUTH
        # what the view waits for: the hand over the cards, or the card it hides
        if line["steady"]:
            assert line["waiting"] == []
        else:
            assert set(line["waiting"]) & {"touched", "unseen"}, line
    assert lines[-1]["final"] is True and lines[-1]["steady"] is True


def test_max_frames_stops_early_and_the_final_object_says_where(tallero) -> None:
    r = tallero("watch", str(CLIP), "--json", "--max-frames", "3")
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    assert lines[-1]["final"] is True and lines[-1]["frame"] == 2


def test_record_keeps_the_frames_and_watch_replays_them(tallero, tmp_path: Path) -> None:
    folder = tmp_path / "session"
    r = tallero("watch", str(CLIP), "--json", "--max-frames", "4", "--record", str(folder))
    assert r.code == 0, r.err
    names = sorted(p.name for p in folder.iterdir())
    assert names[4:] == ["pace.jsonl", "watch.json"]
    assert [n.split(".")[0] for n in names[:4]] == ["000000", "000001", "000002", "000003"]
    # the counted frames are kept losslessly (a replay counts the very same pixels)
    pace = [json.loads(x) for x in (folder / "pace.jsonl").read_text().splitlines()]
    counted = [bool(p.get("counted")) for p in pace]
    assert counted == [n.endswith(".png") for n in names[:4]] and counted[0]
    assert all(n.endswith((".png", ".jpg")) for n in names[:4])
    assert json.loads((folder / "watch.json").read_text()) == {"fps": 10.0}
    again = tallero("watch", str(folder), "--json")
    assert again.code == 0, again.err
    assert json.loads(again.out.splitlines()[-1])["frame"] == 3


def test_without_a_display_watch_says_so_in_one_line(tallero, monkeypatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    r = tallero("watch", str(CLIP))
    assert r.code == 1
    assert r.out == ""
    assert r.err.count("\n") == 1
    assert r.err.startswith("tallero: error: no display for the window")


def test_a_missing_source_is_a_usage_error(tallero) -> None:
    r = tallero("watch", "no-such-clip.mp4", "--json")
    assert r.code == 2
    assert r.err == "tallero: error: no-such-clip.mp4: no such camera index, file or folder\n"


def test_a_hand_over_the_cards_keeps_the_count() -> None:
    # all six cards for 1 s, four hidden by a hand for 0.8 s, then all six again
    ticks = run_script(lambda k: "ab" if 10 <= k < 18 else "abcdef", 40)
    before = shown(ticks[9])
    assert ticks[9].view.steady and before == {"pump": 2, "carriage": 1, "pail": 3}
    during = ticks[12:18]
    assert any(not t.view.steady for t in during)
    assert all(shown(t) == before for t in ticks[5:])
    assert ticks[-1].view.steady


def test_a_card_taken_away_or_added_changes_the_count_once() -> None:
    # card f is taken away at 1.5 s; card c is put down at 4 s
    ticks = run_script(lambda k: "abde" + ("f" if k < 15 else "") + ("c" if k >= 40 else ""), 70)
    counts = [shown(t) for t in ticks]
    assert counts[14] == {"pump": 2, "pail": 3}
    # each new count is given within 2 s of the change (gone_after_s 1.5 s, appear_s 0.5 s)
    assert counts[15 + 20] == {"pump": 2, "pail": 2}
    assert counts[40 + 10] == {"pump": 2, "carriage": 1, "pail": 2}
    assert counts[-1] == {"pump": 2, "carriage": 1, "pail": 2}
    changes = sum(1 for a, b in zip(counts[10:], counts[11:], strict=False) if a != b)
    assert changes == 2  # no flicker: one change for each change of the table
    assert ticks[-1].view.steady and not ticks[42].view.steady


def test_a_card_missed_in_single_frames_is_not_a_change() -> None:
    # card c is missed by the detector one frame in three (it lies there all along)
    ticks = run_script(lambda k: "abde" + ("" if k % 3 == 0 else "c"), 50, table=lambda k: "abcde")
    counts = [shown(t) for t in ticks[10:]]
    assert all(c == {"pump": 2, "carriage": 1, "pail": 2} for c in counts)
    assert all(t.view.steady for t in ticks[10:])


class FakeCamera:
    """A camera that gives ``good`` frames, then fails ``bad`` reads, then refuses to open
    ``refusals`` times, then works again."""

    def __init__(self, log: list[str], good: int, bad: int, refusals: int) -> None:
        self.log, self.good, self.bad, self.refusals = log, good, bad, refusals
        self.opened = 0

    def open(self, target: int | str) -> FakeCamera:
        self.opened += 1
        self.log.append("open")
        return self

    def isOpened(self) -> bool:  # noqa: N802
        if self.opened > 1 and self.refusals > 0:
            self.refusals -= 1
            return False
        return True

    def read(self) -> tuple[bool, Any]:
        if self.good > 0 or (self.bad == 0):
            self.good -= 1
            return True, np.zeros((160, 200, 3), np.uint8)
        self.bad -= 1
        return False, None

    def set(self, prop: int, value: float) -> bool:
        self.log.append(f"set {prop} {int(value)}")
        return True

    def get(self, prop: int) -> float:
        return 10.0

    def release(self) -> None:
        self.log.append("release")


@pytest.mark.parametrize(("fps", "counted"), [(10, 15), (15, 23), (30, 23), (60, 23)])
def test_frames_are_counted_at_one_pace_whatever_the_frame_rate(fps: int, counted: int) -> None:
    # 3 s of a table with a hand moving over it (never still): 7.5 counts a second at
    # 15 fps and faster cameras (every 2nd, 4th, 8th frame), every 2nd frame at 10 fps.
    counter = StubCounter(lambda k: "abc")
    watcher = Watcher(counter, DECKS, LiveSettings(), float(fps))
    for k in range(3 * fps):
        image = picture("abc")
        image[:, (k * 7) % 180 : (k * 7) % 180 + 20] = 120  # an arm moving across
        watcher.step(image, k / fps)
    assert counter.calls == counted


def test_a_camera_that_fails_mid_way_gives_the_error_and_recovers() -> None:
    log: list[str] = []
    camera = FakeCamera(log, good=20, bad=1, refusals=1)
    source = CaptureSource(0, live=True, opener=camera.open)
    clock = iter(np.arange(0, 100, 0.1))
    sleeps: list[float] = []
    watcher = Watcher(StubCounter(lambda k: "abc"), DECKS, LiveSettings(count_every_s=0))
    events = list(
        watch_events(source, watcher, 40, clock=lambda: float(next(clock)), sleep=sleeps.append)
    )
    faults = [e for e in events if isinstance(e, Fault)]
    assert [f.message for f in faults] == [
        "camera 0 stopped giving frames (unplugged or dropped?)",
        "no camera at index 0",
    ]
    assert sleeps == [3.0, 3.0]  # retried every retry_every_s
    assert sum(isinstance(e, Tick) for e in events) == 40
    lines = JsonLines()
    out = [lines.line(e) for e in events]
    errors = [o for o in out if o is not None and "error" in o]
    assert len(errors) == 2
    for e in errors:
        assert e["steady"] is False
        assert {d: n for d, n in e["counts"].items() if n} == {"pump": 2, "carriage": 1}
    last = events[-1]
    assert isinstance(last, Tick) and last.view.steady
    assert shown(last) == {"pump": 2, "carriage": 1}
    assert log.count("open") == 3 and log[-1] == "release"


def test_a_camera_is_asked_for_1280x720_compressed_unless_told_a_size() -> None:
    import cv2

    from vision.live.sources import open_source

    assert open_source("0").size == (1280, 720)
    assert open_source("2", (640, 480)).size == (640, 480)
    log: list[str] = []
    camera = FakeCamera(log, good=1, bad=0, refusals=0)
    CaptureSource(0, live=True, size=(1280, 720), opener=camera.open).open()
    asked = [e for e in log if e.startswith("set")]
    mjpg = cv2.VideoWriter.fourcc(*"MJPG")
    assert asked[-3:] == [
        f"set {cv2.CAP_PROP_FOURCC} {mjpg}",
        f"set {cv2.CAP_PROP_FRAME_WIDTH} 1280",
        f"set {cv2.CAP_PROP_FRAME_HEIGHT} 720",
    ]
    log.clear()
    CaptureSource("rtsp://phone/video", live=True, size=(1280, 720), opener=camera.open).open()
    assert f"set {cv2.CAP_PROP_FOURCC} {mjpg}" not in log  # a stream is what it is


def test_a_camera_that_is_not_there_leaves_no_opencv_noise_on_stderr(capfd) -> None:  # noqa: ANN001
    source = CaptureSource(97, live=True)
    with pytest.raises(SourceFault, match="no camera at index 97"):
        source.open()
    assert capfd.readouterr().err == ""


SEATS = ("Ann=pump", "Ben=carriage", "Cy=plow", "Dee=pail")


def window_run(
    home: Path, ticks: list[Any], keys: dict[int, str], read_piles: Any = None
) -> tuple[Any, StubScreen]:
    from commands.taker import RoundTaker
    from vision.live.window import Panel

    taker = RoundTaker(home, 1, home / "snapshots", read_piles=read_piles)
    panel = Panel([("pump", "Ann (pump)"), ("carriage", "Ben (carriage)")])
    return keyed_window(ticks, keys, taker, panel)


def test_keys_take_the_counts_and_commit_the_round_with_its_evidence(tallero, home) -> None:
    assert tallero("game", "new", *SEATS).code == 0
    dutch = run_script(lambda k: "abcdef", 30)
    blitz = run_script(lambda k: "ab", 30)
    # c with nothing taken, d while SETTLING, then d and b when STEADY, c, and q
    ticks = [*dutch[:20], *blitz[:20]]
    keys = {0: "c", 1: "d", 15: "d", 35: "b", 36: "c", 38: "q"}
    messages, screen = window_run(home, ticks, keys)
    assert messages[1] == "take the Dutch count first (d when STEADY)"
    assert messages[2] == "wait for STEADY to take the Dutch count"
    assert messages[16] == "Dutch count taken"
    assert messages[36] == "Blitz count taken"
    assert messages[37] == "round 1 committed with its evidence"
    assert len(screen.pictures) == 39  # q quits at once
    assert screen.pictures[0].shape == (160, 200 + 330, 3)  # the frame beside the panel
    sheet = tallero("history", "1", "--json").json()["revisions"][0]
    assert sheet["players"] == {
        "Ann": {"dutch": 2, "blitz": 2, "points": -2},
        "Ben": {"dutch": 1, "blitz": 0, "points": 1},
        "Cy": {"dutch": 0, "blitz": 0, "points": 0},
        "Dee": {"dutch": 3, "blitz": 0, "points": 3},
    }
    evidence = sheet["evidence"]
    assert [e["role"] for e in evidence] == ["dutch", "blitz"]
    assert [e["cards"] for e in evidence] == [6, 2]
    assert all(Path(e["path"]).parent == home / "evidence" for e in evidence)


def test_flagged_cards_need_a_before_c_as_with_score_commit(tallero, home) -> None:
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="c")
    keys = {15: "d", 16: "c", 17: "a", 18: "c"}
    messages, _ = window_run(home, ticks, keys)
    assert messages[17].startswith(
        "not committed (a accepts): uncertain card(s) in the Dutch photo"
    )
    assert messages[18] == "flagged cards accepted"
    assert messages[19] == "round 1 committed with its evidence"
    reason = tallero("history", "1", "--json").json()["revisions"][0]["reason"]
    assert reason.startswith("accepted: uncertain card(s)")
    assert len(list((home / "evidence").iterdir())) == 1  # the Dutch frame


def test_s_saves_a_snapshot_of_the_window(home) -> None:
    ticks = run_script(lambda k: "ab", 12)
    messages, screen = window_run(home, ticks, {10: "s"})
    files = list((home / "snapshots").iterdir())
    assert len(files) == 1 and messages[11] == f"snapshot {files[0]}"


def test_a_long_reply_is_wrapped_on_the_panel_not_cut() -> None:
    from vision.live.window import message_lines

    text = (
        "not committed: no Dutch counts within the counts' ranges add up to the piles' "
        "total 7 (counted: Ann 2, Ben 1, Cy 0, Dee 3)"
    )
    lines = message_lines(text, 48, 5)
    assert len(lines) == 3 and all(len(line) <= 48 for line in lines)
    assert " ".join(lines) == text
    cut = message_lines(text, 48, 2)
    assert len(cut) == 2 and cut[0] == lines[0] and cut[1].endswith("...")
    assert len(cut[1]) <= 48


def test_a_wide_window_is_shown_shrunk_to_a_laptop_screen() -> None:
    from vision.live.window import PANEL_W_PX, SHOW_MAX_W_PX, shown_picture

    wide = np.zeros((720, 1280 + PANEL_W_PX, 3), np.uint8)
    assert shown_picture(wide).shape == (608, SHOW_MAX_W_PX, 3)
    small = np.zeros((480, 640 + PANEL_W_PX, 3), np.uint8)
    assert shown_picture(small) is small


def test_the_panel_says_what_a_settling_view_waits_for_and_how_late_counts_come() -> None:
    from vision.core.cards import Cards
    from vision.count.result import Count
    from vision.live.steady import TableView
    from vision.live.window import SETTLING_BGR, Panel, draw_window

    count = Count("table", (200, 160), Cards.empty(), DECKS, {"name": "stub"})
    image = np.full((480, 640, 3), 200, np.uint8)

    def panel_line(view: TableView, delay_s: float) -> tuple[int, int]:
        """Pixels of the SETTLING colour, and dark grey ones, in the line under the mark."""
        shown = draw_window(Tick(view, image, 5, 0.5, 30.0, delay_s), Panel(rows=[]))
        line = shown[44:62, 640:]
        orange = int(np.all(np.abs(line.astype(int) - SETTLING_BGR) < 40, axis=-1).sum())
        grey = int(np.all(np.abs(line.astype(int) - 90) < 30, axis=-1).sum())
        return orange, grey

    steady = TableView(True, count, Cards.empty(), 0.1)
    waiting = TableView(False, count, Cards.empty(), 0.1, ("touched", "unseen"))
    assert panel_line(steady, 0.0) == (0, 0)
    orange, grey = panel_line(waiting, 0.45)
    assert orange > 60 and grey > 20
    assert panel_line(waiting, 0.0)[1] == 0  # no count yet: no delay shown
