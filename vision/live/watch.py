"""The watch loop: frames in, the steady table out, with faults reported and retried.

>>> watcher = Watcher(counter, decks, LiveSettings())
>>> for event in watch_events(open_source("0"), watcher):   # a webcam
...     print(event_json(event))
"""

from __future__ import annotations

import functools
import math
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from vision.core.cards import BACK, Cards
from vision.core.types import Array
from vision.count.counter import Counter
from vision.count.result import Count
from vision.live.counting import Counted, InLoop, Pace
from vision.live.motion import MotionMeter, grey_cells
from vision.live.settings import LiveSettings
from vision.live.sources import FrameSource, Recorder, SourceFault
from vision.live.steady import SteadyTable, TableView
from vision.live.still import StillCheck
from vision.live.tally import Sighting, SortTally
from vision.live.tracking import CardTracker

# Frames a second shown and printed: an average over about this many frames.
FPS_FRAMES = 15
# The counter's delay (`count_delay_s`): the median of the last this many counts'.
LAGS = 200


class Watcher:
    """Counts a frame every ``count_every_s``, tracks the cards, keeps the table.

    Args:
        counter: a live counter (``Counter(live=True)``), loaded once.
        decks: the decks counted (the game's, or the profile's).
        settings: the live settings.
        fps: the picture's frame rate (sizes the tracker's memory of lost cards).
        tally: a `SortTally` that also counts each card laid down (``watch --tally``).
        pace: when a count reaches the table (`vision.live.counting`): in the loop at once
            (default; a file), or `Beside` the loop (a camera: the window keeps its pace).
    """

    def __init__(
        self,
        counter: Counter,
        decks: tuple[str, ...],
        settings: LiveSettings | None = None,
        fps: float = 30.0,
        tally: SortTally | None = None,
        pace: Pace | None = None,
    ) -> None:
        self.counter = counter
        counter.forget_looks()  # a new scene: its cards' size is found afresh
        self.pace: Pace = pace if pace is not None else InLoop()
        self.lock = threading.Lock()  # the counter, shared by the loop's and a still's count
        self._lags: deque[float] = deque(maxlen=LAGS)  # the last counts' delays (s)
        self._whole_lags: deque[float] = deque(maxlen=LAGS)  # ... of whole frames' counts
        self.decks = decks
        self.settings = s = settings or LiveSettings()
        # Lost tracks are kept (to be found again after a hand) a little past gone_after_s.
        turn_frames = max(1, math.ceil(s.count_every_s * fps - 1e-9))  # frames to a turn
        updates = max(1, int(round(2 * s.gone_after_s * fps / turn_frames)))
        self.tracker = CardTracker(s, buffer_updates=updates)
        self.table = SteadyTable(decks, s)
        self.frames = 0
        self.counted = False  # the last frame was counted ...
        self.took: list[int] = []  # ... and the counts of these frames reached the table
        self._due_t = -math.inf  # when the last frame was due to be counted (s)
        self.tally = tally
        # A steady table whose picture has not changed is not counted again (not with the
        # tally, which follows each card laid down).
        self.still = StillCheck(s) if tally is None else None
        self.steady = False
        self.still_from = 0  # the table's first counted frame of the still spell
        self.unmatched = False  # the last counted frame had cards no track took (yet)
        self.counted_frames = 0
        self.part_counts = 0  # counted frames counted in part (`LiveSettings.part_max_share`)
        self._part: tuple[int, int, int, int] | None = None  # the part the count under way
        self._whole_t = -math.inf  # when the last frame counted whole was (s)
        # the steady table's: where a hand or a card changed the picture (exposure aside)
        self.touch_motion = MotionMeter(exposure=True, drift=s.touch_drift)
        # with a tally: where each frame moved (a hand passing over a card, or laying one),
        # on the same cells
        cell_px = self.touch_motion.cell_px
        self.motion = MotionMeter(cell_px) if tally is not None else None

    def step(self, image: Array, t: float) -> TableView:
        """One frame at time ``t`` (s): counted and tracked when its turn comes and no count
        is under way, unless the table is STEADY and the picture the one last counted
        (`StillCheck`); a count is added to the table on the frame it is ready (`Pace`)."""
        # both meters compare the same grey cells: the frame is shrunk once
        cells = grey_cells(image, self.touch_motion.cell_px)
        if self.motion is not None:
            self.motion.add_cells(cells, t)
        self.touch_motion.add_cells(cells, t)
        touch = self.touch_motion.take()
        if touch is not None:
            self.table.touch(t, touch)
        self.counted, self.took = False, []
        self._observe(self.pace.take(t), t)
        if not self.pace.busy() and self._due(t) and not self._held(image, t):
            self.counted_frames += 1
            self.counted = True
            h, w = image.shape[:2]
            self._part = part = self._part_box(w, h, t)
            if part is None:
                self._whole_t = t
                self.pace.start(self._count, image, self.frames, t)
            else:
                self.part_counts += 1
                share = (part[2] - part[0]) * (part[3] - part[1]) / (w * h)
                count = functools.partial(self._count_part, box=part)
                self.pace.start(count, image, self.frames, t, work=share)
            self._observe(self.pace.take(t), t)
        self.frames += 1
        view = self.table.view(t)
        self.steady = view.steady
        return view

    @property
    def count_delay_s(self) -> float:
        """How long (s, the picture's clock) the last counts took to reach the table
        (median; 0 before the first)."""
        return statistics.median(self._lags) if self._lags else 0.0

    @property
    def late(self) -> bool:
        """Whether whole frames' counts reach the table later than ``count_every_s`` after
        their frame (median of the last ones): a camera's frames on a slow machine, not a
        file's, each counted on its own frame."""
        lags = self._whole_lags
        return bool(lags) and statistics.median(lags) > self.settings.count_every_s

    def count_photo(self, image: Array, name: str = "still") -> Count:
        """``image`` counted as a still (the finished spreads), between the loop's counts
        (the loop's own counts come through here too, as ``"frame"``)."""
        with self.lock:
            return self.counter.count(image, name=name, decks=self.decks)

    def close(self) -> None:
        """No more frames: a count under way is let finish."""
        self.pace.close()

    def _count(self, image: Array) -> Count:
        return self.count_photo(image, name="frame")

    def _count_part(self, image: Array, box: tuple[int, int, int, int]) -> Count:
        with self.lock:
            return self.counter.count_part(image, box, name="frame", decks=self.decks)

    def _part_box(self, w: int, h: int, t: float) -> tuple[int, int, int, int] | None:
        """The part of the frame at ``t`` (s) to count, ``None`` to count it whole: with
        ``part_max_share`` on, no tally, a counter slower than a count every
        ``count_every_s`` (whole frames' counts reach the table later than that: a camera
        on a slow machine; a file is counted whole, each count on its frame), a whole frame
        counted less than ``part_whole_every_s`` ago at a scale the counter keeps for this
        size (`Counter.part_scale`), and a part that needs a look
        (`SteadyTable.needs_look`)."""
        s = self.settings
        if s.part_max_share <= 0 or self.tally is not None or not self.late:
            return None
        if t - self._whole_t >= s.part_whole_every_s:
            return None
        part_scale = getattr(self.counter, "part_scale", None)
        if part_scale is None or part_scale(h, w) is None:
            return None
        return self.table.needs_look(t, (w, h), s.part_max_share)

    def _observe(self, done: Counted | None, t: float) -> None:
        """Add a frame's count to the tracks and the table at ``t`` (s), when the count
        reached the picture: the places touched since the last count go with it."""
        if done is None:
            return
        self._lags.append(t - done.t)
        self.took.append(done.frame)
        count = done.count
        # only one count is under way at a time: the part it counted is the last one started
        part, self._part = self._part, None
        if part is None:
            self._whole_lags.append(t - done.t)
            matches = self.tracker.update(count.cards)
        else:
            # the cards outside the part are shown to the tracker where they were last seen
            # (it would lose them otherwise), and are no sighting of the table's
            held = self.table.held(part)
            found = len(count.cards)
            both = Cards.concatenate([count.cards, held]) if len(held) else count.cards
            matches = [(tid, i) for tid, i in self.tracker.update(both) if i < found]
        self.table.observe(t, count, matches, frame_t=done.t, part=part)
        self.unmatched = len(matches) < len(count.cards)
        if self.tally is not None:
            motion = self.motion.take() if self.motion is not None else None
            self.tally.observe(t, done.frame, sightings(count.cards, matches), motion)

    def _due(self, t: float) -> bool:
        """Whether the frame at ``t`` (s) is due to be counted: ``count_every_s`` since the
        last frame due (held or counted), so the pace is the same at any frame rate."""
        if t - self._due_t < self.settings.count_every_s:
            return False
        self._due_t = t
        return True

    def _held(self, image: Array, t: float) -> bool:
        """Whether the frame at ``t`` (s) need not be counted: the table is STEADY and the
        picture has not changed since the still spell began, so the cards seen in the
        spell's counted frames are still there (all of them counted cards, and the last
        counted frame had no card the tracker has yet to take up)."""
        if self.still is None:
            return False
        if not self.still.still(self.still.thumbnail(image)):
            self.still_from = self.table.frames  # a new spell: its first counted frame
        elif (
            self.steady
            and not self.unmatched
            and not self.still.due(t)
            and self.table.hold(t, self.still_from)
        ):
            return True
        self.still.counted(t)
        return False


