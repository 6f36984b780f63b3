"""Deck ids, inks and card geometry shared by the whole synthetic pipeline."""

from __future__ import annotations

from scoring.decks import CLASSIC, DECK_IDS, DECKS
from scoring.decks import FACE_COLORS as FACE_COLORS  # the scene code reads them here
from scoring.decks import FACE_VALUES as FACE_VALUES
from vision.core.cards import ART_PX_PER_MM as ART_PX_PER_MM  # card geometry: core
from vision.core.cards import CARD_H_MM as CARD_H_MM
from vision.core.cards import CARD_H_PX as CARD_H_PX
from vision.core.cards import CARD_W_MM as CARD_W_MM
from vision.core.cards import CARD_W_PX as CARD_W_PX
from vision.core.cards import CORNER_RADIUS_MM as CORNER_RADIUS_MM

# The catalogue is the game's (scoring/decks.py); the art draws each deck's object in its ink.
DECK_ART: dict[str, tuple[str, str]] = {d.id: (d.object, d.ink) for d in DECKS}
CLASSIC_DECKS: tuple[str, ...] = tuple(d.id for d in CLASSIC)
ALL_DECKS: tuple[str, ...] = DECK_IDS
DISPLAY_NAMES: dict[str, str] = {d.id: d.display for d in DECKS}

# Standard deck: a boy on red and blue, a girl on green and yellow.
BOY_COLORS: frozenset[str] = frozenset({"red", "blue"})


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
