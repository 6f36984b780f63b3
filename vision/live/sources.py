"""Where live frames come from: a camera, a video file, a folder of frames, a stream.

A camera or a stream is *live*: when it fails (no camera at the index, unplugged, frames
that stop coming, a dropped stream) `read` raises `SourceFault` and the watch loop opens it
again every few seconds. A file or a folder ends: `read` returns ``None`` after its last
frame.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import cv2

from scoring.errors import UsageError
from vision.core.types import Array

FRAME_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
# What a camera index is asked for unless ``--size`` says otherwise: most webcams open at
# 640x480, and the Dutch piles' numbers read far better from 1280x720 (docs/history.md,
# "A webcam asked for 1280x720"). A camera that cannot gives its nearest size.
CAMERA_SIZE = (1280, 720)
RECORD_META = "watch.json"
# A recorded session's clock and counts, a line a frame, written as the frames come (so a
# session cut off replays up to its last frame): ``{"t": s}``, with ``"counted": true`` on a
# frame that was counted and ``"took": [k]`` on the frame the count of frame k reached the
# table.
RECORD_PACE = "pace.jsonl"
DEFAULT_FOLDER_FPS = 15.0


class SourceFault(Exception):
    """A live source failed; the message says how, for the user."""


class FrameSource(Protocol):
    """Frames in order; ``live`` sources fail and are opened again, others end."""

    name: str
    live: bool
    fps: float  # frames per second the picture's clock runs at (files and folders)

    def open(self) -> None:
        """Open (or open again); `SourceFault` when it cannot be opened."""

    def read(self) -> Array | None:
        """The next BGR frame; ``None`` at the end; `SourceFault` when a live source fails."""

    def close(self) -> None:
        """Let the device or file go."""

    def time_of(self, frame: int) -> float:
        """The picture's time of ``frame`` (s) of a source that is not live."""
        ...


class Capture(Protocol):
    """What Tallero uses of `cv2.VideoCapture` (a test can stand in a fake camera)."""

    def isOpened(self) -> bool: ...  # noqa: N802 - OpenCV's name
    def read(self) -> tuple[bool, Any]: ...
    def set(self, prop: int, value: float) -> bool: ...
    def get(self, prop: int) -> float: ...
    def release(self) -> None: ...


def _open_capture(target: int | str) -> Capture:
    # OpenCV's own messages for a camera that is not there would repeat on stderr at every
    # retry; the fault is reported in Tallero's words instead (`SourceFault`).
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    capture: Capture = cv2.VideoCapture(target)
    return capture


class CaptureSource:
    """A camera index, a stream URL or a video file, read through OpenCV.

    Args:
        target: the camera index, URL or file path.
        live: a camera or stream (faults are retried) rather than a file (which ends).
        size: ``(width, height)`` px to ask the camera for, or ``None``.
        timeout_s: a live source that gives no frame for this long has stopped.
        opener: makes the capture (a fake camera in tests).
    """

    def __init__(
        self,
        target: int | str,
        live: bool,
        size: tuple[int, int] | None = None,
        timeout_s: float = 5.0,
        opener: Callable[[int | str], Capture] = _open_capture,
    ) -> None:
        self.target = target
        self.live = live
        self.size = size
        self.timeout_s = timeout_s
        self.opener = opener
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self.fps = 30.0
        self._capture: Capture | None = None

    def open(self) -> None:
        self.close()
        capture = self.opener(self.target)
        if not capture.isOpened():
            capture.release()
            what = f"no camera at index {self.target}" if isinstance(self.target, int) else None
            raise SourceFault(what or f"cannot open {self.target}")
        if self.live:
            # Frames that stop coming end a read after this long (where the backend obeys).
            ms = self.timeout_s * 1000
            capture.set(cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms)
            capture.set(cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms)
        if self.size is not None:
            if isinstance(self.target, int):
                # USB webcams give large frames at full rate only compressed (MJPG); one
                # that cannot keeps its own format
                capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*"MJPG"))
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        fps = capture.get(cv2.CAP_PROP_FPS)
        self.fps = fps if 1.0 <= fps <= 240.0 else 30.0
        self._capture = capture

    def read(self) -> Array | None:
        if self._capture is None:
            raise SourceFault(f"{self.name} is not open")
        t0 = time.monotonic()
        ok, frame = self._capture.read()
        if ok and frame is not None:
            image: Array = frame
            return image
        if not self.live:
            return None
        self.close()
        if time.monotonic() - t0 >= self.timeout_s:
            raise SourceFault(f"{self.name}: no frame for {self.timeout_s:.0f} s")
        raise SourceFault(f"{self.name} stopped giving frames (unplugged or dropped?)")

    def time_of(self, frame: int) -> float:
        return frame / self.fps

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class FolderSource:
    """The frames of a folder (a ``--record`` session), in name order; it ends.

    Its clock runs at the recorded frame rate (``watch.json``), else 15 frames a second; a
    session recorded with its pace (``pace.jsonl``) runs on the times its frames came at,
    and `taken_at` says when each frame counted live reached the table.
    """

    live = False

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = str(folder)
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in FRAME_SUFFIXES)
        if not self.files:
            raise UsageError(f"{folder}: no frames ({', '.join(FRAME_SUFFIXES)}) in the folder")
        self.fps = DEFAULT_FOLDER_FPS
        meta = folder / RECORD_META
        if meta.exists():
            self.fps = float(json.loads(meta.read_text()).get("fps", DEFAULT_FOLDER_FPS))
        self.times: list[float] | None = None
        self.taken_at: dict[int, float] | None = None
        pace = folder / RECORD_PACE
        if pace.exists():
            self.times, self.taken_at = read_pace(pace)
        self._next = 0

    def time_of(self, frame: int) -> float:
        """The picture's time of ``frame`` (s): as recorded, else ``frame / fps`` (past the
        last recorded time, at the frame rate)."""
        if not self.times:
            return frame / self.fps
        if frame < len(self.times):
            return self.times[frame]
        return self.times[-1] + (frame - len(self.times) + 1) / self.fps

    def open(self) -> None:
        self._next = 0

    def read(self) -> Array | None:
        from scoring.errors import ImageError
        from vision.core.imageio import load_image

        if self._next >= len(self.files):
            return None
        path = self.files[self._next]
        self._next += 1
        try:
            return load_image(path)
        except ImageError as exc:
            raise UsageError(str(exc)) from None

    def close(self) -> None:
        pass


