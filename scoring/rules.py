"""How one round of Dutch Blitz is scored, and what counts are possible at all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.errors import RuleError

DECK_SIZE = 40
BLITZ_PILE_SIZE = 10
DUTCH_CARD_POINTS = 1
BLITZ_CARD_PENALTY = 2


@dataclass(frozen=True)
class PlayerCount:
    """One player's cards at the end of a round."""

    dutch: int
    blitz: int

    def __post_init__(self) -> None:
        for name, value, top in (
            ("Dutch", self.dutch, DECK_SIZE),
            ("Blitz", self.blitz, BLITZ_PILE_SIZE),
        ):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RuleError(f"{name} count {value!r} is not a whole number")
            if not 0 <= value <= top:
                raise RuleError(f"{name} count {value} is outside 0..{top}")
        if self.dutch + self.blitz > DECK_SIZE:
            raise RuleError(
                f"Dutch {self.dutch} + Blitz {self.blitz} = {self.dutch + self.blitz} "
                f"is more than the {DECK_SIZE} cards of a deck"
            )

    @property
    def points(self) -> int:
        """Round points: +1 per card in the Dutch piles, -2 per card left in the Blitz pile."""
        return DUTCH_CARD_POINTS * self.dutch - BLITZ_CARD_PENALTY * self.blitz


@dataclass(frozen=True)
class RoundCounts:
    """Every player's counts for one round, in seat order."""

    counts: tuple[tuple[str, PlayerCount], ...]

    def __getitem__(self, player: str) -> PlayerCount:
        for name, count in self.counts:
            if name == player:
                return count
        raise KeyError(player)

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.counts)

    @property
    def points(self) -> dict[str, int]:
        return {name: count.points for name, count in self.counts}


def build_round(
    players: Sequence[str], dutch: Mapping[str, int], blitz: Mapping[str, int]
) -> RoundCounts:
    """Check the counts of one round against the players of a game.

    Every player must appear in both mappings and no one else may. Raises ``RuleError``
    for anything the rules forbid; nothing is ever partially accepted.
    """
    for label, given in (("Dutch", dutch), ("Blitz", blitz)):
        unknown = [name for name in given if name not in players]
        if unknown:
            raise RuleError(
                f"unknown player {unknown[0]!r} in the {label} counts; "
                f"players are {', '.join(players)}"
            )
        missing = [name for name in players if name not in given]
        if missing:
            raise RuleError(f"{label} count missing for {', '.join(missing)}")
    counts: list[tuple[str, PlayerCount]] = []
    for name in players:
        try:
            counts.append((name, PlayerCount(dutch[name], blitz[name])))
        except RuleError as exc:
            raise RuleError(f"{name}: {exc}") from None
    return RoundCounts(tuple(counts))


def round_warnings(counts: RoundCounts) -> list[str]:
    """Results that are possible only by mistake; they need an explicit ``--force``."""
    warnings = []
    if all(count.blitz > 0 for _, count in counts.counts):
        warnings.append("nobody has 0 Blitz cards left, but someone must have called Blitz")
    if all(count.dutch == 0 for _, count in counts.counts):
        warnings.append("every player has 0 Dutch cards")
    return warnings
