"""Name: each card's deck (a back) or colour (a face), from its rectified picture.

`Namer.first_look` reads every candidate once (`FirstLook`, which the card check weighs);
`Namer.name` names the kept cards from that read averaged with more looks, each back
heard with the backs it touches, and gives `Named`: the cards with their names and, per
card, the other decks it could be.
"""

from vision.name.classifier import DeckClassifier
from vision.name.namer import Named, Namer

__all__ = ["DeckClassifier", "Named", "Namer"]
