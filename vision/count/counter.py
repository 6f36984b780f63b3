"""`Counter`: an image in, every card with its deck and the count per deck out.

>>> counter = Counter()                      # shipped models, loaded once
>>> count = counter.count("table.jpg")
>>> count.counts, count.unknown, count.to_json()
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import ModelError
from vision.core.cards import BACK, SIDE_NAMES, Cards
from vision.core.geometry import quads_to_xywhr, rotated_nms
from vision.core.imageio import load_image
from vision.core.models import DEFAULT_CHECK, DEFAULT_CLASSIFIER, DEFAULT_DETECTOR, DEFAULT_LOOK
from vision.core.rectify import CardRectifier
from vision.core.settings import VisionSettings
from vision.count.doubts import alternatives, count_ranges, possible_cards
from vision.detect.check import CardCheck, candidate_features
from vision.detect.detector import OnnxDetector
from vision.detect.look import CardLook
from vision.name.classifier import DeckClassifier


@dataclass
class Count:
    """The cards of one image, numbered, and what they add up to per deck."""

    image: str
    size: tuple[int, int]
    cards: Cards
    decks: tuple[str, ...]
    model: dict[str, Any]
    uncertain_below_confidence: float = 0.8
    uncertain_other_probability: float | None = 0.1  # None: not a reason to look
    timings_s: dict[str, float] = field(default_factory=dict)
    # Per card, the other decks of the profile it could be (vision/count/doubts.py); empty when
    # nothing was worked out.
    could_be: tuple[tuple[str, ...], ...] = ()
    # Candidates that may be cards left uncounted (confidence: their chance of being a
    # card), and the decks of the profile each could be.
    possible: Cards | None = None
    possible_could_be: tuple[tuple[str, ...], ...] = ()

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
    def unknown(self) -> int:
        """Back-up cards that match no deck of the profile."""
        return int(
            sum(
                1
                for s, d in zip(self.cards.side, self.cards.deck, strict=True)
                if s == BACK and d is None
            )
        )

    @property
    def uncertain(self) -> list[int]:
        """Ids of cards to look at: detection or naming below the confidence bar, unknown
        backs, and backs named a deck whose own picture looked enough like no deck."""
        conf = self.cards.overall_confidence
        bar = self.uncertain_other_probability
        other = self.cards.other_probability if bar is not None else None
        out = []
        for i in range(len(self.cards)):
            low = conf[i] < self.uncertain_below_confidence
            back = self.cards.side[i] == BACK
            unnamed = back and self.cards.deck[i] is None
            odd = back and other is not None and other[i] >= bar
            if low or unnamed or odd:
                out.append(i + 1)
        return out

    @property
    def ranges(self) -> dict[str, tuple[int, int]]:
        """``{deck: (low, high)}``: how far each deck's count could be off, given the
        uncertain cards and the possible cards not counted (`vision.count.doubts.count_ranges`)."""
        if not self.could_be:
            return {d: (n, n) for d, n in self.counts.items()}
        doubted = set(self.uncertain)
        backs = [i for i in range(len(self.cards)) if self.cards.side[i] == BACK]
        return count_ranges(
            self.counts,
            [self.cards.deck[i] for i in backs],
            [i + 1 in doubted for i in backs],
            [self.could_be[i] for i in backs],
            self.possible_could_be,
        )

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
            "cards": cards,
            "uncertain": self.uncertain,
            "ranges": {d: [lo, hi] for d, (lo, hi) in self.ranges.items()},
            "possible": self.possible_json(),
            "model": self.model,
        }

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


class Counter:
    """Loads the detector and deck classifier once; counts cards in any number of images.

    Args:
        model_path: detector, an exported ``.onnx`` (run with onnxruntime) or a ``.pt``
            (run with ultralytics; slower to start). Defaults to the shipped model.
        classifier_path: deck classifier ``.onnx``; defaults to the shipped one.
        decks: the profile's decks (counted, listed with 0); defaults to every deck the
            classifier knows. A back of a deck outside the profile is unknown.
        settings: thresholds; defaults to :class:`VisionSettings`.
        threads: CPU threads for inference (default: all cores, at most 4).
        live: favour speed on webcam frames (a quick low-resolution look first).
        check_path: the card check (`vision.detect.check`); defaults to the shipped one.
            Used with an ONNX detector when ``settings.card_check`` is on.
        look_path: the card look (`vision.detect.look`); defaults to the shipped one. Used
            with the check when ``settings.card_look`` is on.
        sure_confidence: the detector confidence at which a box alone counts as a card when
            judging how big the cards are (where to look); defaults to the settings'
            ``min_detection_confidence``.
    """

    def __init__(
        self,
        model_path: Path | None = None,
        classifier_path: Path | None = None,
        decks: tuple[str, ...] | None = None,
        settings: VisionSettings | None = None,
        threads: int | None = None,
        live: bool = False,
        check_path: Path | None = None,
        look_path: Path | None = None,
        sure_confidence: float | None = None,
    ) -> None:
        self.settings = s = settings or VisionSettings()
        self.live = live
        # Boxes the detector alone would call cards: how big the cards are, where to look.
        self.sure_confidence = (
            s.min_detection_confidence if sure_confidence is None else sure_confidence
        )
        model_path = Path(model_path) if model_path else DEFAULT_DETECTOR
        self.check: CardCheck | None = None
        self.look: CardLook | None = None
        if model_path.suffix == ".pt":
            from vision.detect.detector import UltralyticsDetector

            self.detector: Any = UltralyticsDetector(model_path, s, threads)
        else:
            if s.card_check:
                self.check = CardCheck(Path(check_path) if check_path else DEFAULT_CHECK)
                if s.card_look:
                    self.look = CardLook(Path(look_path) if look_path else DEFAULT_LOOK, threads)
                # The detector proposes candidates; the check decides which are cards.
                self.detector = OnnxDetector(model_path, s.proposing(), threads)
            else:
                self.detector = OnnxDetector(model_path, s, threads)
        self.classifier = DeckClassifier(
            Path(classifier_path) if classifier_path else DEFAULT_CLASSIFIER,
            threads,
            balance_decks=s.balance_decks,
            min_deck_probability=s.min_deck_probability,
            enrolled_min_deck_probability=s.enrolled_min_deck_probability,
        )
        if decks is not None:
            unknown = [d for d in decks if d not in self.classifier.decks]
            if unknown:
                raise ModelError(
                    f"the deck model does not know {', '.join(unknown)}; it knows "
                    f"{', '.join(self.classifier.decks)}"
                )
        self.decks = tuple(decks) if decks is not None else self.classifier.decks
        parts: list[Any] = [self.detector, self.classifier]
        if self.check is not None:
            parts.append(self.check)
        if self.look is not None:
            parts.append(self.look)
        combined = hashlib.sha256("".join(p.sha256 for p in parts).encode()).hexdigest()
        self.model_info = {
            "name": "+".join(p.name for p in parts),
            "sha256": combined,
            "parts": [{"name": p.path.name, "sha256": p.sha256} for p in parts],
        }

    # -- localizing -------------------------------------------------------------------

    @property
    def detector_views(self) -> int:
        """Looks the detector takes at each input (`vision.detect.views`): one on live frames."""
        s = self.settings
        return s.live_detector_views if self.live else s.detector_views

    @property
    def naming_views(self) -> int:
        """Looks at each kept card that naming averages (`vision.core.rectify`): one on live frames."""
        s = self.settings
        return s.live_naming_views if self.live else s.naming_views

    def locate(self, image_bgr: np.ndarray) -> Cards:
        """Every card's quad and side.

        Live mode first looks at the whole frame at ``live_input_px`` and keeps that when
        every card found is large enough; otherwise (and always for photos) the frame is
        seen at the detector's own size. When the cards found there are small, the image is
        seen again at a larger scale: whole when it fits ``max_whole_input_px`` (a small
        image enlarged at most ``max_upscale`` times), else in tiles, kept when the tiles
        are sure of at least as many cards.
        """
        s = self.settings
        detector = self.detector
        if not isinstance(detector, OnnxDetector):
            return detector.detect(image_bgr)  # the ultralytics baseline has no tiling
        h, w = image_bgr.shape[:2]
        views = self.detector_views
        if self.live and detector.dynamic:
            quick = detector.detect(image_bgr, s.live_input_px, views)
            small = s.live_min_card_long_side_input_px * max(h, w) / s.live_input_px
            sure = self._sure(quick)
            if len(sure) and float(np.percentile(sure.long_side_px, 10)) >= small:
                return quick
        input_px = s.detector_input_px if detector.dynamic else detector.input_px
        cards = detector.detect(image_bgr, input_px, views)
        whole_scale = input_px / max(h, w)
        sure = self._sure(cards)
        if len(sure):
            card_input_px = float(np.median(sure.long_side_px)) * whole_scale
            if card_input_px >= s.min_card_long_side_input_px:
                return cards
            zoom = s.target_card_long_side_input_px / max(card_input_px, 1.0)
        else:
            zoom = 3.0  # nothing at all: look closer once
        scale = min(whole_scale * zoom, s.max_upscale)
        if scale <= whole_scale * 1.2:
            return cards
        long_side = round(max(h, w) * scale)
        if detector.dynamic and long_side <= s.max_whole_input_px:
            # Seen whole: a better look, though often surer of fewer boxes (fewer copies).
            return detector.detect(image_bgr, long_side, views)
        tiled = self._tiled(image_bgr, scale, input_px, views)
        return tiled if len(self._sure(tiled)) >= len(sure) else cards

    def _sure(self, cards: Cards) -> Cards:
        """The cards the detector alone is sure of (all, when it proposes only those)."""
        return cards[cards.confidence >= self.sure_confidence]

    def _tiled(self, image_bgr: np.ndarray, scale: float, input_px: int, views: int) -> Cards:
        """Detect on overlapping tiles of the image resized by ``scale``."""
        import cv2

        s = self.settings
        h, w = image_bgr.shape[:2]
        sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
        interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        big = cv2.resize(image_bgr, (sw, sh), interpolation=interp)
        step = max(1, int(input_px * (1 - s.tile_overlap_fraction)))
        xs = list(range(0, max(sw - input_px, 0) + 1, step))
        ys = list(range(0, max(sh - input_px, 0) + 1, step))
        if xs[-1] + input_px < sw:
            xs.append(sw - input_px)
        if ys[-1] + input_px < sh:
            ys.append(sh - input_px)
        margin = 2.0
        parts = []
        for y0 in ys:
            for x0 in xs:
                tile = big[y0 : y0 + input_px, x0 : x0 + input_px]
                if tile.shape[0] != input_px or tile.shape[1] != input_px:
                    pad = np.full((input_px, input_px, 3), 114, np.uint8)
                    pad[: tile.shape[0], : tile.shape[1]] = tile
                    tile = pad
                found = self.detector.infer(tile, views)  # a square of input_px
                if not len(found):
                    continue
                # Cards cut by an inner tile edge are left to the neighbouring tile.
                lo = found.corners.min(axis=1)
                hi = found.corners.max(axis=1)
                cut = np.zeros(len(found), bool)
                if x0 > 0:
                    cut |= lo[:, 0] < margin
                if y0 > 0:
                    cut |= lo[:, 1] < margin
                if x0 + input_px < sw:
                    cut |= hi[:, 0] > input_px - margin
                if y0 + input_px < sh:
                    cut |= hi[:, 1] > input_px - margin
                found = found[~cut]
                parts.append(found.transformed(1.0 / scale, (x0 / scale, y0 / scale)))
        merged = Cards.concatenate(parts)
        if not len(merged):
            return merged
        xywhr = quads_to_xywhr(merged.corners)
        d = self.detector.settings
        keep = rotated_nms(xywhr, merged.confidence, d.nms_iou, d.max_cards)
        return merged[keep]

    # -- counting ---------------------------------------------------------------------

    def count(
        self,
        image: str | Path | np.ndarray,
        name: str | None = None,
        decks: tuple[str, ...] | None = None,
    ) -> Count:
        """Count the cards of one image (a path or a BGR array).

        ``decks`` overrides the profile for this image (e.g. the decks of the game).
        """
        profile = tuple(decks) if decks is not None else self.decks
        t0 = time.perf_counter()
        if isinstance(image, (str, Path)):
            name = name or str(image)
            image_bgr = load_image(image, self.settings)
        else:
            image_bgr = image
            name = name or "<array>"
        t1 = time.perf_counter()
        s = self.settings
        cards = self.locate(image_bgr)
        t2 = time.perf_counter()
        rectifier = self.classifier.rectifier(image_bgr)
        p = self.classifier.card_probabilities(image_bgr, cards, rectifier=rectifier)
        possible: Cards | None = None
        possible_p = np.zeros((0, len(self.classifier.classes)))
        if self.check is not None:
            cards, p, possible, possible_p = self.checked(image_bgr, cards, p, profile)
        p = self.naming_probabilities(image_bgr, cards, p, rectifier)
        cards = self.classifier.classify(image_bgr, cards, profile, s.neighbours(), probabilities=p)
        order = reading_order(cards)
        cards = cards[order]
        could_be = self.could_be(p[order], profile, cards.deck)
        possible_could_be: list[tuple[str, ...]] = []
        if possible is not None:
            possible_could_be = [
                others if side == BACK else ()
                for others, side in zip(
                    self.could_be(possible_p, profile), possible.side, strict=True
                )
            ]
        t3 = time.perf_counter()
        h, w = image_bgr.shape[:2]
        return Count(
            image=name,
            size=(w, h),
            cards=cards,
            decks=profile,
            model=self.model_info,
            uncertain_below_confidence=self.settings.uncertain_below_confidence,
            uncertain_other_probability=(
                s.enrolled_uncertain_other_probability
                if self.classifier.enrolled
                else s.uncertain_other_probability
            ),
            timings_s={"decode": t1 - t0, "detect": t2 - t1, "classify": t3 - t2},
            could_be=tuple(could_be),
            possible=possible,
            possible_could_be=tuple(possible_could_be),
        )

    def could_be(
        self, probabilities: np.ndarray, profile: tuple[str, ...], named: Any = None
    ) -> list[tuple[str, ...]]:
        """For each card, the decks of the profile other than its name (``named``) that it
        is at least ``alternative_min_probability`` likely to be (`vision.count.doubts`)."""
        allowed = self.classifier.allowed(profile)
        decks = [d for d in self.classifier.decks if d in allowed]
        p, _ = self.classifier.profile_probabilities(probabilities, profile)
        bar = self.settings.alternative_min_probability
        exclude = list(named) if named is not None else None
        return alternatives(p, self.classifier.classes, decks, bar, exclude=exclude)

    def naming_probabilities(
        self,
        image_bgr: np.ndarray,
        cards: Cards,
        as_found: np.ndarray,
        rectifier: CardRectifier | None = None,
    ) -> np.ndarray:
        """The kept cards' probabilities for naming: their `naming_views` looks averaged
        (`live_naming_views` in live mode)."""
        views = self.naming_views
        if views == 1:
            return as_found
        return self.classifier.card_probabilities(
            image_bgr, cards, views, as_found=as_found, rectifier=rectifier
        )

    def describe(
        self,
        image_bgr: np.ndarray,
        candidates: Cards,
        probabilities: np.ndarray,
        profile: tuple[str, ...],
    ) -> np.ndarray:
        """The facts the card check reads about each candidate (`candidate_features`)."""
        import cv2

        within, _ = self.classifier.within_profile(probabilities, profile)
        return candidate_features(
            cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY),
            candidates.corners,
            candidates.confidence,
            candidates.side != BACK,
            within,
            self.classifier.profile_decks(profile),
            self.classifier.other_class,
        )

    def chances(
        self,
        image_bgr: np.ndarray,
        candidates: Cards,
        probabilities: np.ndarray,
        profile: tuple[str, ...],
    ) -> np.ndarray:
        """``(n,)`` each candidate's chance of being a real card (check, then look)."""
        assert self.check is not None
        facts = self.describe(image_bgr, candidates, probabilities, profile)
        chance = self.check.chance(facts)
        if self.look is not None:
            chance = self.look.refine(image_bgr, candidates.corners, facts, chance)
        return chance

    def checked(
        self,
        image_bgr: np.ndarray,
        candidates: Cards,
        probabilities: np.ndarray,
        profile: tuple[str, ...],
    ) -> tuple[Cards, np.ndarray, Cards, np.ndarray]:
        """The candidates the card check keeps, the likeliest first, and their probabilities;
        then the possible cards it dropped (`vision.count.doubts.possible_cards`) and theirs.

        A kept card's confidence becomes the chance that it is a real card: the check's,
        or the card look's for the candidates the check is unsure of; so does a possible
        card's.
        """
        assert self.check is not None
        if not len(candidates):
            return candidates, probabilities, candidates, probabilities
        s = self.settings
        chance = self.chances(image_bgr, candidates, probabilities, profile)
        bar = s.card_chance_bar(self.detector_views)
        idx = np.flatnonzero(chance >= bar)
        idx = idx[np.argsort(-chance[idx], kind="stable")]
        if len(idx):
            xywhr = quads_to_xywhr(candidates.corners[idx])
            idx = idx[rotated_nms(xywhr, chance[idx], s.card_nms_iou, s.max_cards)]
        kept = candidates[idx]
        kept.confidence = chance[idx].astype(np.float32)
        maybe = np.zeros(0, np.int64)
        if s.possible_min_chance is not None:
            maybe = possible_cards(
                candidates.corners,
                chance,
                kept.corners,
                s.possible_min_chance,
                bar,
                s.possible_max_iou,
            )
        possible = candidates[maybe]
        possible.confidence = chance[maybe].astype(np.float32)
        return kept, probabilities[idx], possible, probabilities[maybe]
