"""onnxruntime sessions on the CPU, as every model of Tallero runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnxruntime as ort


def cpu_session(
    path: Path, threads: int | None = None, spinning: bool = True
) -> ort.InferenceSession:
    """An onnxruntime CPU session of ``path`` on ``threads`` (default: all cores, at most 4).

    ``spinning``: whether the session's worker threads keep spinning for more work after a
    run. It suits the detector, the one big model of a frame; the small models that run
    after it (deck classifier, card look) turn it off, since each session has threads of
    its own: on 2 cores, spinning workers of one model took the cores from the next, and the
    live path ran at 16-18 frames/s with 2 threads against 30-33 with the small models'
    spinning off (27 with 1 thread; `tallero bench`).

    Raises whatever onnxruntime raises for a file it cannot load.
    """
    import onnxruntime as ort

    # No telemetry events either (the store on disk is off: ORT_DISABLE_TELEMETRY, set by
    # `vision` before onnxruntime is imported).
    ort.disable_telemetry_events()

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or min(os.cpu_count() or 1, 4)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
