"""Drawing a family: :class:`FamilyStyle` (an art style of one family) and
:class:`FamilyPool` (the few textures one scene of an ``endless`` dataset needs).

What every card of a deck shares - the engraved picture, the frame - is drawn once per
family and kept as ink coverage; each print then only adds what differs between two cards
of a box: where the print sits on the cut card, ink density, paper, wear.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence

import cv2
import numpy as np

from vision.synth.art import Texture, make_texture
from vision.synth.art_face_family import face_picture, number_face, print_face, wear_face
from vision.synth.art_family import SS, FamilySpec, make_family
from vision.synth.art_frames import draw_frame
from vision.synth.art_linework import ink_sketch
from vision.synth.art_objects import TRAIN_OBJECTS, sketch_object
from vision.synth.art_random import draw_random_card as draw_foreign_art
from vision.synth.art_sketch import Part, Sketch
from vision.synth.decks import (
    ALL_DECKS,
    ART_PX_PER_MM,
    CARD_H_PX,
    CARD_W_MM,
    CARD_W_PX,
    CORNER_RADIUS_MM,
    FACE_COLORS,
)
from vision.synth.etching import ring
from vision.synth.print_effects import card_alpha, print_ink, scuff_edges


def _key(*parts: object) -> int:
    """A stable 32-bit number for a name (Python's own hash() changes between runs)."""
    return zlib.crc32(repr(parts).encode())


def _with_ground(sketch: Sketch, ground: str) -> Sketch:
    """The object standing on a line or over a soft cast shadow."""
    if ground == "none":
        return sketch
    lo, hi = sketch.bounds()
    y = min(0.99, float(hi[1]) + 0.01)
    if ground == "line":
        under = Part(np.array([(0.04, y), (0.96, y)]), closed=False, weight=0.7)
    else:
        under = Part(ring((0.5, y - 0.01), (0.4, 0.035), 32), tone=0.45, weight=0.4)
    return Sketch([under, *sketch.parts])


def back_coverage(spec: FamilySpec, obj: str, w: int, h: int) -> np.ndarray:
    """Ink coverage (float32 h x w, 0..1) of a back showing ``obj`` in ``spec``'s frame and
    line work. The same object in the same family gives the same picture."""
    W, H = w * SS, h * SS
    ppm = W / CARD_W_MM
    cov = np.zeros((H, W), np.float32)
    x0, y0, x1, y1 = draw_frame(cov, spec.frame, ppm)
    iw, ih = x1 - x0, y1 - y0
    rng = np.random.default_rng([spec.family, _key(obj)])
    sketch = _with_ground(sketch_object(obj, rng), spec.ground)
    cx = (x0 + x1) / 2
    if spec.double_ended:
        side = min(iw * spec.art_scale * 0.85, ih * 0.46)
        for cy, turn in ((y0 + ih * 0.27, False), (y0 + ih * 0.73, True)):
            s = Sketch([Part(1 - p.pts, p.closed, p.tone, p.weight, p.hole) for p in sketch.parts])
            box = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
            ink_sketch(s if turn else sketch, cov, box, spec.linework, rng)
    else:
        side = min(iw * spec.art_scale, ih * 0.9)
        cy = (y0 + y1) / 2 + spec.art_dy * ih
        ink_sketch(
            sketch,
            cov,
            (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2),
            spec.linework,
            rng,
        )
    return cv2.resize(cov, (w, h), interpolation=cv2.INTER_AREA)


def print_back(
    spec: FamilySpec, cov: np.ndarray, ink: Sequence[float], rng: np.random.Generator
) -> np.ndarray:
    """One printed card (BGR uint8) from a back's coverage: misregistration, ink spread,
    plate tone, ink and paper shade, wear."""
    h, w = cov.shape
    d = spec.defects
    ppm = w / CARD_W_MM
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.normal(0, d.tilt_deg / 2)), 1.0)
    m[:, 2] += rng.normal(0, d.offset_mm / 2, 2) * ppm
    c = cv2.warpAffine(cov, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    if d.spread_px > 0.2:
        c = cv2.GaussianBlur(c, (0, 0), d.spread_px)
    if d.plate_tone > 0:
        c = np.maximum(c, np.float32(d.plate_tone * rng.uniform(0.7, 1.2)))
    ink_bgr = np.clip(
        np.array(ink, np.float32) * rng.uniform(0.92, 1.06) + rng.normal(0, 5, 3), 0, 255
    )
    paper = np.clip(np.array(spec.paper, np.float32) * rng.uniform(0.97, 1.02), 0, 255)
    wear = d.wear * float(rng.uniform(0, 1) ** 1.5)
    return scuff_edges(print_ink(c, ink_bgr, paper, rng, wear), rng, wear)


class FamilyStyle:
    """The art style ``family:<N>`` (see :class:`vision.synth.art.ArtStyle`)."""

    def __init__(self, family: int) -> None:
        self.spec = make_family(family)
        self._covs: dict[tuple[str, int, int], np.ndarray] = {}
        self._faces: dict[tuple[str, int, int], np.ndarray] = {}

    def coverage(self, deck: str, w: int, h: int) -> np.ndarray:
        obj = self.spec.objects[deck]
        if (obj, w, h) not in self._covs:
            self._covs[(obj, w, h)] = back_coverage(self.spec, obj, w, h)
        return self._covs[(obj, w, h)]

    def draw_back(self, deck: str, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        return print_back(self.spec, self.coverage(deck, w, h), self.spec.inks[deck], rng)

    def picture(self, color: str, w: int, h: int) -> np.ndarray:
        """The value-free picture of this family's ``color`` faces (float32 BGR)."""
        if (color, w, h) not in self._faces:
            pic_rng = np.random.default_rng([self.spec.family, _key("face", color)])
            paper = np.array(self.spec.paper, np.float32)
            self._faces[(color, w, h)] = face_picture(self.spec.face, color, paper, pic_rng, w, h)
        return self._faces[(color, w, h)]

    def draw_face(
        self, color: str, value: int, rng: np.random.Generator, w: int, h: int
    ) -> np.ndarray:
        return print_face(self.picture(color, w, h), self.spec.face, color, value, rng)

    def draw_random_card(self, rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        """A card of no deck: random art, or the back of a foreign deck (an object this
        family does not use, never a held-out one, in another family's printing)."""
        if rng.random() < 0.5:
            return draw_foreign_art(rng, w, h)
        own = set(self.spec.objects.values())
        obj = str(rng.choice([o for o in TRAIN_OBJECTS if o not in own]))
        other = make_family(int(rng.integers(0, 1_000_000)))
        ink = other.inks[ALL_DECKS[int(rng.integers(len(ALL_DECKS)))]]
        return print_back(other, back_coverage(other, obj, w, h), ink, rng)


_ALPHA: dict[tuple[int, int], np.ndarray] = {}


def _alpha(w: int, h: int) -> np.ndarray:
    if (w, h) not in _ALPHA:
        _ALPHA[(w, h)] = card_alpha(w, h, CORNER_RADIUS_MM * ART_PX_PER_MM)
    return _ALPHA[(w, h)]


class FamilyPool:
    """The textures of one scene, drawn on first use: only the decks, faces and foreign
    cards the scene shows, so a fresh family per scene costs a few milliseconds per card
    kind instead of a whole pool. Each texture's rng depends on ``key`` (the scene) and the
    card kind only, not on the order in which the scene asks for them."""

    def __init__(self, style: FamilyStyle, key: Sequence[int]) -> None:
        self.style = style
        self.key = [int(k) for k in key]
        self._tex: dict[tuple[object, ...], Texture] = {}
        self._worn: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    @property
    def family(self) -> int:
        return self.style.spec.family

    def _get(
        self, name: tuple[object, ...], draw: Callable[[np.random.Generator], np.ndarray]
    ) -> Texture:
        if name not in self._tex:
            rng = np.random.default_rng([*self.key, _key(*name)])
            self._tex[name] = make_texture(draw(rng), _alpha(CARD_W_PX, CARD_H_PX))
        return self._tex[name]

    def back(self, deck: str, rng: np.random.Generator) -> Texture:
        return self._get(
            ("back", deck), lambda r: self.style.draw_back(deck, r, CARD_W_PX, CARD_H_PX)
        )

    def face(self, color: str, value: int, rng: np.random.Generator) -> Texture:
        # One worn print per colour and scene, numbered per value: a pile scene shows up
        # to forty faces, most of them under others, so they share their wear.
        if color not in FACE_COLORS:
            raise ValueError(f"unknown face colour {color!r}")
        if color not in self._worn:
            r = np.random.default_rng([*self.key, _key("wear", color)])
            self._worn[color] = wear_face(self.style.picture(color, CARD_W_PX, CARD_H_PX), r)
        worn, fade = self._worn[color]
        spec = self.style.spec.face
        return self._get(
            ("face", color, value), lambda _: number_face(worn, fade, spec, color, value)
        )

    def random(self, k: int) -> Texture:
        return self._get(
            ("random", k), lambda r: self.style.draw_random_card(r, CARD_W_PX, CARD_H_PX)
        )
