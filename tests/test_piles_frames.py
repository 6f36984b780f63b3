"""The Dutch piles read over several frames of one table (`vision.piles.frames`): a top one
frame leaves unread and another reads is read (from 0.99 where no other frame confirms it);
two frames reading two tops ask for a look;
something seen in one frame of several is no pile; the drift between frames is followed.
The frames' median picture is aligned on the first and drops one frame's blemish; its
piles are taken where complete, else the frames' judgement."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.piles.frames import aligned, judged, median_picture, merge_frames
from vision.piles.read import Pile, Piles


def pile(
    cx: float,
    cy: float,
    top: int | None,
    down: bool = False,
    color: str = "red",
    conf: float = 0.995,
) -> Pile:
    corners = np.array(
        [[cx - 28, cy - 43], [cx + 28, cy - 43], [cx + 28, cy + 43], [cx - 28, cy + 43]],
        np.float32,
    )
    shade = None if down else color
    return Pile(corners, shade, 10 if down else top, down, conf, (1,), top is None and not down)


def frame(*piles: Pile) -> Piles:
    return Piles("f.jpg", (640, 480), piles, {"name": "m"})


def tops(piles: Piles) -> list[tuple[int | None, bool, bool]]:
    return [(p.top, p.down, p.uncertain) for p in piles.piles]


def test_a_top_one_frame_leaves_unread_is_read_from_another():
    first = frame(pile(100, 100, 7), pile(300, 100, None))
    second = frame(pile(103, 98, 7), pile(302, 101, 4))
    merged = merge_frames([first, second, frame(pile(101, 99, 7), pile(299, 102, None))])
    assert tops(merged) == [(7, False, False), (4, False, False)]
    assert merged.complete and merged.total == 11 and merged.frames == 3
    # the pile keeps the first frame's place, and the read frame's confidence
    assert np.allclose(merged.piles[1].corners.mean(axis=0), (300, 100))
    assert merged.to_json()["frames"] == 3


def test_two_frames_reading_two_tops_ask_for_a_look():
    merged = merge_frames([frame(pile(100, 100, 3)), frame(pile(100, 100, 8))])
    assert tops(merged) == [(3, False, True)]
    assert not merged.complete and merged.uncertain == [1]


def test_a_pile_no_frame_reads_stays_to_look_at():
    merged = merge_frames([frame(pile(100, 100, None)), frame(pile(101, 100, None))])
    assert tops(merged) == [(None, False, True)]


def test_something_seen_in_one_frame_of_several_is_no_pile_unless_read():
    one = [frame(pile(100, 100, 5)) for _ in range(3)]
    shadow = frame(pile(100, 100, 5), pile(400, 300, None))
    assert tops(merge_frames([*one, shadow])) == [(5, False, False)]
    # a sure top seen in too few frames is not dropped (a pile may be there): it asks
    read_once = frame(pile(100, 100, 5), pile(400, 300, 2))
    merged = merge_frames([*one, read_once])
    assert tops(merged) == [(5, False, False), (2, False, True)]
    assert merged.piles[1].cards == ()  # the first frame holds no card of it


def test_face_down_and_face_up_reads_of_one_pile_disagree():
    merged = merge_frames([frame(pile(100, 100, None, down=True)), frame(pile(100, 100, 10))])
    assert merged.uncertain == [1]


def test_neighbouring_piles_are_not_taken_for_one_another():
    first = frame(pile(100, 100, 2), pile(160, 100, 9))
    # the camera drifted 12 px to the right between the frames
    second = frame(pile(112, 100, 2), pile(172, 100, 9))
    assert tops(merge_frames([first, second])) == [(2, False, False), (9, False, False)]


def test_one_frame_is_that_frame_and_no_frame_is_an_error():
    only = frame(pile(100, 100, 6), pile(200, 100, None))
    assert merge_frames([only]) == only
    with pytest.raises(ValueError, match="no frames"):
        merge_frames([])


def test_a_top_only_one_frame_reads_needs_a_sure_reading_and_colours_are_not_compared():
    """A box in one frame read green 7 at 0.908 where the other frames saw the pile unread
    (a doubled box beside another pile): each frame is one more chance of a wrong reading,
    so a top no other frame confirms is taken only from 0.99. The face's colour may change
    from frame to frame on art the models never learned, so it is not compared."""
    frames = [
        frame(pile(100, 100, None, color="blue")),
        frame(pile(104, 102, 7, color="green", conf=0.908)),
        frame(pile(101, 99, None, color="green")),
    ]
    assert merge_frames(frames).uncertain == [1]
    sure = [frames[0], frame(pile(104, 102, 7, color="green", conf=0.995)), frames[2]]
    assert merge_frames(sure).complete and merge_frames(sure).total == 7
    # read alike in two frames, each from the reader's own bar (0.97)
    twice = [frames[1], frame(pile(101, 99, 7, color="blue", conf=0.97))]
    assert merge_frames(twice).complete


def test_the_median_picture_s_piles_are_taken_where_every_top_is_read_there():
    """Three frames leave pile #2 unread, their median picture reads it (4): its piles are
    taken, in the first frame's place, marked as the median's, with no frame's card ids."""
    reads = [frame(pile(100, 100, 7), pile(300, 100, None)) for _ in range(3)]
    median = replace(frame(pile(101, 100, 7), pile(300, 101, 4)), image="median")
    taken = judged(reads, median)
    assert tops(taken) == [(7, False, False), (4, False, False)]
    assert taken.complete and taken.total == 11
    assert taken.median and taken.frames == 3 and taken.image == "f.jpg"
    assert all(p.cards == () for p in taken.piles)
    assert taken.to_json()["median"] is True
    assert merge_frames(reads).to_json()["median"] is False


