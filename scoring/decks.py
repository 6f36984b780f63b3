"""The decks of Dutch Blitz, told apart only by the etching on their backs.

The classic box has four decks (green pump, red carriage, blue plow, yellow pail); the
5-8 player expansion pack swaps the inks of the same four objects. With the expansion,
a deck is the pair (object, ink).
"""

from __future__ import annotations

from collections.abc import Collection
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
        """Name a player understands, e.g. ``"green pump"`` (an enrolled deck: its name)."""
        return f"{self.ink} {self.object}" if self.ink else self.object


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

# The faces every deck carries: each colour numbered 1 to 10.
FACE_COLORS: tuple[str, ...] = ("red", "blue", "green", "yellow")
FACE_VALUES: tuple[int, ...] = tuple(range(1, 11))

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


def deck_by_name(name: str, enrolled: Collection[str] = ()) -> Deck:
    """Find a deck by id, display name or table nickname (``"buggy"``, ``"blue pump"``).

    ``enrolled`` names decks a user enrolled under names of their own; such a name is a
    deck too. Raises ``RuleError`` naming the known decks when nothing matches.
    """
    deck = _INDEX.get(_key(name))
    if deck is not None:
        return deck
    wanted = name.strip().lower()
    if wanted in {e.lower() for e in enrolled}:
        return Deck(wanted, wanted, "", False)
    known = ", ".join([*DECK_IDS, *(e for e in enrolled if _key(e) not in _INDEX)])
    raise RuleError(f"unknown deck {name!r}; known decks: {known}")
