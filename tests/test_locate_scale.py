"""Where the counter looks: small cards are seen again on the image enlarged, big ones not,
and a card held close to the camera is seen again from further away."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.core.settings import VisionSettings
from vision.count.counter import Counter

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "datasets" / "samples" / "synth-mini" / "images" / "000000.jpg"
LAYOUT = ROOT / "tests" / "data" / "scene_4242_000002.jpg"
WEBCAM_TABLE = ROOT / "datasets" / "samples" / "webcam" / "table-8-decks.jpg"


@pytest.fixture(scope="module")
def counter() -> Counter:
    return Counter(threads=2)


def looks(counter: Counter, image: np.ndarray) -> list[int]:
    """The detector input sizes ``locate`` asks for on ``image``."""
    sizes: list[int] = []
    detector = counter.detector
    real = type(detector).detect

    def detect(image_bgr: np.ndarray, input_px: int | None = None, views: int = 1):  # noqa: ANN202
        sizes.append(int(input_px))
        return real(detector, image_bgr, input_px, views)

    detector.detect = detect
    try:
        counter.locator.locate(image)
    finally:
        del detector.detect
    return sizes


def small_cards() -> np.ndarray:
    """The sorted example shrunk to 60% on a 640 x 480 table: cards about 35 px long."""
    image = cv2.imread(str(SORTED))
    small = cv2.resize(image, None, fx=0.6, fy=0.6, interpolation=cv2.INTER_AREA)
    table = np.empty((480, 640, 3), np.uint8)
    table[:] = np.median(image.reshape(-1, 3), axis=0)
    y, x = (480 - small.shape[0]) // 2, (640 - small.shape[1]) // 2
    table[y : y + small.shape[0], x : x + small.shape[1]] = small
    return table


def close_up() -> np.ndarray:
    """The first card of the layout photo filling most of a 1200 x 1200 photo, as a phone
    held close over one card sees it (the pump back, long side about 750 px)."""
    image = cv2.imread(str(LAYOUT))
    truth = json.loads(LAYOUT.with_suffix(".json").read_text())
    quad = np.asarray(truth["cards"][0]["corners"], np.float32)
    (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
    half = max(x1 - x0, y1 - y0) * 0.8
    shift = np.float32([[1, 0, half - (x0 + x1) / 2], [0, 1, half - (y0 + y1) / 2]])
    side = int(2 * half)
    crop = cv2.warpAffine(image, shift, (side, side), borderMode=cv2.BORDER_REFLECT)
    return cv2.resize(crop, (1200, 1200), interpolation=cv2.INTER_CUBIC)


def test_a_card_held_close_is_counted_from_the_look_further_away(counter: Counter) -> None:
    count = counter.count(close_up(), name="close-up")
    assert len(count.cards) == 1
    assert count.counts["pump"] == 1 and sum(count.counts.values()) == 1
    assert count.ranges["pump"] == (1, 1)
    # The further look is what counts it: the whole view alone counts no card (at most an
    # unsure box it cannot name, which leaves the pump a range).
    near_only = Counter(
        threads=2,
        settings=VisionSettings(far_below_confidence=0.0, max_card_long_side_input_px=1e9),
    )
    near = near_only.count(close_up(), name="close-up")
    assert sum(near.counts.values()) == 0
    assert all(c < 0.8 for c in near.cards.confidence)


def test_a_card_held_close_is_seen_again_shrunk_on_the_whole_views_canvas(
    counter: Counter,
) -> None:
    assert looks(counter, close_up()) == [640, 640]


@pytest.mark.parametrize("name", ["min_far_scale", "far_below_confidence"])
def test_far_settings_outside_0_1_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        VisionSettings(**{name: 1.5})


def test_small_cards_are_seen_again_on_the_image_enlarged_1_5_times(counter: Counter) -> None:
    assert looks(counter, small_cards()) == [640, 960]


def test_big_cards_are_seen_once(counter: Counter) -> None:
    assert looks(counter, cv2.imread(str(LAYOUT))) == [640]


def test_no_enlarging_when_max_upscale_is_one() -> None:
    counter = Counter(threads=2, settings=VisionSettings(max_upscale=1.0))
    assert looks(counter, small_cards()) == [640]


@pytest.mark.parametrize("value", [0.5, 0.99])
def test_max_upscale_below_one_is_refused(value: float) -> None:
    with pytest.raises(ValueError, match="max_upscale"):
        VisionSettings(max_upscale=value)


@pytest.mark.slow
def test_the_check_is_fitted_on_the_candidates_it_meets_at_run_time(counter: Counter) -> None:
    from vision.train.check_fit import proposing_counter

    fitting = proposing_counter(counter.detector.path, counter.classifier.path, VisionSettings())
    # It proposes down to the candidates' confidence but judges card sizes as at run time.
    assert fitting.detector.settings.min_detection_confidence == 0.08
    assert fitting.locator.sure_confidence == counter.locator.sure_confidence == 0.35
    image = small_cards()
    assert looks(fitting, image) == [640, 960]
    run_time = counter.locator.locate(image)
    np.testing.assert_allclose(fitting.locator.locate(image).corners, run_time.corners)


def test_live_frames_never_look_further() -> None:
    # The quick 320 px look is never enough here, so the frame is seen whole at 640 px, as
    # the close-up photo above is; a photo then looks further (640 again), a frame does not.
    settings = VisionSettings(live_min_card_long_side_input_px=1e6)
    live = Counter(threads=2, live=True, settings=settings)
    assert looks(live, close_up()) == [320, 640]


def test_a_large_live_frame_of_small_cards_is_seen_again_whole_not_in_tiles() -> None:
    # A 1280x720 webcam frame of a sorted table of 8 decks (64 cards about 55 px long) is
    # seen again enlarged past 1280 px: a live frame takes that look whole, one look
    # instead of eight tiles (`live_max_whole_input_px`).
    frame = cv2.imread(str(WEBCAM_TABLE))
    rec = json.loads(WEBCAM_TABLE.with_suffix(".json").read_text())
    live = Counter(threads=2, live=True)
    sizes = looks(live, frame)
    assert sizes[:2] == [320, 640] and len(sizes) == 3 and 1280 < sizes[2] <= 1920
    tiled = Counter(threads=2, live=True, settings=VisionSettings(live_max_whole_input_px=1280))
    assert looks(tiled, frame) == [320, 640]  # the enlarged look in tiles (not `detect`)
    cards = sum(rec["counts"].values())
    assert len(live.count(frame, name="frame", decks=tuple(rec["decks"])).cards) >= 0.9 * cards


def test_a_photo_of_small_cards_is_seen_again_whole_up_to_1920_px_not_in_tiles() -> None:
    # The webcam table (1280x720, cards about 55 px long) as a photo: seen at 640, then
    # enlarged 1.5 times, whole (`max_whole_input_px`), where it once was cut into tiles.
    frame = cv2.imread(str(WEBCAM_TABLE))
    photo = Counter(threads=2)
    sizes = looks(photo, frame)
    assert sizes[0] == 640 and len(sizes) == 2 and 1280 < sizes[1] <= 1920
    tiled = Counter(threads=2, settings=VisionSettings(max_whole_input_px=1280))
    assert looks(tiled, frame) == [640]  # the enlarged look in tiles (not `detect`)


def test_the_next_live_frames_are_seen_at_once_at_the_scale_the_first_chose() -> None:
    # The cards of a camera keep their size: the frames after one seen enlarged skip the
    # quick and the detector-size looks (`live_reuse_looks`), until that many have, another
    # frame size comes, or a new scene begins (`forget_looks`).
    frame = cv2.imread(str(WEBCAM_TABLE))
    live = Counter(threads=2, live=True, settings=VisionSettings(live_reuse_looks=2))
    first = looks(live, frame)
    assert first[:2] == [320, 640] and len(first) == 3
    assert looks(live, frame) == looks(live, frame) == first[2:]
    assert looks(live, frame) == first  # the third chooses again
    assert looks(live, frame) == first[2:]
    assert looks(live, cv2.resize(frame, (960, 540)))[:2] == [320, 640]  # another size
    looks(live, frame)
    live.forget_looks()
    assert looks(live, frame) == first
    # The same look, so the same cards.
    once = live.locator.locate(frame)
    again = live.locator.locate(frame)
    np.testing.assert_allclose(once.corners, again.corners)
    # A table with no card sure enough is looked at closer, but says nothing of the
    # cards' size: the next frame chooses again.
    empty = np.full_like(frame, 128)
    live.forget_looks()
    assert looks(live, empty)[:2] == looks(live, empty)[:2] == [320, 640]
    never = Counter(threads=2, live=True, settings=VisionSettings(live_reuse_looks=0))
    assert looks(never, frame) == looks(never, frame) == first
    with pytest.raises(ValueError, match="live_reuse_looks"):
        VisionSettings(live_reuse_looks=-1)


def test_a_part_of_a_live_frame_is_counted_at_the_frames_scale_with_the_cards_inside_it() -> None:
    # `Counter.count_part`: the live view counts only the part of a frame that needs a look
    # (`LiveSettings.part_max_share`); the cards lying whole inside it are the whole count's.
    frame = cv2.imread(str(WEBCAM_TABLE))
    rec = json.loads(WEBCAM_TABLE.with_suffix(".json").read_text())
    decks = tuple(rec["decks"])
    live = Counter(threads=2, live=True)
    h, w = frame.shape[:2]
    with pytest.raises(ValueError, match="whole frame first"):
        live.count_part(frame, (0, 0, w // 2, h // 2), decks=decks)
    whole = live.count(frame, name="frame", decks=decks)
    scale = live.part_scale(h, w)
    assert scale is not None and live.part_scale(h + 1, w) is None
    box = (w // 4, h // 4, w * 3 // 4, h * 3 // 4)
    sizes: list[int] = []
    real = type(live.detector).detect

    def detect(image_bgr: np.ndarray, input_px: int | None = None, views: int = 1):  # noqa: ANN202
        sizes.append(int(input_px))
        return real(live.detector, image_bgr, input_px, views)

    live.detector.detect = detect
    try:
        part = live.count_part(frame, box, name="frame", decks=decks)
    finally:
        del live.detector.detect
    assert sizes == [round(w // 2 * scale)]  # one look, at the whole frame's scale
    assert part.size == (w, h)
    x0, y0, x1, y1 = box

    def inside(cards) -> np.ndarray:  # noqa: ANN001
        lo, hi = cards.corners.min(axis=1), cards.corners.max(axis=1)
        return (lo[:, 0] >= x0) & (lo[:, 1] >= y0) & (hi[:, 0] <= x1) & (hi[:, 1] <= y1)

    assert len(part.cards) and inside(part.cards).all()  # in the frame's pixels, none cut
    expected = whole.cards[inside(whole.cards)]
    assert abs(len(part.cards) - len(expected)) <= 1
    near = np.linalg.norm(
        part.cards.corners.mean(axis=1)[:, None] - expected.corners.mean(axis=1)[None], axis=-1
    ).min(axis=1)
    assert np.median(near) < 3.0  # the same cards, where the whole count found them
    with pytest.raises(ValueError, match="not inside"):
        live.count_part(frame, (0, 0, w + 10, h), decks=decks)
