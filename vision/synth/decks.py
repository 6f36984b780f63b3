"""Deck ids, inks and card geometry shared by the whole synthetic pipeline."""

from __future__ import annotations

# Deck id -> (object drawn on the back, ink name). Classic box first, then the expansion swap.
DECK_ART: dict[str, tuple[str, str]] = {
    "pump": ("pump", "green"),
    "carriage": ("carriage", "red"),
    "plow": ("plow", "blue"),
    "pail": ("pail", "yellow"),
    "blue-pump": ("pump", "blue"),
    "red-plow": ("plow", "red"),
    "yellow-carriage": ("carriage", "yellow"),
    "green-pail": ("pail", "green"),
}
CLASSIC_DECKS: tuple[str, ...] = ("pump", "carriage", "plow", "pail")
ALL_DECKS: tuple[str, ...] = tuple(DECK_ART)
DISPLAY_NAMES: dict[str, str] = {deck: f"{ink} {obj}" for deck, (obj, ink) in DECK_ART.items()}

FACE_COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow")
FACE_VALUES: tuple[int, ...] = tuple(range(1, 11))
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
