"""Reading the number (1..10) of each face-up card from its two corner indices.

A face prints its number twice: at the top left, and turned half a turn at the bottom
right. A card's rectified crop is upright or upside down (its corners go clockwise from a
short edge), so both indices appear the same way in the crop's top band and in the top band
of the crop turned half a turn. A small network (ONNX, ``tallero-numbers``) reads the
index corner of each band (its grey and its least channel, where a light number stands out
of any card colour) as one of 1..10 or
``hidden`` (the index is covered, e.g. by a neighbouring card); the card's number is what
the bands it could read agree on. A number
that is not at least ``min_confidence`` likely, or that two bands disagree on, is not
given (-1): it is never guessed.

A face is read in ``views`` looks (its corners as found, then shifted and scaled by a few
percent, as a detector finds them; `VIEW_SHIFTS`) whose band probabilities are averaged,
and two bands reading the same number are wrong only if both are (``agreement``).

The top card of a Dutch pile is often found longer than it is (the cards under it peek out
at its ends), which moves its indices inwards in the crop. With ``shortened``, a face is
also read with its long side shortened by each of those shares (both ends alike), and the
look whose number is surest gives it (`surest`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scoring.errors import ModelError
from scoring.home import file_sha256
from vision.core.cards import FACE, Cards
from vision.core.onnx import cpu_session
from vision.core.rectify import CardRectifier
from vision.core.types import Array
from vision.name.painted import CHECK_IOU, outline_iou, painted_outline

HIDDEN = "hidden"
# The card crop the bands are cut from, pixels, and the share of its height a band covers.
CARD_CROP_W_PX = 48
CARD_CROP_H_PX = 72
BAND_H_PX = 28
# The index's corner of a band, pixels (rows, columns from its top left): the number and a
# margin for corners found a little off, without the pips or the figure.
INDEX_H_PX = 24
INDEX_W_PX = 32
FEATURES = "index-24x32:gray+least,standardised"
# The looks a face is read in after the first: its corners shifted right/left/down/up by a
# share of the card's width, or scaled about its centre (shift x, shift y, scale).
VIEW_SHIFTS: tuple[tuple[float, float, float], ...] = (
    (0.03, 0.0, 1.0),
    (-0.03, 0.0, 1.0),
    (0.0, 0.03, 1.0),
    (0.0, -0.03, 1.0),
    (0.0, 0.0, 1.04),
    (0.0, 0.0, 0.96),
)


def view_quads(corners: Array, views: int) -> Array:
    """``(n * views, 4, 2)`` quads: each of ``(n, 4, 2)`` quads as found, then moved by the
    first ``views - 1`` of `VIEW_SHIFTS` (rows ``i * views + k``), image pixels."""
    quads = np.asarray(corners, np.float32).reshape(-1, 1, 4, 2)
    if not 1 <= views <= len(VIEW_SHIFTS) + 1:
        raise ValueError(f"views must be 1..{len(VIEW_SHIFTS) + 1}")
    centre = quads.mean(axis=2, keepdims=True)
    width = np.linalg.norm(quads[:, :, 1] - quads[:, :, 0], axis=-1)[..., None, None]
    out = [quads]
    for dx, dy, scale in VIEW_SHIFTS[: views - 1]:
        out.append((quads - centre) * scale + centre + np.array([dx, dy], np.float32) * width)
    moved: Array = np.concatenate(out, axis=1).reshape(-1, 4, 2).astype(np.float32)
    return moved


def shortened_quads(corners: Array, shares: tuple[float, ...]) -> Array:
    """``(n * (1 + len(shares)), 4, 2)`` quads: each of ``(n, 4, 2)`` quads (corners
    clockwise from a short edge) as found, then with its long side shortened by each share,
    both ends alike (rows ``i * looks + k``), image pixels."""
    quads = np.asarray(corners, np.float32).reshape(-1, 1, 4, 2)
    out = [quads]
    # each short edge moves towards the other by half the share of the long side
    towards = quads[:, :, [3, 2, 1, 0]]  # p0 to p3, p1 to p2 and back
    for share in shares:
        out.append(quads + (towards - quads) * np.float32(share / 2))
    moved: Array = np.concatenate(out, axis=1).reshape(-1, 4, 2).astype(np.float32)
    return moved


def side_ratio(corners: Array) -> Array:
    """``(n,)`` each ``(n, 4, 2)`` outline's long side over its short side (mean of the two
    opposite sides each)."""
    q = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    a = (np.linalg.norm(q[:, 1] - q[:, 0], axis=1) + np.linalg.norm(q[:, 3] - q[:, 2], axis=1)) / 2
    b = (np.linalg.norm(q[:, 2] - q[:, 1], axis=1) + np.linalg.norm(q[:, 0] - q[:, 3], axis=1)) / 2
    out: Array = np.maximum(a, b) / np.maximum(np.minimum(a, b), 1e-6)
    return out


def band_input(bands_bgr: Array) -> Array:
    """``(m, 2, INDEX_H_PX, INDEX_W_PX)`` float32 network input of ``(m, BAND_H_PX, 48, 3)``
    bands: the index corner's grey and its least channel (where a light number stands out
    of any card colour), each standardised to mean 0 and deviation 1 per band."""
    bands = np.asarray(bands_bgr, np.uint8).reshape(-1, BAND_H_PX, CARD_CROP_W_PX, 3)
    corner = bands[:, :INDEX_H_PX, :INDEX_W_PX].astype(np.float32)
    gray = corner @ np.array([0.114, 0.587, 0.299], np.float32)
    least = corner.min(axis=3)
    x = np.stack([gray, least], axis=1)
    mean = x.mean(axis=(2, 3), keepdims=True)
    std = x.std(axis=(2, 3), keepdims=True) + 4.0
    out: Array = ((x - mean) / std).astype(np.float32)
    return out


def index_bands(crops_bgr: Array) -> Array:
    """``(2n, BAND_H_PX, w, 3)``: for each ``(n, CARD_CROP_H_PX, w, 3)`` crop, its top band
    and the top band of the crop turned half a turn (rows ``2i`` and ``2i + 1``)."""
    crops = np.asarray(crops_bgr, np.uint8)
    turned = crops[:, ::-1, ::-1]
    bands = np.stack([crops[:, :BAND_H_PX], turned[:, :BAND_H_PX]], axis=1)
    out: Array = np.ascontiguousarray(bands.reshape(-1, BAND_H_PX, crops.shape[2], 3))
    return out


@dataclass(frozen=True)
class Reading:
    """Numbers read off face cards: ``values (n,)`` int16 (1..10, -1 where not read) and
    ``confidence (n,)`` float32, how likely the read number is (0 where none was read)."""

    values: Array
    confidence: Array


def combine(
    band_probabilities: Array,
    classes: tuple[str, ...],
    min_confidence: float,
    agreement: bool = False,
) -> Reading:
    """One number per card from its two bands' ``(2n, classes)`` probabilities.

    Each band votes for its likeliest number unless it is likelier hidden; a card takes the
    number of the band more sure of it, with that band's probability as its confidence, if
    the other band reads no other number and that probability reaches ``min_confidence``.
    With ``agreement``, two bands reading the same number (two prints of it) are wrong only
    if both are: the confidence is then ``1 - (1 - p1)(1 - p2)``.
    """
    p = np.asarray(band_probabilities, np.float64).reshape(-1, 2, len(classes))
    hidden = classes.index(HIDDEN) if HIDDEN in classes else -1
    digits = [k for k, c in enumerate(classes) if c != HIDDEN]
    n = len(p)
    values = np.full(n, -1, np.int16)
    confidence = np.zeros(n, np.float32)
    for i in range(n):
        votes: list[tuple[float, int]] = []
        for band in p[i]:
            k = digits[int(band[digits].argmax())]
            if hidden >= 0 and band[hidden] >= band[k]:
                continue
            votes.append((float(band[k]), int(classes[k])))
        if not votes:
            continue
        best_p, best_v = max(votes)
        if any(v != best_v and q >= 0.5 for q, v in votes):
            continue  # the two indices read differently: look at the card
        if agreement and len(votes) == 2 and votes[0][1] == votes[1][1]:
            best_p = 1.0 - (1.0 - votes[0][0]) * (1.0 - votes[1][0])
        if best_p >= min_confidence:
            values[i] = best_v
            confidence[i] = best_p
    return Reading(values, confidence)


def surest(readings: list[Reading], min_confidence: float) -> Reading:
    """Per card, the number of the look (one `Reading` each, read with no bar) that is surest
    of its number, given where that reaches ``min_confidence``."""
    values = np.stack([r.values for r in readings], axis=1)
    confidence = np.stack([r.confidence for r in readings], axis=1)
    best = confidence.argmax(axis=1)
    rows = np.arange(len(best))
    v, c = values[rows, best], confidence[rows, best]
    given = (v >= 1) & (c >= min_confidence)
    return Reading(
        np.where(given, v, -1).astype(np.int16), np.where(given, c, 0.0).astype(np.float32)
    )


class NumberReader:
    """The exported number reader (ONNX), reading the face cards of an image.

    Args:
        path: the reader's ``.onnx`` (metadata ``classes``: ``"1"`` .. ``"10"`` and
            ``hidden``; ``crop_width_px``/``crop_height_px``: the band's size).
        threads: CPU threads for inference.
        min_confidence: the probability, 0..1, a number needs to be given.
        views: looks each face is read in (1..7, `view_quads`), their probabilities averaged.
        agreement: two bands reading the same number are wrong only if both are.
        shortened: shares of its long side each face is also read shortened by
            (`shortened_quads`), the surest look kept (`surest`); not with ``views``.
        one_min_confidence: the probability a 1 needs (at least ``min_confidence``): a
            blurred index's lone stroke is read as a 1 more often than any other number.
        quarter_below_aspect: faces whose outline's long over short side is under this
            are also read turned a quarter (0: never).
        painted: faces are looked at again in the outline their printed colour makes in
            the picture (`vision.name.painted`), as it is and turned a quarter: one still
            unread is read there, one read is left unread if that outline lies elsewhere
            and reads another number.
    """

    def __init__(
        self,
        path: Path,
        threads: int | None = None,
        min_confidence: float = 0.9,
        views: int = 1,
        agreement: bool = False,
        shortened: tuple[float, ...] = (),
        one_min_confidence: float = 0.0,
        quarter_below_aspect: float = 0.0,
        painted: bool = False,
    ):
        self.path = Path(path)
        if not 0.0 <= min_confidence <= 1.0:
            raise ValueError("min_confidence must be within [0, 1]")
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such number reader")
        try:
            self.session = cpu_session(self.path, threads, spinning=False)
            meta = self.session.get_modelmeta().custom_metadata_map
            self.classes: tuple[str, ...] = tuple(json.loads(meta["classes"]))
            width = int(meta["crop_width_px"])
            height = int(meta["crop_height_px"])
            features = meta["features"]
            # A profile's reader (``enroll faces --numbers``) records the numbers enrolled.
            self.enrolled = "enrolled" in meta
        except (KeyError, ValueError) as exc:
            raise ModelError(f"{self.path}: not a usable number reader ({exc})") from None
        except Exception as exc:  # onnxruntime raises untyped errors
            raise ModelError(f"{self.path}: not a usable number reader ({exc})") from None
        if (width, height, features) != (CARD_CROP_W_PX, BAND_H_PX, FEATURES):
            raise ModelError(
                f"{self.path}: reads {width}x{height} px bands as {features}, not "
                f"{CARD_CROP_W_PX}x{BAND_H_PX} as {FEATURES}"
            )
        self.min_confidence = min_confidence
        view_quads(np.zeros((0, 4, 2), np.float32), views)  # checks the number of views
        self.views = views
        self.agreement = agreement
        if shortened and views != 1:
            raise ValueError("read faces either in views or shortened, not both")
        if any(not 0.0 < share < 0.5 for share in shortened):
            raise ValueError("each shortened share must lie within (0, 0.5)")
        self.shortened = tuple(shortened)
        if not 0.0 <= one_min_confidence <= 1.0:
            raise ValueError("one_min_confidence must be within [0, 1]")
        self.one_min_confidence = one_min_confidence
        if quarter_below_aspect < 0:
            raise ValueError("quarter_below_aspect must not be negative")
        self.quarter_below_aspect = quarter_below_aspect
        self.painted = painted
        self.sha256 = file_sha256(self.path)
        self.name = self.path.stem

    @property
    def parts(self) -> list[NumberReader]:
        """The reader files in use: this one."""
        return [self]

    def band_probabilities(self, bands_bgr: Array) -> Array:
        """``(m, classes)`` softmax probabilities of ``(m, BAND_H_PX, 48, 3)`` bands."""
        if not len(bands_bgr):
            return np.zeros((0, len(self.classes)), np.float32)
        logits = self.session.run(["logits"], {"bands": band_input(bands_bgr)})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        out: Array = e / e.sum(axis=1, keepdims=True)
        return out

    def looks(self, rectifier: CardRectifier, corners: Array) -> list[Reading]:
        """Each look at the faces of ``(n, 4, 2)`` corners, read with no bar: the shortened
        looks one by one, or the views averaged into one."""
        if self.shortened:
            looks = 1 + len(self.shortened)
            crops = rectifier.crops(shortened_quads(corners, self.shortened))
            p = self.band_probabilities(index_bands(crops)).reshape(len(corners), looks, 2, -1)
            return [
                combine(p[:, k].reshape(-1, p.shape[-1]), self.classes, 0.0, self.agreement)
                for k in range(looks)
            ]
        crops = rectifier.crops(view_quads(corners, self.views))
        p = self.band_probabilities(index_bands(crops))
        p = p.reshape(-1, self.views, 2, len(self.classes)).mean(axis=1)
        return [combine(p.reshape(-1, len(self.classes)), self.classes, 0.0, self.agreement)]

    def read(self, image_bgr: Array, cards: Cards) -> Reading:
        """The numbers of the face-up ``cards`` of ``image_bgr``; backs get -1 and 0.

        A face whose outline is nearly square (long over short side under
        ``quarter_below_aspect``: a card seen from a low angle, its long side foreshortened)
        may have been taken the wrong way round: it is also read turned a quarter, and the
        surer look gives its number. With ``painted``, a face whose printed colour makes a
        card's outline of its own (the outline found may be turned away from the card) is
        read again in that outline, and turned a quarter, if it was left unread or that
        outline lies elsewhere; a number read there fills an unread face, and a face read
        as another number is left unread.
        """
        n = len(cards)
        values = np.full(n, -1, np.int16)
        confidence = np.zeros(n, np.float32)
        faces = np.flatnonzero(cards.side == FACE)
        if len(faces):
            rectifier = CardRectifier(image_bgr, CARD_CROP_W_PX, CARD_CROP_H_PX)
            corners = np.asarray(cards.corners[faces], np.float32)
            readings = self.looks(rectifier, corners)
            square = np.flatnonzero(side_ratio(corners) < self.quarter_below_aspect)
            if len(square):
                turned = self.looks(rectifier, np.roll(corners[square], -1, axis=1))
                for look in turned:
                    v = np.full(len(faces), -1, np.int16)
                    c = np.zeros(len(faces), np.float32)
                    v[square], c[square] = look.values, look.confidence
                    readings.append(Reading(v, c))
            got = surest(readings, self.min_confidence)
            if self.painted:
                got = self._read_painted(image_bgr, rectifier, corners, got)
            values[faces] = got.values
            confidence[faces] = got.confidence
        unsure_one = (values == 1) & (confidence < self.one_min_confidence)
        values[unsure_one] = -1
        confidence[unsure_one] = 0.0
        return Reading(values, confidence)

    def _read_painted(
        self, image_bgr: Array, rectifier: CardRectifier, corners: Array, got: Reading
    ) -> Reading:
        """``got`` with its faces looked at again in their painted outlines: one left
        unread is read there; one read whose painted outline lies elsewhere (overlapping
        the outline found under `CHECK_IOU`) and reads another number there is unread."""
        again: list[int] = []
        outlines: list[Array] = []
        for i in range(len(got.values)):
            outline = painted_outline(image_bgr, corners[i])
            if outline is None:
                continue
            if got.values[i] >= 0 and outline_iou(corners[i], outline) >= CHECK_IOU:
                continue
            again.append(i)
            outlines.append(outline)
        if not again:
            return got
        quads = np.stack(outlines)
        looks = self.looks(rectifier, quads) + self.looks(rectifier, np.roll(quads, -1, axis=1))
        more = surest(looks, self.min_confidence)
        values, confidence = got.values.copy(), got.confidence.copy()
        for k, i in enumerate(again):
            if values[i] < 0:
                values[i], confidence[i] = more.values[k], more.confidence[k]
            elif more.values[k] >= 1 and more.values[k] != values[i]:
                values[i], confidence[i] = -1, 0.0  # two outlines, two numbers: look at it
        return Reading(values, confidence)


def either(own: Reading, shipped: Reading) -> Reading:
    """Per card, the number both readings give, or the one that one gives where the other
    leaves the card unread; a card they read as different numbers is left unread. Its
    confidence: the lesser of the two where both read it, else the one reading's."""
    a, b = own.values, shipped.values
    both = (a >= 1) & (b >= 1)
    values = np.where(a >= 1, a, b).astype(np.int16)
    single = np.where(a >= 1, own.confidence, shipped.confidence)
    lesser = np.minimum(own.confidence, shipped.confidence)
    confidence = np.where(both, lesser, single).astype(np.float32)
    differ = both & (a != b)
    values[differ] = -1
    confidence[differ] = 0.0
    return Reading(values, confidence)


class ReaderPair:
    """A profile's number reader (`enroll faces --numbers`) read beside the shipped one.

    Fitted on the few faces of one row photo, a profile's reader leaves some faces unread
    that the shipped reader reads (docs/history.md, "A profile's number reader beside the
    shipped one"). Each face takes the number either reads, never one the other reads
    otherwise (`either`).
    """

    def __init__(self, own: NumberReader, shipped: NumberReader):
        self.own = own
        self.shipped = shipped

    @property
    def parts(self) -> list[NumberReader]:
        """The two readers, the profile's first."""
        return [self.own, self.shipped]

    def read(self, image_bgr: Array, cards: Cards) -> Reading:
        """The numbers of the face-up ``cards`` of ``image_bgr`` (`either` of the two)."""
        return either(self.own.read(image_bgr, cards), self.shipped.read(image_bgr, cards))
