"""A game: who plays which deck, the target, and the standing after each round."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from scoring.decks import Deck
from scoring.errors import RuleError
from scoring.names import clean_text, name_key
from scoring.rules import RoundCounts

MIN_PLAYERS = 2
MAX_PLAYERS = 8
DEFAULT_TARGET = 75
MAX_TARGET = 2**63 - 1  # SQLite's largest integer
_FORBIDDEN_IN_NAMES = set("=,")


class TiePolicy(StrEnum):
    """What happens when several players share the highest total at or past the target."""

    PLAY_ON = "play-on"  # rounds continue until the tie is broken
    SHARE = "share"  # the tied leaders share the win


@dataclass(frozen=True)
class Seat:
    player: str
    deck: Deck


@dataclass(frozen=True)
class GameSetup:
    """Players bound to decks, the target and the tie policy. Validated on creation."""

    seats: tuple[Seat, ...]
    target: int = DEFAULT_TARGET
    tie: TiePolicy = TiePolicy.PLAY_ON

    def __post_init__(self) -> None:
        n = len(self.seats)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise RuleError(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {n}")
        # One spelling per name (normal form C), whatever keyboard typed it.
        seats = tuple(Seat(clean_text(s.player, "player name"), s.deck) for s in self.seats)
        object.__setattr__(self, "seats", seats)
        names = [name_key(seat.player) for seat in self.seats]
        for seat in self.seats:
            if not seat.player.strip():
                raise RuleError("a player name is empty")
            if _FORBIDDEN_IN_NAMES & set(seat.player) or seat.player != seat.player.strip():
                raise RuleError(f"player name {seat.player!r} may not contain '=' or ','")
        dupes = sorted({s.player for s in self.seats if names.count(name_key(s.player)) > 1})
        if dupes:
            raise RuleError(f"player {dupes[0]!r} appears twice")
        decks = [seat.deck.id for seat in self.seats]
        taken = sorted({d for d in decks if decks.count(d) > 1})
        if taken:
            raise RuleError(f"deck {taken[0]!r} is bound to two players; each deck is used once")
        if isinstance(self.target, bool) or not isinstance(self.target, int) or self.target < 1:
            raise RuleError(f"the target must be a positive whole number, got {self.target!r}")
        if self.target > MAX_TARGET:
            raise RuleError(f"the target must be at most {MAX_TARGET}, got {self.target}")

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(seat.player for seat in self.seats)

    def player_named(self, name: str) -> str:
        """The seated player's spelling of ``name`` (names match as read: `name_key`)."""
        for seat in self.seats:
            if name_key(seat.player) == name_key(name):
                return seat.player
        raise RuleError(f"unknown player {name!r}; players are {', '.join(self.players)}")

    def player_of_deck(self, deck_id: str) -> str | None:
        for seat in self.seats:
            if seat.deck.id == deck_id:
                return seat.player
        return None


@dataclass(frozen=True)
class Standing:
    """Totals after a sequence of rounds and whether the game is over."""

    totals: dict[str, int]
    leaders: tuple[str, ...]
    over: bool
    winners: tuple[str, ...]
    reached_target: bool

    @property
    def tied_at_target(self) -> bool:
        """Several leaders at or past the target while rounds continue (play-on)."""
        return not self.over and len(self.leaders) > 1 and self.reached_target


def standing(setup: GameSetup, rounds: Sequence[RoundCounts]) -> Standing:
    """Totals and status after ``rounds``, in order.

    The game is over once someone has reached the target and either one player has the
    highest total, or the tie policy is ``share``. Under ``play-on`` a tie for highest
    keeps the game going.
    """
    totals = {player: 0 for player in setup.players}
    for counts in rounds:
        for player, points in counts.points.items():
            totals[player] += points
    top = max(totals.values())
    leaders = tuple(p for p in setup.players if totals[p] == top)
    reached = top >= setup.target
    over = reached and (len(leaders) == 1 or setup.tie is TiePolicy.SHARE)
    return Standing(
        totals=totals,
        leaders=leaders,
        over=over,
        winners=leaders if over else (),
        reached_target=reached,
    )