def sightings(cards: Cards, matches: list[tuple[int, int]]) -> list[Sighting]:
    """The backs of a counted frame that the tracker followed, for the tally."""
    return [
        Sighting(track, cards.corners[i], cards.deck[i], float(cards.deck_confidence[i]))
        for track, i in matches
        if cards.side[i] == BACK
    ]


@dataclass(frozen=True)
class Tick:
    """A frame was shown: the table, the frame, its number and time (s), frames a second,
    and how late the counts reach the table (s; `Watcher.count_delay_s`)."""

    view: TableView
    image: Array
    frame: int
    t: float
    fps: float
    count_delay_s: float = 0.0


@dataclass(frozen=True)
class Fault:
    """The source failed (``message``); the last steady table is kept."""

    message: str
    view: TableView | None
    frame: int
    t: float


Event = Tick | Fault


def watch_events(
    source: FrameSource,
    watcher: Watcher,
    max_frames: int | None = None,
    recorder: Recorder | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Event]:
    """Frames of ``source`` through ``watcher``, as events; ends at the end of a file or
    folder, or after ``max_frames`` frames. A live source that fails yields a `Fault` and is
    opened again every ``retry_every_s``, until it gives frames again."""
    retry_s = watcher.settings.retry_every_s
    start = clock()
    frame = 0
    view: TableView | None = None
    recent: list[float] = []
    opened = False
    try:
        while max_frames is None or frame < max_frames:
            try:
                if not opened:
                    source.open()
                    opened = True
                image = source.read()
            except SourceFault as exc:
                opened = False
                yield Fault(str(exc), view, frame, _clock_t(source, frame, clock() - start))
                sleep(retry_s)
                continue
            if image is None:
                return
            t = _clock_t(source, frame, clock() - start)
            view = watcher.step(image, t)
            if recorder is not None:
                recorder.add(image, t, lossless=watcher.counted)
                recorder.paced(watcher.counted, watcher.took)
            recent.append(clock())
            del recent[:-FPS_FRAMES]
            span = recent[-1] - recent[0]
            fps = (len(recent) - 1) / span if len(recent) > 1 and span > 0 else 0.0
            yield Tick(view, image, frame, t, fps, watcher.count_delay_s)
            frame += 1
    finally:
        source.close()
        watcher.close()
        if recorder is not None:
            recorder.close()


