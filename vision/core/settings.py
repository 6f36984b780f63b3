"""One settings object for the vision pipeline; every threshold has its unit in its name."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

# Fractions that may also be None (the step they set is off).
OPTIONAL_FRACTIONS = frozenset(
    {
        "uncertain_other_probability",
        "enrolled_uncertain_other_probability",
        "enrolled_uncertain_below_confidence",
        "enrolled_range_below_confidence",
        "enrolled_alternative_min_probability",
        "other_game_probability",
        "enrolled_other_game_probability",
        "possible_min_chance",
    }
)


@dataclass(frozen=True)
class VisionSettings:
    """Thresholds and sizes of the card counter.

    Fractions are in [0, 1]; sizes are in pixels of the image the step works on.
    """

    # Why each value is what it is, with the sweeps it was chosen by: docs/history.md,
    # "Run-time settings: how each was chosen" (tuning scenes, not the held-out sets).

    # Detector: boxes below this confidence are dropped before rotated NMS.
    min_detection_confidence: float = 0.35
    # Rotated boxes overlapping more than this IoU are the same card.
    nms_iou: float = 0.45
    # The card check (vision/detect/check.py) decides which candidates are cards, since no
    # confidence or overlap bar tells a half-covered card from a second box; off, the two
    # detector thresholds above decide alone.
    card_check: bool = True
    # The card look (vision/detect/look.py) gives the chance instead of the check for the
    # candidates the check is unsure of (its band); only with the check.
    card_look: bool = True
    # With the check on, the detector proposes every box down to this confidence ...
    candidate_min_confidence: float = 0.08
    # ... and NMS at this IoU only merges near-copies.
    candidate_nms_iou: float = 0.7
    # The check keeps candidates at least this likely to be a real card (four detector
    # looks); low, for recall: a card kept under uncertain_below_confidence is marked.
    min_card_chance: float = 0.3
    # The likelier first, dropping any that overlaps a kept one by more than this IoU.
    card_nms_iou: float = 0.7
    # The check's bar when the detector takes one look (live frames, detector_views 1):
    # one look's candidates are less steady.
    one_look_min_card_chance: float = 0.4
    # Most cards one image may yield (a full 8-deck table is 320 cards).
    max_cards: int = 400
    # A card is reported as uncertain below this overall confidence (the weaker of its
    # chance of being a card and of its deck), for a person to look at.
    uncertain_below_confidence: float = 0.8
    # The same for a profile's enrolled classifier (None: the bar above; a higher one flags
    # many more cards, docs/history.md).
    enrolled_uncertain_below_confidence: float | None = None
    # A profile's backs counted under this confidence widen the ranges without being
    # flagged (None: only the flagged ones): its one-number counts stay right 99 times in
    # 100 on new art (docs/history.md).
    enrolled_range_below_confidence: float | None = 0.9
    # With a profile's classifier, a back that could be (`enrolled_alternative_min_probability`)
    # a deck of its ink or of its object (green pump: green pail, blue pump) widens the
    # ranges however sure it is: slivers and small cards show the ink and not the object,
    # low light the object and not the ink (vision/count/doubts.py).
    enrolled_look_alikes: bool = True
    # A back named a deck is also uncertain when its own picture looked this likely to be
    # of no deck: backs of another deck are named for the deck of their ink.
    uncertain_other_probability: float | None = 0.1
    # The same for a profile's enrolled classifier (None: off): it costs more flags there.
    enrolled_uncertain_other_probability: float | None = None
    # A back named no deck whose own picture is at least this likely to be of no deck is
    # another game's card (cards of other games lie about the table): it counts for no
    # deck and asks nothing. None: every back of no deck is asked about.
    other_game_probability: float | None = 0.9
    # The same for a profile's enrolled classifier (None: off).
    enrolled_other_game_probability: float | None = 0.9
    # How far a deck's count could be off (vision/count/doubts.py): candidates the check
    # gave at least this chance (under min_card_chance) are possible cards not counted ...
    possible_min_chance: float | None = 0.1
    # ... when they overlap no kept card by this IoU.
    possible_max_iou: float = 0.5
    # A heap of this many touching backs or more, at least this share of them uncertain, is
    # too tight to count: Tallero asks for the cards to be spread out (`Count.spread`).
    spread_min_cards: int = 6
    spread_min_uncertain_share: float = 0.5
    # Card material no counted card explains widens the ranges (vision/count/heaps.py); off,
    # a tight heap's count may come out as one wrong number.
    heap_doubts: bool = True
    # The heap's material: counted cards and candidates the check gave at least this chance.
    heap_min_chance: float = 0.02
    # Unexplained material counts from this many card areas in one heap ...
    heap_min_unexplained_card_areas: float = 0.5
    # ... each hidden card showing at least this share of itself.
    heap_visible_fraction: float = 0.25
    # A candidate overlapping no counted card (nor a likelier such candidate) by this IoU
    # is one more card the heap could hide ...
    heap_loose_max_iou: float = 0.5
    # ... from this chance of being a card.
    heap_loose_min_chance: float = 0.02
    # A counted back overlapping a likelier counted card by this IoU may be a second box:
    # its deck's range reaches one lower.
    heap_double_min_iou: float = 0.5
    # A heap that could hide this many cards or more is too tight to count: it is to be
    # spread out (`Count.spread`), its range reaches as many cards as its material holds ...
    heap_spread_min_hidden_cards: int = 4
    # ... and down by its backs (each could be of another deck) ...
    heap_tight_lowers: bool = True
    # ... and every deck's reaches up by the heap's backs named for the others.
    heap_tight_any_deck: bool = True
    # Card paper seen in a photo's pixels where no card was found is heap material too
    # (vision/count/paper.py; not on live frames): a colour the counted cards hold this
    # many times as often as the table, and at least this share of their pixels, ...
    heap_paper: bool = True
    heap_paper_ratio: float = 16.0
    heap_paper_min_share: float = 0.002
    # ... grown into paper touching it of a colour they hold this many times as often, ...
    heap_paper_grow_ratio: float = 4.0
    # ... in pieces at least this many card areas, no thicker than this many card lengths.
    heap_paper_min_card_areas: float = 0.0
    heap_paper_max_thickness: float = 1.2
    # A photo in which no card is surely found (none at all, or only backs to look at and
    # faces found under the bar) gives each deck the range 0 to a deck (not on live frames):
    # it shows nothing of what lies there, an empty table or cards too dark, blurred or
    # small to find.
    unsure_photo_open: bool = True
    # A deck's range reaches to each uncertain back and possible card this likely of it.
    alternative_min_probability: float = 0.2
    # The same for a profile's enrolled classifier (None: the bar above), not on live
    # frames: fitted on one photo of each deck, it is surer than it is right, so its
    # flagged cards and possible cards reach further (docs/history.md).
    enrolled_alternative_min_probability: float | None = 0.05
    # A back's deck also weighs the backs it touches (a sorted player's cards lie together;
    # vision/name/neighbours.py); 0 turns that off.
    neighbour_weight: float = 2.0
    # Bounds how far neighbours overrule a card's own look: ((1 + 0.3) / 0.3) ** 2 = 19 to 1.
    neighbour_floor: float = 0.3
    # Each neighbour's say is its highest probability to this power: a clear card speaks.
    neighbour_reliability_power: float = 16.0
    # Rounds of hearing the neighbours, so a fan's clear top card reaches its slivers.
    neighbour_rounds: int = 3
    # ... except in a loose mixed heap: when under neighbour_mixed_agreement of the touching
    # pairs of backs both this sure of their deck agree ...
    neighbour_mixed_sure: float = 0.8
    # ... (such pairs agree in sorted piles, seldom in heaps) ...
    neighbour_mixed_agreement: float = 0.6
    # ... and there are at least this many pairs, every back keeps its own look.
    neighbour_mixed_min_pairs: int = 2
    # A back of no deck takes the deck of the backs it looks like in the same picture, a
    # photo or a live frame (vision/name/scene.py): of its scene_neighbours most alike
    # among the backs at least scene_seed_min_confidence sure of their deck,
    # scene_min_share are of one deck and each at least scene_min_similarity alike.
    scene_naming: bool = True
    scene_seed_min_confidence: float = 0.9
    scene_neighbours: int = 3
    scene_min_similarity: float = 0.9
    scene_min_share: float = 1.0
    # Naming evens out how often the classifier saw each deck in training (its
    # class_counts; vision/name/classifier.py): it saw classic decks 2.5 times as often.
    balance_decks: bool = True
    # A back is unknown when its deck, after its neighbours are heard, is less probable
    # than this.
    min_deck_probability: float = 0.5
    # The same for a profile's enrolled classifier, less sure of the user's own cards (such
    # a back still gets flagged as uncertain).
    enrolled_min_deck_probability: float = 0.4
    # Naming reads each kept card in this many looks (vision/name/looks.py VIEWS) and
    # averages them, steadier than one; the card check reads the first alone, as fitted.
    naming_views: int = 4
    # Live frames favour speed: one look (the next frame is another look anyway) ...
    live_naming_views: int = 1
    # ... but two with a profile's enrolled classifier, less sure of the user's own cards:
    # on heirloom clips enrolled as a user would, the steady count is right in more frames
    # and flickers less (docs/history.md, "Live frames named in two looks").
    enrolled_live_naming_views: int = 2
    # A face's number (vision/name/numbers.py) is given when the reader finds it at least
    # this likely; otherwise it is left unread and the card is listed to look at.
    number_min_confidence: float = 0.97
    # The same for a profile's number reader (`enroll faces --numbers`), fitted on few faces.
    enrolled_number_min_confidence: float = 0.97
    # ... read beside the shipped reader: a face takes the number either reads, never one
    # the other reads otherwise (`vision.name.numbers.ReaderPair`).
    enrolled_numbers_beside_shipped: bool = True
    # Looks each face's number is read in (its corners a little moved; averaged), and
    # whether two corner indices reading the same number count as two independent prints.
    number_views: int = 1
    number_agreement: bool = True
    # Shares of its long side each face is also read shortened by (both ends alike; the
    # surest look kept): a pile's top card is found longer than it is, its cards peeking out.
    number_shortened: tuple[float, ...] = (0.05, 0.1)
    # The probability a 1 needs (a blurred index's lone stroke reads as a 1).
    number_one_min_confidence: float = 0.99
    # A face whose outline's long over short side is under this is also read turned a
    # quarter (a card seen from a low angle looks nearly square, and may be taken the wrong
    # way round); 0: never.
    number_quarter_below_aspect: float = 1.3
    # Faces are looked at again in the outline their printed colour makes (the detector's
    # outline may be turned away from the card, its indices outside the crop): one still
    # unread is read there, one read as another number there is left unread. Not on live
    # frames (speed).
    number_painted: bool = True
    # Faces the card check turned away that lie alone (at least this long, pixels, and no
    # more than this share of them under counted cards) are read too: one whose number
    # reads may be a Dutch pile's top in a print the check never saw, and the piles list
    # it to look at (vision/count/lone.py). Not on live frames.
    lone_faces: bool = True
    lone_face_min_long_px: float = 65.0
    lone_face_max_covered: float = 0.15
    # ... and no more than this many times as long as the photo's median counted card (0: no
    # bar): a patch of a checked cloth near the camera, three cards long, is no card of this
    # table; a pile's top is at most 1.23 times the median on the held-out piles photos.
    lone_max_size: float = 2.0
    # Candidates of either side the check turned away though the detector was sure of them
    # (its own bar, vision.detect.check.DETECTOR_SURE), lying alone as a lone face does, are
    # places where a card may lie half covered (under a phone, a hand): the piles list each
    # one to look at, its top unknown (vision/count/lone.py). Not on live frames.
    lone_places: bool = True
    # Canonical size a card is rectified to before its back or face is read.
    crop_width_px: int = 32
    crop_height_px: int = 48
    # Images beyond these are refused rather than decoded.
    max_image_side_px: int = 20_000
    max_image_megapixels: float = 200.0
    min_image_side_px: int = 16
    # Long side over short side; a sliver beyond this holds no table (and would be tiled
    # at great cost).
    max_image_aspect: float = 10.0
    # Memory bound. An image of more pixels than this is counted reduced: a JPEG is decoded
    # at 1/2, 1/4 or 1/8 scale (libjpeg's own reduction, never the full size in memory),
    # another format decoded whole and then reduced by an integer factor.
    max_counted_megapixels: float = 16.0
    # Memory (MiB) a whole decode may take (Pillow keeps 4 bytes a pixel for colour, 1 for
    # grey); an image that cannot be decoded within it is refused before decoding.
    max_decode_mib: int = 512
    # Long side a whole image is resized to for the detector (a model exported with dynamic
    # axes; a fixed-size model uses its own). Its last epochs were at 640.
    detector_input_px: int = 640
    # Small cards: when the cards found on the whole image are smaller than this (median
    # long side, in detector-input pixels), the image is seen again at a larger scale ...
    min_card_long_side_input_px: float = 56.0
    # ... chosen so that a median card's long side becomes this many input pixels, ...
    target_card_long_side_input_px: float = 72.0
    # ... but never enlarged past this many times its own pixels: the detector's 8-pixel
    # cells then part the slivers of a heap, and bigger cards lose by more enlarging.
    max_upscale: float = 1.5
    # The larger scale is seen whole up to this long side (input pixels), in tiles beyond
    # (seen whole, no card is cut at a tile's edge: on phone-sized photos of small cards
    # 1920 counted more decks exactly than 1280, in about 0.8 of the time; docs/history.md).
    max_whole_input_px: int = 1920
    # When the cards the detector is sure of are large (median long side over this many
    # input pixels: a phone held close over a few cards), the image is seen again shrunk
    # onto a grey canvas so that card becomes ``far_card_long_side_input_px`` long, never
    # shrunk below ``min_far_scale`` of the whole view. The detector learned cards 40-150
    # input pixels long. When no card of the whole view reaches ``far_below_confidence``
    # (a card seen too close shows the detector a face's figures and pips as small cards),
    # the image is also seen at ``min_far_scale``, and the look whose best card is surer is
    # kept.
    max_card_long_side_input_px: float = 160.0
    far_card_long_side_input_px: float = 96.0
    min_far_scale: float = 0.33
    far_below_confidence: float = 0.8
    # Live frames are first seen whole at this size; that look is kept when the smallest
    # cards found (10th percentile of long sides) are at least this many input pixels.
    live_input_px: int = 320
    live_min_card_long_side_input_px: float = 36.0
    # Live frames' larger scale is seen whole up to this long side (input pixels), in tiles
    # beyond.
    live_max_whole_input_px: int = 1920
    # Live frames' larger scale makes a median card's long side this many input pixels
    # (photos: ``target_card_long_side_input_px``). 60 counts a fifth quicker, but on
    # 4-deck clips its steady counts were wrong more often (docs/history.md).
    live_target_card_long_side_input_px: float = 72.0
    # A live frame after one seen whole at a larger scale is seen at that scale at once
    # (the quick and the detector-size looks skipped: the camera's cards keep their size),
    # for this many frames of the same size; the next one chooses its looks again (0: every
    # frame chooses).
    live_reuse_looks: int = 8
    # Looks the detector takes at each input: as it is, then mirrored left to right, upside
    # down, turned half round (vision/detect/views.py), averaged anchor by anchor.
    detector_views: int = 4
    # Live frames take one look (speed).
    live_detector_views: int = 1
    # Overlap of neighbouring tiles, as a fraction of a tile.
    tile_overlap_fraction: float = 0.25

    def __post_init__(self) -> None:
        for name in (
            "min_detection_confidence",
            "nms_iou",
            "candidate_min_confidence",
            "candidate_nms_iou",
            "min_card_chance",
            "one_look_min_card_chance",
            "card_nms_iou",
            "uncertain_below_confidence",
            "uncertain_other_probability",
            "enrolled_uncertain_other_probability",
            "enrolled_uncertain_below_confidence",
            "enrolled_range_below_confidence",
            "possible_min_chance",
            "possible_max_iou",
            "alternative_min_probability",
            "enrolled_alternative_min_probability",
            "min_deck_probability",
            "enrolled_min_deck_probability",
            "tile_overlap_fraction",
            "spread_min_uncertain_share",
            "min_far_scale",
            "far_below_confidence",
            "heap_min_chance",
            "heap_visible_fraction",
            "heap_loose_max_iou",
            "heap_loose_min_chance",
            "heap_double_min_iou",
            "heap_paper_min_share",
        ):
            value = getattr(self, name)
            if value is None and name in OPTIONAL_FRACTIONS:
                continue
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {value}")
        for name in (
            "max_cards",
            "crop_width_px",
            "crop_height_px",
            "max_image_side_px",
            "min_image_side_px",
            "max_whole_input_px",
            "live_max_whole_input_px",
            "live_target_card_long_side_input_px",
            "max_card_long_side_input_px",
            "far_card_long_side_input_px",
            "spread_min_cards",
            "heap_visible_fraction",
            "heap_spread_min_hidden_cards",
            "max_counted_megapixels",
            "max_decode_mib",
            "heap_paper_ratio",
            "heap_paper_grow_ratio",
            "heap_paper_max_thickness",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in (
            "naming_views",
            "live_naming_views",
            "enrolled_live_naming_views",
            "detector_views",
            "live_detector_views",
        ):
            if not 1 <= getattr(self, name) <= 4:
                raise ValueError(f"{name} must be within 1..4, got {getattr(self, name)}")
        if self.heap_paper_min_card_areas < 0:
            raise ValueError(
                f"heap_paper_min_card_areas must be 0 or more, got {self.heap_paper_min_card_areas}"
            )
        if self.heap_min_unexplained_card_areas < 0:
            raise ValueError(
                "heap_min_unexplained_card_areas must be 0 or more, got "
                f"{self.heap_min_unexplained_card_areas}"
            )
        if self.live_reuse_looks < 0:
            raise ValueError(f"live_reuse_looks must be 0 or more, got {self.live_reuse_looks}")
        if self.max_image_aspect < 1.0:
            raise ValueError(f"max_image_aspect must be 1 or more, got {self.max_image_aspect}")
        if self.max_upscale < 1.0:
            raise ValueError(f"max_upscale must be 1 or more, got {self.max_upscale}")
        if self.neighbour_weight < 0:
            raise ValueError(f"neighbour_weight must be 0 or more, got {self.neighbour_weight}")
        if self.neighbour_floor <= 0:
            raise ValueError(f"neighbour_floor must be positive, got {self.neighbour_floor}")
        if self.neighbour_reliability_power < 0:
            raise ValueError(
                "neighbour_reliability_power must be 0 or more, got "
                f"{self.neighbour_reliability_power}"
            )
        for name in ("scene_seed_min_confidence", "scene_min_similarity", "scene_min_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {getattr(self, name)}")
        if self.scene_neighbours < 1:
            raise ValueError(f"scene_neighbours must be 1 or more, got {self.scene_neighbours}")
        if self.neighbour_rounds < 1:
            raise ValueError(f"neighbour_rounds must be 1 or more, got {self.neighbour_rounds}")
        if not 0.0 <= self.neighbour_mixed_agreement <= 1.0:
            raise ValueError(
                f"neighbour_mixed_agreement must lie in 0..1, got {self.neighbour_mixed_agreement}"
            )

    def card_chance_bar(self, detector_views: int) -> float:
        """The chance from which the card check keeps a candidate, for that many looks."""
        return self.min_card_chance if detector_views > 1 else self.one_look_min_card_chance

    def proposing(self) -> VisionSettings:
        """The detector's settings when the card check decides: propose every candidate."""
        return replace(
            self,
            min_detection_confidence=self.candidate_min_confidence,
            nms_iou=self.candidate_nms_iou,
            max_cards=4 * self.max_cards,
        )

    def with_overrides(self, **changes: Any) -> VisionSettings:
        """A copy with some fields changed (unknown names raise ``TypeError``)."""
        return replace(self, **changes)

    @classmethod
    def from_yaml(cls, path: Path) -> VisionSettings:
        """Settings from a YAML mapping of field names to values; missing fields keep defaults."""
        import yaml

        data = yaml.safe_load(Path(path).read_text()) or {}
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown vision settings: {', '.join(sorted(unknown))}")
        return cls(**data)
