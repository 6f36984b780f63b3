"""Art styles and the per-worker pool of pre-rendered cards.

A style is a module with three drawing functions (see :class:`ArtStyle`); the scene code only
ever sees an :class:`ArtPool` of textures, so a second, independent style (other drawings,
line work, inks) is one new module plus one line in ``STYLES``.

Besides the names in ``STYLES``: ``family:<N>`` draws the fixed art family ``N``
(:mod:`vision.synth.art_family`), ``endless`` a fresh family per scene (the scene generator
gives each scene its own small pool), ``enrolled:<folder>`` a user's enrolled decks.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.synth.art_family import ENDLESS, FAMILY_PREFIX, parse_family
from vision.synth.decks import (
    ALL_DECKS,
    ART_PX_PER_MM,
    CARD_H_PX,
    CARD_W_PX,
    CORNER_RADIUS_MM,
    FACE_COLORS,
    FACE_VALUES,
)
from vision.synth.print_effects import card_alpha

# style name -> module defining draw_back, draw_face, draw_random_card
STYLES: dict[str, str] = {
    "standin": "vision.synth.art_standin",
    "heirloom": "vision.synth.art_heirloom",  # held out: never used for training
}


class ArtStyle(Protocol):
    """What a style draws: BGR uint8 pictures of h x w px (corners are cut later)."""

    def draw_back(self, deck: str, rng: np.random.Generator, w: int, h: int) -> np.ndarray: ...

    def draw_face(
        self, color: str, value: int, rng: np.random.Generator, w: int, h: int
    ) -> np.ndarray: ...

    def draw_random_card(self, rng: np.random.Generator, w: int, h: int) -> np.ndarray: ...


_REGISTERED: dict[str, ArtStyle] = {}
ENROLLED_PREFIX = "enrolled:"
_ENROLLED: dict[tuple[str, int], ArtStyle] = {}
_FAMILIES: dict[int, ArtStyle] = {}


def register_style(name: str, style: ArtStyle) -> None:
    """Make ``style`` (any object with the three drawing functions) usable as ``art=name``.

    A registered style lives in this process only, so :func:`synthesize` draws it without
    worker processes; a style that needs both cores is loaded by name instead (as
    ``enrolled:<folder>`` is).
    """
    for fn in ("draw_back", "draw_face", "draw_random_card"):
        if not callable(getattr(style, fn, None)):
            raise TypeError(f"an art style needs {fn}()")
    _REGISTERED[name] = style
    STYLES[name] = f"<registered {type(style).__name__}>"


def is_registered(name: str) -> bool:
    return name in _REGISTERED


def check_style(name: str) -> None:
    """ValueError unless some art style answers to ``name``."""
    if name in STYLES or name == ENDLESS or name.startswith(ENROLLED_PREFIX):
        return
    if name.startswith(FAMILY_PREFIX):
        parse_family(name)
        return
    known = ", ".join([*sorted(STYLES), ENDLESS, FAMILY_PREFIX + "<N>"])
    raise ValueError(f"unknown art style {name!r}; known: {known}")


def load_style(name: str) -> ArtStyle:
    """The art style called ``name``; ValueError for an unknown one.

    ``enrolled:<profile folder>`` draws the decks a user enrolled (:mod:`art_enrolled`);
    ``family:<N>`` draws art family ``N``. ``endless`` is no single style (each scene has
    its own family) and is refused here.
    """
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name == ENDLESS:
        raise ValueError("'endless' draws a fresh family per scene; load family:<N> instead")
    if name.startswith(FAMILY_PREFIX):
        from vision.synth.art_family_style import FamilyStyle

        family = parse_family(name)
        if family not in _FAMILIES:
            _FAMILIES.clear()  # one family at a time: its drawings are cached inside
            _FAMILIES[family] = FamilyStyle(family)
        return _FAMILIES[family]
    if name.startswith(ENROLLED_PREFIX):
        from vision.synth.art_enrolled import EnrolledStyle

        # One object per profile version: scenes share (and cache) its art pool.
        folder = Path(name[len(ENROLLED_PREFIX) :])
        version = (name, (folder / "profile.json").stat().st_mtime_ns)
        if version not in _ENROLLED:
            _ENROLLED.clear()
            _ENROLLED[version] = EnrolledStyle(folder)
        return _ENROLLED[version]
    if name not in STYLES:
        raise ValueError(f"unknown art style {name!r}; known: {', '.join(sorted(STYLES))}")
    return importlib.import_module(STYLES[name])  # type: ignore[return-value,unused-ignore]


@dataclass
class Texture:
    """A card picture as BGRA mip levels (level k is 2**-k the size of level 0)."""

    levels: list[np.ndarray]

    def level_for(self, px_per_texel: float) -> tuple[np.ndarray, float]:
        """The coarsest level still at least as sharp as the output, and its scale factor."""
        k = 0
        while k + 1 < len(self.levels) and px_per_texel * (2 ** (k + 1)) <= 1.2:
            k += 1
        return self.levels[k], 2.0**-k


def make_texture(bgr: np.ndarray, alpha: np.ndarray) -> Texture:
    """Mip levels of a card, colour premultiplied by alpha so warped edges blend cleanly."""
    pre = (bgr.astype(np.float32) * (alpha[..., None].astype(np.float32) / 255)).round()
    lv = [np.dstack([pre.astype(np.uint8), alpha])]
    for _ in range(3):
        lv.append(cv2.pyrDown(lv[-1]))
    return Texture(lv)


class ArtPool:
    """Pre-rendered variants of every back, face and some random cards, built from one rng.

    Scenes draw from the pool instead of painting each card, which keeps generation fast; the
    pool is rebuilt for every block of scenes, so the dataset still sees many prints.
    """

    def __init__(
        self,
        style_name: str,
        rng: np.random.Generator,
        back_variants: int = 8,
        face_variants: int = 2,
        random_cards: int = 24,
    ) -> None:
        style = load_style(style_name)
        w, h = CARD_W_PX, CARD_H_PX
        alpha = card_alpha(w, h, CORNER_RADIUS_MM * ART_PX_PER_MM)
        self.backs = {
            d: [make_texture(style.draw_back(d, rng, w, h), alpha) for _ in range(back_variants)]
            for d in ALL_DECKS
        }
        self.faces = {
            (c, v): [
                make_texture(style.draw_face(c, v, rng, w, h), alpha) for _ in range(face_variants)
            ]
            for c in FACE_COLORS
            for v in FACE_VALUES
        }
        self.randoms = [
            make_texture(style.draw_random_card(rng, w, h), alpha) for _ in range(random_cards)
        ]

    def back(self, deck: str, rng: np.random.Generator) -> Texture:
        """A print of ``deck``\'s back, drawn from the pool\'s variants."""
        v = self.backs[deck]
        return v[int(rng.integers(len(v)))]

    def face(self, color: str, value: int, rng: np.random.Generator) -> Texture:
        """A print of the ``color`` ``value`` face."""
        v = self.faces[(color, value)]
        return v[int(rng.integers(len(v)))]

    def random(self, k: int) -> Texture:
        """Random-art picture number ``k`` (cards of one foreign deck share ``k``)."""
        return self.randoms[k % len(self.randoms)]
