"""What lies on the table in each kind of scene, before any camera or pixel.

A :class:`Plan` lists cards in drawing order (later on top) with their poses in table mm,
plus the Dutch piles and the simulated round they come from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.synth import layouts
from vision.synth.decks import CARD_H_MM, CARD_W_MM, FACE_COLORS, profile_decks
from vision.synth.rounds import RoundOutcome, simulate_round

KINDS = ("sorted", "blitz", "piles", "layout", "fan", "hard")
# "mixed" draws one of these per scene (never "hard": see plans_hard); "scatter" (loose
# faces and backs, 1 to 30 cards, including close-ups) only appears inside mixed.
MIXED_WEIGHTS = {"sorted": 0.36, "blitz": 0.2, "piles": 0.2, "layout": 0.1, "scatter": 0.14}


@dataclass
class CardSpec:
    """One card on the table: what it shows and where it lies."""

    side: str  # "back" | "face"
    deck: str | None
    random_art: bool
    art_key: int  # which random picture, for random-art cards
    color: str | None
    value: int | None
    pose: np.ndarray  # (x_mm, y_mm, angle_rad)
    pile: int | None = None
    elevation: float = 1.0  # how far the card floats above what it lies on (shadow size)


@dataclass
class PileSpec:
    """One Dutch pile of the plan."""

    color: str
    top: int
    face_down: bool
    top_card: int  # index of the pile's top card in Plan.cards


@dataclass
class Plan:
    """What lies on the table in one scene, before any camera."""

    kind: str
    decks: tuple[str, ...]
    cards: list[CardSpec] = field(default_factory=list)
    piles: list[PileSpec] = field(default_factory=list)
    round: RoundOutcome | None = None
    card_len_px: tuple[float, float] = (40.0, 400.0)
    yaw_deg: tuple[float, float] = (0.0, 360.0)
    # loose groups (one deck's row, fan, heap...) with their own poses, for re-packing
    groups: list[list[CardSpec]] = field(default_factory=list)
    local_poses: list[np.ndarray] = field(default_factory=list)
    # cards taken out of the picture per deck ("other" for faces and random art)
    out_of_view: dict[str, int] = field(default_factory=dict)
    variant: str | None = None  # which hard scene ("spread", "heaps", "round"), else None
    dealt: dict[str, int] | None = None  # cards of each deck the plan laid down (hard only)

    def drop_group(self, rng: np.random.Generator) -> bool:
        """Take one loose group off the table (when too many cards would be too small to
        see) and pack the rest again. False when there is nothing left to drop."""
        if len(self.groups) <= 1:
            return False
        k = int(rng.integers(len(self.groups)))
        for c in self.groups[k]:
            key = (
                c.deck if c.deck is not None and c.side == "back" and not c.random_art else "other"
            )
            self.out_of_view[key] = self.out_of_view.get(key, 0) + 1
        del self.groups[k]
        del self.local_poses[k]
        self.cards = _pack(self.groups, self.local_poses, rng)
        return True


def _players(profile: tuple[str, ...], rng: np.random.Generator) -> tuple[str, ...]:
    if len(profile) == 4:
        n = int(rng.choice([2, 3, 4], p=[0.15, 0.25, 0.6]))
    else:
        n = int(rng.choice([5, 6, 7, 8], p=[0.2, 0.25, 0.25, 0.3]))
    idx = np.sort(rng.choice(len(profile), n, replace=False))
    return tuple(profile[int(i)] for i in idx)


def _back(deck: str, pose: np.ndarray) -> CardSpec:
    return CardSpec("back", deck, False, 0, None, None, pose)


def _random_face(rng: np.random.Generator, pose: np.ndarray) -> CardSpec:
    return CardSpec(
        "face", None, False, 0, str(rng.choice(FACE_COLORS)), int(rng.integers(1, 11)), pose
    )


def _extras(rng: np.random.Generator, target: float) -> list[list[CardSpec]]:
    """Foreign decks and stray cards: random art that teaches the model what any card is."""
    groups: list[list[CardSpec]] = []
    if rng.random() < 0.3:
        for _ in range(int(rng.integers(1, 3))):
            key = int(rng.integers(1 << 30))
            n = int(rng.integers(1, 16))
            groups.append(
                [
                    CardSpec("back", None, True, key, None, None, p)
                    for p in layouts.group(n, target, rng)
                ]
            )
    if rng.random() < 0.15:
        groups.append(
            [
                CardSpec("back", None, True, int(rng.integers(1 << 30)), None, None, p)
                for p in layouts.group(int(rng.integers(1, 4)), target, rng, "heap")
            ]
        )
    if rng.random() < 0.15:
        groups.append(
            [_random_face(rng, p) for p in layouts.group(int(rng.integers(1, 7)), target, rng)]
        )
    return groups


def _pack(
    groups: list[list[CardSpec]], local: list[np.ndarray], rng: np.random.Generator
) -> list[CardSpec]:
    poses = layouts.pack_groups([p.copy() for p in local], rng, aspect=4 / 3)
    out: list[CardSpec] = []
    for g, p in zip(groups, poses, strict=True):
        for c, pose in zip(g, p, strict=True):
            c.pose = pose
            out.append(c)
    return out


def _loose_plan(
    kind: str,
    profile: tuple[str, ...],
    groups: list[list[CardSpec]],
    outcome: RoundOutcome,
    card_len_px: tuple[float, float],
    rng: np.random.Generator,
) -> Plan:
    order = rng.permutation(len(groups))
    groups = [groups[int(i)] for i in order]
    local = [np.array([c.pose for c in g]).reshape(-1, 3) for g in groups]
    plan = Plan(kind, profile, [], [], outcome, card_len_px, groups=groups, local_poses=local)
    plan.cards = _pack(groups, local, rng)
    return plan


def _deck_groups(
    counts: dict[str, int], target: float, rng: np.random.Generator
) -> list[list[CardSpec]]:
    groups = []
    for deck, n in counts.items():
        parts = [n]
        if n > 14 and rng.random() < 0.35:  # a big stack laid out as two
            k = int(rng.integers(n // 3, 2 * n // 3 + 1))
            parts = [k, n - k]
        for m in parts:
            if m:
                groups.append([_back(deck, p) for p in layouts.group(m, target, rng)])
    return groups


def plan_sorted(
    profile: tuple[str, ...],
    rng: np.random.Generator,
    target: float,
    outcome: RoundOutcome | None = None,
) -> Plan:
    """After the sort: each player's Dutch cards back up in rows, fans, grids or heaps (of
    ``outcome``, else of a round simulated here)."""
    outcome = outcome or simulate_round(_players(profile, rng), rng)
    groups = _deck_groups(outcome.dutch, target, rng) + _extras(rng, target)
    return _loose_plan("sorted", profile, groups, outcome, (40.0, 220.0), rng)


def plan_blitz(
    profile: tuple[str, ...],
    rng: np.random.Generator,
    target: float,
    outcome: RoundOutcome | None = None,
) -> Plan:
    """The Blitz leftovers, back up (0 to 10 per deck, the caller of Blitz has none)."""
    outcome = outcome or simulate_round(_players(profile, rng), rng)
    groups = _deck_groups(outcome.blitz, target, rng) + _extras(rng, target)
    return _loose_plan("blitz", profile, groups, outcome, (50.0, 320.0), rng)


def plan_layout(profile: tuple[str, ...], rng: np.random.Generator, target: float) -> Plan:
    """One card of each deck back up in a row, left to right in deck order (enrollment);
    sometimes a second row with one face of each colour."""
    gap = rng.uniform(3, 25)
    cards = []
    for k, deck in enumerate(profile):
        pose = (
            np.array([k * (CARD_W_MM + gap), 0, 0])
            + np.r_[rng.normal(0, 1.5, 2), np.deg2rad(rng.normal(0, 3))]
        )
        cards.append(_back(deck, pose))
    if rng.random() < 0.5:
        y = CARD_H_MM + rng.uniform(5, 30)
        for k, color in enumerate(FACE_COLORS):
            pose = (
                np.array([k * (CARD_W_MM + gap), y, 0])
                + np.r_[rng.normal(0, 1.5, 2), np.deg2rad(rng.normal(0, 3))]
            )
            cards.append(CardSpec("face", None, False, 0, color, int(rng.integers(1, 11)), pose))
    return Plan("layout", profile, cards, [], None, (60.0, 400.0), (-15.0, 15.0))


def plan_fan(profile: tuple[str, ...], rng: np.random.Generator, target: float) -> Plan:
    """10 to 24 backs of one deck of the profile (chosen at random), fanned or laid in
    overlapping rows of up to 12, each showing at least ``target`` of itself: the photo a
    user takes of one deck to teach Tallero its slivers (`tallero enroll fan`)."""
    deck = str(rng.choice(profile))
    n = int(rng.integers(10, 25))
    sizes = [n] if n <= 12 else [n // 2, n - n // 2]
    groups = [
        [_back(deck, p) for p in layouts.group(m, target, rng, str(rng.choice(["fan", "rows"])))]
        for m in sizes
    ]
    local = [np.array([c.pose for c in g]).reshape(-1, 3) for g in groups]
    plan = Plan("fan", profile, [], [], None, (80.0, 320.0), (-20.0, 20.0), groups, local)
    plan.cards = _pack(groups, local, rng)
    return plan


def plan_piles(
    profile: tuple[str, ...],
    rng: np.random.Generator,
    target: float,
    outcome: RoundOutcome | None = None,
) -> Plan:
    """The Dutch piles in the middle of the table, face up, finished ones often face down."""
    outcome = outcome or simulate_round(_players(profile, rng), rng)
    piles = list(outcome.piles)
    order = rng.permutation(len(piles))
    n = len(piles)
    cols = max(1, int(np.ceil(np.sqrt(n * 1.4))))
    cell = CARD_H_MM * 1.2 + rng.uniform(0, 30)
    messy = rng.uniform(0, 1)
    turn_down = rng.uniform(0.2, 0.9)
    cards: list[CardSpec] = []
    specs: list[PileSpec] = []
    for slot, i in enumerate(order):
        p = piles[int(i)]
        centre = np.array([(slot % cols) * cell, (slot // cols) * cell]) + rng.normal(0, 6, 2)
        angle = rng.normal(0, np.deg2rad(12))
        offs = layouts.pile(p.top, rng, messy)
        face_down = p.top == 10 and rng.random() < turn_down
        idx = list(range(p.top))
        if face_down:  # turned over: card 10 at the bottom, the back of card 1 on top
            idx = idx[::-1]
        c, s = np.cos(angle), np.sin(angle)
        for z, k in enumerate(idx):
            o = offs[z]
            pose = np.array(
                [centre[0] + c * o[0] - s * o[1], centre[1] + s * o[0] + c * o[1], angle + o[2]]
            )
            if face_down:
                spec = _back(p.owners[k], pose)
            else:
                spec = CardSpec("face", None, False, 0, p.color, k + 1, pose)
            spec.pile = len(specs)
            spec.elevation = 0.15 if z else 1.0
            cards.append(spec)
        specs.append(PileSpec(p.color, p.top, face_down, len(cards) - 1))
    return Plan("piles", profile, cards, specs, outcome, (40.0, 260.0))


def plan_scatter(profile: tuple[str, ...], rng: np.random.Generator, target: float) -> Plan:
    """Loose faces and backs of any deck, from a close-up of one card to a messy table."""
    n = int(rng.choice([1, 2, 3, 5, 8, 12, 20, 30]))
    cards = []
    for p in layouts.group(n, target, rng, str(rng.choice(["heap", "rows", "grid"]))):
        r = rng.random()
        if r < 0.45:
            cards.append(_back(str(rng.choice(profile)), p))
        elif r < 0.85:
            cards.append(_random_face(rng, p))
        else:
            cards.append(CardSpec("back", None, True, int(rng.integers(1 << 30)), None, None, p))
    return Plan("scatter", profile, cards, [], None, (60.0, 400.0))


PLANNERS = {
    "sorted": plan_sorted,
    "blitz": plan_blitz,
    "layout": plan_layout,
    "fan": plan_fan,
    "piles": plan_piles,
    "scatter": plan_scatter,
}


def round_plans(n_decks: int, rng: np.random.Generator, target: float) -> tuple[Plan, Plan, Plan]:
    """One simulated round as it is photographed: the Dutch piles before the sort, the
    sorted Dutch cards and the Blitz leftovers, all three of the same round."""
    profile = profile_decks(n_decks)
    outcome = simulate_round(_players(profile, rng), rng)
    return (
        plan_piles(profile, rng, target, outcome),
        plan_sorted(profile, rng, target, outcome),
        plan_blitz(profile, rng, target, outcome),
    )


def make_plan(kind: str, n_decks: int, rng: np.random.Generator, target: float) -> Plan:
    """A plan of the requested kind ("mixed" picks one per scene)."""
    if kind == "hard":
        from vision.synth.plans_hard import plan_hard

        return plan_hard(profile_decks(n_decks), rng, target)
    if kind == "mixed":
        names = list(MIXED_WEIGHTS)
        kind = str(rng.choice(names, p=np.array(list(MIXED_WEIGHTS.values()))))
    return PLANNERS[kind](profile_decks(n_decks), rng, target)