def test_the_frames_judgement_is_taken_where_the_median_leaves_a_top_unread():
    """The median leaves #2 unread, the frames read it: the frames' judgement. Neither
    complete: the one with fewer piles to look at, the frames' on a tie."""
    reads = [frame(pile(100, 100, 7), pile(300, 100, t)) for t in (None, 4, 4)]
    median = frame(pile(100, 100, 7), pile(300, 100, None))
    taken = judged(reads, median)
    assert taken.complete and taken.total == 11 and not taken.median
    both = [frame(pile(100, 100, None), pile(300, 100, None)) for _ in range(3)]
    one_unread = frame(pile(100, 100, 5), pile(300, 100, None))
    assert judged(both, one_unread).median and judged(both, one_unread).uncertain == [2]
    tie = judged([one_unread] * 3, frame(pile(100, 100, None), pile(300, 100, 3)))
    assert not tie.median and tie.uncertain == [2]
    # no median read (one frame), or one that found no pile: the frames'
    assert judged(reads, None) == merge_frames(reads)
    assert judged(reads, frame()) == merge_frames(reads)


def test_the_frames_doubt_a_median_pile_few_of_them_saw_or_a_lone_top_read_less_sure():
    """A phone's screen, smoothed in the median, read as a finished pile face down that no
    frame saw; a top no frame read, read in the median under 0.99; a top most frames read
    surely as another: to look at, so the frames' judgement is taken where it is complete.
    A top one frame of three read otherwise does not hold the median back (the frames
    misread a 5 as an 8 more often)."""
    reads = [frame(pile(100, 100, 7), pile(300, 100, t)) for t in (None, 4, 4)]
    ghost = frame(pile(100, 100, 7), pile(300, 100, 4), pile(200, 300, None, down=True))
    taken = judged(reads, ghost)
    assert not taken.median and taken.complete and taken.total == 11
    # neither complete: the median's, with fewer piles to look at (the phone among them)
    unread = [frame(pile(100, 100, None), pile(300, 100, None))] * 3
    assert judged(unread, ghost).uncertain == [3] and judged(unread, ghost).median
    # a top no frame read surely: from 0.99 in the median
    lone = frame(pile(100, 100, 5, conf=0.95), pile(300, 100, 4))
    assert judged(unread, lone).uncertain == [1]
    assert judged(unread, frame(pile(100, 100, 5, conf=0.992), pile(300, 100, 4))).complete
    # read 8 surely by one frame of three, 5 by the median: the median's
    eight = [frame(pile(100, 100, t), pile(300, 100, 4)) for t in (8, 5, None)]
    assert judged(eight, frame(pile(101, 99, 5), pile(300, 100, 4))).total == 9
    # read 1 surely by two frames of three, 2 by the median (a heirloom face): the frames'
    twos = frame(pile(101, 99, 2), pile(300, 100, 4))
    ones = [frame(pile(100, 100, t), pile(300, 100, 4)) for t in (1, None, 1)]
    assert not judged(ones, twos).median and judged(ones, twos).total == 5
    # ... and to look at where the third frame read yet another top
    ones_three = [frame(pile(100, 100, t), pile(300, 100, 4)) for t in (1, 3, 1)]
    assert judged(ones_three, twos).uncertain == [1]
    # a pile seen in one frame of three only is to look at in the median too
    once = [frame(pile(100, 100, 7)), frame(pile(100, 100, 7)), reads[1]]
    assert judged(once, frame(pile(100, 100, 7), pile(300, 100, 4))).uncertain == [2]