def _clock_t(source: FrameSource, frame: int, wall_s: float) -> float:
    """The picture's time: wall-clock for a live source, frame / fps for a file, the
    recorded times for a recorded session."""
    return wall_s if source.live else source.time_of(frame)


def view_json(view: TableView | None, frame: int, t: float, fps: float) -> dict[str, Any]:
    """One line of ``watch --json`` (see README): the steady counts and how sure they are."""
    out: dict[str, Any] = {"frame": frame, "t": round(t, 3)}
    if view is None:
        out.update(
            {
                "steady": False,
                "counts": {},
                "ranges": {},
                "unknown": 0,
                "uncertain": [],
                "waiting": [],
            }
        )
    else:
        count = view.count
        out.update(
            {
                "steady": view.steady,
                "counts": count.counts,
                "ranges": {d: [lo, hi] for d, (lo, hi) in count.ranges.items()},
                "unknown": count.unknown,
                "uncertain": count.uncertain,
                "waiting": list(view.waiting),
            }
        )
    out["fps"] = round(fps, 1)
    return out


class JsonLines:
    """Which events ``watch --json`` prints: a change of the steady state, a fault, and one
    line a second (of the picture's clock) otherwise. With a ``tally`` (``watch --tally``)
    each line carries the tally and the tally's events since the line before, and a new
    event is a change."""

    def __init__(self, every_s: float = 1.0, tally: SortTally | None = None) -> None:
        self.every_s = every_s
        self.tally = tally
        self._last_key: tuple[Any, ...] | None = None
        self._last_t: float | None = None
        self._events_printed = 0
        self.last: dict[str, Any] | None = None

    def _with_tally(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.tally is not None:
            out["tally"] = self.tally.counts()
            new = self.tally.events[self._events_printed :]
            out["events"] = [e.to_json() for e in new]
        return out

    def _printed(self, out: dict[str, Any]) -> dict[str, Any]:
        if self.tally is not None:
            self._events_printed = len(self.tally.events)
        return out

    def line(self, event: Event) -> dict[str, Any] | None:
        """The object to print for ``event``, or ``None``."""
        if isinstance(event, Fault):
            out = self._with_tally(view_json(event.view, event.frame, event.t, 0.0))
            out["steady"] = False
            out["error"] = event.message
            self._last_key = None
            self._last_t = event.t
            return self._printed(out)
        out = self._with_tally(view_json(event.view, event.frame, event.t, event.fps))
        self.last = out
        key = (out["steady"], tuple(out["counts"].items()), out["unknown"])
        due = self._last_t is None or event.t - self._last_t >= self.every_s
        if key != self._last_key or due or out.get("events"):
            self._last_key = key
            self._last_t = event.t
            return self._printed(out)
        return None

    def final(self) -> dict[str, Any]:
        """The last object, at the end of a file: the last frame's state, ``"final": true``
        (with a tally: the final tally and every event of the session)."""
        out = dict(self.last) if self.last is not None else view_json(None, 0, 0.0, 0.0)
        if self.tally is not None:
            out["tally"] = self.tally.counts()
            out["events"] = [e.to_json() for e in self.tally.events]
        out["final"] = True
        return out
