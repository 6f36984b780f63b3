"""Settling the Dutch counts with the piles' exact total.

Before the sort, a photo of the Dutch piles gives the exact number of Dutch cards in the
round (a pile whose top is k holds k cards, a finished pile turned face down 10). Where the
camera is unsure of a player's count it gives a range (`PhotoRound.ranges`). Of all the
counts within those ranges, the ones that add up to the piles' total are the only ones
possible: when exactly one combination fits, that is the round.

When several fit and the counts as seen do not reach the total, the counts shown are the
fit nearest (least squares) to where the Dutch photo's doubts put each count
(`Tally.expected`), if exactly one is nearest: the round still asks for a look, but what
it shows at least agrees with the piles.

The rules settle one Blitz count the same way: a round ends when a player empties their
Blitz pile, so where nobody's Blitz count is 0 and only one player's range reaches 0, that
player called Blitz (`blitz_caller`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# At most this many fitting combinations are listed (how many there are is always said).
MAX_LISTED = 6


@dataclass(frozen=True)
class Settlement:
    """What the piles' total says of the Dutch counts.

    Attributes:
        total: the Dutch cards on the piles.
        before: player -> Dutch cards as counted.
        fits: the combinations within the ranges that add up to ``total`` (player -> cards),
            at most ``MAX_LISTED + 1`` of them, the likeliest first.
        more: whether there are more fits than ``fits`` holds.
        likeliest: the fit nearest to where the photo's doubts put each count, if exactly
            one is nearest (`nearest_fit`).
        reach: the least and most Dutch cards the counts' ranges add up to.
    """

    total: int
    before: dict[str, int]
    fits: tuple[dict[str, int], ...]
    more: bool = False
    likeliest: dict[str, int] | None = None
    reach: tuple[int, int] | None = None

    @property
    def shown(self) -> dict[str, int] | None:
        """Not settled: the counts to show instead of the counts as seen, which do not reach
        the total: the one fit nearest to where the photo's doubts put each count (None:
        none fits, two are as near, or the counts as seen reach the total)."""
        if self.settled is not None or sum(self.before.values()) == self.total:
            return None
        return dict(self.likeliest) if self.likeliest is not None else None

    @property
    def settled(self) -> dict[str, int] | None:
        """The one combination that fits, or None (none, or several)."""
        return dict(self.fits[0]) if len(self.fits) == 1 and not self.more else None

    @property
    def changed(self) -> dict[str, tuple[int, int]]:
        """Settled only: player -> (counted, settled) for each count the total changed."""
        s = self.settled or {}
        return {p: (self.before[p], n) for p, n in s.items() if n != self.before[p]}

    @property
    def players_to_look(self) -> tuple[str, ...]:
        """Players whose count differs between the fitting combinations."""
        if len(self.fits) < 2:
            return ()
        return tuple(p for p in self.before if len({f[p] for f in self.fits}) > 1)

    def choices(self) -> tuple[dict[str, int], ...]:
        """Not settled, several fitting: the fits listed (at most ``MAX_LISTED``, the
        likeliest first), each as the counts of `players_to_look` alone, for a person to
        choose from; empty otherwise."""
        if self.settled is not None:
            return ()
        look = self.players_to_look
        return tuple({p: f[p] for p in look} for f in self.fits[:MAX_LISTED])

    def note(self) -> str:
        """One line for the evidence and the report."""
        before = ", ".join(f"{p} {n}" for p, n in self.before.items())
        if self.settled is not None:
            if not self.changed:
                return (
                    f"the Dutch piles' total {self.total} settled the Dutch counts as counted "
                    f"(the only counts within the ranges that reach it; counted: {before})"
                )
            moved = ", ".join(f"{p} {a} -> {b}" for p, (a, b) in self.changed.items())
            return (
                f"the Dutch piles' total {self.total} settled the Dutch counts: {moved} "
                f"(counted before: {before})"
            )
        if not self.fits:
            return (
                f"no Dutch counts within the counts' ranges add up to the piles' total "
                f"{self.total} (counted: {before}): a card may be missed, counted twice or "
                "lie in the wrong photo"
                + (f" (the ranges reach {self.reach[0]} to {self.reach[1]})" if self.reach else "")
            )
        listed = "; ".join(
            ", ".join(f"{p} {n}" for p, n in f.items() if p in self.players_to_look)
            for f in self.fits[:MAX_LISTED]
        )
        n = f"more than {MAX_LISTED}" if len(self.fits) > MAX_LISTED else str(len(self.fits))
        shown = ""
        if self.shown is not None:
            picked = ", ".join(f"{p} {self.shown[p]}" for p in self.players_to_look)
            counted = ", ".join(f"{p} {self.before[p]}" for p in self.players_to_look)
            shown = f"; shown: {picked}, the likeliest by the photo's doubts (counted: {counted})"
        return (
            f"{n} ways to reach the Dutch piles' total {self.total}: {listed}{shown}; look at "
            f"{', '.join(self.players_to_look)}"
        )


def settle_dutch(
    total: int,
    dutch: Mapping[str, int],
    ranges: Mapping[str, tuple[int, int]],
    expected: Mapping[str, float] | None = None,
) -> Settlement:
    """Every combination of Dutch counts within the players' ranges that adds up to
    ``total`` (the players without a range keep their count), up to ``MAX_LISTED + 1``,
    and the one nearest to ``expected`` (`nearest_fit`).

    ``dutch``: player -> cards counted; ``ranges``: player -> (low, high), for the players
    whose count could be off (a range always includes the count); ``expected``: player ->
    where the photo's doubts put the count (the count itself where missing).
    """
    players = list(dutch)
    spans = []
    for p in players:
        lo, hi = ranges.get(p, (dutch[p], dutch[p]))
        spans.append((min(lo, dutch[p]), max(hi, dutch[p])))
    # the least and most the players after position k can add
    low_after = [0] * (len(spans) + 1)
    high_after = [0] * (len(spans) + 1)
    for k in range(len(spans) - 1, -1, -1):
        low_after[k] = low_after[k + 1] + spans[k][0]
        high_after[k] = high_after[k + 1] + spans[k][1]
    fits: list[dict[str, int]] = []
    chosen: list[int] = []

    def walk(k: int, left: int) -> bool:
        """Fill ``fits``; False once more than ``MAX_LISTED`` were found."""
        if not low_after[k] <= left <= high_after[k]:
            return True
        if k == len(spans):
            fits.append(dict(zip(players, chosen, strict=True)))
            return len(fits) <= MAX_LISTED
        # the count as seen first, then outwards from it: the likeliest fits are listed first
        lo, hi = spans[k]
        own = dutch[players[k]]
        order = sorted(range(lo, hi + 1), key=lambda n: (abs(n - own), n))
        for n in order:
            chosen.append(n)
            go_on = walk(k + 1, left - n)
            chosen.pop()
            if not go_on:
                return False
        return True

    complete = walk(0, total)
    near = expected or {}
    likeliest = nearest_fit(
        total, dict(zip(players, spans, strict=True)), {p: near.get(p, dutch[p]) for p in players}
    )
    listed = tuple(fits)
    if likeliest is not None:
        # listed first; where the walk stopped before reaching it, in place of its last fit
        others = [f for f in listed if f != likeliest]
        listed = (likeliest, *others[: MAX_LISTED if len(others) == len(listed) else None])
    return Settlement(
        total,
        dict(dutch),
        listed,
        more=not complete,
        likeliest=likeliest,
        reach=(low_after[0], high_after[0]),
    )


def nearest_fit(
    total: int, spans: Mapping[str, tuple[int, int]], expected: Mapping[str, float]
) -> dict[str, int] | None:
    """The combination of counts within ``spans`` (player -> (low, high)) that adds up to
    ``total`` with the least sum of squared distances to ``expected``; None where none
    fits or two are as near."""
    # sum so far -> (cost, counts chosen, how many combinations reach that cost)
    best: dict[int, tuple[float, tuple[int, ...], int]] = {0: (0.0, (), 1)}
    for player, (lo, hi) in spans.items():
        step: dict[int, tuple[float, tuple[int, ...], int]] = {}
        for reached, (cost, chosen, ways) in best.items():
            for n in range(lo, min(hi, total - reached) + 1):
                c = cost + (n - expected[player]) ** 2
                old = step.get(reached + n)
                if old is None or c < old[0] - 1e-9:
                    step[reached + n] = (c, (*chosen, n), ways)
                elif c <= old[0] + 1e-9:
                    step[reached + n] = (old[0], old[1], old[2] + ways)
        best = step
    if total not in best or best[total][2] > 1:
        return None
    return dict(zip(spans, best[total][1], strict=True))


def blitz_caller(blitz: Mapping[str, int], ranges: Mapping[str, tuple[int, int]]) -> str | None:
    """The player who must have called Blitz where nobody's Blitz count is 0: the one whose
    range (player -> (low, high)) reaches 0, if exactly one does (a round ends when a player
    empties their Blitz pile)."""
    if not blitz or min(blitz.values()) == 0:
        return None
    reach = [p for p in blitz if ranges.get(p, (blitz[p], blitz[p]))[0] == 0]
    return reach[0] if len(reach) == 1 else None
