"""The object library of the family art: every drawable object by name, and which are held out.

Held-out objects appear only on the backs of held-out families (see
:mod:`vision.synth.art_family`): a model trained on ``endless`` never saw them, so evaluating
on a held-out family measures decks whose very picture is new, not only a new line work.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.synth import art_objects_farm, art_objects_home, art_objects_world
from vision.synth.art_sketch import Sketch

ObjectFn = Callable[[Sketch, np.random.Generator], None]

OBJECTS: dict[str, ObjectFn] = {
    **art_objects_farm.OBJECTS,
    **art_objects_home.OBJECTS,
    **art_objects_world.OBJECTS,
}
HELD_OUT_OBJECTS: tuple[str, ...] = (
    "bicycle",
    "butterfly",
    "crown",
    "hen",
    "hourglass",
    "lighthouse",
    "mushroom",
    "sled",
)
TRAIN_OBJECTS: tuple[str, ...] = tuple(sorted(set(OBJECTS) - set(HELD_OUT_OBJECTS)))


def sketch_object(name: str, rng: np.random.Generator) -> Sketch:
    """Object ``name`` drawn with proportions from ``rng``, scaled to fill its box."""
    s = Sketch()
    OBJECTS[name](s, rng)
    return s.fitted()