def table_picture(seed: int = 0) -> np.ndarray:
    """A 320x240 table with cards: smooth shapes a frame can be aligned on."""
    import cv2

    rng = np.random.default_rng(seed)
    img = np.full((240, 320, 3), (40, 90, 40), np.uint8)
    for _ in range(6):
        cx, cy = rng.integers(40, 280), rng.integers(40, 200)
        box = cv2.boxPoints(((float(cx), float(cy)), (50.0, 76.0), float(rng.uniform(0, 90))))
        cv2.fillPoly(img, [box.astype(np.int32)], tuple(int(v) for v in rng.integers(60, 255, 3)))
        cv2.putText(img, str(rng.integers(1, 11)), (int(cx) - 10, int(cy) + 8),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)  # fmt: skip
    return cv2.GaussianBlur(img, (3, 3), 0)


def test_the_median_picture_aligns_each_frame_on_the_first_and_drops_one_frame_s_blemish():
    import cv2

    first = table_picture()
    moved = cv2.warpAffine(
        first,
        cv2.getRotationMatrix2D((160, 120), 1.2, 1.0) + [[0, 0, 3.5], [0, 0, -2.0]],
        (320, 240),
        borderMode=cv2.BORDER_REPLICATE,
    )
    back = aligned(first, moved)
    inner = (slice(20, 220), slice(20, 300))
    error = np.abs(back.astype(int) - first.astype(int))[inner].mean()
    assert error < 0.2 * np.abs(moved.astype(int) - first.astype(int))[inner].mean()
    glint = moved.copy()
    glint[100:130, 150:200] = 255  # a glint in one frame only
    median = median_picture([first, glint, moved])
    assert median.shape == first.shape and median.dtype == np.uint8
    assert np.abs(median.astype(int) - first.astype(int))[100:130, 150:200].mean() < 12
    # three frames or four: the per-pixel median of the aligned frames
    shifted = [first, back, aligned(first, glint)]
    assert np.array_equal(median, np.median(np.stack(shifted), axis=0).astype(np.uint8))
    assert median_picture([first, first, glint, moved]).shape == first.shape
    # a frame larger than 640 px is aligned on a smaller grey picture, in its own pixels
    big = cv2.resize(first, (1280, 960), interpolation=cv2.INTER_CUBIC)
    turn = cv2.getRotationMatrix2D((640, 480), -0.9, 1.0) + [[0, 0, -7.0], [0, 0, 4.5]]
    big_moved = cv2.warpAffine(big, turn, (1280, 960), borderMode=cv2.BORDER_REPLICATE)
    inner = (slice(80, 880), slice(80, 1200))
    before = np.abs(big_moved.astype(int) - big.astype(int))[inner].mean()
    assert (
        np.abs(aligned(big, big_moved).astype(int) - big.astype(int))[inner].mean() < 0.2 * before
    )
    # a blank frame does not stop the median; sizes must match; no frames
    flat = np.zeros_like(first)
    assert np.array_equal(aligned(first, flat), flat)
    with pytest.raises(ValueError, match="cannot be aligned"):
        aligned(first, first[:100])
    with pytest.raises(ValueError, match="no frames"):
        median_picture([])
