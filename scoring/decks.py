"""The decks of Dutch Blitz, told apart only by the etching on their backs.

The classic box has four decks (green pump, red carriage, blue plow, yellow pail); the
5-8 player expansion pack swaps the inks of the same four objects. With the expansion,
a deck is the pair (object, ink).
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.errors import RuleError


@dataclass(frozen=True)
class Deck:
    """One deck: ``id`` is the stable key used in files, JSON and on the command line."""

    id: str
    object: str
    ink: str
    expansion: bool

    @property
    def display(self) -> str:
        """Name a player understands, e.g. ``"green pump"``."""
        return f"{self.ink} {self.object}"


CLASSIC: tuple[Deck, ...] = (
    Deck("pump", "pump", "green", False),
    Deck("carriage", "carriage", "red", False),
    Deck("plow", "plow", "blue", False),
    Deck("pail", "pail", "yellow", False),
)
EXPANSION: tuple[Deck, ...] = (
    Deck("blue-pump", "pump", "blue", True),
    Deck("red-plow", "plow", "red", True),
    Deck("yellow-carriage", "carriage", "yellow", True),
    Deck("green-pail", "pail", "green", True),
)
DECKS: tuple[Deck, ...] = CLASSIC + EXPANSION
DECK_IDS: tuple[str, ...] = tuple(d.id for d in DECKS)

# What players call the same objects at the table.
_OBJECT_ALIASES = {"buggy": "carriage", "wagon": "carriage", "bucket": "pail", "plough": "plow"}


def _key(text: str) -> str:
    return " ".join(text.strip().lower().replace("-", " ").replace("_", " ").split())


def _build_index() -> dict[str, Deck]:
    index: dict[str, Deck] = {}
    for deck in DECKS:
        index[_key(deck.id)] = deck
        index[_key(deck.display)] = deck
    for alias, obj in _OBJECT_ALIASES.items():
        for deck in DECKS:
            if deck.object == obj:
                index.setdefault(_key(f"{deck.ink} {alias}"), deck)
                if not deck.expansion:
                    index.setdefault(alias, deck)
    return index


_INDEX = _build_index()


def deck_by_name(name: str) -> Deck:
    """Find a deck by id, display name or table nickname (``"buggy"``, ``"blue pump"``).

    Raises ``RuleError`` naming the known decks when nothing matches.
    """
    deck = _INDEX.get(_key(name))
    if deck is None:
        known = ", ".join(DECK_IDS)
        raise RuleError(f"unknown deck {name!r}; known decks: {known}")
    return deck
