"""From a `Count` of a photo of the Dutch piles to the piles, their tops and their total.

Before the sort every Dutch pile is face up, one colour, 1 up to its top card, so a pile
whose top is k holds k cards; a finished pile turned face down holds 10. The counter finds
the top card of each pile, and sometimes a card below it peeking far enough out. So:

- face-up cards of one colour lying nearly on top of each other are one pile, whose top
  is the highest of them (a Dutch pile only grows upwards);
- backs lying nearly on top of each other are one face-down finished pile (10);
- a face-up pile is uncertain when its top's number was not read, when one of its cards
  is unread (`Count.unread`) or found less surely than the bar (unless its number is read
  and no higher than the top's: a second box on the top, or a card under it), or when its
  top's number is read less surely than the bar: its top is then not guessed and the
  total is not complete. How sure the colour is does not hold a read number back (the
  number alone gives the pile's cards; a face whose colour is in doubt is still a face with
  that number);
- of two face-up piles read the same top whose outlines overlap by `SECOND_BOX_SHARE` of
  the smaller or more, the less sure is uncertain (`second_boxes`): one card boxed twice,
  the second box reaching over the card beside it, would count that top twice;
- a face-down pile is uncertain when its back is found less surely than the bar, or named
  no deck of the game (a sheet of paper or a face taken for a back would add 10); which of
  the game's decks it is named does not matter. A back surely of another game
  (`Count.other_game`: a player's finished pile is of a player's deck) is no pile: such
  a back is most often a patch of a checked cloth between the piles;
- a face the card check turned away, lying alone, whose number reads (`Count.lone_faces`)
  is a pile of that many cards to look at (``number_only``): a pile printed in a style the
  check never saw would otherwise not be found, and the total would be short with nothing
  flagged. It is counted in the total, which is then not complete;
- a candidate of either side the card check turned away though the detector was sure of it,
  lying alone (`Count.lone_places`), is a place to look at (``place_only``): a pile half
  under a phone or a hand can look to the check like no card. Its top is unknown, so the
  total is not complete.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from scoring.crosscheck import FACE_DOWN, FINISHED_PILE_SIZE, pile_size
from scoring.errors import ImageError, UsageError
from vision.core.cards import BACK, Cards
from vision.core.geometry import long_side, quad_overlaps
from vision.count.result import Count

# Cards whose centres lie closer than this share of a card's long side are one pile.
SAME_PILE_SHARE = 0.3
# Two face-up piles read the same top whose outlines overlap by this share of the smaller
# may be one card boxed twice: the less sure is to look at (`second_boxes`).
SECOND_BOX_SHARE = 0.3
# Tops shorter than this in the photo (long side, pixels) are read far less often: on
# held-out piles photos 43-72% of them against 83-96% of longer ones (docs/history.md).
SMALL_TOP_PX = 65.0


@dataclass(frozen=True)
class Pile:
    """One Dutch pile: its top card's corners (image pixels), its colour (None face down),
    its top (1..10, 10 face down; None where not read), its confidence (0..1) and the ids
    of the count's cards it is made of (none for a pile found only by its number)."""

    corners: np.ndarray
    color: str | None
    top: int | None
    down: bool
    confidence: float
    cards: tuple[int, ...]
    uncertain: bool
    # Found only by its number: the card check did not take its top for a card.
    number_only: bool = False
    # Found only as a place: the detector was sure of a card there, the card check was not,
    # and no number was read (a pile half under a phone, a hand): its top is unknown.
    place_only: bool = False

    @property
    def size(self) -> int:
        """Cards in the pile: its top (0 where the top was not read)."""
        return self.top or 0

    @property
    def long_side_px(self) -> float:
        """How long its top card lies in the photo, pixels."""
        return long_side(self.corners)


@dataclass(frozen=True)
class GivenTop:
    """A pile's top given by a person (`Piles.with_tops`): its id, what the photo read
    (1..10, ``"down"``, or None where no top was read) and the top given."""

    id: int
    read: int | str | None
    top: int | str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "read": self.read, "top": self.top}


