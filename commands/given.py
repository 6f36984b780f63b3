"""Players' counts given by hand in the live window: ``e`` picks a player's Dutch or Blitz
count (each press the next), digits type it, Backspace takes a digit back and Enter gives
it; the round commits them as ``score --fix-dutch`` / ``--fix-blitz`` commit theirs."""

from __future__ import annotations

from collections.abc import Callable

from commands.taken import Reply
from scoring.errors import TalleroError
from scoring.rules import BLITZ_PILE_SIZE, DECK_SIZE

ENTER_KEYS = ("\r", "\n")
BACK_KEYS = ("\b", "\x7f")  # Backspace, and Delete where a keyboard sends it for Backspace

Seats = Callable[[], tuple[tuple[str, str], ...]]  # the game's (player, deck), seat order
Counted = Callable[[str, str], int]  # (Dutch or Blitz, deck) -> what the camera counted


def counts_text(counts: dict[str, int]) -> str:
    """``Ann 5, Ben 3``."""
    return ", ".join(f"{player} {n}" for player, n in counts.items())


class GivenCounts:
    """The counts given so far (``counts``: Dutch or Blitz -> player -> count), and the one
    being typed: its place among `targets` (``editing``) and the digits (``typed``).

    Args:
        seats: the game's players and decks (raises `TalleroError` without a game).
    """

    def __init__(self, seats: Seats) -> None:
        self.seats = seats
        self.counts: dict[str, dict[str, int]] = {"Dutch": {}, "Blitz": {}}
        self.editing: int | None = None
        self.typed = ""

    def lines(self) -> list[str]:
        """The counts given, for the panel (``Dutch given: Ben 4``)."""
        return [f"{label} given: {counts_text(c)}" for label, c in self.counts.items() if c]

    def clear(self, label: str | None = None) -> None:
        """Drop the counts given of ``label`` (both without one): taken again, or committed."""
        for name in (label,) if label else ("Dutch", "Blitz"):
            self.counts[name] = {}

    def stop(self) -> None:
        """Give up the count being typed."""
        self.editing, self.typed = None, ""

    def targets(self, dutch_taken: bool) -> list[tuple[str, str, str]]:
        """The counts ``e`` steps through: (Dutch or Blitz, player, deck); the Dutch ones
        once the Dutch count is taken, the Blitz ones always (no Blitz photo: 0 each)."""
        seats = self.seats()
        dutch = [("Dutch", p, d) for p, d in seats] if dutch_taken else []
        return dutch + [("Blitz", p, d) for p, d in seats]

    def next(self, dutch_taken: bool, counted: Counted) -> Reply:
        """Key ``e``: the next player's count that digits and Enter will give."""
        try:
            targets = self.targets(dutch_taken)
        except TalleroError as exc:
            return Reply(str(exc), error=True)
        self.editing = 0 if self.editing is None else (self.editing + 1) % len(targets)
        self.typed = ""
        return self._typing(targets, counted)

    def _typing(self, targets: list[tuple[str, str, str]], counted: Counted) -> Reply:
        """The panel's line while a count is being typed."""
        assert self.editing is not None
        label, player, deck = targets[self.editing]
        now = self.counts[label].get(player)
        was = f"counted {counted(label, deck)}" + (f", given {now}" if now is not None else "")
        typed = self.typed or "_"
        return Reply(f"{player} {label} ({was}): {typed}; Enter sets it, e: the next count")

    def key(self, key: str, dutch_taken: bool, counted: Counted, total: int | None) -> Reply:
        """A digit, Backspace or Enter while a count is being typed. ``total``: the Dutch
        piles' total where every top is known: a Dutch count given that leaves the Dutch
        counts off it says so (a count given by hand answers the round's questions)."""
        assert self.editing is not None
        targets = self.targets(dutch_taken)
        if key in BACK_KEYS:
            self.typed = self.typed[:-1]
            return self._typing(targets, counted)
        if key.isdigit():
            self.typed = (self.typed + key)[-2:]  # at most 40 cards: two digits
            return self._typing(targets, counted)
        label, player, _ = targets[self.editing]
        if not self.typed:
            return Reply(f"type {player}'s {label} count first (digits, then Enter)", True)
        n, most = int(self.typed), DECK_SIZE if label == "Dutch" else BLITZ_PILE_SIZE
        if n > most:
            self.typed = ""
            return Reply(f"{player}'s {label} count is 0 to {most}, not {n}: type it again", True)
        self.counts[label][player] = n
        self.stop()
        if label == "Dutch" and total is not None:
            dutch = sum(self.counts["Dutch"].get(p, counted("Dutch", d)) for p, d in self.seats())
            if dutch != total:
                return Reply(
                    f"{player} Dutch {n} given; the Dutch counts make {dutch}, "
                    f"the piles {total}: c commits them so",
                    error=True,
                )
        return Reply(f"{player} {label} {n} given; c commits it")
