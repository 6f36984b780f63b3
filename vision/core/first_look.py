"""`FirstLook`: the deck classifier's first read of every candidate, as later stages use it.

Naming reads each candidate once, as found, before the card check decides which candidates
are cards: the check weighs what the classifier sees in a box (a deck of the table,
``other``, a face) beside the box's geometry. The cards that are kept are then named from
the same read, averaged with more looks. This type carries that first read between the
two stages, so neither needs the other's model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from vision.core.types import Array, Index

if TYPE_CHECKING:
    from vision.core.rectify import CardRectifier


@dataclass(frozen=True)
class FirstLook:
    """One read of each candidate's crop, as found.

    Attributes:
        probabilities: ``(n, classes)`` the classifier's softmax probabilities.
        within_profile: ``(n, classes)`` the same limited to the classes that can be on this
            table (the profile's decks, ``other`` and the faces), rows summing to 1.
        profile_decks: ``(classes,)`` bool, the classes that are decks of the profile.
        other_class: index of the ``other`` class (-1 when the model has none).
        rectifier: the image's crop cutter, kept so later looks reuse its pyramid.
        embeddings: ``(n, d)`` what each crop looks like to the classifier just before its
            last layer (crops alike lie close; `vision.name.scene`), None where not read.
    """

    probabilities: Array
    within_profile: Array
    profile_decks: Array
    other_class: int
    rectifier: CardRectifier | None = None
    embeddings: Array | None = None

    def __post_init__(self) -> None:
        if self.probabilities.shape != self.within_profile.shape:
            raise ValueError("FirstLook: probabilities and within_profile differ in shape")
        if self.probabilities.ndim != 2 or self.profile_decks.shape != (
            self.probabilities.shape[1],
        ):
            raise ValueError("FirstLook: profile_decks must have one entry per class")
        if self.embeddings is not None and len(self.embeddings) != len(self.probabilities):
            raise ValueError("FirstLook: one embedding per candidate, or none")

    def __len__(self) -> int:
        return len(self.probabilities)

    def __getitem__(self, index: Index) -> FirstLook:
        """The rows of the candidates selected by an index array or a boolean mask."""
        return FirstLook(
            np.asarray(self.probabilities)[index],
            np.asarray(self.within_profile)[index],
            self.profile_decks,
            self.other_class,
            self.rectifier,
            None if self.embeddings is None else np.asarray(self.embeddings)[index],
        )
