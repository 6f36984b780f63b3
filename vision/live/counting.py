"""When a counted frame's count reaches the steady table.

A count takes the counter 0.05-0.7 s on 2 cores (more cards, more time), a webcam gives a
frame every 0.033 s. Counted in the watch loop itself, a count holds the window still
until it is done; counted beside the loop, the window keeps the camera's pace and the count
joins the table when it is ready. Every way has one interface (`Pace`):

- `InLoop()`: counted in the loop, taken on the frame it was counted from (a file, `eval`).
  `InLoop(delay_s)` is taken ``delay_s`` of the picture's clock later, no other frame
  counted meanwhile: what `Beside` does with a counter that takes ``delay_s``, the same at
  every run (to measure the live view at a counter's real speed).
- `Beside()`: counted on a thread of its own (a camera or a stream).
- `Replayed(taken, times)`: a session kept with ``watch --record``, replayed (its
  ``pace.jsonl``): each frame the session counted is taken when the session took it, so
  the replay shows what the session showed.

>>> pace = Beside()
>>> if not pace.busy():
...     pace.start(count_frame, image, frame, t)
>>> done = pace.take(t)   # a `Counted`, or None while counting
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

from vision.core.types import Array
from vision.count.result import Count


@dataclass(frozen=True)
class Counted:
    """A frame's count: the count, and the frame's number and time (s) in the picture."""

    count: Count
    frame: int
    t: float


CountFrame = Callable[[Array], Count]
# A part of a frame takes at least this share of a whole frame's count (`InLoop`): a count of
# a part a tenth of the frame took 0.08-0.2 of the whole frame's time, one of half of it
# 0.29-0.57 (854x480 webcam clips of 8 decks, one thread).
MIN_WORK = 0.1


class Pace(Protocol):
    def busy(self) -> bool:
        """A count is under way or not yet taken: no other frame is counted."""
        ...

    def start(
        self, count: CountFrame, image: Array, frame: int, t: float, work: float = 1.0
    ) -> None:
        """Count ``image`` (frame ``frame`` at ``t`` s) with ``count``; ``work``: the share
        of a whole frame's count it takes (a part of the frame: about its share of it)."""
        ...

    def take(self, t: float) -> Counted | None:
        """The count started last, once it has reached the picture at ``t`` (s); each
        count is taken once."""
        ...

    def close(self) -> None:
        """No more counts (a count under way is let finish)."""
        ...


class InLoop:
    """Counted in the loop; taken by the first frame ``delay_s`` (s, picture's clock) or
    more after the frame counted (0: that frame itself); no count starts before it is
    taken."""

    def __init__(self, delay_s: float = 0.0) -> None:
        if delay_s < 0:
            raise ValueError(f"delay_s must be 0 or more, got {delay_s}")
        self.delay_s = delay_s
        self._done: Counted | None = None
        self._at = 0.0  # when the count under way is taken (s)

    def taken_at(self, frame: int, t: float, work: float = 1.0) -> float:
        """When the count of frame ``frame`` (at ``t`` s) is taken (s): ``work`` of the
        delay after it (a part of a frame, at least `MIN_WORK`)."""
        return t + self.delay_s * max(min(work, 1.0), MIN_WORK)

    def busy(self) -> bool:
        return self._done is not None

    def start(
        self, count: CountFrame, image: Array, frame: int, t: float, work: float = 1.0
    ) -> None:
        if self.busy():
            raise RuntimeError("a count is not yet taken")
        self._done = Counted(count(image), frame, t)
        self._at = self.taken_at(frame, t, work)

    def take(self, t: float) -> Counted | None:
        if self._done is None or t < self._at - 1e-9:
            return None
        done, self._done = self._done, None
        return done

    def close(self) -> None:
        self._done = None


class Beside:
    """Counted on one thread beside the loop; taken by the first frame after it is done.
    An error of the counter is raised by `take`, in the loop."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tallero-count")
        self._job: Future[Counted] | None = None

    def busy(self) -> bool:
        return self._job is not None

    def start(
        self, count: CountFrame, image: Array, frame: int, t: float, work: float = 1.0
    ) -> None:
        if self.busy():
            raise RuntimeError("a count is not yet taken")
        self._job = self._pool.submit(lambda: Counted(count(image), frame, t))

    def take(self, t: float) -> Counted | None:
        if self._job is None or not self._job.done():
            return None
        job, self._job = self._job, None
        return job.result()

    def wait(self, timeout_s: float | None = None) -> None:
        """Until the count under way is done, or ``timeout_s`` (tests)."""
        if self._job is not None:
            self._job.exception(timeout_s)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._job = None


class Replayed(InLoop):
    """A recorded session's pace: counted in the loop, and taken at the time (s, the
    recording's clock) the session took the count of that frame (``taken``: frame ->
    time). A frame the session did not count is taken the session's median delay after
    it."""

    def __init__(self, taken: dict[int, float], times: list[float]) -> None:
        lags = sorted(at - times[f] for f, at in taken.items() if f < len(times))
        super().__init__(max(lags[len(lags) // 2], 0.0) if lags else 0.0)
        self.taken = taken

    def taken_at(self, frame: int, t: float, work: float = 1.0) -> float:
        return self.taken.get(frame, super().taken_at(frame, t, work))
