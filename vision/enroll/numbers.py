"""Enrolling the numbers of a user's faces: a number reader fitted to their own printing.

The user lays out a row of faces (e.g. 1 to 10 of one colour) and photographs it. Each
face's picture is photographed again in miniature many times over
(`vision.synth.face_crops.photograph`: small, corners a little off, blur, light, noise,
JPEG, half turns, a neighbouring card over an index), in its own colour and turned to other
hues (the other colours print the same number), and the shipped number reader
(``models/tallero-numbers.pt``) is fine-tuned on those crops together with faces drawn in
the stand-in art and the training art families, so that it keeps reading those. The result
is the profile's ``numbers.onnx``, which counting then reads faces with
(`vision.enroll.profiles.numbers_for`). Needs torch: loaded only when a profile is fitted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import ModelError
from scoring.home import file_sha256
from vision.core.models import DEFAULT_NUMBERS_WEIGHTS
from vision.enroll.layout import EnrollError

VALUES = range(1, 11)


@dataclass(frozen=True)
class NumbersRecipe:
    """How a profile's number reader is fitted.

    looks: miniature photographs of each enrolled face picture; keep: faces drawn in the
    built-in art (so they stay read); epochs and lr: the fine-tuning; seed: its draws.
    """

    looks: int = 200
    keep: int = 1500
    epochs: int = 4
    lr: float = 1e-3
    seed: int = 71
    threads: int = 2


NUMBERS_RECIPE = NumbersRecipe()
# The shipped reader's weights, which a profile's reader is fine-tuned from.
BASE_WEIGHTS = DEFAULT_NUMBERS_WEIGHTS


def parse_values(text: str) -> list[int]:
    """``"1-10"`` or ``"3,5,9"`` -> the face numbers, left to right: distinct, 1..10."""
    values: list[int] = []
    try:
        for part in (p.strip() for p in text.split(",") if p.strip()):
            if "-" in part:
                lo, hi = (int(v) for v in part.split("-", 1))
                values.extend(range(lo, hi + 1))
            else:
                values.append(int(part))
    except ValueError:
        raise EnrollError(f"--numbers {text!r}: give numbers 1 to 10, e.g. 1-10 or 2,5,9") from None
    if not values or any(v not in VALUES for v in values):
        raise EnrollError(f"--numbers {text!r}: face numbers run from 1 to 10")
    dupes = sorted({v for v in values if values.count(v) > 1})
    if dupes:
        raise EnrollError(f"--numbers {text!r}: {dupes[0]} is named twice")
    return values


def recolour(picture_bgr: np.ndarray, hue_shift: int) -> np.ndarray:
    """The picture with its hues turned by ``hue_shift`` (OpenCV hue units, 0..179)."""
    import cv2

    hsv = cv2.cvtColor(picture_bgr, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + hue_shift) % 180).astype(np.uint8)
    out: np.ndarray = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    return out


def enrolled_crops(
    pictures: dict[int, list[np.ndarray]], looks: int, seed: int, width_px: int, height_px: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``looks`` miniature photographs of every picture (half in its own colour, half turned
    to another hue): crops ``(m, height_px, width_px, 3)``, values ``(m,)`` and ``(m, 2)``
    whether the index of the crop's top band, and of its bottom band, is covered."""
    from vision.synth.face_crops import photograph

    rng = np.random.default_rng([seed, 0xE4])
    crops, values, covered = [], [], []
    for value, faces in sorted(pictures.items()):
        for face in faces:
            for k in range(looks):
                shown = face if k % 2 == 0 else recolour(face, int(rng.integers(20, 160)))
                crop, top, bottom = photograph(shown, rng, width_px, height_px)
                crops.append(crop)
                values.append(value)
                covered.append((top, bottom))
    return np.asarray(crops, np.uint8), np.asarray(values, np.int64), np.asarray(covered, bool)


def fit_profile_numbers(
    pictures: dict[int, list[np.ndarray]],
    out: Path,
    recipe: NumbersRecipe = NUMBERS_RECIPE,
    log: Callable[[str], None] = print,
    base: Path | None = None,
) -> dict[str, Any]:
    """Fine-tune the number reader ``base`` on the enrolled face ``pictures`` (number ->
    upright card pictures), export it to ``out`` (ONNX) and return what was fitted."""
    from vision.name.numbers import CARD_CROP_H_PX, CARD_CROP_W_PX, band_input, index_bands
    from vision.synth.face_crops import drawn_crops
    from vision.train.numbers import CLASSES, export, fit_reader, load_weights

    base = Path(base or BASE_WEIGHTS)
    if not base.is_file():
        raise ModelError(f"{base}: no number reader weights to start from")
    t0 = time.perf_counter()
    crops, values, covered = enrolled_crops(
        pictures, recipe.looks, recipe.seed, CARD_CROP_W_PX, CARD_CROP_H_PX
    )
    kept, kept_values, kept_covered = drawn_crops(
        recipe.keep, recipe.seed, CARD_CROP_W_PX, CARD_CROP_H_PX
    )
    crops = np.concatenate([crops, kept])
    values = np.concatenate([values, kept_values])
    covered = np.concatenate([covered, kept_covered])
    hidden = len(CLASSES) - 1
    labels = np.where(covered, hidden, (values - 1)[:, None]).reshape(-1).astype(np.int64)
    x = band_input(index_bands(crops))
    net = load_weights(base)
    log(f"enroll: fine-tuning the number reader on {len(labels)} index corners")
    net = fit_reader(
        x, labels, recipe.epochs, recipe.seed, threads=recipe.threads, lr=recipe.lr, init=net,
        log=log,
    )  # fmt: skip
    enrolled = sorted(pictures)
    meta = {
        "recipe": json.dumps(asdict(recipe)),
        "enrolled": json.dumps(enrolled),
        "base_sha256": file_sha256(base),
    }
    export(net, out, meta)
    return {
        "numbers": enrolled,
        "bands": int(len(labels)),
        "seconds": round(time.perf_counter() - t0, 1),
        "sha256": file_sha256(out),
    }
