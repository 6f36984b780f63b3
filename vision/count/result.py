"""`Count`: the cards of one image, numbered in reading order, and what they add up to."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from scoring.rules import DECK_SIZE
from vision.core.cards import BACK, SIDE_NAMES, Cards
from vision.count.doubts import (
    count_ranges,
    expected_counts,
    look_alike_doubts,
    within_deck_size,
)
from vision.count.heaps import Heap, HeapRules, doubled_cards, find_heaps, heap_ranges
from vision.count.paper import Paper
from vision.name.namer import Named
from vision.name.neighbours import touching_pairs


@dataclass
class Count:
    """The cards of one image, numbered, and what they add up to per deck."""

    image: str
    size: tuple[int, int]
    cards: Cards
    decks: tuple[str, ...]
    model: dict[str, Any]
    uncertain_below_confidence: float = 0.8
    # A back counted under this confidence widens the ranges too, without being flagged
    # (None: only the flagged ones do).
    range_below_confidence: float | None = None
    # deck -> the decks of its ink or its object (`vision.count.doubts.look_alikes`): a back
    # that could be one of them widens the ranges whatever its confidence, without being
    # flagged. Empty: none do.
    look_alikes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    uncertain_other_probability: float | None = 0.1  # None: not a reason to look
    # A back named no deck whose own picture is at least this likely to be of no deck is
    # another game's card (`other_game`); None: every back of no deck is asked about.
    other_game_probability: float | None = None
    timings_s: dict[str, float] = field(default_factory=dict)
    # Per card, the other decks of the profile it could be (vision/count/doubts.py); empty when
    # nothing was worked out.
    could_be: tuple[tuple[str, ...], ...] = ()
    # Per card, whether it is a back named from the backs it looks like in the same photo
    # (vision/name/scene.py); empty when none was.
    from_scene: tuple[bool, ...] = ()
    # Candidates that may be cards left uncounted (confidence: their chance of being a
    # card), and the decks of the profile each could be.
    possible: Cards | None = None
    possible_could_be: tuple[tuple[str, ...], ...] = ()
    # Every candidate the card check did not keep (confidence: its chance of being a card);
    # None when nothing checked them. Card material they cover and no counted card explains
    # widens the ranges (`heaps`).
    rejected: Cards | None = None
    # How card material and double boxes are judged; None: not judged.
    heap_rules: HeapRules | None = None
    # Card paper in the photo's pixels that no counted card covers (`vision.count.paper`),
    # material of the heaps too; None when not looked for.
    paper: Paper | None = None
    # A heap of at least this many touching backs, this share of them uncertain, is too
    # tight to count (`spread`).
    spread_min_cards: int = 6
    spread_min_uncertain_share: float = 0.5
    # Per card, how likely its face's number is (`vision.name.numbers`; 0 where none was
    # read); None when no number reader ran.
    value_confidence: np.ndarray | None = None
    # Faces the card check turned away that lie apart from every counted card and whose
    # number was read (`vision.count.lone`; ``value`` set), and how likely each number is:
    # a Dutch pile may lie there. Not counted, not in the JSON; None when not looked for.
    lone_faces: Cards | None = None
    lone_value_confidence: np.ndarray | None = None
    # Candidates of either side the card check turned away though the detector was sure of
    # them, lying apart from every counted card (`vision.count.lone.sure_lone_places`): a
    # card may lie there half covered. Not counted, not in the JSON; None when not looked for.
    lone_places: Cards | None = None
    # A photo in which no card was surely found (`nothing_sure`) says nothing of what lies
    # there (too dark, too blurred, the cards too small): each deck's range then runs from 0
    # to a deck. False: such a photo's counts are sure (live frames, where the table may be
    # bare).
    open_when_unsure: bool = False

    @property
    def nothing_sure(self) -> bool:
        """Whether no card was surely found: none at all, or only backs to look at (found or
        named under the bar, or of no deck) and faces found under the bar. A back surely of
        another game and a face surely found are cards the camera saw well."""
        bar = self.uncertain_below_confidence
        elsewhere = set(self.other_game)
        conf = self.cards.overall_confidence
        for i in range(len(self.cards)):
            if self.cards.side[i] != BACK:
                if self.cards.confidence[i] >= bar:
                    return False
            elif i + 1 in elsewhere:
                return False
            elif self.cards.deck[i] is not None and conf[i] >= bar:
                return False
        return True

    @property
    def ids(self) -> list[int]:
        """Card numbers as shown on the annotated image (1-based, reading order)."""
        return list(range(1, len(self.cards) + 1))

    @property
    def counts(self) -> dict[str, int]:
        """Back-up cards per deck of the profile (0 where none was seen)."""
        backs = self.cards.deck[self.cards.side == BACK]
        return {deck: int(sum(1 for d in backs if d == deck)) for deck in self.decks}

    @property
    def other_game(self) -> list[int]:
        """Ids of backs surely of another game: named no deck, their own picture at least
        ``other_game_probability`` likely to be of no deck. They count for no deck, cast no
        doubt and ask nothing (a player's card is never that sure to be none)."""
        bar = self.other_game_probability
        if bar is None:
            return []
        other = self.cards.other_probability
        return [
            i + 1
            for i in range(len(self.cards))
            if self.cards.side[i] == BACK and self.cards.deck[i] is None and other[i] >= bar
        ]

    @property
    def unknown(self) -> int:
        """Back-up cards that match no deck of the profile, other games' cards aside."""
        n = sum(
            1
            for s, d in zip(self.cards.side, self.cards.deck, strict=True)
            if s == BACK and d is None
        )
        return int(n - len(self.other_game))

    @property
    def uncertain(self) -> list[int]:
        """Ids of cards to look at: detection or naming below the confidence bar, unknown
        backs, and backs named a deck whose own picture looked enough like no deck."""
        conf = self.cards.overall_confidence
        bar = self.uncertain_other_probability
        other = self.cards.other_probability if bar is not None else None
        elsewhere = set(self.other_game)
        out = []
        for i in range(len(self.cards)):
            if i + 1 in elsewhere:
                continue
            low = conf[i] < self.uncertain_below_confidence
            back = self.cards.side[i] == BACK
            unnamed = back and self.cards.deck[i] is None
            odd = back and other is not None and other[i] >= bar
            if low or unnamed or odd:
                out.append(i + 1)
        return out

    @property
    def named_from_table(self) -> list[int]:
        """Ids of backs the classifier named no deck, named from the backs they look like in
        the same photo (`vision.name.scene`); each is also among the `uncertain`."""
        return [i + 1 for i, named in enumerate(self.from_scene) if named]

    @property
    def unread(self) -> list[int]:
        """Ids of face-up cards whose number was not read (all faces without a reader)."""
        return [
            i + 1
            for i in range(len(self.cards))
            if self.cards.side[i] != BACK and int(self.cards.value[i]) < 0
        ]

    @property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """``{deck: (low, high)}``: how far each deck's count could be off, given the
        uncertain cards and the possible cards not counted (`vision.count.doubts.count_ranges`),
        then the card material no counted card explains and the cards that may be boxed
        twice (`vision.count.heaps.heap_ranges`), as a deck of 40 cards allows
        (`vision.count.doubts.within_deck_size`); with ``open_when_unsure``, a photo where no
        card was surely found gives every deck 0 to a deck's size."""
        if self.open_when_unsure and self.nothing_sure:
            return {d: (0, DECK_SIZE) for d in self.counts}
        if not self.could_be:
            card_ranges = {d: (n, n) for d, n in self.counts.items()}
        else:
            backs, named, doubted, could_be = self._doubted_backs()
            card_ranges = count_ranges(
                self.counts, named, doubted, could_be, self.possible_could_be
            )
        if self.heap_rules is not None:
            card_ranges = heap_ranges(
                card_ranges,
                self.heaps,
                self.doubled,
                list(self.cards.deck),
                [bool(s == BACK) for s in self.cards.side],
                self.heap_rules,
            )
        return within_deck_size(card_ranges, self.counts)

    def _doubted_backs(
        self,
    ) -> tuple[list[int], list[str | None], list[bool], list[tuple[str, ...]]]:
        """The counted backs (indices), the deck each is named, whether each is in doubt (to
        look at, under ``range_below_confidence``, or a look-alike's), and the other decks
        each could be: what the ranges and the expected counts are made of."""
        doubted = set(self.uncertain)
        conf = self.cards.overall_confidence
        if self.range_below_confidence is not None:
            doubted |= {i + 1 for i in range(len(conf)) if conf[i] < self.range_below_confidence}
        backs = [i for i in range(len(self.cards)) if self.cards.side[i] == BACK]
        named = [self.cards.deck[i] for i in backs]
        could_be = [self.could_be[i] for i in backs]
        if self.look_alikes:
            alike = look_alike_doubts(named, could_be, self.look_alikes)
            doubted |= {i + 1 for i, a in zip(backs, alike, strict=True) if a}
        return backs, named, [i + 1 in doubted for i in backs], could_be

    @property
    def expected(self) -> dict[str, float]:
        """``{deck: the count its doubts make likeliest}`` (a fraction within its range,
        `vision.count.doubts.expected_counts`); the counts themselves where nothing was
        judged, or where no card was surely found."""
        if not self.could_be or (self.open_when_unsure and self.nothing_sure):
            return {d: float(n) for d, n in self.counts.items()}
        backs, named, doubted, could_be = self._doubted_backs()
        conf = self.cards.overall_confidence
        chance = [] if self.possible is None else [float(c) for c in self.possible.confidence]
        return expected_counts(
            self.counts,
            named,
            doubted,
            [float(conf[i]) for i in backs],
            could_be,
            self.possible_could_be,
            chance,
        )

    @cached_property
    def heaps(self) -> list[Heap]:
        """The patches of card material (`vision.count.heaps.find_heaps`); none unjudged.
        Worked out once (the cards do not change once counted)."""
        if self.heap_rules is None or self.rejected is None:
            return []
        return find_heaps(
            self.size,
            self.cards.corners,
            self.rejected.corners,
            self.rejected.confidence,
            self.heap_rules,
            self.paper,
        )

    @cached_property
    def doubled(self) -> list[int]:
        """Indices of counted cards that may be a second box on a card (`doubled_cards`)."""
        if self.heap_rules is None:
            return []
        return doubled_cards(
            self.cards.corners, self.cards.confidence, self.heap_rules.double_min_iou
        )

    @property
    def spread(self) -> list[list[int]]:
        """Heaps too tight to count, each as the ids of its cards (`spread_places`)."""
        return [ids for ids, _ in self.spread_places]

    @property
    def spread_places(self) -> list[tuple[list[int], tuple[float, float, float, float]]]:
        """Heaps too tight to count, each as the ids of its cards and the upright box
        ``(x0, y0, x1, y1)`` around it, px: groups of touching backs (at least
        ``spread_min_cards``) of which at least ``spread_min_uncertain_share`` are
        uncertain, then patches of card material that could hide at least the heap rules'
        ``spread_min_hidden`` cards no count explains (`heaps`; their ids may be none).
        Their cards should be spread out and the photo taken again."""
        out = [(ids, self.box_of(ids)) for ids in self.tight_groups()]
        if self.heap_rules is not None:
            least = self.heap_rules.spread_min_hidden
            for heap in self.heaps:
                if heap.hidden < least:
                    continue
                ids, box = [i + 1 for i in heap.cards], heap.box
                # A group of touching backs within this heap is one place to spread.
                for k in [k for k, (group, _) in enumerate(out) if set(group) & set(ids)][::-1]:
                    group, (a0, b0, a1, b1) = out.pop(k)
                    ids = sorted(set(ids) | set(group))
                    box = (min(a0, box[0]), min(b0, box[1]), max(a1, box[2]), max(b1, box[3]))
                out.append((ids, box))
        return out

    def box_of(self, ids: list[int]) -> tuple[float, float, float, float]:
        """The upright box ``(x0, y0, x1, y1)`` around the cards of these ids, px."""
        corners = self.cards.corners[[i - 1 for i in ids]].reshape(-1, 2)
        (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def tight_groups(self) -> list[list[int]]:
        """Groups of touching backs, at least ``spread_min_cards`` of them, at least
        ``spread_min_uncertain_share`` uncertain: their ids."""
        backs = [i for i in range(len(self.cards)) if self.cards.side[i] == BACK]
        if len(backs) < self.spread_min_cards:
            return []
        parent = {i: i for i in backs}

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, b in touching_pairs(self.cards.corners[backs]):
            parent[root(backs[a])] = root(backs[b])
        groups: dict[int, list[int]] = {}
        for i in backs:
            groups.setdefault(root(i), []).append(i + 1)
        doubted = set(self.uncertain)
        return [
            ids
            for ids in sorted(groups.values())
            if len(ids) >= self.spread_min_cards
            and sum(i in doubted for i in ids) >= self.spread_min_uncertain_share * len(ids)
        ]

    def spread_json(self) -> list[dict[str, Any]]:
        """Each heap too tight to count: its cards' ids and the upright box around it."""
        out = []
        for ids, (x0, y0, x1, y1) in self.spread_places:
            box = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
            out.append(
                {
                    "cards": ids,
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in box],
                }
            )
        return out

    @property
    def sure(self) -> bool:
        """Whether every deck's count is one number (nothing casts doubt on it)."""
        return all(lo == hi for lo, hi in self.ranges.values())

    def to_json(self) -> dict[str, Any]:
        """The stable JSON contract of ``tallero count --json`` (see README)."""
        cards = []
        for i in range(len(self.cards)):
            value = int(self.cards.value[i])
            cards.append(
                {
                    "id": i + 1,
                    "side": SIDE_NAMES[int(self.cards.side[i])],
                    "deck": self.cards.deck[i],
                    "color": self.cards.color[i],
                    "value": value if value >= 0 else None,
                    "corners": [
                        [round(float(x), 1), round(float(y), 1)] for x, y in self.cards.corners[i]
                    ],
                    "confidence": round(float(self.cards.overall_confidence[i]), 4),
                }
            )
        return {
            "image": self.image,
            "size": [int(self.size[0]), int(self.size[1])],
            "counts": self.counts,
            "unknown": self.unknown,
            "other_game": self.other_game,
            "named_from_table": self.named_from_table,
            "cards": cards,
            "uncertain": self.uncertain,
            "unread": self.unread,
            "ranges": {d: [lo, hi] for d, (lo, hi) in self.ranges.items()},
            "possible": self.possible_json(),
            "spread": self.spread_json(),
            "heaps": self.heaps_json(),
            "doubled": [i + 1 for i in self.doubled if self.cards.side[i] == BACK],
            "model": self.model,
        }

    def heaps_json(self) -> list[dict[str, Any]]:
        """The patches of card material that could hide cards not counted: the ids of the
        cards counted in each, its upright box, the material no counted card explains (card
        areas) and how many more cards that could be."""
        out = []
        for heap in self.heaps:
            if not heap.hidden:
                continue
            x0, y0, x1, y1 = heap.box
            out.append(
                {
                    "cards": [i + 1 for i in heap.cards],
                    "corners": [
                        [round(x, 1), round(y, 1)]
                        for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
                    ],
                    "unexplained": round(heap.unexplained, 2),
                    "hidden": heap.hidden,
                }
            )
        return out

    def possible_json(self) -> list[dict[str, Any]]:
        """The possible cards not counted: corners, chance of being a card, decks."""
        if self.possible is None:
            return []
        return [
            {
                "corners": [
                    [round(float(x), 1), round(float(y), 1)] for x, y in self.possible.corners[i]
                ],
                "chance": round(float(self.possible.confidence[i]), 4),
                "decks": list(self.possible_could_be[i]),
            }
            for i in range(len(self.possible))
        ]


def reading_order(cards: Cards) -> np.ndarray:
    """Indices that number cards row by row (top to bottom), left to right within a row."""
    if not len(cards):
        return np.zeros(0, np.int64)
    c = cards.centers
    row_h = max(float(np.median(cards.long_side_px)) * 0.5, 1.0)
    return np.lexsort((c[:, 0], np.floor(c[:, 1] / row_h)))


def numbered(named: Named) -> Named:
    """The named cards in reading order, the order of their ids, with their `could_be`."""
    order = reading_order(named.cards)
    from_scene = (
        tuple(named.from_scene[int(i)] for i in order) if named.from_scene else named.from_scene
    )
    return Named(named.cards[order], tuple(named.could_be[int(i)] for i in order), from_scene)
