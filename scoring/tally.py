"""From counts per deck (what the camera saw) to a round's counts per player.

A ``Tally`` is plain numbers: how many backs of each deck, how many backs matched no deck,
and which card numbers the camera is unsure of. Nothing here knows about pixels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from scoring.crosscheck import check_dutch_piles
from scoring.game import GameSetup
from scoring.rules import BLITZ_PILE_SIZE, DECK_SIZE
from scoring.settle import blitz_caller, settle_dutch


@dataclass(frozen=True)
class Tally:
    """Counts per deck id from one photo, with how sure the camera is."""

    counts: Mapping[str, int]
    unknown: int = 0
    uncertain: tuple[int, ...] = ()  # card numbers as drawn on the annotated image
    # How low and how high a deck's count could be, where it is not one number.
    ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    possible: int = 0  # places that may hold a card not counted (marked +? on the image)
    spread: int = 0  # heaps too tight to count (marked on the image)
    # No card surely found: the photo says nothing of what lies there (too dark, blurred).
    nothing_sure: bool = False
    # Where within its range each deck's count most likely lies (a fraction; the count
    # itself where missing): what chooses between counts that all fit the piles' total.
    expected: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PhotoRound:
    """A round read off photos: per-player counts and what needs a human look."""

    dutch: dict[str, int]
    blitz: dict[str, int]
    problems: tuple[str, ...] = ()
    corrections: tuple[str, ...] = field(default=())
    # "Dutch" / "Blitz" -> player -> (low, high): the players whose count could be off (as
    # the camera saw it; a count corrected by hand has none).
    ranges: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    # What the Dutch piles' total (a piles photo) said of the Dutch counts, when it settled
    # them or could not (`scoring.settle`); kept with the round's evidence.
    settled: str | None = None
    # Several Dutch counts fit the piles' total: each fit, as the counts of the players
    # whose count differs between them, the likeliest first (`Settlement.choices`), for a
    # person to choose one (the choice is a correction by hand).
    fits: tuple[dict[str, int], ...] = ()

    def shown_way(self) -> int | None:
        """Which of `fits` the counts shown are (what accepting commits), if any."""
        for k, way in enumerate(self.fits):
            if all(self.dutch.get(p) == n for p, n in way.items()):
                return k
        return None


def photo_limit(label: str) -> int:
    """The most cards of one deck a photo can hold: a deck's 40 in the Dutch photo, a Blitz
    pile's 10 in the Blitz photo."""
    return DECK_SIZE if label == "Dutch" else BLITZ_PILE_SIZE


def seat_range(tally: Tally, deck: str, label: str) -> tuple[int, int]:
    """How low and how high the count of ``deck`` in the ``label`` photo's ``tally`` could
    be, no higher than `photo_limit` unless the count itself is over it (which is a problem
    of its own)."""
    limit = photo_limit(label)
    n = int(tally.counts.get(deck, 0))
    low, high = tally.ranges.get(deck, (n, n))
    high = min(high, max(limit, n))
    return min(low, high), high


def photo_problems(setup: GameSetup, label: str, tally: Tally) -> list[tuple[str, bool]]:
    """What one photo of the round (``label`` "Dutch" or "Blitz") asks a person to look at,
    each line with whether it is a doubt about a count (which a Dutch total can answer)."""
    out: list[tuple[str, bool]] = []
    game_decks = {seat.deck.id for seat in setup.seats}
    where = f"in the {label} photo"
    for deck, n in sorted(tally.counts.items()):
        if n and deck not in game_decks:
            out.append((f"{n} card(s) of deck {deck!r} {where}, which no player uses", False))
    limit = photo_limit(label)
    for seat in setup.seats:
        n = int(tally.counts.get(seat.deck.id, 0))
        if n > limit:
            out.append(
                (f"{n} {seat.deck.display} cards {where}: more than {limit} is impossible", False)
            )
    if tally.nothing_sure:
        out.append(
            (
                f"no card surely found {where}: if cards lie there, photograph them again "
                "(more light, held still, closer)",
                True,
            )
        )
    if tally.unknown:
        out.append((f"{tally.unknown} back(s) {where} match no deck of this game", True))
    if tally.uncertain:
        ids = ", ".join(f"#{i}" for i in tally.uncertain)
        out.append((f"uncertain card(s) {where}: {ids}", True))
    if tally.spread:
        out.append(
            (
                f"{tally.spread} heap(s) {where} too tight to count: spread these cards out "
                "and take the photo again (marked on it)",
                False,
            )
        )
    if tally.possible:
        out.append(
            (f"{tally.possible} possible card(s) not counted {where} (marked +? on it)", True)
        )
    for seat in setup.seats:
        low, high = seat_range(tally, seat.deck.id, label)
        if low != high:
            n = int(tally.counts.get(seat.deck.id, 0))
            out.append(
                (
                    f"{seat.player}: {n} {label} card(s) counted, could be {low} to {high} {where}",
                    True,
                )
            )
    return out


