"""The Dutch-pile cross-check: the cards counted must match the piles they came from.

A Dutch pile whose top card is k holds exactly k cards, and a finished pile turned face
down holds 10. So the sum of the pile tops equals the total of all players' Dutch cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scoring.errors import RuleError

FACE_DOWN = "down"
FINISHED_PILE_SIZE = 10
MAX_PILES_PER_PLAYER = 4


@dataclass(frozen=True)
class CrossCheck:
    pile_total: int
    counted_total: int
    piles: int
    max_piles: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def too_many_piles(self) -> str | None:
        """The problem of more piles than the players can make, if so."""
        if self.piles <= self.max_piles:
            return None
        players = self.max_piles // MAX_PILES_PER_PLAYER
        return f"{self.piles} Dutch piles, but {players} players can make at most {self.max_piles}"


def pile_size(top: int | str) -> int:
    """Cards in a Dutch pile from its top card (1..10) or ``"down"`` for a finished pile."""
    if isinstance(top, str):
        text = top.strip().lower()
        if text in (FACE_DOWN, "d", "x"):
            return FINISHED_PILE_SIZE
        if not (text.isascii() and text.isdigit()):  # "²" is a digit int() refuses
            raise RuleError(f"pile top {top!r} is neither 1..10 nor 'down'")
        top = int(text)
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 10:
        raise RuleError(f"pile top {top!r} is neither 1..10 nor 'down'")
    return top


def check_dutch_piles(tops: Sequence[int | str], dutch: Mapping[str, int]) -> CrossCheck:
    """Compare the Dutch piles' tops with the players' Dutch counts.

    ``tops`` holds one entry per pile (1..10, or ``"down"`` for a face-down finished pile);
    ``dutch`` maps each player to their counted Dutch cards.
    """
    pile_total = sum(pile_size(top) for top in tops)
    counted = sum(dutch.values())
    max_piles = MAX_PILES_PER_PLAYER * len(dutch)
    problems = []
    if pile_total != counted:
        problems.append(
            f"the Dutch piles hold {pile_total} cards but the players' Dutch counts add up "
            f"to {counted} ({counted - pile_total:+d})"
        )
    many = CrossCheck(pile_total, counted, len(tops), max_piles, ()).too_many_piles
    if many:
        problems.append(many)
    return CrossCheck(pile_total, counted, len(tops), max_piles, tuple(problems))