def read_pace(path: Path) -> tuple[list[float], dict[int, float]]:
    """A recording's ``pace.jsonl``: each frame's time (s), and for each frame counted live
    the time its count reached the table. A line cut short by a session cut off ends it."""
    times: list[float] = []
    taken: dict[int, float] = {}
    try:
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
                t = float(rec["t"])
            except (ValueError, KeyError, TypeError):
                break  # the last line of a session cut off mid-write
            times.append(t)
            for k in rec.get("took", []):
                taken[int(k)] = t
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from None
    return times, taken


def open_source(
    spec: str, size: tuple[int, int] | None = None, timeout_s: float = 5.0
) -> FrameSource:
    """The source ``spec`` names: a camera index (``0``), a folder of frames, a video file
    or a stream URL (``rtsp://``, ``http://...``, anything OpenCV's FFmpeg opens). A camera
    is asked for ``size``, or `CAMERA_SIZE` when none is given."""
    if spec.isdigit():
        return CaptureSource(int(spec), live=True, size=size or CAMERA_SIZE, timeout_s=timeout_s)
    if "://" in spec:
        return CaptureSource(spec, live=True, size=size, timeout_s=timeout_s)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path)
    if not path.exists():
        raise UsageError(f"{spec}: no such camera index, file or folder")
    return CaptureSource(str(path), live=False)


def parse_size(text: str | None) -> tuple[int, int] | None:
    """``--size 1280x720`` as ``(1280, 720)``."""
    if text is None:
        return None
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UsageError(f"--size must look like 1280x720, not {text!r}")
    w, h = int(parts[0]), int(parts[1])
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise UsageError(f"--size {text}: width and height must be 16-8192 px")
    return w, h


class Recorder:
    """Keeps every frame of a session in a folder, replayable with ``watch``: as JPEG, and
    the counted frames as PNG.

    Args:
        folder: where the frames go (``000000.jpg``, ``000001.png``, ...); ``pace.jsonl``
            holds each frame's time and what was counted (`paced`), ``watch.json`` the frame
            rate the session ran at, written by `close`.
        quality: JPEG quality (0-100).
    """

    def __init__(self, folder: Path, quality: int = 95) -> None:
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise UsageError(f"--record {folder}: not an empty folder")
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.quality = quality
        self.frames = 0
        self._first_s: float | None = None
        self._last_s = 0.0
        self._pace = (folder / RECORD_PACE).open("a", encoding="utf-8")

    def add(self, frame: Array, t: float, lossless: bool = False) -> Path:
        """Write one frame, taken at ``t`` seconds, as JPEG (PNG when ``lossless``: a frame
        that was counted, so its replay counts the very same pixels); returns its file."""
        if lossless:
            path = self.folder / f"{self.frames:06d}.png"
            params: list[int] = []
        else:
            path = self.folder / f"{self.frames:06d}.jpg"
            params = [cv2.IMWRITE_JPEG_QUALITY, self.quality]
        if not cv2.imwrite(str(path), frame, params):
            raise UsageError(f"--record: cannot write {path}")
        self.frames += 1
        if self._first_s is None:
            self._first_s = t
        self._last_s = t
        return path

    def paced(self, counted: bool, took: list[int]) -> None:
        """What the watch loop did with the frame last added: counted it, and took on it
        the counts of frames ``took`` (``pace.jsonl``: a replay counts the same frames and
        takes their counts at the same times)."""
        line: dict[str, Any] = {"t": self._last_s}
        if counted:
            line["counted"] = True
        if took:
            line["took"] = took
        self._pace.write(json.dumps(line) + "\n")
        self._pace.flush()

    @property
    def fps(self) -> float:
        """Frames a second the session was recorded at (15 before two frames)."""
        span = self._last_s - (self._first_s or 0.0)
        return (self.frames - 1) / span if self.frames > 1 and span > 0 else DEFAULT_FOLDER_FPS

    def close(self) -> None:
        """Write ``watch.json``: the frame rate a replay's clock runs at."""
        self._pace.close()
        (self.folder / RECORD_META).write_text(json.dumps({"fps": round(self.fps, 3)}))
