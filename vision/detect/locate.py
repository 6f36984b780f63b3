"""`Locator`: every card's outline and side in an image, the image seen as close as it needs.

The detector reads its input on a grid of 8-pixel cells, so the slivers of a heap of small
cards share cells when the image is seen whole at the detector's size. The locator looks
again, enlarged or in tiles, when the cards it is sure of are small, and shrunk onto a grey
canvas when they are larger than any card the detector learned or when it is sure of no
card (a phone held close over a few cards).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.core.cards import Cards
from vision.core.geometry import cut_by_inner_edges, quads_to_xywhr, rotated_nms
from vision.core.settings import VisionSettings
from vision.core.types import Array
from vision.detect.detector import CardDetector, OnnxDetector


class Locator:
    """Finds the cards of an image with one detector.

    Args:
        detector: the card detector; an `OnnxDetector` is seen closer where cards are
            small, any other (the ultralytics baseline) sees the image once.
        settings: sizes and bars (`VisionSettings`).
        views: looks the detector takes at each input (`vision.detect.views`).
        live: favour speed on webcam frames (a quick low-resolution look first).
        sure_confidence: the detector confidence at which a box alone counts as a card
            when judging how big the cards are (where to look).
    """

    def __init__(
        self,
        detector: CardDetector,
        settings: VisionSettings,
        views: int,
        live: bool,
        sure_confidence: float,
    ) -> None:
        if not 1 <= views <= 4:
            raise ValueError(f"views must be within 1..4, got {views}")
        self.detector = detector
        self.settings = settings
        self.views = views
        self.live = live
        self.sure_confidence = sure_confidence
        # live: the last larger scale chosen (frame size, input long side) and frames since
        self._chosen: tuple[tuple[int, int], int] | None = None
        self._reused = 0
        # live: the frame size and scale (input pixels an image pixel) of the look the
        # last frame kept (None: tiles), and the scale a part of a live frame
        # (`vision.count.counter.Counter.count_part`) is seen at: its whole frame's
        self._seen_at: tuple[tuple[int, int], float | None] | None = None
        self.at_scale: float | None = None

    def forget(self) -> None:
        """Choose the looks afresh on the next live frame (another camera or scene)."""
        self._chosen = None
        self._reused = 0
        self._seen_at = None

    def scale_for(self, h: int, w: int) -> float | None:
        """The scale (input pixels an image pixel) of the look the last live frame kept,
        when it was of ``h`` x ``w`` px and seen whole (not in tiles); else ``None``."""
        seen = self._seen_at
        if seen is None or seen[0] != (h, w):
            return None
        return seen[1]

    def _kept(self, cards: Cards, h: int, w: int, input_px: int | None) -> Cards:
        """``cards``, the look a live frame of ``h`` x ``w`` px kept, seen whole with its
        long side at ``input_px`` (``None``: in tiles)."""
        if self.live:
            self._seen_at = ((h, w), input_px / max(h, w) if input_px else None)
        return cards

    def locate(self, image_bgr: Array) -> Cards:
        """Every card's quad and side, in image pixels.

        Live mode first looks at the whole frame at ``live_input_px`` and keeps that when
        every card found is large enough; otherwise (and always for photos) the frame is
        seen at the detector's own size. When the cards found there are small, the image is
        seen again at a larger scale: whole when it fits ``max_whole_input_px`` (a small
        image enlarged at most ``max_upscale`` times), else in tiles, kept when the tiles
        are sure of at least as many cards. When no card is found with
        ``far_below_confidence`` and the sure cards are not small, the image is also seen
        shrunk (``far``), and that look is kept when its best card is surer (with no sure
        card at all, only when it is also surer than the look closer); when the sure cards
        are larger than
        ``max_card_long_side_input_px``, the shrunk look is kept when it is sure of more.
        A live frame seen whole at a larger scale makes the next ``live_reuse_looks`` frames
        of its size seen at that scale at once (`forget`: choose again).
        """
        s = self.settings
        detector = self.detector
        if not isinstance(detector, OnnxDetector):
            return detector.detect(image_bgr)  # the ultralytics baseline has no tiling
        h, w = image_bgr.shape[:2]
        views = self.views
        if self.at_scale is not None and detector.dynamic:
            return detector.detect(image_bgr, max(32, round(max(h, w) * self.at_scale)), views)
        if self.live and detector.dynamic:
            chosen = self._chosen
            if chosen is not None and chosen[0] == (h, w) and self._reused < s.live_reuse_looks:
                self._reused += 1
                return self._kept(detector.detect(image_bgr, chosen[1], views), h, w, chosen[1])
            self._chosen = None
            quick = detector.detect(image_bgr, s.live_input_px, views)
            small = s.live_min_card_long_side_input_px * max(h, w) / s.live_input_px
            sure = self.sure(quick)
            if len(sure) and float(np.percentile(sure.long_side_px, 10)) >= small:
                return self._kept(quick, h, w, s.live_input_px)
        input_px = s.detector_input_px if detector.dynamic else detector.input_px
        cards = detector.detect(image_bgr, input_px, views)
        whole_scale = input_px / max(h, w)
        sure = self.sure(cards)
        card_input_px = float(np.median(sure.long_side_px)) * whole_scale if len(sure) else 0.0
        best = float(cards.confidence.max()) if len(cards) else 0.0
        # Small sure cards are looked at closer, never further: shrunk, a heap of them
        # could pass for one card.
        small_cards = bool(len(sure)) and card_input_px < s.min_card_long_side_input_px
        # Live frames never look further: a webcam looks down on the table from afar, and an
        # empty table would pay a second look on every frame.
        if best < s.far_below_confidence and not small_cards and not self.live:
            far = self.far(detector, image_bgr, s.min_far_scale, input_px)
            far_best = float(far.confidence.max()) if len(far) else 0.0
            if far_best > best:
                if len(sure):
                    return far
                # Nothing sure near: cards too big, or too small to see whole. Look closer
                # too, and keep the look whose best card is surer.
                closer = self.closer(detector, image_bgr, cards, sure, whole_scale * 3.0)
                closer_best = float(closer.confidence.max()) if len(closer) else 0.0
                return far if far_best > closer_best else closer
        if len(sure):
            if card_input_px > s.max_card_long_side_input_px and not self.live:
                far_scale = max(s.far_card_long_side_input_px / card_input_px, s.min_far_scale)
                far = self.far(detector, image_bgr, far_scale, input_px)
                return far if len(self.sure(far)) > len(sure) else cards
            if card_input_px >= s.min_card_long_side_input_px:
                return self._kept(cards, h, w, input_px)
            target = (
                s.live_target_card_long_side_input_px
                if self.live
                else s.target_card_long_side_input_px
            )
            zoom = target / max(card_input_px, 1.0)
        else:
            zoom = 3.0  # nothing at all: look closer once
        # Only a scale chosen by the cards' size is kept for the next live frames (an
        # empty table, or one the exposure washes out, says nothing of it).
        return self.closer(detector, image_bgr, cards, sure, whole_scale * zoom, bool(len(sure)))

    def closer(
        self,
        detector: OnnxDetector,
        image_bgr: Array,
        cards: Cards,
        sure: Cards,
        scale: float,
        remember: bool = False,
    ) -> Cards:
        """The image seen at ``scale`` (never past ``max_upscale``): whole when it fits
        ``max_whole_input_px``, else in tiles, kept when they are sure of at least as many
        cards as the whole view (``cards``, its ``sure`` ones); the whole view when the
        scale is hardly larger. ``remember``: a live frame seen whole so has the next ones
        seen at that scale at once."""
        s = self.settings
        h, w = image_bgr.shape[:2]
        input_px = s.detector_input_px if detector.dynamic else detector.input_px
        whole_scale = input_px / max(h, w)
        scale = min(scale, s.max_upscale)
        if scale <= whole_scale * 1.2:
            return self._kept(cards, h, w, input_px)
        long_side = round(max(h, w) * scale)
        max_whole = s.live_max_whole_input_px if self.live else s.max_whole_input_px
        if detector.dynamic and long_side <= max_whole:
            # Seen whole: a better look, though often surer of fewer boxes (fewer copies).
            if self.live and remember:
                self._chosen, self._reused = ((h, w), long_side), 0
            return self._kept(detector.detect(image_bgr, long_side, self.views), h, w, long_side)
        tiled = self.tiled(detector, image_bgr, scale, input_px)
        if len(self.sure(tiled)) >= len(sure):
            return self._kept(tiled, h, w, None)
        return self._kept(cards, h, w, input_px)

    def far(self, detector: OnnxDetector, image_bgr: Array, scale: float, input_px: int) -> Cards:
        """Detect on the image shrunk to ``scale`` of the whole view, centred on a grey canvas
        of the whole view's size; corners in the image's own pixels."""
        h, w = image_bgr.shape[:2]
        whole = input_px / max(h, w)
        shrink = whole * scale  # image pixels -> canvas pixels
        sw, sh = max(1, round(w * shrink)), max(1, round(h * shrink))
        cw, ch = max(sw, round(w * whole)), max(sh, round(h * whole))
        canvas = np.full((ch, cw, 3), 114, np.uint8)
        ox, oy = (cw - sw) // 2, (ch - sh) // 2
        canvas[oy : oy + sh, ox : ox + sw] = cv2.resize(
            image_bgr, (sw, sh), interpolation=cv2.INTER_AREA
        )
        found = detector.detect(canvas, input_px, self.views)
        if not len(found):
            return found
        # A box whose centre lies on the canvas, off the picture, is not a card of it.
        centre = found.corners.mean(axis=1)
        inside = (
            (centre[:, 0] >= ox) & (centre[:, 0] <= ox + sw)
            & (centre[:, 1] >= oy) & (centre[:, 1] <= oy + sh)
        )  # fmt: skip
        return found[inside].transformed(1.0 / shrink, (-ox / shrink, -oy / shrink))

    def sure(self, cards: Cards) -> Cards:
        """The cards the detector alone is sure of (all, when it proposes only those)."""
        return cards[cards.confidence >= self.sure_confidence]

    def tiled(self, detector: OnnxDetector, image_bgr: Array, scale: float, input_px: int) -> Cards:
        """Detect on overlapping ``input_px`` tiles of the image resized by ``scale``."""
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
        parts = []
        for y0 in ys:
            for x0 in xs:
                tile = big[y0 : y0 + input_px, x0 : x0 + input_px]
                if tile.shape[0] != input_px or tile.shape[1] != input_px:
                    pad = np.full((input_px, input_px, 3), 114, np.uint8)
                    pad[: tile.shape[0], : tile.shape[1]] = tile
                    tile = pad
                found = detector.infer(tile, self.views)  # a square of input_px
                if not len(found):
                    continue
                # Cards cut by an inner tile edge are left to the neighbouring tile.
                cut = cut_by_inner_edges(
                    found.corners,
                    (input_px, input_px),
                    (x0 > 0, y0 > 0, x0 + input_px < sw, y0 + input_px < sh),
                )
                found = found[~cut]
                parts.append(found.transformed(1.0 / scale, (x0 / scale, y0 / scale)))
        merged = Cards.concatenate(parts)
        if not len(merged):
            return merged
        xywhr = quads_to_xywhr(merged.corners)
        d = detector.settings
        keep = rotated_nms(xywhr, merged.confidence, d.nms_iou, d.max_cards)
        return merged[keep]