@dataclass(frozen=True)
class Piles:
    """The Dutch piles of one photo, in reading order (ids 1-based)."""

    image: str
    size: tuple[int, int]
    piles: tuple[Pile, ...]
    model: dict[str, Any]
    # Ids (the count's) and corners of the backs surely of another game: set apart, no pile.
    other_game: tuple[int, ...] = ()
    other_game_corners: tuple[np.ndarray, ...] = ()
    # Tops given by a person where the photo left them unread or read them wrong.
    given: tuple[GivenTop, ...] = ()
    # Frames of one table the piles were read over (`vision.piles.frames`); a photo is 1.
    frames: int = 1
    # Whether the piles were read off the median picture of those frames, aligned on the
    # first (`vision.piles.frames.median_picture`).
    median: bool = False

    def with_tops(self, tops: Mapping[int, str]) -> Piles:
        """These piles with the tops a person gives (pile id -> 1..10 or ``"down"``, as
        `scoring.parse.parse_pile_tops` gives them): each such pile is sure of its top.
        Raises UsageError for an id that is no pile of the photo."""
        if not tops:
            return self
        wrong = [i for i in tops if not 1 <= i <= len(self.piles)]
        if wrong:
            raise UsageError(
                f"the piles photo has {len(self.piles)} pile(s) (#1 to #{len(self.piles)}): "
                f"#{wrong[0]} is none of them"
            )
        piles = list(self.piles)
        given = {g.id: g for g in self.given}
        for i, top in sorted(tops.items()):
            before = piles[i - 1]
            down = top == FACE_DOWN
            read = FACE_DOWN if before.down else before.top
            piles[i - 1] = replace(
                before,
                top=pile_size(top),
                down=down,
                color=None if down else before.color,
                confidence=1.0,
                uncertain=False,
            )
            given[i] = GivenTop(
                i, given[i].read if i in given else read, FACE_DOWN if down else pile_size(top)
            )
        return replace(self, piles=tuple(piles), given=tuple(given[k] for k in sorted(given)))

    @property
    def total(self) -> int:
        """Dutch cards on the piles whose top was read (those to look at included)."""
        return sum(p.size for p in self.piles)

    @property
    def uncertain(self) -> list[int]:
        """Ids of the piles to look at (their top was not read for sure)."""
        return [i + 1 for i, p in enumerate(self.piles) if p.uncertain]

    @property
    def complete(self) -> bool:
        """Whether every pile's top was read, so `total` is the round's Dutch cards."""
        return not self.uncertain

    def summary(self) -> str:
        """One line: how many piles, their total and the piles to look at (the annotated
        photo's heading, the watch panel)."""
        text = f"Dutch piles: {len(self.piles)}, total {self.total}"
        if not self.complete:
            text += f" (not all read: look at {', '.join(f'#{i}' for i in self.uncertain)})"
        return text

    @property
    def small_unread(self) -> list[int]:
        """Ids of the face-up piles whose top was not read and lies under `SMALL_TOP_PX`."""
        return [
            i + 1
            for i, p in enumerate(self.piles)
            if p.top is None and not p.down and p.long_side_px < SMALL_TOP_PX
        ]

    def tops(self) -> list[int | str]:
        """The tops as ``score --piles`` takes them (``"down"`` for a face-down pile)."""
        return ["down" if p.down else int(p.size) for p in self.piles]

    def to_json(self) -> dict[str, Any]:
        """The stable JSON contract of ``tallero piles --json`` (see README)."""
        return {
            "image": self.image,
            "size": [int(self.size[0]), int(self.size[1])],
            "piles": [
                {
                    "id": i + 1,
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in p.corners],
                    "top": p.top,
                    "color": p.color,
                    "down": p.down,
                    "confidence": round(p.confidence, 4),
                    "cards": list(p.cards),
                    "number_only": p.number_only,
                    "place_only": p.place_only,
                }
                for i, p in enumerate(self.piles)
            ],
            "total": self.total,
            "complete": self.complete,
            "uncertain": self.uncertain,
            "other_game": list(self.other_game),
            "given": [g.to_json() for g in self.given],
            "frames": self.frames,
            "median": self.median,
            "model": self.model,
        }


def _groups(centers: np.ndarray, keys: list[object], reach_px: np.ndarray) -> list[list[int]]:
    """Cards with the same key whose centres lie within reach of each other, joined."""
    n = len(centers)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if keys[i] != keys[j]:
                continue
            if np.linalg.norm(centers[i] - centers[j]) < min(reach_px[i], reach_px[j]):
                parent[root(i)] = root(j)
    out: dict[int, list[int]] = {}
    for i in range(n):
        out.setdefault(root(i), []).append(i)
    return sorted(out.values(), key=lambda g: g[0])


