"""Tallero's eyes: images in, cards and counts out. Knows nothing of games or scores.

One package per stage, each runnable on its own (``docs/architecture.md``):

- `vision.core`: the types every stage passes on (`Cards`, `FirstLook`), settings, image
  loading, geometry, ONNX sessions;
- `vision.detect`: an image to candidate cards, and the card check that keeps the real ones;
- `vision.name`: each kept card's deck (a back) or colour (a face);
- `vision.count`: the `Counter` that runs the stages, its `Count`, the doubts, drawing;
- `vision.enroll`: learning a user's own decks from photos of them;
- `vision.train`, `vision.evaluate`, `vision.lab`: training, measuring and trials, which
  nothing at run time imports;
- `vision.synth`: the synthetic table photos the models learn and are measured on.
"""

import os

# onnxruntime writes a telemetry store and a device id under ~/.cache on load unless this
# is set before it is imported; Tallero writes nothing outside $TALLERO_HOME.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
