"""The detector under other runtimes: ``python -m vision.lab.bench_runtimes [--frames N]``.

Times the shipped detector's network alone (no decoding, no card check) on the bench's
640x480 frames letterboxed to each input size, with onnxruntime (the run-time path) and,
when it is installed, the OpenVINO runtime reading the same ONNX, at 1 and 2 threads, and
reports how far the outputs differ. OpenVINO is not a dependency of Tallero: install it
(``pip install openvino``) to compare. One JSON object is printed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.core.models import DEFAULT_DETECTOR
from vision.core.onnx import cpu_session
from vision.detect.detector import letterbox
from vision.evaluate.bench import median_seconds, sample_frames

SIZES_PX = (320, 640)


def blobs(frames: list[np.ndarray], size: int) -> list[np.ndarray]:
    """The detector's inputs for ``frames`` at ``size`` (long side, stride 32)."""
    out = []
    for frame in frames:
        square, _ = letterbox(frame, size, 32)
        out.append(cv2.dnn.blobFromImage(square, 1 / 255.0, swapRB=True))
    return out


def median_ms(run: Callable[[np.ndarray], np.ndarray], inputs: list[np.ndarray]) -> float:
    """Median milliseconds of ``run`` over ``inputs`` after three warm-up calls."""
    return round(1000 * median_seconds(run, inputs, warmup=3), 2)


def openvino_runner(path: Path, threads: int, precision: str | None) -> Callable | None:
    """An OpenVINO CPU runner of ``path`` (None when OpenVINO is not installed)."""
    try:
        import openvino as ov
    except ImportError:
        return None
    config: dict[str, Any] = {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY"}
    if precision:
        config["INFERENCE_PRECISION_HINT"] = precision
    core = ov.Core()
    compiled = core.compile_model(core.read_model(str(path)), "CPU", config)
    request = compiled.create_infer_request()
    output = compiled.output(0)
    return lambda blob: request.infer({0: blob})[output]


def run(path: Path, frames: int) -> dict[str, Any]:
    images = sample_frames(frames)
    rows = []
    for threads in (1, 2):
        session = cpu_session(path, threads)
        name = session.get_inputs()[0].name

        def ort(blob: np.ndarray, session: Any = session, name: str = name) -> np.ndarray:
            return session.run(None, {name: blob})[0]

        for size in SIZES_PX:
            inputs = blobs(images, size)
            row: dict[str, Any] = {
                "threads": threads,
                "input": list(inputs[0].shape[2:]),
                "onnxruntime_ms": median_ms(ort, inputs),
            }
            for label, precision in (("openvino", None), ("openvino_f32", "f32")):
                ov_run = openvino_runner(path, threads, precision)
                if ov_run is None:
                    row[f"{label}_ms"] = None
                    continue
                row[f"{label}_ms"] = median_ms(ov_run, inputs)
                row[f"{label}_max_diff"] = round(
                    max(float(np.abs(ort(b) - ov_run(b)).max()) for b in inputs[:5]), 4
                )
            rows.append(row)
    installed = openvino_runner(path, 1, None) is not None
    return {"model": str(path), "frames": frames, "openvino_installed": installed, "runs": rows}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.bench_runtimes", description=__doc__)
    ap.add_argument("--model", type=Path, default=DEFAULT_DETECTOR)
    ap.add_argument("--frames", type=int, default=40)
    args = ap.parse_args(argv)
    if not args.model.is_file():
        ap.error(f"{args.model}: no such detector model")
    if args.frames < 5:
        ap.error("--frames must be 5 or more")
    print(json.dumps(run(args.model, args.frames)))


if __name__ == "__main__":
    main()
