"""Naming a back of no deck from the backs it looks like in the same photo.

A classifier fitted on a user's enrolled cards (`tallero enroll`) learned them from drawn
scenes. In a photo's own light, blur and angle it calls some of them no deck: its picture
of the card is not sure enough of any. Yet the cards of one deck, lying on one table under
one light, look alike to the classifier (the ``embedding`` it makes of each crop just
before its last layer): in the hard scenes of held-out card art, a card's nearest card in
the same photo is of its own deck 0.92 to 0.99 of the time.

So a back named no deck is named from the backs it looks like: of the photo's backs surely
of a deck (``seed_min_confidence``; at least two of them), its ``neighbours`` most alike
must be, at least ``min_share`` of them, of one deck and each at least ``min_similarity``
alike (cosine of the embeddings). A back surely of another game (the count's
``other_game`` bar) is left as it is, and so is a back with no such likeness. Another
game's back in the ink of a deck of the table can come near that deck's backs, but seldom
as near as three of them: counting only the alike ones halved the backs named wrong on the
held-out families' hard scenes (`docs/history.md`, "Backs of no deck named after the backs
they look like"). The backs surely of another game speak too, for no deck: a back with
one of them among its most alike is left alone (in a fan of another game's backs in a
deck's ink, a few named that deck by the classifier name none of the rest).

A back named so keeps the classifier's own probability of that deck as its confidence:
it stays among the cards to look at, and its deck's range still reaches below it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from vision.core.cards import BACK, Cards
from vision.core.settings import VisionSettings
from vision.core.types import Array


@dataclass(frozen=True)
class SceneNaming:
    """When a back of no deck takes the deck of the backs it looks like (module docstring)."""

    seed_min_confidence: float = 0.9
    neighbours: int = 3
    min_similarity: float = 0.9
    min_share: float = 1.0

    @classmethod
    def from_settings(cls, s: VisionSettings) -> SceneNaming:
        """The scene naming the settings describe (``scene_*``)."""
        return cls(
            s.scene_seed_min_confidence,
            s.scene_neighbours,
            s.scene_min_similarity,
            s.scene_min_share,
        )

    def decks(
        self,
        cards: Cards,
        embeddings: Array,
        other_game_probability: float | None = None,
    ) -> dict[int, str]:
        """``{index: deck}`` for each back of no deck in ``cards`` that the backs it looks
        like name (``embeddings``: ``(n, d)``, one per card; ``other_game_probability``:
        how likely of no deck a back surely of another game is; None: none is)."""
        emb = np.asarray(embeddings, np.float64)
        if emb.ndim != 2 or len(emb) != len(cards):
            raise ValueError("one embedding per card is needed")
        backs = cards.side == BACK
        named = np.array([d is not None for d in cards.deck], dtype=bool)
        sure = np.nonzero(backs & named & (cards.deck_confidence >= self.seed_min_confidence))[0]
        lost = backs & ~named
        elsewhere = np.zeros(len(cards), dtype=bool)
        if other_game_probability is not None:
            elsewhere = lost & (cards.other_probability >= other_game_probability)
            lost &= ~elsewhere
        unknown = np.nonzero(lost)[0]
        if len(sure) < 2 or not len(unknown):
            return {}
        # Backs surely of another game speak too, for no deck.
        seeds = np.concatenate([sure, np.nonzero(elsewhere)[0]])
        label = [str(cards.deck[j]) if cards.deck[j] is not None else "" for j in seeds]
        unit = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        similarity = unit[unknown] @ unit[seeds].T
        k = min(self.neighbours, len(sure))
        out: dict[int, str] = {}
        for row, i in zip(similarity, unknown, strict=True):
            nearest = np.argsort(-row, kind="stable")[:k]
            alike = [j for j in nearest if row[j] >= self.min_similarity]
            if not alike:
                continue
            deck, votes = Counter(label[j] for j in alike).most_common(1)[0]
            if not deck:
                continue
            if votes >= self.min_share * k:
                out[int(i)] = deck
        return out
