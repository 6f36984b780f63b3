"""Naming each card: deck of a back (or unknown), colour of a face, from its rectified crop."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from scoring.errors import ModelError
from scoring.home import file_sha256
from vision.core.cards import BACK, FACE, Cards
from vision.core.onnx import cpu_session
from vision.core.rectify import CardRectifier, to_blob
from vision.name.looks import VIEWS, view_crops
from vision.name.neighbours import Neighbours

FACE_PREFIX = "face:"
OTHER = "other"


class DeckClassifier:
    """The exported deck classifier (ONNX) with its class list.

    A back is named by the most probable class among the profile's decks and ``other``
    (probabilities renormalised over the classes the profile allows, then, with
    `Neighbours`, combined with the backs it touches: see `vision.name.neighbours`); it
    is unknown when that class is ``other`` or is less probable than
    ``min_deck_probability`` (``enrolled_min_deck_probability``, when given, for a
    profile's own classifier fitted by ``tallero enroll``).

    With ``balance_decks``, naming first divides each of the profile's decks' probability by
    how often the classifier saw that deck in training (``class_counts`` in its metadata;
    models without it are left as they are), keeping the decks' sum: the built-in
    classifier saw each classic deck about 2.5 times as often as each expansion deck
    (classic decks lie in every scene), so in an 8-deck game it leaned to the classic deck
    of the same ink. How likely a back is to be any deck rather than ``other`` is kept.
    """

    def __init__(
        self,
        path: Path,
        threads: int | None = None,
        min_deck_probability: float = 0.5,
        balance_decks: bool = True,
        enrolled_min_deck_probability: float | None = None,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such deck classifier")
        bars = {
            "min_deck_probability": min_deck_probability,
            "enrolled_min_deck_probability": enrolled_min_deck_probability,
        }
        for name, bar in bars.items():
            if bar is not None and not 0.0 <= bar <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")
        try:
            self.session = cpu_session(self.path, threads, spinning=False)
            meta = self.session.get_modelmeta().custom_metadata_map
            # Everything the ONNX records (classes, crop size, recipe, class counts, ...).
            self.metadata: dict[str, str] = dict(meta)
            self.classes: tuple[str, ...] = tuple(json.loads(meta["classes"]))
            self.width_px = int(meta["crop_width_px"])
            self.height_px = int(meta["crop_height_px"])
            counts = json.loads(meta["class_counts"]) if "class_counts" in meta else None
            # A profile's own classifier (tallero enroll) names the decks it was fitted to.
            self.enrolled = "profile_decks" in meta
        except ModelError:
            raise
        except Exception as exc:  # onnxruntime and json raise untyped errors
            raise ModelError(f"{self.path}: not a usable deck classifier ({exc})") from None
        self.min_deck_probability = (
            enrolled_min_deck_probability
            if self.enrolled and enrolled_min_deck_probability is not None
            else min_deck_probability
        )
        self.decks = tuple(c for c in self.classes if not c.startswith(FACE_PREFIX) and c != OTHER)
        self.colors = tuple(
            c[len(FACE_PREFIX) :] for c in self.classes if c.startswith(FACE_PREFIX)
        )
        self._other = self.classes.index(OTHER) if OTHER in self.classes else -1
        # Models exported by `vision.train.deck_net` give their embedding beside the logits.
        self.has_embedding = "embedding" in {o.name for o in self.session.get_outputs()}
        self._is_back_class = np.array(
            [not c.startswith(FACE_PREFIX) for c in self.classes], dtype=bool
        )
        self.sha256 = file_sha256(self.path)
        self.name = self.path.stem
        self.deck_weights = self._deck_weights(counts) if balance_decks else None

    def _deck_weights(self, counts: object) -> np.ndarray | None:
        """``(classes,)`` factors that even out the decks' training counts (None: no counts)."""
        if counts is None:
            return None
        n = np.asarray(counts, dtype=np.float64)
        if n.shape != (len(self.classes),) or (n < 0).any():
            raise ModelError(
                f"{self.path}: class_counts do not match its {len(self.classes)} classes"
            )
        is_deck = np.array([c in self.decks for c in self.classes])
        if not is_deck.any() or (n[is_deck] == 0).any():
            return None
        weights = np.ones(len(self.classes))
        weights[is_deck] = n[is_deck].max() / n[is_deck]
        return weights

    def probabilities(self, crops_bgr: np.ndarray) -> np.ndarray:
        """``(n, classes)`` softmax probabilities of ``(n, h, w, 3)`` crops."""
        if not len(crops_bgr):
            return np.zeros((0, len(self.classes)), np.float32)
        return _softmax(self.session.run(["logits"], {"crops": to_blob(crops_bgr)})[0])

    def read(self, crops_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """`probabilities` of ``(n, h, w, 3)`` crops, and the ``(n, d)`` picture each one
        makes to the classifier just before its last layer (its ``embedding``: crops alike
        to it lie close). The embedding is None for a model that does not give one."""
        if not self.has_embedding:
            return self.probabilities(crops_bgr), None
        if not len(crops_bgr):
            return np.zeros((0, len(self.classes)), np.float32), None
        logits, embedding = self.session.run(["logits", "embedding"], {"crops": to_blob(crops_bgr)})
        return _softmax(logits), np.asarray(embedding, np.float32)

    def first_read(
        self, image_bgr: np.ndarray, cards: Cards, rectifier: CardRectifier
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """`read` of every card's crop as found (the first of `VIEWS`)."""
        if not len(cards):
            return np.zeros((0, len(self.classes)), np.float32), None
        return self.read(view_crops(rectifier, cards.corners, VIEWS[0]))

    def card_probabilities(
        self,
        image_bgr: np.ndarray,
        cards: Cards,
        views: int = 1,
        as_found: np.ndarray | None = None,
        rectifier: CardRectifier | None = None,
    ) -> np.ndarray:
        """``(n, classes)`` probabilities of every card's rectified crop.

        With ``views`` > 1, the mean over the first ``views`` looks of `vision.core.rectify.VIEWS`
        (as found, turned half round, closer, wider); ``as_found`` saves reading the first
        look again when it was read already, ``rectifier`` (from `rectifier`) building the
        image's pyramid again.
        """
        if not 1 <= views <= len(VIEWS):
            raise ValueError(f"views must be within 1..{len(VIEWS)}")
        if not len(cards):
            return np.zeros((0, len(self.classes)), np.float32)
        rectifier = rectifier or self.rectifier(image_bgr)
        looks = []
        for view in VIEWS[:views]:
            if view == VIEWS[0] and as_found is not None:
                looks.append(np.asarray(as_found))
            else:
                looks.append(self.probabilities(view_crops(rectifier, cards.corners, view)))
        return looks[0] if views == 1 else np.mean(looks, axis=0)

    def rectifier(self, image_bgr: np.ndarray) -> CardRectifier:
        """Cuts this classifier's crops out of ``image_bgr`` (reusable for several reads)."""
        return CardRectifier(image_bgr, self.width_px, self.height_px)

    def balanced(self, probabilities: np.ndarray, decks: np.ndarray) -> np.ndarray:
        """Probabilities with the ``decks``' share of their sum evened out by `deck_weights`.

        Only how the decks split their summed probability changes: how likely a back is to
        be one of the decks at all, rather than ``other`` or a face, stays as it was.
        """
        if self.deck_weights is None:
            return probabilities
        q = np.where(decks, probabilities * self.deck_weights, 0.0)
        mass = np.where(decks, probabilities, 0.0).sum(axis=1, keepdims=True)
        q = q * (mass / np.maximum(q.sum(axis=1, keepdims=True), 1e-12))
        return np.where(decks, q, probabilities)

    def allowed(self, profile: tuple[str, ...] | None) -> set[str]:
        """The decks that can be on the table: the profile's, or every deck the model knows."""
        return set(profile) if profile is not None else set(self.decks)

    def within_profile(
        self, probabilities: np.ndarray, profile: tuple[str, ...] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Probabilities limited to what can be on the table, and which classes are its decks.

        Only the profile's decks can be on the table: the others get no probability, so in
        a classic game the ink alone settles the deck. A back that fits none of them still
        lands on "other" (unknown). Returns ``(p, possible)``, rows renormalised.
        """
        allowed = self.allowed(profile)
        possible = np.array(
            [c.startswith(FACE_PREFIX) or c == OTHER or c in allowed for c in self.classes]
        )
        p = np.where(possible, probabilities, 0.0)
        p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-12)
        return p, possible

    def profile_probabilities(
        self, probabilities: np.ndarray, profile: tuple[str, ...] | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """What naming starts from: `within_profile`, the profile's decks then `balanced`.

        Returns ``(p, possible)`` as `within_profile` does.
        """
        p, possible = self.within_profile(probabilities, profile)
        return self.balanced(p, self.profile_decks(profile)), possible

    def profile_decks(self, profile: tuple[str, ...] | None) -> np.ndarray:
        """``(classes,)`` bool: the classes that are decks of the profile."""
        allowed = self.allowed(profile)
        return np.array([c in allowed and c in self.decks for c in self.classes])

    @property
    def other_class(self) -> int:
        """Index of the ``other`` class (-1 when the model has none)."""
        return self._other

    def classify(
        self,
        image_bgr: np.ndarray,
        cards: Cards,
        profile: tuple[str, ...] | None = None,
        neighbours: Neighbours | None = None,
        probabilities: np.ndarray | None = None,
    ) -> Cards:
        """A copy of ``cards`` with ``deck``, ``deck_confidence``, ``color`` and (backs)
        ``other_probability`` filled in.

        ``neighbours``: how backs weigh the backs they touch (default: not at all).
        ``probabilities`` (from `card_probabilities`) saves reading the crops again.
        """
        out = cards[np.arange(len(cards))]
        if not len(cards):
            return out
        if probabilities is None:
            probabilities = self.card_probabilities(image_bgr, cards)
        allowed = self.allowed(profile)
        p, possible = self.profile_probabilities(probabilities, profile)
        backs = cards.side == BACK
        if self._other >= 0:
            out.other_probability = np.where(backs, p[:, self._other], 0.0).astype(np.float32)
        looks_like_none = backs & (p.argmax(axis=1) == self._other)
        p = (neighbours or Neighbours()).apply(cards.corners, p, backs, keep=looks_like_none)
        back_scores = np.where(self._is_back_class & possible, p, -1.0)
        face_scores = np.where(~self._is_back_class, p, -1.0)
        for i in range(len(cards)):
            if cards.side[i] == BACK:
                k = int(back_scores[i].argmax())
                name = self.classes[k]
                out.deck_confidence[i] = p[i, k]
                sure = p[i, k] >= self.min_deck_probability
                out.deck[i] = name if (name in allowed and sure) else None
            elif cards.side[i] == FACE:
                k = int(face_scores[i].argmax())
                out.deck_confidence[i] = p[i, k]
                out.color[i] = self.classes[k][len(FACE_PREFIX) :]
        return out


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of ``(n, classes)`` logits."""
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: np.ndarray = z / z.sum(axis=1, keepdims=True)
    return out
