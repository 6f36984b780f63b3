"""Deck ids, inks and card geometry shared by the whole synthetic pipeline."""

from __future__ import annotations

from scoring.decks import CLASSIC, DECK_IDS, DECKS
from scoring.decks import FACE_COLORS as FACE_COLORS  # the scene code reads them here
from scoring.decks import FACE_VALUES as FACE_VALUES

# The catalogue is the game's (scoring/decks.py); the art draws each deck's object in its ink.
DECK_ART: dict[str, tuple[str, str]] = {d.id: (d.object, d.ink) for d in DECKS}
CLASSIC_DECKS: tuple[str, ...] = tuple(d.id for d in CLASSIC)
ALL_DECKS: tuple[str, ...] = DECK_IDS
DISPLAY_NAMES: dict[str, str] = {d.id: d.display for d in DECKS}

# Standard deck: a boy on red and blue, a girl on green and yellow.
BOY_COLORS: frozenset[str] = frozenset({"red", "blue"})

# Real card proportions (poker-like Dutch Blitz cards), millimetres.
CARD_W_MM = 56.0
CARD_H_MM = 87.0
CORNER_RADIUS_MM = 3.5

# Pixels per millimetre of the pre-rendered art (textures are CARD_W_PX x CARD_H_PX).
ART_PX_PER_MM = 3.0
CARD_W_PX = int(round(CARD_W_MM * ART_PX_PER_MM))
CARD_H_PX = int(round(CARD_H_MM * ART_PX_PER_MM))

# Ink colours as BGR, base shades; the art jitters around them.
INK_BGR: dict[str, tuple[int, int, int]] = {
    "green": (70, 120, 30),
    "red": (40, 35, 185),
    "blue": (150, 70, 25),
    "yellow": (20, 165, 215),
}
# Face card background colours, BGR.
FACE_BGR: dict[str, tuple[int, int, int]] = {
    "red": (45, 40, 200),
    "blue": (175, 95, 30),
    "green": (70, 150, 40),
    "yellow": (30, 200, 240),
}


def profile_decks(n_decks: int) -> tuple[str, ...]:
    """The decks of a scene profile: the classic four (``4``) or all eight (``8``)."""
    if n_decks == 4:
        return CLASSIC_DECKS
    if n_decks == 8:
        return ALL_DECKS
    raise ValueError(f"decks must be 4 or 8, not {n_decks}")
