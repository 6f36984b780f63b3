"""The Dutch piles read over several frames of the same table (``watch``, key ``p``).

One webcam frame leaves a pile's top unread more often than a phone photo does: the
number is small, and noise, a little blur or JPEG take it below the bar. The next frame's
noise and blur are others, so a top one frame leaves unread another often reads. The
piles of each frame are matched by where their top lies (the camera drifts a few pixels
between frames, far less than a card), and each pile is judged over its frames:

- a pile sure in some frames, all of which read the same top (or face down), seen in at
  least half the frames, is sure of that top;
- but a top that only one of the frames seeing the pile reads is taken only where that
  frame read it at least `LONE_READ_MIN_CONFIDENCE` sure: each frame is one more chance
  of a number read wrong, and where the others leave the pile unread nothing checks it;
- a pile whose sure frames read two different tops, or that some frames saw face up and
  others face down, or seen in fewer than half the frames with a sure read, is to look
  at (never a vote: two readings that disagree are a doubt). The colour of a face is not
  compared: on art the models never learned it changes from frame to frame;
- a pile seen in fewer than half the frames, and sure in none, is dropped: a passing
  shadow or a hand's edge taken for a card in one frame is no pile. So the frames must
  show one calm table: a hand over an unread pile in most of them would drop it (`watch`
  judges together only frames that show the first one's table, `StillCheck.same_table`).

The piles keep the first frame's reading order, picture and ids (piles first seen later
come after), so the annotated first frame shows them where they lie.

The frames also make one cleaner picture (`median_picture`): each later frame is aligned
on the first (a turn and a shift, `cv2.findTransformECC`) and every pixel takes its median
over the frames, so a frame's noise, JPEG blocks, a blink of blur or a glint drop out.
That picture is read as one photo, and `judged` takes its piles where every top is read
and the frames' own readings do not doubt them (else the frames' judgement, as above; where
neither is complete, the one with fewer piles to look at). The frames doubt a median's pile
that fewer than half of them saw (a phone's dark screen, smoothed, looks like a card's
back), and a top most of them read surely as another; a top none of them read surely is
taken from the median only from `LONE_READ_MIN_CONFIDENCE`, as a top one frame alone reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.piles.read import Pile, Piles

# A pile of a later frame is the same pile when its top's centre lies closer than this share
# of its long side to where the pile was seen first.
SAME_PLACE_SHARE = 0.35
# Aligning a frame on the first (`cv2.findTransformECC`): at most this many steps, until a
# step moves the picture less than this, on grey pictures made no longer than this (px): on
# 1280x720 webcam frames half size finds the same turn and shift to 0.01 px, 5-7x faster.
ALIGN_STEPS, ALIGN_EPS, ALIGN_LONG_PX = 50, 1e-4, 640
# A top read in one frame only, the others seeing the pile unread, is taken from this sure
# (a reading is given from 0.97): chosen on webcam frames of held-out piles sets, where it
# was the rule that read no top wrong (docs/history.md).
LONE_READ_MIN_CONFIDENCE = 0.99


@dataclass
class _Seen:
    centre: np.ndarray
    frames: list[int] = field(default_factory=list)
    piles: list[Pile] = field(default_factory=list)


def _seen(reads: Sequence[Piles]) -> list[_Seen]:
    """Each place where a pile lies, with the frames (and piles) that saw one there."""
    places: list[_Seen] = []
    for k, read in enumerate(reads):
        taken: set[int] = set()
        for pile in read.piles:
            centre = pile.corners.mean(axis=0)
            reach = SAME_PLACE_SHARE * pile.long_side_px
            best, best_d = None, reach
            for j, place in enumerate(places):
                d = float(np.linalg.norm(place.centre - centre))
                if j not in taken and k not in place.frames and d < best_d:
                    best, best_d = j, d
            if best is None:
                places.append(_Seen(centre))
                best = len(places) - 1
            taken.add(best)
            places[best].frames.append(k)
            places[best].piles.append(pile)
    return places


def _judged(place: _Seen, frames: int) -> Pile | None:
    """The pile of one place judged over ``frames`` frames (None: no pile there)."""
    first = place.piles[0]
    if place.frames[0] != 0:  # its cards are another frame's ids: the first frame has none
        first = replace(first, cards=())
    sure = [p for p in place.piles if not p.uncertain]
    often = 2 * len(place.frames) >= frames
    if not sure:
        return first if often else None
    tops = {(p.top, p.down) for p in sure}
    sides = {p.down for p in place.piles}
    if len(tops) > 1 or len(sides) > 1 or not often:
        return replace(first, uncertain=True)
    lone = len(sure) == 1 and len(place.piles) > 1
    if lone and sure[0].confidence < LONE_READ_MIN_CONFIDENCE:
        return replace(first, uncertain=True)
    best = max(sure, key=lambda p: p.confidence)
    if best is first:
        return first
    return replace(
        first,
        top=best.top,
        down=best.down,
        color=best.color,
        confidence=best.confidence,
        uncertain=False,
        number_only=best.number_only,
        place_only=False,
    )


def merge_frames(reads: Sequence[Piles]) -> Piles:
    """The piles of several frames of one table (each read with `read_piles`), judged over
    all of them (see the module); the first frame's picture, size, model and piles set
    apart. Raises ValueError for no frames."""
    if not reads:
        raise ValueError("no frames to read the piles from")
    judged = [_judged(place, len(reads)) for place in _seen(reads)]
    piles = tuple(p for p in judged if p is not None)
    return replace(reads[0], piles=piles, frames=len(reads))


def aligned(reference: np.ndarray, image: np.ndarray) -> np.ndarray:
    """``image`` (BGR) turned and shifted onto ``reference`` (same size) where the two
    show the same table; ``image`` unchanged where the alignment does not converge."""
    import cv2

    if image.shape != reference.shape:
        raise ValueError(f"frames of sizes {reference.shape} and {image.shape} cannot be aligned")
    h, w = reference.shape[:2]
    scale = min(1.0, ALIGN_LONG_PX / max(h, w))

    def grey(picture: np.ndarray) -> np.ndarray:
        g = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
        if scale < 1:
            g = cv2.resize(g, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        out: np.ndarray = g.astype(np.float32)
        return out

    warp: Any = np.eye(2, 3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, ALIGN_STEPS, ALIGN_EPS)
    try:
        _, warp = cv2.findTransformECC(
            grey(reference), grey(image), warp, cv2.MOTION_EUCLIDEAN, criteria, None
        )
    except cv2.error:  # no convergence (a blank or changed picture): left as it is
        return image
    warp[:, 2] /= scale  # the shift in the frame's pixels
    out: np.ndarray = cv2.warpAffine(
        image,
        warp,
        (w, h),
        flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return out


def median_picture(images: Sequence[Any]) -> np.ndarray:
    """The per-pixel median of frames of one table (BGR, one size), each aligned on the
    first; the first frame's coordinates. Raises ValueError for no frames."""
    if not images:
        raise ValueError("no frames to take the median of")
    first = np.asarray(images[0])
    stack = [first] + [aligned(first, np.asarray(im)) for im in images[1:]]
    if len(stack) == 3:  # the median of three, without sorting
        a, b, c = stack
        three: np.ndarray = np.maximum(np.minimum(a, b), np.minimum(np.maximum(a, b), c))
        return three
    out: np.ndarray = np.median(np.stack(stack), axis=0).astype(np.uint8)
    return out


