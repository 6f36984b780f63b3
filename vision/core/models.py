"""Where the shipped models lie: ``models/`` beside the packages."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

REPO_DIR = Path(__file__).resolve().parents[2]
MODELS_DIR = REPO_DIR / "models"
DEFAULT_DETECTOR = MODELS_DIR / "tallero-cards.onnx"
DEFAULT_CLASSIFIER = MODELS_DIR / "tallero-decks.onnx"
DEFAULT_CHECK = MODELS_DIR / "tallero-check.json"
# Live frames (one look each) keep the card check fitted on drawn scenes alone: on drawn
# webcam clips the one that also learned from real photos settled later and less often
# right (docs/history.md).
DEFAULT_LIVE_CHECK = MODELS_DIR / "tallero-check-live.json"
DEFAULT_LOOK = MODELS_DIR / "tallero-look.onnx"
DEFAULT_NUMBERS = MODELS_DIR / "tallero-numbers.onnx"
# The shipped classifier's torch weights: enrollment starts a user's classifier from them.
DEFAULT_CLASSIFIER_WEIGHTS = MODELS_DIR / "tallero-decks.pt"
DEFAULT_NUMBERS_WEIGHTS = MODELS_DIR / "tallero-numbers.pt"


class ModelPart(Protocol):
    """A model file Tallero loaded: where it is, what it is called and its fingerprint."""

    @property
    def path(self) -> Path: ...

    @property
    def name(self) -> str: ...

    @property
    def sha256(self) -> str: ...
