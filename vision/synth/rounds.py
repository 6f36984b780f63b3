"""A small rules-accurate Dutch Blitz round simulator, to draw realistic end-of-round counts.

Each player holds a 40-card deck: a 10-card Blitz pile, three Post piles and the rest in hand,
turned three at a time onto the Wood pile. Everyone plays at once onto shared Dutch piles
(one colour each, 1 up to 10). Post piles build down, alternating boy (red, blue) and girl
(green, yellow). The round ends when a player empties their Blitz pile. Players differ in
speed, so some play more cards than others; "playing at once" is modelled as ticks in which
each player acts with a probability equal to their speed, in a random order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.synth.decks import BOY_COLORS, FACE_COLORS

Card = tuple[str, int, str]  # (colour, value, owner deck)


@dataclass(frozen=True)
class DutchPile:
    """One shared pile: its colour and the owner deck of each card, from 1 up to the top."""

    color: str
    owners: tuple[str, ...]

    @property
    def top(self) -> int:
        """The top value, which is also the number of cards."""
        return len(self.owners)


@dataclass(frozen=True)
class RoundOutcome:
    """End of a round: per playing deck, cards on the Dutch piles and cards left in Blitz."""

    decks: tuple[str, ...]
    dutch: dict[str, int]
    blitz: dict[str, int]
    piles: tuple[DutchPile, ...]

    def to_json(self) -> dict[str, object]:
        """The outcome as the truth JSON's ``round`` field."""
        return {
            "players": list(self.decks),
            "dutch": dict(self.dutch),
            "blitz": dict(self.blitz),
            "piles": [
                {"color": p.color, "top": p.top, "owners": list(p.owners)} for p in self.piles
            ],
        }


@dataclass
class _Player:
    deck: str
    speed: float
    blitz: list[Card]
    posts: list[list[Card]]
    hand: list[Card]
    wood: list[Card] = field(default_factory=list)
    played: int = 0


def _is_boy(color: str) -> bool:
    return color in BOY_COLORS


def _fits_post(card: Card, post: list[Card]) -> bool:
    if not post:
        return True
    top = post[-1]
    return card[1] == top[1] - 1 and _is_boy(card[0]) != _is_boy(top[0])


class _Dutch:
    """The shared Dutch piles, indexed by what each pile accepts next."""

    def __init__(self) -> None:
        self.piles: list[list[Card]] = []
        self.wants: dict[tuple[str, int], list[int]] = {}

    def play(self, card: Card) -> bool:
        """Put ``card`` on a pile that takes it (a 1 starts a new pile); False if none does."""
        if card[1] == 1:
            self.piles.append([card])
            i = len(self.piles) - 1
        else:
            waiting = self.wants.get((card[0], card[1]))
            if not waiting:
                return False
            i = waiting.pop(0)
            self.piles[i].append(card)
        if card[1] < 10:
            self.wants.setdefault((card[0], card[1] + 1), []).append(i)
        return True


def _deal(deck: str, rng: np.random.Generator, speed: float) -> _Player:
    cards: list[Card] = [(c, v, deck) for c in FACE_COLORS for v in range(1, 11)]
    order = rng.permutation(len(cards))
    cards = [cards[k] for k in order]
    return _Player(
        deck, speed, blitz=cards[:10], posts=[[c] for c in cards[10:13]], hand=cards[13:]
    )


def _act(p: _Player, dutch: _Dutch, rng: np.random.Generator) -> bool:
    """One action of one player, greedy as real players are. Returns False if stuck."""
    sources: list[list[Card]] = [p.blitz, *p.posts]
    if p.wood:
        sources.append(p.wood)
    # 1. anything onto the Dutch piles (Blitz first: emptying it ends the round).
    for src in sources:
        if src and dutch.play(src[-1]):
            src.pop()
            p.played += 1
            _refill_posts(p)
            return True
    # 2. Blitz or Wood onto a Post pile.
    for src in (p.blitz, p.wood):
        if src:
            for post in p.posts:
                if post and _fits_post(src[-1], post):
                    post.append(src.pop())
                    _refill_posts(p)
                    return True
    # 3. turn three more cards from the hand; turn the Wood pile over when the hand is empty.
    if p.hand:
        take = min(3, len(p.hand))
        for _ in range(take):
            p.wood.append(p.hand.pop(0))
        return True
    if p.wood:
        p.hand = p.wood
        p.wood = []
        # Real players lose track of order; a cut keeps the game from cycling forever.
        cut = int(rng.integers(0, len(p.hand)))
        p.hand = p.hand[cut:] + p.hand[:cut]
        return False
    return False


def _refill_posts(p: _Player) -> None:
    for post in p.posts:
        if not post and p.blitz:
            post.append(p.blitz.pop())


def simulate_round(
    decks: tuple[str, ...], rng: np.random.Generator, max_ticks: int = 4000
) -> RoundOutcome:
    """Play one round between the given decks and return what is left to count.

    Invariants of the result: Dutch 0..40 and Blitz 0..10 per deck, Dutch + Blitz <= 40, at
    least one deck with Blitz 0, and the Dutch cards add up to the sum of the pile tops.
    """
    if not 2 <= len(decks) <= 8:
        raise ValueError("a round needs 2 to 8 decks")
    n = len(decks)
    for _attempt in range(20):
        speeds = rng.uniform(0.35, 1.0, size=n)
        players = [_deal(d, rng, float(s)) for d, s in zip(decks, speeds, strict=True)]
        dutch = _Dutch()
        finished = False
        tick = 0
        while not finished and tick < max_ticks:
            # randomness drawn in batches: who is quick enough this tick, and in which order
            acts = rng.random((256, n)) < speeds
            orders = np.argsort(rng.random((256, n)), axis=1)
            for t in range(256):
                for k in orders[t]:
                    if not acts[t, k]:
                        continue
                    p = players[k]
                    _act(p, dutch, rng)
                    if not p.blitz:
                        finished = True
                        break
                if finished:
                    break
            tick += 256
        if finished:
            return RoundOutcome(
                decks=tuple(decks),
                dutch={p.deck: p.played for p in players},
                blitz={p.deck: len(p.blitz) for p in players},
                piles=tuple(
                    DutchPile(pile[0][0], tuple(c[2] for c in pile)) for pile in dutch.piles
                ),
            )
    raise RuntimeError("round simulation did not finish")
