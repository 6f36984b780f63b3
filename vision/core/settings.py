"""One settings object for the vision pipeline; every threshold has its unit in its name."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

# Fractions that may also be None (the step they set is off).
OPTIONAL_FRACTIONS = frozenset(
    {"uncertain_other_probability", "enrolled_uncertain_other_probability", "possible_min_chance"}
)


@dataclass(frozen=True)
class VisionSettings:
    """Thresholds and sizes of the card counter.

    Fractions are in [0, 1]; sizes are in pixels of the image the step works on.
    """

    # Detector: boxes below this confidence are dropped before rotated NMS.
    min_detection_confidence: float = 0.35
    # Rotated boxes overlapping more than this IoU are the same card.
    nms_iou: float = 0.45
    # The card check (vision/detect/check.py): the detector proposes every box down to this
    # confidence, NMS at this IoU only merges near-copies, and the check keeps candidates
    # whose chance of being a real card is at least min_card_chance, the likelier first,
    # dropping any that overlaps a kept one by more than card_nms_iou. Off, the two
    # detector thresholds above decide alone. Tuning scenes (seed 2600, 1000): off gave
    # deck_exact 0.7625, card precision 0.903, recall 0.904; chance 0.4 / 0.5 / 0.6 (IoU
    # 0.7) gave 0.7675 / 0.769 / 0.7675, precision 0.939 / 0.956 / 0.967, recall 0.904 /
    # 0.891 / 0.877; IoU 0.6 at 0.5 gave 0.767. 0.4 keeps recall: a card between 0.4 and
    # 0.5 is counted and marked uncertain for a person to look at, not silently dropped.
    # With the shipped models (tuning 0.9291): card_nms_iou 0.5 / 0.6 / 0.8 gave 0.8943 /
    # 0.9236 / 0.9291 (crowded piles' true cards overlap), min_card_chance 0.45 / 0.5 gave
    # 0.9303 / 0.9301 with fewer miscounts flagged (58.8% / 56.3%; 61.3% at IoU 0.8), and
    # candidate_nms_iou 0.6 gave 0.9291: the defaults stay.
    card_check: bool = True
    # The card look (vision/detect/look.py) gives the chance instead of the check for the
    # candidates the check is unsure of (its band); only with the check. Tuning scenes
    # (seed 2600): off 0.7675; on, chance 0.4 / 0.5 gave 0.7734 / 0.7749 (precision 0.952 /
    # 0.965, recall 0.909 / 0.896), so min_card_chance stays 0.4. The look trained 8 epochs
    # instead of 4: 0.7813 at 0.4 (precision 0.952, recall 0.914); with balance_decks too,
    # 0.7941 at 0.4 and 0.7929 at 0.5.
    card_look: bool = True
    candidate_min_confidence: float = 0.08
    candidate_nms_iou: float = 0.7
    min_card_chance: float = 0.3
    card_nms_iou: float = 0.7
    # The figures above were measured with the detector taking one look at the image; that
    # bar (0.4) holds when it still does (live frames, detector_views 1). Averaged over its
    # four looks the detector's candidates are steadier, and the check keeps them from 0.3
    # (chosen on the tuning scenes, seed 2600: 0.9357 against 0.9332 at 0.4; 0.9352 at 0.2
    # on the first 300). One look at 0.3 counted them at 0.9253 against 0.9291 at 0.4.
    one_look_min_card_chance: float = 0.4
    # Most cards one image may yield (a full 8-deck table is 320 cards).
    max_cards: int = 400
    # A card is reported as uncertain below this overall confidence (the weaker of its
    # chance of being a card and of its deck), for a person to look at. On the first 300
    # tuning scenes (seed 2600) the finds counted for a deck they are not were flagged
    # 10.5% of the time at 0.5, 43.5% at 0.8 and 59% at 0.9, with 8.0%, 11.1% and 14.6% of
    # all finds flagged: most of those are second boxes on one card (chance median 0.71)
    # and misnamed backs, where found cards are sure (chance 0.99 at the 10th percentile).
    uncertain_below_confidence: float = 0.8
    # A back named a deck is also uncertain when its own picture (before its neighbours are
    # heard) looked this likely to be of no deck: backs of another deck are named for the
    # deck of their ink with a sure confidence, but keep some of the "other" class. Tuning
    # scenes (seed 2600, 1000): of the finds counted for a deck they are not, 46.5% were
    # flagged without this (10.6% of all finds flagged); at 0.05 / 0.1 / 0.15 / 0.2 / 0.3,
    # 69.5% / 61.1% / 56.6% / 52.3% / 49.2% (13.6% / 11.9% / 11.3% / 11.0% / 10.7%).
    uncertain_other_probability: float | None = 0.1
    # The same for a profile's enrolled classifier (None: off). Fitted on few scenes, it is
    # less sure of the user's own cards, and the bar costs more: on the heirloom tuning
    # scenes (seeds 7504 / 7508, 200 each, profiles enrolled from one row photo) flags
    # rose from 17.6% to 30.7% (4 decks) and 20.3% to 21.9% (8 decks) of all finds at 0.1,
    # to 19.5% / 20.5% at 0.3, for 50% -> 76% / 54% and 51% -> 54% / 51% of the finds
    # counted for a deck they are not.
    enrolled_uncertain_other_probability: float | None = None
    # How far a deck's count could be off (vision/count/doubts.py). Candidates the check gave a
    # chance of at least possible_min_chance (under min_card_chance) that overlap no kept
    # card by an IoU of possible_max_iou are possible cards not counted (None: none are
    # listed). A deck's range reaches to each uncertain back and possible card at least
    # alternative_min_probability likely to be of it. First 500 tuning scenes (seed 2600),
    # deck counts with a range of one number and how often those were right, wrong counts
    # given a range, right counts given one: current flags alone 90.2% / 0.968 / 62.9% /
    # 5.3%; with alternatives at 0.1 / 0.2 / 0.3, 80.0% / 0.978 / 77.3% / 15.2%, 84.6% /
    # 0.975 / 72.9% / 10.6%, 86.7% / 0.974 / 70.3% / 8.5%; 0.2 and possible cards from
    # 0.1 / 0.2 / 0.3, 82.0% / 0.981 / 79.5% / 12.9%, 83.1% / 0.979 / 77.3% / 11.9%, 84.0% /
    # 0.978 / 76.0% / 11.0% (IoU 0.5; at 0.3 fewer wrong counts got a range).
    possible_min_chance: float | None = 0.1
    # A heap of this many touching backs or more, at least this share of them uncertain, is
    # too tight to count: Tallero asks for the cards to be spread out (`Count.spread`).
    spread_min_cards: int = 6
    spread_min_uncertain_share: float = 0.5
    possible_max_iou: float = 0.5
    alternative_min_probability: float = 0.2
    # A back's deck also weighs the backs it touches (a sorted player's cards lie together;
    # see vision/name/neighbours.py). 0 turns that off; the floor bounds how far neighbours can
    # overrule a card's own look (here odds of up to ((1 + 0.3) / 0.3) ** 2 = 19 to 1).
    # Tuning scenes, seed 2500 (150): weight 0 / 0.5 / 1 / 2 / 3 (floor 0.5 for 2 and 3,
    # else 0.25) gave deck_exact 0.772 / 0.790 / 0.796 / 0.803 / 0.800; seed 2600 (1000):
    # weight 0 / 1 / 2 gave 0.737 / 0.759 / 0.762 (sorted 0.54 -> 0.59, blitz 0.70 -> 0.74,
    # loose mixed heaps 0.83 -> 0.82).
    # Each neighbour's say is its highest probability to the reliability power, and the
    # neighbourhood is read for several rounds, so a fan's clear top card reaches its
    # slivers and a row of slivers no longer outvotes it. Seed 2600, weight 2, shipped
    # models: floor 0.5, power 0, 1 round (as before) 0.7941; power 16, 3 rounds, floor
    # 0.3 0.8079 (sorted 0.643 -> 0.669, blitz 0.786 -> 0.818, loose heaps 0.835 ->
    # 0.819); from there floor 0.5 / 0.4 0.8056 / 0.8071, power 0 / 4 / 8 / 32 0.8025 /
    # 0.8074 / 0.8076 / 0.8086, 1 / 2 / 4 rounds 0.8020 / 0.8061 / 0.8074, weight 3 at
    # floor 0.5 0.8067. Again with the shipped models (0.9291): weight 1.5 / 3 gave 0.9264 /
    # 0.9281, floor 0.2 / 0.4 0.9290 / 0.9288, 5 rounds 0.9295: the defaults stay.
    neighbour_weight: float = 2.0
    neighbour_floor: float = 0.3
    neighbour_reliability_power: float = 16.0
    neighbour_rounds: int = 3
    # ... except in a loose mixed heap (vision/name/neighbours.py): when under 60% of the
    # touching pairs of backs both at least 0.8 sure of their deck (2 pairs or more) agree,
    # every back keeps its own look. Seed 2600 (1000), shipped models, re-scored: never
    # 0.9017 (loose heaps 0.836, sorted 0.845), always 0.8609 (0.896, 0.749); at sure 0.8,
    # agreement 0.5 / 0.6 / 0.7 / 0.8 gave 0.9074 / 0.9081 / 0.9081 / 0.9074 (heaps
    # 0.876-0.881, sorted 0.845 throughout), with 4 pairs or more 0.9067-0.9074; at sure
    # 0.9, 0.9056-0.9059. Mean agreement of such pairs per layout: sorted 0.99, Blitz 0.98,
    # piles 0.985, layout rows 0.58, heaps 0.34.
    neighbour_mixed_sure: float = 0.8
    neighbour_mixed_agreement: float = 0.6
    neighbour_mixed_min_pairs: int = 2
    # Naming evens out how often the classifier saw each deck in training (its
    # class_counts; see vision/name/classifier.py): the built-in one saw each classic deck about
    # 2.5 times as often as each expansion deck and named a half-seen yellow carriage a
    # (yellow) pail. Off: its own odds. Tuning scenes (seed 2600, 8-epoch look): off / on
    # gave deck_exact 0.7813 / 0.7941 (sorted 0.623 -> 0.643, blitz 0.769 -> 0.786).
    balance_decks: bool = True
    # A back is unknown when its deck, after its neighbours are heard, is less probable
    # than this. Tuning scenes (seed 2600, 1000), shipped models: 0.4 / 0.5 / 0.6 gave
    # deck_exact 0.9269 / 0.9291 / 0.9279.
    min_deck_probability: float = 0.5
    # The same for a profile's enrolled classifier, less sure of the user's own cards. On
    # the heirloom tuning scenes (seeds 7504 / 7508, 200 each, profiles enrolled from one
    # row photo) 0.5 / 0.4 / 0.3 gave deck_exact 0.88 / 0.8825 / 0.8825 (4 decks) and
    # 0.885 / 0.8894 / 0.8906 (8 decks); such a back still gets flagged as uncertain.
    enrolled_min_deck_probability: float = 0.4
    # Naming reads each kept card in this many looks (vision/core/rectify.py VIEWS: as found,
    # turned half round, 6% closer, 6% wider) and averages them; the card check reads the
    # first alone, as it was fitted. Tuning scenes (seed 2600, 1000), shipped models:
    # 1 / 2 / 4 looks gave deck_exact 0.9081 / 0.9126 / 0.9150 (deck accuracy 0.9773 /
    # 0.9791 / 0.9790); ten looks (these, the closer and wider turned, and 4% shifts
    # each way) 0.9162.
    naming_views: int = 4
    # Live frames favour speed: one look (the next frame is another look anyway).
    live_naming_views: int = 1
    # Canonical size a card is rectified to before its back or face is read.
    crop_width_px: int = 32
    crop_height_px: int = 48
    # Images beyond these are refused rather than decoded.
    max_image_side_px: int = 20_000
    max_image_megapixels: float = 200.0
    min_image_side_px: int = 16
    # Long side a whole image is resized to for the detector (a model exported with dynamic
    # axes; a fixed-size model uses its own). Its last epochs were at 640 (the scenes' own
    # size); 544 / 640 / 736 gave deck_exact 0.747 / 0.772 / 0.771 on the tuning scenes.
    detector_input_px: int = 640
    # Small cards: when the cards found on the whole image are smaller than this (median
    # long side, in detector-input pixels), the image is seen again at a larger scale ...
    min_card_long_side_input_px: float = 56.0
    # ... chosen so that a median card's long side becomes this many input pixels, ...
    target_card_long_side_input_px: float = 72.0
    # ... but never enlarged past this many times its own pixels. The detector reads the
    # image on a grid of 8-pixel cells, so the slivers of a heap of small cards share
    # cells; enlarged, they do not. Tuning scenes (seed 2600, 640 px) seen whole at 960 /
    # 1280 px gave deck_exact 0.709 / 0.646 (against 0.624 at 640) where the median card is
    # 20-40 px long, 0.756 / 0.709 (0.732) at 40-60 px, and less than at 640 for bigger
    # cards (0.884 / 0.862 against 0.899 at 60-80 px).
    max_upscale: float = 1.5
    # The larger scale is seen whole up to this long side (input pixels), in tiles beyond.
    max_whole_input_px: int = 1280
    # Live frames are first seen whole at this size; that look is kept when the smallest
    # cards found (10th percentile of long sides) are at least this many input pixels.
    live_input_px: int = 320
    live_min_card_long_side_input_px: float = 36.0
    # Looks the detector takes at each input: as it is, then mirrored left to right, upside
    # down, turned half round (vision/detect/views.py), averaged anchor by anchor. Live frames take
    # one look (speed). Tuning scenes (seed 2600, 1000): 1 look 0.9291 (card precision
    # 0.9832, recall 0.9794); 4 looks 0.9332 (0.9914 / 0.9794), and with min_card_chance
    # 0.3 0.9357 (0.9881 / 0.9828). First 300 of them: 2 looks 0.933, 4 looks 0.933 (at
    # chance 0.4; 0.9286 with one); pooling the 2 looks' boxes for NMS instead 0.9221, the
    # anchors' highest score instead of the mean 0.8992.
    detector_views: int = 4
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
            "possible_min_chance",
            "possible_max_iou",
            "alternative_min_probability",
            "min_deck_probability",
            "enrolled_min_deck_probability",
            "tile_overlap_fraction",
            "spread_min_uncertain_share",
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
            "spread_min_cards",
        ):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in ("naming_views", "live_naming_views", "detector_views", "live_detector_views"):
            if not 1 <= getattr(self, name) <= 4:
                raise ValueError(f"{name} must be within 1..4, got {getattr(self, name)}")
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
