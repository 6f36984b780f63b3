"""Endless card art: a whole family of deck backs and faces drawn from one integer.

A family gives each of the eight deck ids its own object from the library
(:mod:`vision.synth.art_objects`), one line work, frame, paper, set of inks and print
defects for all of them, and one way of printing faces. Two names use it:

- ``family:<N>`` draws family ``N`` for every scene (held-out evaluation, enrollment photos);
- ``endless`` draws a fresh family for every scene, its id a hash of (dataset seed, scene).

Held out by construction: ``endless`` only ever draws ids in :data:`TRAIN_FAMILIES`; ids
from :data:`HELD_OUT_START` up are reserved for evaluation, and only they use the held-out
objects. A family only decides how a deck id looks: truth labels keep the eight deck ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.art_face_family import FaceSpec, random_face_spec
from vision.synth.art_frames import FrameSpec, random_frame
from vision.synth.art_linework import LineWork, random_linework
from vision.synth.art_objects import HELD_OUT_OBJECTS, TRAIN_OBJECTS
from vision.synth.decks import ALL_DECKS, CARD_W_MM, CARD_W_PX, DECK_ART
from vision.synth.print_effects import paper_color

FAMILY_PREFIX = "family:"
ENDLESS = "endless"
TRAIN_FAMILIES = range(0, 1_000_000)  # what ``endless`` draws from
HELD_OUT_START = 10_000_000  # family ids from here up are held out; endless never draws them
MAX_FAMILY = 2**31 - 1
SS = 2  # supersampling of the drawing canvas
PPM = CARD_W_PX * SS / CARD_W_MM  # canvas px per card mm

# ink name -> OpenCV HSV ranges (hue 0..180) a printer's shade of that ink is drawn from
_INK_HSV: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    "green": ((38, 88), (120, 255), (70, 170)),
    "red": ((-8, 7), (150, 255), (120, 215)),
    "blue": ((98, 124), (140, 255), (80, 190)),
    "yellow": ((14, 28), (190, 255), (175, 230)),
}


def is_held_out(family: int) -> bool:
    """Whether ``family`` is reserved for evaluation (never drawn by ``endless``)."""
    return family >= HELD_OUT_START


def check_family(family: int) -> None:
    """ValueError unless ``family`` is a training or a held-out id."""
    if family in TRAIN_FAMILIES or HELD_OUT_START <= family <= MAX_FAMILY:
        return
    raise ValueError(
        f"family ids are {TRAIN_FAMILIES.start}..{TRAIN_FAMILIES.stop - 1} (training) or "
        f"{HELD_OUT_START}..{MAX_FAMILY} (held out), not {family}"
    )


def parse_family(name: str) -> int:
    """The family id of a style name ``family:<N>``; ValueError for anything else."""
    if not name.startswith(FAMILY_PREFIX) or not name[len(FAMILY_PREFIX) :].isdigit():
        raise ValueError(f"a family style is named family:<N>, not {name!r}")
    family = int(name[len(FAMILY_PREFIX) :])
    check_family(family)
    return family


def endless_family(seed: int, index: int) -> int:
    """The family of scene ``index`` of an ``endless`` dataset: depends on (seed, index)
    only, and always lies in :data:`TRAIN_FAMILIES`."""
    rng = np.random.default_rng([seed, index, 0xE7D1E55])
    return int(rng.integers(TRAIN_FAMILIES.start, TRAIN_FAMILIES.stop))


@dataclass(frozen=True)
class Defects:
    """A print run's flaws; lengths in card millimetres."""

    offset_mm: float  # misregistration of the print against the cut card
    tilt_deg: float  # how crooked the print may sit
    spread_px: float  # ink spread (blur sigma at the card's texture resolution)
    plate_tone: float  # a film of ink over the whole print, coverage
    wear: float  # most wear a card of this family shows (0..1)


@dataclass(frozen=True)
class FamilySpec:
    """Everything a family decides, drawn from its id alone."""

    family: int
    objects: dict[str, str]  # deck id -> object name
    inks: dict[str, tuple[float, float, float]]  # deck id -> BGR ink
    ink_policy: str  # "classic", "paired" or "free"
    structure: str  # "eight" distinct objects, or "swap": four objects in swapped inks
    linework: LineWork
    frame: FrameSpec
    paper: tuple[float, float, float]
    art_scale: float  # picture size / inner frame width
    art_dy: float  # picture's vertical offset, fraction of the inner height
    double_ended: bool  # the picture twice, head to foot, as on playing-card backs
    ground: str  # under the object: "none", "line" or "shadow"
    defects: Defects
    face: FaceSpec


