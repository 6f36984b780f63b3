"""`tallero bench`: how fast the live path and a phone photo are, against plain ultralytics.

Prints figures; nothing here asserts a speed.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.core.models import DEFAULT_DETECTOR, MODELS_DIR, REPO_DIR
from vision.count.counter import Counter

if TYPE_CHECKING:
    from vision.live.counting import Pace

FRAME_SIZE_PX = (640, 480)
WATCH_SIZES_PX = ((640, 480), (1280, 720))
PHOTO_SIZE_PX = (4032, 3024)
CAMERA_SECONDS = 8.0
SAMPLES_DIR = REPO_DIR / "tests" / "data"


def sample_frames(n: int) -> list[np.ndarray]:
    """``n`` 640x480 BGR frames cut from the committed sample scenes (cycled)."""
    files = sorted(SAMPLES_DIR.glob("*.jpg")) + sorted(SAMPLES_DIR.glob("*.png"))
    frames = []
    for f in files:
        img = cv2.imread(str(f))
        if img is None:
            continue
        h, w = img.shape[:2]
        scale = max(FRAME_SIZE_PX[0] / w, FRAME_SIZE_PX[1] / h)
        img = cv2.resize(img, (round(w * scale), round(h * scale)))
        y0 = (img.shape[0] - FRAME_SIZE_PX[1]) // 2
        x0 = (img.shape[1] - FRAME_SIZE_PX[0]) // 2
        frames.append(img[y0 : y0 + FRAME_SIZE_PX[1], x0 : x0 + FRAME_SIZE_PX[0]].copy())
    if not frames:
        raise FileNotFoundError(f"no sample images in {SAMPLES_DIR}")
    return [frames[i % len(frames)] for i in range(n)]


def _live_once(counter: Counter, jpeg: bytes) -> None:
    from vision.count.annotate import CountAnnotator

    frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    result = counter.count(frame, name="frame")
    CountAnnotator().annotate(frame, result)


def median_seconds(run: Callable[[Any], object], inputs: Sequence[Any], warmup: int) -> float:
    """Median seconds of ``run`` over ``inputs``, after ``warmup`` untimed calls on the
    first ones."""
    for x in inputs[:warmup]:
        run(x)
    times = []
    for x in inputs:
        t0 = time.perf_counter()
        run(x)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_live(threads: int, jpegs: list[bytes], model_path: Path | None) -> float:
    """Median seconds per frame of decode -> detect -> classify -> count -> draw."""
    counter = Counter(model_path=model_path, threads=threads, live=True)
    return median_seconds(lambda j: _live_once(counter, j), jpegs, warmup=5)


def webcam_frames(n: int, size: tuple[int, int], table: np.ndarray | None = None) -> list[bytes]:
    """``n`` JPEG frames of ``table`` (default: one sample table) at ``size`` px, moved a
    pixel or two each frame as a webcam on a stand would see it."""
    table = sample_frames(1)[0] if table is None else table
    interp = cv2.INTER_AREA if size[0] < table.shape[1] else cv2.INTER_LINEAR
    base = cv2.resize(table, size, interpolation=interp)
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n):
        dx, dy = rng.normal(0, 1.0, 2)
        M = np.float32([[1, 0, dx], [0, 1, dy]])
        frame = cv2.warpAffine(base, M, size, borderMode=cv2.BORDER_REFLECT)
        out.append(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    return out


def time_watch(threads: int, size: tuple[int, int], frames: int, model_path: Path | None) -> float:
    """Frames a second of the whole watch loop (decode, count or follow, track, draw the
    window) on ``frames`` webcam frames of ``size`` px, after a warm-up."""
    from vision.live.settings import LiveSettings
    from vision.live.watch import Tick, Watcher
    from vision.live.window import Panel, draw_window

    counter = Counter(model_path=model_path, threads=threads, live=True)
    watcher = Watcher(counter, counter.decks, LiveSettings(), fps=30.0)
    panel = Panel([(d, d) for d in counter.decks])
    jpegs = webcam_frames(frames + 10, size)

    def one(k: int, jpeg: bytes) -> None:
        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        view = watcher.step(image, k / 30.0)
        draw_window(Tick(view, image, k, k / 30.0, 0.0), panel)

    for k, jpeg in enumerate(jpegs[:10]):
        one(k, jpeg)
    t0 = time.perf_counter()
    for k, jpeg in enumerate(jpegs[10:], start=10):
        one(k, jpeg)
    return frames / (time.perf_counter() - t0)


# The bench's camera table: a sorted table of 8 decks as a 1280x720 webcam sees it (its
# JSON says how it was drawn); a smaller camera sees it shrunk.
CAMERA_TABLE = REPO_DIR / "datasets" / "samples" / "webcam" / "table-8-decks.jpg"
CAMERA_FPS = 30.0


class PacedCamera:
    """A webcam (OpenCV's capture calls) giving ``frames`` over and over, each read waiting
    for the camera's next frame at ``fps``, as a camera does."""

    def __init__(self, frames: Sequence[np.ndarray], fps: float) -> None:
        self.frames = frames
        self.fps = fps
        self.start: float | None = None

    def open(self, target: int | str) -> PacedCamera:
        return self

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def read(self) -> tuple[bool, np.ndarray]:
        now = time.perf_counter()
        if self.start is None:
            self.start = now
        due = (int((now - self.start) * self.fps) + 1) / self.fps
        time.sleep(max(0.0, self.start + due - time.perf_counter()))
        k = int(round(due * self.fps))
        return True, self.frames[k % len(self.frames)].copy()

    def set(self, prop: int, value: float) -> bool:
        return True

    def get(self, prop: int) -> float:
        return self.fps

    def release(self) -> None:
        pass


def camera_table(size: tuple[int, int]) -> tuple[list[np.ndarray], tuple[str, ...], int]:
    """1 s of webcam frames of the bench's camera table at ``size``, moved a pixel or so
    each frame; its decks and its number of cards."""
    truth = json.loads(CAMERA_TABLE.with_suffix(".json").read_text())
    base = cv2.imread(str(CAMERA_TABLE))
    jpegs = webcam_frames(int(CAMERA_FPS), size, base)
    frames = [cv2.imdecode(np.frombuffer(j, np.uint8), cv2.IMREAD_COLOR) for j in jpegs]
    return frames, tuple(truth["decks"]), sum(truth["counts"].values())


def time_watch_camera(
    threads: int, size: tuple[int, int], seconds: float, model_path: Path | None
) -> dict[str, Any]:
    """The watch loop on a 30 fps camera filming a sorted table of 8 decks at ``size``, for
    ``seconds`` of wall clock, each way of counting (`vision.live.counting`): frames shown
    a second, counts a second, the median count's delay (s) and the table's cards."""
    from vision.live.counting import Beside, InLoop

    counter = Counter(model_path=model_path, threads=threads, live=True)
    frames, decks, cards = camera_table(size)
    counter.count(frames[0], name="warm-up", decks=decks)
    out: dict[str, Any] = {"cards": cards}
    paces: dict[str, Callable[[], Pace]] = {"beside": Beside, "in_loop": InLoop}
    for name, pace in paces.items():
        out[name] = watch_camera(counter, frames, decks, pace(), seconds)
    return out


def watch_camera(
    counter: Counter, frames: list[np.ndarray], decks: tuple[str, ...], pace: Pace, seconds: float
) -> dict[str, float]:
    """The watch loop, window drawn, on a 30 fps camera showing ``frames`` in turn, its
    counts paced by ``pace``, for ``seconds`` of wall clock: frames shown a second, counts a
    second and the median count's delay (s)."""
    from vision.live.settings import LiveSettings
    from vision.live.sources import CaptureSource
    from vision.live.watch import Tick, Watcher, watch_events
    from vision.live.window import Panel, draw_window

    camera = PacedCamera(frames, CAMERA_FPS)
    source = CaptureSource(0, live=True, opener=camera.open)
    watcher = Watcher(counter, decks, LiveSettings(), fps=CAMERA_FPS, pace=pace)
    panel = Panel([(d, d) for d in decks])
    n = int(seconds * CAMERA_FPS)
    t0 = time.perf_counter()
    for event in watch_events(source, watcher, n):
        if isinstance(event, Tick):
            draw_window(event, panel)
    wall = time.perf_counter() - t0
    return {
        "fps": round(n / wall, 1),
        "counts_per_s": round(watcher.counted_frames / wall, 2),
        "count_delay_s": round(watcher.count_delay_s, 3),
    }


def time_baseline(
    weights: Path, frames: list[np.ndarray], imgsz: int, threads: int, budget_s: float = 60.0
) -> tuple[float, int]:
    """Median seconds per frame of plain ``ultralytics YOLO(weights).predict``, frames timed.

    Stops after ``budget_s`` (torch with 2 threads on a busy 2-core machine can take
    seconds per frame); the median is over the frames timed by then.
    """
    from vision.detect.offline import import_ultralytics

    import_ultralytics(threads)
    from ultralytics import YOLO

    model = YOLO(str(weights), task="obb")
    for f in frames[:3]:
        model.predict(f, imgsz=imgsz, device="cpu", verbose=False)
    times: list[float] = []
    start = time.perf_counter()
    for f in frames:
        t0 = time.perf_counter()
        model.predict(f, imgsz=imgsz, device="cpu", verbose=False)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget_s:
            break
    return statistics.median(times), len(times)


def time_photo(counter: Counter, threads: int) -> float:
    """Seconds for one 4032x3024 JPEG through load, count and JSON (model already loaded)."""
    base = sample_frames(1)[0]
    photo = cv2.resize(base, PHOTO_SIZE_PX, interpolation=cv2.INTER_CUBIC)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "photo.jpg"
        cv2.imwrite(str(path), photo, [cv2.IMWRITE_JPEG_QUALITY, 92])
        counter.count(path).to_json()
        runs = []
        for _ in range(3):
            t0 = time.perf_counter()
            counter.count(path).to_json()
            runs.append(time.perf_counter() - t0)
    return statistics.median(runs)


def run_bench(
    frames: int = 120, model_path: Path | None = None, baseline_path: Path | None = None
) -> dict[str, Any]:
    """All figures of ``tallero bench`` as a dict (see README for the keys)."""
    frames = max(frames, 100)
    imgs = sample_frames(frames)
    jpegs = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes() for f in imgs]
    cores = os.cpu_count() or 1
    thread_counts = sorted({1, min(2, cores)})
    live = {n: time_live(n, jpegs, model_path) for n in thread_counts}
    threads = min(live, key=lambda n: live[n])
    live_s = live[threads]
    weights = baseline_path or MODELS_DIR / "tallero-cards.pt"
    counter = Counter(model_path=model_path, threads=threads)
    imgsz = counter.detector.input_px
    baseline: dict[int, tuple[float, int]] = {}
    if weights.exists():
        baseline = {n: time_baseline(weights, imgs, imgsz, n) for n in thread_counts}
    best_base = min((b[0] for b in baseline.values()), default=None)
    photo_s = time_photo(counter, threads)
    watch = {f"{w}x{h}": time_watch(threads, (w, h), frames, model_path) for w, h in WATCH_SIZES_PX}
    camera = {
        f"{w}x{h}": time_watch_camera(threads, (w, h), CAMERA_SECONDS, model_path)
        for w, h in WATCH_SIZES_PX
    }
    result: dict[str, Any] = {
        "live_fps": round(1 / live_s, 1),
        "live_ms": round(live_s * 1000, 1),
        "live_fps_by_threads": {str(n): round(1 / s, 1) for n, s in live.items()},
        "baseline_fps": round(1 / best_base, 1) if best_base else None,
        "baseline_fps_by_threads": {str(n): round(1 / b[0], 1) for n, b in baseline.items()},
        "baseline_frames_timed": {str(n): b[1] for n, b in baseline.items()},
        "ratio": round(best_base / live_s, 2) if best_base else None,
        "photo_s": round(photo_s, 3),
        "watch_fps": {size: round(fps, 1) for size, fps in watch.items()},
        "watch_camera": camera,
        "threads": threads,
        "frames": frames,
        "frame_size": list(FRAME_SIZE_PX),
        "photo_size": list(PHOTO_SIZE_PX),
        "detector_input_px": imgsz,
        "model": str(model_path or DEFAULT_DETECTOR),
        "baseline_model": str(weights),
    }
    return result


def format_bench(result: dict[str, Any]) -> str:
    """Human-readable lines of a :func:`run_bench` result."""
    by = ", ".join(f"{n} thread(s) {fps} fps" for n, fps in result["live_fps_by_threads"].items())
    lines = [
        f"live path (decode, detect, classify, count, draw; median of {result['frames']} "
        f"frames 640x480): {by}",
        f"plain ultralytics predict (best of 1 and 2 threads): {result['baseline_fps']} fps "
        f"{result['baseline_fps_by_threads']}; Tallero is {result['ratio']}x",
        f"photo 4032x3024 end to end (model loaded): {result['photo_s']} s",
        "watch loop at 30 fps (decode, count every 4th frame, track, draw the window): "
        + ", ".join(f"{size} {fps} fps" for size, fps in result["watch_fps"].items()),
    ]
    for size, cam in result["watch_camera"].items():
        lines.append(
            f"watch on a 30 fps camera, {size}, a sorted table of {cam['cards']} cards: "
            + "; ".join(
                f"{way.replace('_', ' ')} {f['fps']} frames shown a second, "
                f"{f['counts_per_s']} counts a second ({f['count_delay_s']} s each)"
                for way, f in cam.items()
                if way != "cards"
            )
        )
    return "\n".join(lines)
