"""onnxruntime sessions: the small models' workers do not spin, and that changes no output."""

from __future__ import annotations

import numpy as np

from vision.core.models import DEFAULT_CLASSIFIER, DEFAULT_DETECTOR, DEFAULT_LOOK
from vision.core.onnx import cpu_session
from vision.detect.look import CardLook
from vision.name.classifier import DeckClassifier

SPINNING = "session.intra_op.allow_spinning"


def _spinning(session: object) -> str:
    options = session.get_session_options()  # type: ignore[attr-defined]
    return str(options.get_session_config_entry(SPINNING))


def test_the_small_models_run_without_spinning_workers_and_the_detector_with() -> None:
    assert _spinning(DeckClassifier(DEFAULT_CLASSIFIER, 2).session) == "0"
    assert _spinning(CardLook(DEFAULT_LOOK, 2).session) == "0"
    assert _spinning(cpu_session(DEFAULT_DETECTOR, 2)) == "1"


def test_spinning_changes_how_threads_wait_not_what_a_model_outputs() -> None:
    spinning = cpu_session(DEFAULT_CLASSIFIER, 2)
    waiting = cpu_session(DEFAULT_CLASSIFIER, 2, spinning=False)
    name = spinning.get_inputs()[0].name
    shape = [int(d) if isinstance(d, int) else 3 for d in spinning.get_inputs()[0].shape]
    crops = np.random.default_rng(0).random(shape, dtype=np.float32)
    a = spinning.run(None, {name: crops})[0]
    b = waiting.run(None, {name: crops})[0]
    np.testing.assert_array_equal(a, b)
