"""Scenes drawn with a user's own decks: the pictures enrolled from their photos.

``EnrolledStyle(folder)`` reads a profile folder (``profile.json`` and ``cards/*.png``). The
scene generator's deck slots are filled in order with the enrolled decks; slots left over
keep the stand-in art, and those cards are labelled as belonging to no enrolled deck. So a
deck classifier fitted on these scenes learns both the user's decks and what is not one.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.synth import art_standin
from vision.synth.decks import ALL_DECKS


def slot_names(folder: Path) -> dict[str, str]:
    """Generator deck slot -> enrolled deck name, in enrollment order."""
    data = json.loads((Path(folder) / "profile.json").read_text())
    return dict(zip(ALL_DECKS, data.get("decks", {}), strict=False))


class EnrolledStyle:
    """An art style whose backs (and optionally faces) are the enrolled pictures."""

    def __init__(self, folder: Path) -> None:
        folder = Path(folder)
        data = json.loads((folder / "profile.json").read_text())
        self.backs: dict[str, list[np.ndarray]] = {}
        for slot, (_, record) in zip(ALL_DECKS, data.get("decks", {}).items(), strict=False):
            self.backs[slot] = [_read(folder / rel) for rel in record["cards"]]
        self.faces = {
            c: [_read(folder / rel) for rel in r["cards"]] for c, r in data.get("faces", {}).items()
        }

    def draw_back(self, deck: str, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        if deck not in self.backs:
            return art_standin.draw_back(deck, rng, w, h)
        pictures = self.backs[deck]
        return _reprint(pictures[int(rng.integers(len(pictures)))], rng, w, h)

    def draw_face(
        self, color: str, value: int, rng: np.random.Generator, w: int, h: int
    ) -> np.ndarray:
        # An enrolled face shows one value; other values keep the stand-in numbers, so the
        # classifier reads the colour of the user's printing, not one number.
        if color in self.faces and rng.random() < 0.5:
            pictures = self.faces[color]
            return _reprint(pictures[int(rng.integers(len(pictures)))], rng, w, h)
        return art_standin.draw_face(color, value, rng, w, h)

    def draw_random_card(self, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        return art_standin.draw_random_card(rng, w, h)


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(f"enrolled picture missing: {path}")
    return img


def _reprint(card: np.ndarray, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """The enrolled picture with the light of its photo evened out and a little variation.

    One photo is one lighting; the scene adds its own, so the photo's shading is divided
    out (large-scale blur) and a random print shade, offset and softness are applied.
    """
    img = cv2.resize(card, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    shade = cv2.GaussianBlur(img, (0, 0), max(w, h) / 3)
    flat = img / np.maximum(shade, 1.0) * shade.reshape(-1, 3).mean(axis=0)
    img = 0.6 * flat + 0.4 * img
    img = img * rng.uniform(0.9, 1.1) * rng.uniform(0.95, 1.05, 3)
    dx, dy = rng.normal(0, 0.01, 2) * (w, h)
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    img = cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0))
    return np.clip(img, 0, 255).astype(np.uint8)
