"""`Namer`: each card's deck (a back) or colour (a face), and the other decks it could be.

Naming runs in two steps around the card check: a first look at every candidate
(`first_look`), which the check reads, then the naming of the cards kept (`name`): their
first look averaged with more looks (`naming_views`), each back weighed with the backs it
touches (`vision.name.neighbours`), and a back still of no deck named from the backs it
looks like (`vision.name.scene`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.core.cards import BACK, Cards
from vision.core.first_look import FirstLook
from vision.core.settings import VisionSettings
from vision.core.types import Array
from vision.name.classifier import DeckClassifier
from vision.name.neighbours import Neighbours, touching_pairs
from vision.name.scene import SceneNaming


@dataclass(frozen=True)
class Named:
    """Cards with their names, per card the other decks of the profile it could be, and
    which backs were named from the backs they look like (`vision.name.scene`)."""

    cards: Cards
    could_be: tuple[tuple[str, ...], ...]
    from_scene: tuple[bool, ...] = ()


class Namer:
    """Names cards with one deck classifier.

    With the settings' ``scene_naming`` it also names backs of no deck from the backs they
    look like in the same picture (`vision.name.scene`, the settings' ``scene_*``); without
    it they stay unknown.

    Args:
        classifier: the deck classifier (built-in or a profile's).
        settings: the naming settings (`VisionSettings`).
        views: looks at each kept card that naming averages (`vision.name.looks`).
    """

    def __init__(self, classifier: DeckClassifier, settings: VisionSettings, views: int) -> None:
        if not 1 <= views <= 4:
            raise ValueError(f"views must be within 1..4, got {views}")
        self.classifier = classifier
        self.settings = settings
        self.views = views
        self.scene = SceneNaming.from_settings(settings) if settings.scene_naming else None

    def first_look(
        self, image_bgr: Array, candidates: Cards, profile: tuple[str, ...]
    ) -> FirstLook:
        """One read of every candidate as found, limited to the profile for the check (with
        the embeddings naming after look-alikes needs, where it is on)."""
        c = self.classifier
        rectifier = c.rectifier(image_bgr)
        if self.scene is not None:
            p, embeddings = c.first_read(image_bgr, candidates, rectifier)
        else:
            p, embeddings = c.card_probabilities(image_bgr, candidates, rectifier=rectifier), None
        within, _ = c.within_profile(p, profile)
        return FirstLook(p, within, c.profile_decks(profile), c.other_class, rectifier, embeddings)

    def probabilities(self, image_bgr: Array, cards: Cards, look: FirstLook) -> Array:
        """The kept cards' probabilities for naming: their `views` looks averaged."""
        if self.views == 1:
            return look.probabilities
        return self.classifier.card_probabilities(
            image_bgr, cards, self.views, as_found=look.probabilities, rectifier=look.rectifier
        )

    def name(
        self, image_bgr: Array, cards: Cards, look: FirstLook, profile: tuple[str, ...]
    ) -> Named:
        """The cards named, with the decks each back could be besides its name."""
        p = self.probabilities(image_bgr, cards, look)
        named = self.classifier.classify(
            image_bgr, cards, profile, Neighbours.from_settings(self.settings), probabilities=p
        )
        could_be = self.could_be(p, profile, named.deck)
        judged = could_be
        if self.enrolled and self.settings.enrolled_alternative_min_probability is not None:
            # Whether an unknown back's picture names any deck at all is judged at the
            # shared bar, whatever an enrolled profile's own bar lets it also be.
            judged = self.could_be(
                p, profile, named.deck, self.settings.alternative_min_probability
            )
        could_be = unknown_could_be(named, could_be, self.profile_decks(profile), judged)
        from_scene = [False] * len(named)
        found = {}
        if self.scene is not None and look.embeddings is not None:
            found = self.scene.decks(named, look.embeddings, self.other_game_probability)
        if found:
            likely, _ = self.classifier.profile_probabilities(p, profile)
            for i, deck in found.items():
                # The classifier's own doubt stays: the card is still one to look at, and
                # what it could have been as a back of no deck, it still could be.
                named.deck[i] = deck
                named.deck_confidence[i] = likely[i, self.classifier.classes.index(deck)]
                could_be[i] = tuple(d for d in could_be[i] if d != deck)
                from_scene[i] = True
        return Named(named, tuple(could_be), tuple(from_scene))

    def possible_decks(
        self, possible: Cards | None, look: FirstLook, profile: tuple[str, ...]
    ) -> tuple[tuple[str, ...], ...]:
        """The decks each possible card could be (none for a face; none without a check)."""
        if possible is None:
            return ()
        return tuple(
            others if side == BACK else ()
            for others, side in zip(
                self.could_be(look.probabilities, profile), possible.side, strict=True
            )
        )

    def could_be(
        self,
        probabilities: Array,
        profile: tuple[str, ...],
        named: Sequence[str | None] | Array | None = None,
        bar: float | None = None,
    ) -> list[tuple[str, ...]]:
        """For each card, the decks of the profile other than its name (``named``) that it
        is at least ``bar`` likely to be (default: ``alternative_min_probability``, its
        ``enrolled_`` twin for a profile's own classifier)."""
        c = self.classifier
        allowed = c.allowed(profile)
        decks = [d for d in c.decks if d in allowed]
        p, _ = c.profile_probabilities(probabilities, profile)
        s = self.settings
        if bar is None:
            bar = s.alternative_min_probability
            if self.enrolled and s.enrolled_alternative_min_probability is not None:
                bar = s.enrolled_alternative_min_probability
        exclude = list(named) if named is not None else None
        return alternatives(p, c.classes, decks, bar, exclude=exclude)

    def profile_decks(self, profile: tuple[str, ...]) -> tuple[str, ...]:
        """The decks of the profile that the classifier knows, in its order."""
        allowed = self.classifier.allowed(profile)
        return tuple(d for d in self.classifier.decks if d in allowed)

    @property
    def other_game_probability(self) -> float | None:
        """How likely of no deck a back must be to be another game's (the count's bar)."""
        s = self.settings
        return s.enrolled_other_game_probability if self.enrolled else s.other_game_probability

    @property
    def enrolled(self) -> bool:
        """Whether the classifier is a profile's own (fitted by ``tallero enroll``)."""
        return bool(self.classifier.enrolled)


def alternatives(
    probabilities: np.ndarray,
    classes: Sequence[str],
    decks: Sequence[str],
    min_probability: float,
    exclude: Sequence[str | None] | None = None,
) -> list[tuple[str, ...]]:
    """For each row, the ``decks`` it is at least ``min_probability`` likely to be, most
    likely first, leaving out that row's ``exclude`` deck (its own name)."""
    col = {c: k for k, c in enumerate(classes)}
    present = [d for d in decks if d in col]
    out = []
    for i, row in enumerate(np.asarray(probabilities, np.float64)):
        own = exclude[i] if exclude is not None else None
        cand = [(float(row[col[d]]), d) for d in present if d != own]
        out.append(tuple(d for p, d in sorted(cand, reverse=True) if p >= min_probability))
    return out


def unknown_could_be(
    cards: Cards,
    could_be: list[tuple[str, ...]],
    decks: tuple[str, ...],
    judged: list[tuple[str, ...]] | None = None,
) -> list[tuple[str, ...]]:
    """``could_be`` with the decks an unknown back could be where its picture names none.

    A back named no deck whose picture is not even a fifth likely to be any deck could still
    be a card of any of them: its picture was too little to tell. It could be the deck of
    any named back it touches (the cards of a sorted pile lie together) or, touching none,
    any deck of the profile. ``judged``: the alternatives that tell whether a picture names
    any deck (default: ``could_be``); ``could_be``'s own are kept beside the new ones.
    """
    out = list(could_be)
    judged = out if judged is None else judged
    lost = [
        i
        for i in range(len(cards))
        if cards.side[i] == BACK and cards.deck[i] is None and not judged[i]
    ]
    if not lost:
        return out
    near: dict[int, set[str]] = {i: set() for i in lost}
    for i, j in touching_pairs(cards.corners):
        for a, b in ((i, j), (j, i)):
            if a in near and cards.side[b] == BACK and cards.deck[b] is not None:
                near[a].add(str(cards.deck[b]))
    for i in lost:
        out[i] = tuple(d for d in decks if d in near[i] or d in out[i]) if near[i] else decks
    return out
