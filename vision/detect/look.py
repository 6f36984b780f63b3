"""A second, closer look at the candidates the card check is unsure of.

The card check (`vision.detect.check`) reads facts about a candidate's box: its size,
shape, overlaps, angles and how its sides lie on image edges. It never sees the picture
inside and around the box, which is what tells a half-covered card from a misplaced
second box over a card already found: a real card's visible part shows a card's border
and back, a misplaced box shows the seam between two cards. `CardLook` is a small CNN that
sees the candidate rectified with a margin around it (so the edges of the box are in the
picture), together with the check's facts and its verdict, and gives a new chance that
the candidate is a real card. It is asked only about candidates whose check chance lies
within its band (the clear ones keep the check's chance), and fitted by
`vision.train.look_fit` on the same fresh scenes as the check and more.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from scoring.errors import ModelError
from scoring.home import file_sha256
from vision.core.geometry import widened
from vision.core.onnx import cpu_session
from vision.core.rectify import CardRectifier, to_blob
from vision.detect.check import feature_columns

TASK = "tallero-card-look"


def logit(p: np.ndarray) -> np.ndarray:
    """Log odds of probabilities, clipped away from 0 and 1."""
    p = np.clip(np.asarray(p, np.float64), 1e-6, 1 - 1e-6)
    odds: np.ndarray = np.log(p / (1 - p))
    return odds


class CardLook:
    """The exported look (ONNX): crops and facts in, the chance of a real card out.

    Inputs ``crops`` ``(n, 3, h, w)`` float32 in [0, 1] (BGR, the widened candidate
    rectified upright) and ``facts`` ``(n, len(features) + 1)``: the check's facts it was
    fitted on (named in its metadata ``features``, each one of `vision.detect.check.FEATURES`)
    and the check's logit, unscaled (the model standardises them). Output ``chance``
    ``(n,)``. Metadata: ``features``, ``crop_width_px``, ``crop_height_px``, ``margin``,
    ``band_low``, ``band_high``.
    """

    def __init__(self, path: Path, threads: int | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such card look model")
        try:
            self.session = cpu_session(self.path, threads, spinning=False)
            meta = self.session.get_modelmeta().custom_metadata_map
            if meta.get("task") != TASK:
                raise ModelError(f"{self.path}: not a card look model")
            features = tuple(json.loads(meta["features"]))
            self.width_px = int(meta["crop_width_px"])
            self.height_px = int(meta["crop_height_px"])
            self.margin = float(meta["margin"])
            self.band = (float(meta["band_low"]), float(meta["band_high"]))
        except ModelError:
            raise
        except Exception as exc:  # onnxruntime and json raise untyped errors
            raise ModelError(f"{self.path}: not a usable card look model ({exc})") from None
        self.columns = feature_columns(features, self.path)
        self.sha256 = file_sha256(self.path)
        self.name = self.path.stem

    def in_band(self, chance: np.ndarray) -> np.ndarray:
        """Which candidates the look is asked about (the check is unsure of them)."""
        chance = np.asarray(chance)
        return (chance >= self.band[0]) & (chance <= self.band[1])

    def crops(self, image_bgr: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """``(n, h, w, 3)`` uint8 crops of the candidates with the look's margin."""
        rectifier = CardRectifier(image_bgr, self.width_px, self.height_px)
        return rectifier.crops(widened(corners, self.margin))

    def chance_of(self, crops_bgr: np.ndarray, facts: np.ndarray, chance: np.ndarray) -> np.ndarray:
        """``(n,)`` the look's chance for crops, the check's facts and the check's chance."""
        if not len(crops_bgr):
            return np.zeros(0, np.float64)
        facts = np.asarray(facts, np.float64)[:, self.columns]
        x = np.column_stack([facts, logit(chance)]).astype(np.float32)
        out = self.session.run(["chance"], {"crops": to_blob(crops_bgr), "facts": x})[0]
        return np.asarray(out, np.float64).reshape(-1)

    def refine(
        self, image_bgr: np.ndarray, corners: np.ndarray, facts: np.ndarray, chance: np.ndarray
    ) -> np.ndarray:
        """The check's chances with those in the band replaced by the look's."""
        chance = np.asarray(chance, np.float64).copy()
        band = np.flatnonzero(self.in_band(chance))
        if len(band):
            crops = self.crops(image_bgr, np.asarray(corners)[band])
            chance[band] = self.chance_of(crops, np.asarray(facts)[band], chance[band])
        return chance