def round_from_tallies(
    setup: GameSetup,
    dutch: Tally,
    blitz: Tally | None,
    fix_dutch: Mapping[str, int] | None = None,
    fix_blitz: Mapping[str, int] | None = None,
    piles: Sequence[int | str] | None = None,
    pile_total: int | None = None,
    unread_piles: Sequence[int] = (),
) -> PhotoRound:
    """Map each deck's count to the player who owns it, and list what looks wrong.

    Without a Blitz photo every Blitz pile counts 0 unless corrected by hand.
    ``fix_dutch`` / ``fix_blitz`` (player -> count) replace what the camera counted.
    ``piles``: the Dutch piles' top cards (``"down"`` for a finished pile), typed: their total
    is used as a photo's is, after the corrections.
    ``pile_total``: the Dutch cards on the piles, read off a photo of them. The counts within
    the players' ranges that add up to it are sought (`scoring.settle`): exactly one
    combination settles the Dutch counts: the doubts of the Dutch photo it answers give way
    to one problem asking to confirm that the photo shows every pile; several, or none, are
    a problem that names the players to look at. Where several fit and the counts as seen
    do not reach the total, the one fit nearest to the Dutch photo's expected counts
    (`Tally.expected`) is shown, if one is nearest (`scoring.settle.Settlement.shown`).
    ``unread_piles``: ids of the piles in that photo whose top was not read; with any, the
    total is not known and nothing is settled. Where nobody's Blitz count is 0 and exactly
    one player's range reaches 0, that player called Blitz: shown with 0, and asked.
    """
    problems: list[str] = []
    # doubts of the Dutch photo that a settled total answers: uncertain, unknown and
    # possible cards, and the players whose count has a range (kept in their place)
    doubts: set[int] = set()
    per_player: dict[str, dict[str, int]] = {}
    ranges: dict[str, dict[str, tuple[int, int]]] = {"Dutch": {}, "Blitz": {}}
    for label, tally in (("Dutch", dutch), ("Blitz", blitz)):
        if tally is None:
            per_player[label] = {p: 0 for p in setup.players}
            continue
        per_player[label] = {s.player: int(tally.counts.get(s.deck.id, 0)) for s in setup.seats}
        for line, doubt in photo_problems(setup, label, tally):
            if doubt and label == "Dutch":
                doubts.add(len(problems))
            problems.append(line)
        for seat in setup.seats:
            low, high = seat_range(tally, seat.deck.id, label)
            if low != high:
                ranges[label][seat.player] = (low, high)
    corrections = []
    for label, fixes in (("Dutch", fix_dutch or {}), ("Blitz", fix_blitz or {})):
        for player, n in fixes.items():
            old = per_player[label][player]
            per_player[label][player] = n
            ranges[label].pop(player, None)
            corrections.append(f"{player} {label} {old} -> {n}")
    caller = blitz_caller(per_player["Blitz"], ranges["Blitz"]) if blitz is not None else None
    if caller is not None:
        counted = per_player["Blitz"][caller]
        per_player["Blitz"][caller] = 0
        problems.append(
            f"nobody's Blitz count is 0, yet whoever called Blitz has no card left: {caller} "
            f"is the only one whose range reaches 0, so shown with 0 (counted {counted}); "
            "check the Blitz photo"
        )
    settled = None
    fits: tuple[dict[str, int], ...] = ()
    confirm = "the piles photo shows every Dutch pile"
    typed = check_dutch_piles(piles, per_player["Dutch"]) if piles is not None else None
    if pile_total is None and typed is not None:
        # Typed tops give the total as exactly as a photo of them.
        pile_total = typed.pile_total
        confirm = "the typed tops give every Dutch pile"
    if unread_piles:
        ids = ", ".join(f"#{i}" for i in unread_piles)
        problems.append(
            f"the top of Dutch pile(s) {ids} in the piles photo was not read: look at them "
            "and give their tops"
        )
    elif pile_total is not None:
        expected = {
            s.player: float(dutch.expected.get(s.deck.id, per_player["Dutch"][s.player]))
            for s in setup.seats
            if s.player in ranges["Dutch"]
        }
        settlement = settle_dutch(pile_total, per_player["Dutch"], ranges["Dutch"], expected)
        if settlement.settled is not None:
            per_player["Dutch"] = settlement.settled
            if settlement.changed or ranges["Dutch"] or doubts:
                settled = settlement.note()
                # The Dutch photo's doubts give way to the one answer, but a pile the photo
                # missed would make the total, and so the answer, wrong: a person confirms.
                problems = [p for k, p in enumerate(problems) if k not in doubts]
                problems.append(f"{settled}: check that {confirm}, then accept")
            ranges["Dutch"] = {}
        else:
            if settlement.shown is not None:
                per_player["Dutch"] = settlement.shown
            problems.append(settlement.note())
            fits = settlement.choices()
    if typed is not None and typed.too_many_piles:
        problems.append(typed.too_many_piles)
    return PhotoRound(
        per_player["Dutch"],
        per_player["Blitz"],
        tuple(problems),
        tuple(corrections),
        ranges,
        settled,
        fits,
    )