def read_piles(count: Count, min_confidence: float = 0.8) -> Piles:
    """The Dutch piles of ``count`` (a photo of the middle of the table before the sort).

    ``min_confidence``: a pile less sure than this (a face-up pile: the weaker of finding its
    top card and reading its number; face down: finding its back, named a deck of the game)
    is uncertain. Raises ImageError when the photo holds no card, or only backs of another
    game.
    """
    cards = count.cards
    if not len(cards):
        raise ImageError(f"{count.image}: no Dutch piles found (no card in the photo)")
    unread = set(count.unread)
    elsewhere = set(count.other_game)
    conf = cards.overall_confidence
    found = cards.confidence
    value_conf = count.value_confidence
    keys: list[object] = [
        "back" if cards.side[i] == BACK else f"face:{cards.color[i]}" for i in range(len(cards))
    ]
    reach = cards.long_side_px * SAME_PILE_SHARE
    piles: list[Pile] = []
    for group in _groups(cards.centers, keys, reach):
        ids = tuple(i + 1 for i in group)
        if cards.side[group[0]] == BACK:
            if elsewhere.issuperset(ids):
                continue
            top_i = max(group, key=lambda i: float(conf[i]))
            # named a deck of the game: how surely which deck does not matter (10 either way)
            c = float(found[top_i] if cards.deck[top_i] is not None else conf[top_i])
            piles.append(
                Pile(
                    cards.corners[top_i], None, FINISHED_PILE_SIZE, True, c, ids, c < min_confidence
                )
            )
            continue
        top_i = max(group, key=lambda i: (int(cards.value[i]), float(found[i])))
        value = int(cards.value[top_i])
        doubtful = any(
            i in unread or (found[i - 1] < min_confidence and not below_top(i - 1, top_i, cards))
            for i in ids
        )
        c = float(found[top_i])
        if value_conf is not None and value >= 0:
            c = min(c, float(value_conf[top_i]))
        read = value >= 1 and not doubtful and c >= min_confidence
        piles.append(
            Pile(
                cards.corners[top_i],
                str(cards.color[top_i]) if cards.color[top_i] is not None else None,
                value if value >= 1 and not doubtful else None,
                False,
                c if value >= 1 else 0.0,
                ids,
                not read,
            )
        )
    piles = second_boxes(piles)
    piles += lone_piles(count, piles)
    piles += place_piles(count, piles)
    apart = tuple(sorted(elsewhere))
    if not piles:
        raise ImageError(
            f"{count.image}: no Dutch piles found ({len(apart)} back(s) of another game's "
            "cards set apart)"
        )
    return Piles(
        count.image,
        count.size,
        tuple(piles),
        count.model,
        apart,
        tuple(cards.corners[i - 1] for i in apart),
    )


def piles_seen(count: Count) -> Piles:
    """`read_piles` of ``count``, or no piles where it finds none: one frame of several, or
    a photo scored against its truth, that sees no pile is a read of none, not an error."""
    try:
        return read_piles(count)
    except ImageError:
        return Piles(count.image, count.size, (), count.model)


def below_top(i: int, top: int, cards: Cards) -> bool:
    """Whether card ``i`` of a pile, found less surely than its ``top``, cannot change the
    pile's size: it is not the top, and its number is read and no higher than the top's
    (a second box on the top card, or a card under it peeking out; a pile holds each of
    1..top once, so neither adds a card)."""
    value = int(cards.value[i])
    return i != top and 1 <= value <= int(cards.value[top])


def second_boxes(piles: list[Pile]) -> list[Pile]:
    """``piles`` with the less sure of two face-up piles read the same top whose outlines
    overlap by at least `SECOND_BOX_SHARE` of the smaller made uncertain: a box the counter
    drew over one top card and the card beside it reads that top's number too, and would
    count its cards twice (docs/history.md, "A webcam asked for 1280x720")."""
    faces = [k for k, p in enumerate(piles) if not p.down and p.top is not None]
    if len(faces) < 2:
        return piles
    inter, area = quad_overlaps(np.stack([piles[k].corners for k in faces]))
    doubted: set[int] = set()
    for a, b in zip(*np.triu_indices(len(faces), 1), strict=True):
        i, j = faces[a], faces[b]
        if piles[i].top != piles[j].top:
            continue
        if inter[a, b] >= SECOND_BOX_SHARE * min(area[a], area[b]):
            doubted.add(j if piles[i].confidence >= piles[j].confidence else i)
    return [replace(p, uncertain=True) if k in doubted else p for k, p in enumerate(piles)]


def lone_piles(count: Count, piles: list[Pile]) -> list[Pile]:
    """A pile to look at for each of ``count``'s lone faces (`Count.lone_faces`) that lies
    on none of ``piles`` (nor on another lone face)."""
    faces = count.lone_faces
    if faces is None:
        return []
    confidence = count.lone_value_confidence
    out = []
    for i in apart(faces, piles):
        c = float(confidence[i]) if confidence is not None else 0.0
        top = int(faces.value[i]) if faces.value[i] >= 1 else None
        out.append(Pile(faces.corners[i], None, top, False, c, (), True, True))
    return out


def place_piles(count: Count, piles: list[Pile]) -> list[Pile]:
    """A pile to look at, its top unknown, for each of ``count``'s sure lone places
    (`Count.lone_places`) that lies on none of ``piles`` (nor on another place)."""
    places = count.lone_places
    if places is None:
        return []
    return [
        Pile(places.corners[i], None, None, False, 0.0, (), True, place_only=True)
        for i in apart(places, piles)
    ]


def apart(cards: Cards, piles: list[Pile]) -> list[int]:
    """Indices of ``cards`` lying on none of ``piles`` nor on an earlier one of them."""
    tops = [p.corners.mean(axis=0) for p in piles]
    reaches = [p.long_side_px * SAME_PILE_SHARE for p in piles]
    out = []
    for i in range(len(cards)):
        centre = cards.centers[i]
        reach = float(cards.long_side_px[i]) * SAME_PILE_SHARE
        if any(
            np.linalg.norm(c - centre) < max(r, reach) for c, r in zip(tops, reaches, strict=True)
        ):
            continue
        out.append(i)
        tops.append(centre)
        reaches.append(reach)
    return out
