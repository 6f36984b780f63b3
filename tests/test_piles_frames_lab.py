"""`vision.lab.piles_frames`: a piles photo filmed as webcam frames, each with the map that
carries the photo's truth into it."""

from __future__ import annotations

import numpy as np

from vision.lab.piles_frames import _moved, film


def test_filmed_frames_keep_the_pile_where_the_map_puts_it():
    photo = np.full((600, 800, 3), 60, np.uint8)
    corners = [[300.0, 200.0], [380.0, 200.0], [380.0, 320.0], [300.0, 320.0]]
    photo[200:320, 300:380] = 250
    truth = {
        "dutch_piles": [{"corners": corners}],
        "cards": [{"corners": [[100, 100], [700, 100], [700, 500], [100, 500]]}],
    }
    frames, maps = film(photo, truth, (640, 360), 4, np.random.default_rng(3))
    assert len(frames) == len(maps) == 4
    for frame, m in zip(frames, maps, strict=True):
        assert frame.shape == (360, 640, 3)
        x, y = np.mean(_moved(corners, m), axis=0)
        assert frame[int(y), int(x)].mean() > 180  # the card, not the table
        moved = np.array(_moved(corners, m))
        assert 60 < moved[1, 0] - moved[0, 0] < 90  # framed on the cards: about 0.8 times


def test_a_hand_covers_its_pile_only_in_its_frames():
    """``hand=(2, 8, palm)``: the hand reaches the pile in the middle of its frames (skin
    over the white card) and is gone before and after."""
    photo = np.full((600, 800, 3), 60, np.uint8)
    corners = [[300.0, 200.0], [380.0, 200.0], [380.0, 320.0], [300.0, 320.0]]
    photo[200:320, 300:380] = 250
    truth = {"dutch_piles": [{"corners": corners}], "cards": []}
    frames, maps = film(
        photo, truth, (640, 360), 10, np.random.default_rng(3), hand=(2, 8, (340.0, 260.0))
    )

    def at_pile(k: int) -> np.ndarray:
        x, y = np.mean(_moved(corners, maps[k]), axis=0)
        return frames[k][int(y), int(x)].astype(int)

    for k in (0, 1, 8, 9):
        assert at_pile(k).min() > 180  # the white card
    skin = at_pile(5)  # BGR 110, 150, 205 (lit a little differently)
    assert skin[2] > skin[1] > skin[0] and skin[0] < 170
