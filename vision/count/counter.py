"""`Counter`: an image in, every card with its deck and the count per deck out.

>>> counter = Counter()                      # shipped models, loaded once
>>> count = counter.count("table.jpg")
>>> count.counts, count.unknown, count.to_json()
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import ModelError
from vision.core.cards import Cards
from vision.core.first_look import FirstLook
from vision.core.geometry import cut_by_inner_edges
from vision.core.imageio import load_image
from vision.core.models import (
    DEFAULT_CHECK,
    DEFAULT_CLASSIFIER,
    DEFAULT_DETECTOR,
    DEFAULT_LIVE_CHECK,
    DEFAULT_LOOK,
    DEFAULT_NUMBERS,
    ModelPart,
)
from vision.core.settings import VisionSettings
from vision.core.types import Array
from vision.count.doubts import look_alikes
from vision.count.heaps import HeapRules
from vision.count.lone import lone_faces, sure_lone_places
from vision.count.paper import Paper, PaperRules, find_paper
from vision.count.result import Count, numbered
from vision.detect.check import DETECTOR_SURE, CardCheck
from vision.detect.checker import CardChecker, Checked
from vision.detect.detector import CardDetector, OnnxDetector
from vision.detect.locate import Locator
from vision.detect.look import CardLook
from vision.name.classifier import DeckClassifier
from vision.name.namer import Named, Namer
from vision.name.numbers import NumberReader, ReaderPair, Reading


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
        live: favour speed on webcam frames (a quick low-resolution look first, one look
            of each kind).
        check_path: the card check (`vision.detect.check`); defaults to the shipped one
            (for ``live``, the shipped live one).
            Used with an ONNX detector when ``settings.card_check`` is on.
        look_path: the card look (`vision.detect.look`); defaults to the shipped one. Used
            with the check when ``settings.card_look`` is on.
        sure_confidence: the detector confidence at which a box alone counts as a card when
            judging how big the cards are (where to look); defaults to the settings'
            ``min_detection_confidence``.
        numbers_path: the face number reader (`vision.name.numbers`); defaults to the
            shipped one. Without that file faces keep no number.
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
        numbers_path: Path | None = None,
    ) -> None:
        self.settings = s = settings or VisionSettings()
        self.live = live
        model_path = Path(model_path) if model_path else DEFAULT_DETECTOR
        self.checker: CardChecker | None = None
        self.detector: CardDetector
        if model_path.suffix == ".pt":
            from vision.detect.detector import UltralyticsDetector

            self.detector = UltralyticsDetector(model_path, s, threads)
        elif s.card_check:
            shipped = DEFAULT_LIVE_CHECK if live else DEFAULT_CHECK
            check = CardCheck(Path(check_path) if check_path else shipped)
            look = None
            if s.card_look:
                look = CardLook(Path(look_path) if look_path else DEFAULT_LOOK, threads)
            # The detector proposes candidates; the check decides which are cards.
            self.detector = OnnxDetector(model_path, s.proposing(), threads)
            self.checker = CardChecker(check, look, s, self.detector_views)
        else:
            self.detector = OnnxDetector(model_path, s, threads)
        # Boxes the detector alone would call cards: how big the cards are, where to look.
        sure = s.min_detection_confidence if sure_confidence is None else sure_confidence
        self.locator = Locator(self.detector, s, self.detector_views, live, sure)
        self.classifier = DeckClassifier(
            Path(classifier_path) if classifier_path else DEFAULT_CLASSIFIER,
            threads,
            balance_decks=s.balance_decks,
            min_deck_probability=s.min_deck_probability,
            enrolled_min_deck_probability=s.enrolled_min_deck_probability,
        )
        # A live track gathers what each of its frames says a card could be
        # (`vision.live.steady`): the enrolled profile's fainter bar stays off there.
        naming = s.with_overrides(enrolled_alternative_min_probability=None) if live else s
        self.namer = Namer(self.classifier, naming, self.naming_views)
        numbers = Path(numbers_path) if numbers_path else DEFAULT_NUMBERS
        self.reader: NumberReader | ReaderPair | None = None
        if numbers_path is not None or numbers.is_file():
            reader = self.number_reader(numbers, threads)
            self.reader = reader
            if reader.enrolled:
                reader.min_confidence = s.enrolled_number_min_confidence
                # beside the shipped reader (live frames keep their speed)
                if s.enrolled_numbers_beside_shipped and not live and DEFAULT_NUMBERS.is_file():
                    self.reader = ReaderPair(reader, self.number_reader(DEFAULT_NUMBERS, threads))
        if decks is not None:
            unknown = [d for d in decks if d not in self.classifier.decks]
            if unknown:
                raise ModelError(
                    f"the deck model does not know {', '.join(unknown)}; it knows "
                    f"{', '.join(self.classifier.decks)}"
                )
        self.decks = tuple(decks) if decks is not None else self.classifier.decks
        self.model_info = model_info(self.parts)

    @property
    def parts(self) -> list[ModelPart]:
        """The model files in use: detector, classifier, then card check and look, then the
        number reader, each if loaded."""
        parts: list[ModelPart] = [self.detector, self.classifier]
        if self.checker is not None:
            parts.append(self.checker.check)
            if self.checker.look is not None:
                parts.append(self.checker.look)
        if self.reader is not None:
            parts.extend(self.reader.parts)
        return parts

    def number_reader(self, path: Path, threads: int | None) -> NumberReader:
        """A number reader of ``path`` with the settings' bars and looks."""
        s = self.settings
        return NumberReader(
            path,
            threads,
            s.number_min_confidence,
            s.number_views,
            s.number_agreement,
            s.number_shortened,
            s.number_one_min_confidence,
            s.number_quarter_below_aspect,
            s.number_painted and not self.live,  # live frames keep their speed
        )

    @property
    def detector_views(self) -> int:
        """Looks the detector takes at each input (`vision.detect.views`): one on live frames."""
        s = self.settings
        return s.live_detector_views if self.live else s.detector_views

    @property
    def naming_views(self) -> int:
        """Looks at each kept card that naming averages (`vision.name.looks`): fewer live,
        where an enrolled classifier takes more than the built-in one."""
        s = self.settings
        if not self.live:
            return s.naming_views
        return s.enrolled_live_naming_views if self.classifier.enrolled else s.live_naming_views

    def forget_looks(self) -> None:
        """A new scene (a watch session, a clip): its first live frame chooses the scale it
        is seen at afresh (`vision.detect.locate.Locator`)."""
        self.locator.forget()

    def count(
        self,
        image: str | Path | Array,
        name: str | None = None,
        decks: tuple[str, ...] | None = None,
    ) -> Count:
        """Count the cards of one image (a path or a BGR array).

        ``decks`` overrides the profile for this image (e.g. the decks of the game).
        """
        profile = tuple(decks) if decks is not None else self.decks
        t0 = time.perf_counter()
        image_bgr, name = self.decode(image, name)
        t1 = time.perf_counter()
        candidates = self.locator.locate(image_bgr)
        t2 = time.perf_counter()
        first = self.namer.first_look(image_bgr, candidates, profile)
        checked = self.sift(image_bgr, candidates, first)
        named = numbered(self.namer.name(image_bgr, checked.kept, checked.kept_look, profile))
        possible = self.namer.possible_decks(checked.possible, checked.possible_look, profile)
        reading = self.read_numbers(image_bgr, named.cards)
        lone = self.read_lone_faces(image_bgr, named.cards, checked.rejected)
        places = self.lone_places(named.cards, checked)
        paper = self.paper(image_bgr, named.cards, checked)
        t3 = time.perf_counter()
        timings = {"decode": t1 - t0, "detect": t2 - t1, "classify": t3 - t2}
        return self.result(
            name,
            image_bgr,
            profile,
            named,
            checked,
            possible,
            timings,
            reading,
            lone,
            places,
            paper,
        )

    def part_scale(self, h: int, w: int) -> float | None:
        """The scale a part of a live frame of ``h`` x ``w`` px is seen at (`count_part`):
        the one the last whole frame of that size chose, ``None`` when none did."""
        return self.locator.scale_for(h, w) if self.live else None

    def count_part(
        self,
        image_bgr: Array,
        box: tuple[int, int, int, int],
        name: str | None = None,
        decks: tuple[str, ...] | None = None,
        scale: float | None = None,
    ) -> Count:
        """Count the cards lying whole inside ``box`` (x0, y0, x1, y1, px) of a live frame,
        seen at the scale its whole frame chose (`part_scale`, or ``scale``; an error before
        a frame of that size chose one). The cards are in the frame's pixels; a card the
        box's inner edges cut is left out (it lies partly outside). Only the cards, their
        numbers and doubts are kept: not the candidates the check dropped, nor the card
        paper."""
        h, w = image_bgr.shape[:2]
        scale = self.part_scale(h, w) if scale is None else scale
        if scale is None:
            raise ValueError("no scale chosen for this frame size: count a whole frame first")
        x0, y0, x1, y1 = (int(v) for v in box)
        if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
            raise ValueError(f"box {box} is not inside the {w}x{h} frame")
        self.locator.at_scale = scale
        try:
            count = self.count(image_bgr[y0:y1, x0:x1], name=name, decks=decks)
        finally:
            self.locator.at_scale = None
        cards = count.cards
        cut = cut_by_inner_edges(
            cards.corners, (x1 - x0, y1 - y0), (x0 > 0, y0 > 0, x1 < w, y1 < h)
        )
        keep = np.flatnonzero(~cut)

        def kept(values: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(values[i] for i in keep) if len(values) == len(cards) else ()

        return dataclasses.replace(
            count,
            size=(w, h),
            cards=cards[keep].transformed(1.0, (x0, y0)),
            could_be=kept(count.could_be),
            from_scene=kept(count.from_scene),
            value_confidence=(
                count.value_confidence[keep] if count.value_confidence is not None else None
            ),
            possible=None,
            possible_could_be=(),
            rejected=None,
            paper=None,
            lone_faces=None,
            lone_value_confidence=None,
            lone_places=None,
        )

    def read_numbers(self, image_bgr: Array, cards: Cards) -> Reading | None:
        """Each face's number into ``cards.value`` (-1: not read); None without a reader."""
        if self.reader is None:
            return None
        reading = self.reader.read(image_bgr, cards)
        cards.value[:] = reading.values
        return reading

    def read_lone_faces(
        self, image_bgr: Array, kept: Cards, rejected: Cards | None
    ) -> tuple[Cards, Array] | None:
        """The faces the card check turned away that lie alone (`vision.count.lone`) and
        whose number the reader reads, with how likely each number is; None without a
        reader, on live frames, or with ``lone_faces`` off."""
        s = self.settings
        if self.reader is None or self.live or not s.lone_faces:
            return None
        alone = lone_faces(
            kept, rejected, s.lone_face_min_long_px, s.lone_face_max_covered, s.lone_max_size
        )
        if rejected is None or not len(alone):
            return Cards.empty(), np.zeros(0, np.float32)
        faces = rejected[alone]
        reading = self.reader.read(image_bgr, faces)
        read = np.flatnonzero(reading.values >= 1)
        faces = faces[read]
        faces.value[:] = reading.values[read]
        return faces, reading.confidence[read]

    def lone_places(self, kept: Cards, checked: Checked) -> Cards | None:
        """The candidates the card check turned away though the detector was sure of them,
        lying alone (`vision.count.lone.sure_lone_places`): where a card may lie half
        covered. None on live frames, with ``lone_places`` off, or with no check."""
        s = self.settings
        if self.live or not s.lone_places or checked.rejected is None:
            return None
        alone = sure_lone_places(
            kept,
            checked.rejected,
            checked.rejected_found,
            DETECTOR_SURE,
            s.lone_face_min_long_px,
            s.lone_face_max_covered,
            s.lone_max_size,
        )
        return checked.rejected[alone]

    def paper(self, image_bgr: Array, kept: Cards, checked: Checked) -> Paper | None:
        """The card paper in the pixels no counted card covers (`vision.count.paper`); None
        on live frames (a hand's sleeve passes over), with ``heap_paper`` or the heaps off,
        or with no check."""
        s = self.settings
        if self.live or not (s.heap_doubts and s.heap_paper) or checked.rejected is None:
            return None
        rules = PaperRules(
            ratio=s.heap_paper_ratio,
            grow_ratio=s.heap_paper_grow_ratio,
            min_share=s.heap_paper_min_share,
            min_card_areas=s.heap_paper_min_card_areas,
            max_thickness=s.heap_paper_max_thickness,
        )
        return find_paper(image_bgr, kept.corners, checked.rejected.corners, rules)

    def decode(self, image: str | Path | Array, name: str | None) -> tuple[Array, str]:
        """The image as BGR pixels (a path is read as phones write photos) and its name."""
        if isinstance(image, (str, Path)):
            return load_image(image, self.settings), name or str(image)
        return image, name or "<array>"

    def sift(self, image_bgr: Array, candidates: Cards, first: FirstLook) -> Checked:
        """The candidates the card check keeps, and the possible cards it dropped; every
        candidate, unchecked, with no check loaded."""
        if self.checker is None:
            return Checked.unchecked(candidates, first)
        return self.checker.sift(image_bgr, candidates, first)

    def look_alikes(self, profile: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
        """The decks of ``profile`` that look alike (one ink or one object) and whose doubt
        widens the ranges: with a profile's own classifier only, and not on live frames
        (their tracks gather every frame's alternatives)."""
        if not (self.classifier.enrolled and self.settings.enrolled_look_alikes) or self.live:
            return {}
        return look_alikes(profile)

    def result(
        self,
        name: str,
        image_bgr: Array,
        profile: tuple[str, ...],
        named: Named,
        checked: Checked,
        possible_decks: tuple[tuple[str, ...], ...],
        timings: dict[str, float],
        reading: Reading | None = None,
        lone: tuple[Cards, Array] | None = None,
        places: Cards | None = None,
        paper: Paper | None = None,
    ) -> Count:
        """The `Count` of the named cards, with the bars of this counter's classifier, the
        numbers ``reading`` gave and the ``lone`` faces read (`read_lone_faces`)."""
        s = self.settings
        h, w = image_bgr.shape[:2]
        return Count(
            image=name,
            size=(w, h),
            cards=named.cards,
            decks=profile,
            model=self.model_info,
            uncertain_below_confidence=(
                s.enrolled_uncertain_below_confidence
                if self.classifier.enrolled and s.enrolled_uncertain_below_confidence is not None
                else s.uncertain_below_confidence
            ),
            range_below_confidence=(
                s.enrolled_range_below_confidence if self.classifier.enrolled else None
            ),
            look_alikes=self.look_alikes(profile),
            uncertain_other_probability=(
                s.enrolled_uncertain_other_probability
                if self.classifier.enrolled
                else s.uncertain_other_probability
            ),
            other_game_probability=(
                s.enrolled_other_game_probability
                if self.classifier.enrolled
                else s.other_game_probability
            ),
            timings_s=timings,
            could_be=named.could_be,
            from_scene=named.from_scene,
            possible=checked.possible,
            possible_could_be=possible_decks,
            rejected=checked.rejected,
            heap_rules=heap_rules(s),
            spread_min_cards=s.spread_min_cards,
            spread_min_uncertain_share=s.spread_min_uncertain_share,
            value_confidence=reading.confidence if reading is not None else None,
            lone_faces=lone[0] if lone is not None else None,
            lone_value_confidence=lone[1] if lone is not None else None,
            lone_places=places,
            paper=paper,
            open_when_unsure=s.unsure_photo_open and not self.live,
        )


def heap_rules(s: VisionSettings) -> HeapRules | None:
    """How the settings judge card material (`vision.count.heaps`); None when off."""
    if not s.heap_doubts:
        return None
    return HeapRules(
        min_chance=s.heap_min_chance,
        min_unexplained=s.heap_min_unexplained_card_areas,
        visible_fraction=s.heap_visible_fraction,
        double_min_iou=s.heap_double_min_iou,
        spread_min_hidden=s.heap_spread_min_hidden_cards,
        tight_lowers=s.heap_tight_lowers,
        tight_any_deck=s.heap_tight_any_deck,
        loose_max_iou=s.heap_loose_max_iou,
        loose_min_chance=s.heap_loose_min_chance,
    )


def model_info(parts: list[ModelPart]) -> dict[str, Any]:
    """``count --json``'s ``model``: the parts' names, their sha256 and one over all of them
    (the sha256 of their hex digests concatenated, in order)."""
    combined = hashlib.sha256("".join(p.sha256 for p in parts).encode()).hexdigest()
    return {
        "name": "+".join(p.name for p in parts),
        "sha256": combined,
        "parts": [{"name": p.path.name, "sha256": p.sha256} for p in parts],
    }