def _checked(median: Piles, reads: Sequence[Piles]) -> tuple[Pile, ...]:
    """The median picture's piles, those the frames' own readings do not back to look at:
    a pile seen in fewer than half the frames (the median smooths a phone's dark screen
    into a card's back); a top that no frame read surely, read less than
    `LONE_READ_MIN_CONFIDENCE` sure in the median (one more reading, unconfirmed); and a
    top that most of the frames read surely as another (a heirloom 1 the median read 2).
    A top one frame of three read otherwise does not hold the median back: on webcam
    frames a frame misread a 5 as an 8 far more often than the median did
    (docs/history.md)."""
    places = _seen([median, *reads])  # the median is "frame" 0, its piles the first places
    piles = [replace(p, cards=()) for p in median.piles]
    for i, place in enumerate(places[: len(piles)]):
        pile, seen = place.piles[0], place.piles[1:]
        confirmed = any(not p.uncertain for p in seen)
        lone = not confirmed and pile.confidence < LONE_READ_MIN_CONFIDENCE
        otherwise = sum(not p.uncertain and (p.top, p.down) != (pile.top, pile.down) for p in seen)
        doubted = lone or 2 * otherwise > len(reads)
        if 2 * len(seen) < len(reads) or (not pile.uncertain and doubted):
            piles[i] = replace(piles[i], uncertain=True)
    return tuple(piles)


def judged(reads: Sequence[Piles], median: Piles | None) -> Piles:
    """The piles of several frames of one table: the piles read off their `median_picture`
    (``median``) where every top is read there and no frame's own reading doubts it
    (`_checked`), else the frames' judgement (`merge_frames`) where it is complete; where
    neither is, the one with fewer piles to look at (a tie: the frames'). The median's
    piles keep the first frame's picture and model, with ``median`` set; their cards are no
    frame's ids. Raises ValueError for no frames."""
    merged = merge_frames(reads)
    if median is None or not median.piles:
        return merged
    stacked = replace(reads[0], piles=_checked(median, reads), frames=len(reads), median=True)
    if stacked.complete:
        return stacked
    if merged.piles and merged.complete:
        return merged
    if merged.piles and len(merged.uncertain) <= len(stacked.uncertain):
        return merged
    return stacked