def _hsv_bgr(h: float, s: float, v: float) -> tuple[float, float, float]:
    px = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    return tuple(float(c) for c in cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0])


def _ink_of(name: str, rng: np.random.Generator) -> tuple[float, float, float]:
    (h0, h1), (s0, s1), (v0, v1) = _INK_HSV[name]
    return _hsv_bgr(rng.uniform(h0, h1), rng.uniform(s0, s1), rng.uniform(v0, v1))


def _free_inks(rng: np.random.Generator, n: int) -> list[tuple[float, float, float]]:
    """``n`` inks of well-separated hues (browns and purples included)."""
    hues = (rng.uniform(0, 180) + np.arange(n) * 180 / n + rng.normal(0, 4, n)) % 180
    rng.shuffle(hues)
    return [_hsv_bgr(hh, rng.uniform(130, 255), rng.uniform(80, 190)) for hh in hues]


def _pick_objects(rng: np.random.Generator, n: int, held_out: bool) -> list[str]:
    if not held_out:
        return [str(o) for o in rng.choice(TRAIN_OBJECTS, n, replace=False)]
    k = int(rng.integers((n + 1) // 2, n + 1))  # at least half are objects training never saw
    new = [str(o) for o in rng.choice(HELD_OUT_OBJECTS, min(k, len(HELD_OUT_OBJECTS)), False)]
    old = [str(o) for o in rng.choice(TRAIN_OBJECTS, n - len(new), replace=False)]
    out = new + old
    rng.shuffle(out)
    return out


def make_family(family: int) -> FamilySpec:
    """The spec of family ``family`` (the same on every call and machine)."""
    check_family(family)
    rng = np.random.default_rng([family, 0xFA111E5])
    structure = "swap" if rng.random() < 0.3 else "eight"
    policy = str(rng.choice(["classic", "paired", "free"], p=[0.6, 0.25, 0.15]))
    slots = ("pump", "carriage", "plow", "pail")  # the classic decks' objects, by name
    if structure == "swap":
        picked = dict(zip(slots, _pick_objects(rng, 4, is_held_out(family)), strict=True))
        objects = {d: picked[DECK_ART[d][0]] for d in ALL_DECKS}
    else:
        objects = dict(zip(ALL_DECKS, _pick_objects(rng, 8, is_held_out(family)), strict=True))
    if policy == "classic":  # the real box: each ink name one shade, shared by two decks
        shade = {name: _ink_of(name, rng) for name in _INK_HSV}
        inks = {d: shade[DECK_ART[d][1]] for d in ALL_DECKS}
    elif policy == "paired":  # four other inks, paired like the real expansion
        four = dict(zip(_INK_HSV, _free_inks(rng, 4), strict=True))
        inks = {d: four[DECK_ART[d][1]] for d in ALL_DECKS}
    else:  # eight inks of their own
        inks = dict(zip(ALL_DECKS, _free_inks(rng, 8), strict=True))
    lw = random_linework(rng, PPM)
    wear = float(rng.uniform(0.1, 0.6))
    return FamilySpec(
        family=family,
        objects=objects,
        inks=inks,
        ink_policy=policy,
        structure=structure,
        linework=lw,
        frame=random_frame(rng),
        paper=tuple(float(c) for c in paper_color(rng)),
        art_scale=float(rng.uniform(0.72, 0.95)),
        art_dy=float(rng.normal(0, 0.03)),
        double_ended=bool(rng.random() < 0.12),
        ground=str(rng.choice(["none", "line", "shadow"], p=[0.5, 0.25, 0.25])),
        defects=Defects(
            offset_mm=float(rng.uniform(0.1, 1.2)),
            tilt_deg=float(rng.uniform(0, 1.2)),
            spread_px=float(rng.uniform(0, 0.7)),
            plate_tone=float(rng.uniform(0.02, 0.05)) if rng.random() < 0.15 else 0.0,
            wear=wear,
        ),
        face=random_face_spec(rng),
    )
