"""How the number reader turns its two corner bands into a face's number (no photo)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.name.numbers import Reading, combine, shortened_quads, surest, view_quads

CLASSES = (*(str(v) for v in range(1, 11)), "hidden")


def band(number: int | None, p: float) -> list[float]:
    """A band reading ``number`` (None: hidden) at ``p``, the rest spread evenly."""
    out = [(1.0 - p) / 10] * 11
    out[10 if number is None else number - 1] = p
    return out


@pytest.mark.parametrize(
    ("bands", "agreement", "value", "confidence"),
    [
        # two prints of 7 at 0.8: wrong only if both are (1 - 0.2 * 0.2)
        ([band(7, 0.8), band(7, 0.8)], True, 7, 0.96),
        ([band(7, 0.8), band(7, 0.8)], False, -1, 0.0),
        # one index covered: the other alone must reach the bar
        ([band(7, 0.97), band(None, 0.9)], True, 7, 0.97),
        ([band(7, 0.9), band(None, 0.9)], True, -1, 0.0),
        # the two indices read differently: never a number
        ([band(7, 0.99), band(1, 0.6)], True, -1, 0.0),
        ([band(None, 0.9), band(None, 0.9)], True, -1, 0.0),
    ],
)
def test_two_bands_give_a_number_only_when_sure(bands, agreement, value, confidence):
    read = combine(np.array(bands), CLASSES, 0.95, agreement)
    assert int(read.values[0]) == value
    assert float(read.confidence[0]) == pytest.approx(confidence, abs=1e-6)


def test_more_looks_move_the_corners_a_few_percent_of_the_card():
    quad = np.array([[[10, 20], [110, 20], [110, 170], [10, 170]]], np.float32)
    views = view_quads(quad, 3)
    assert views.shape == (3, 4, 2)
    assert np.array_equal(views[0], quad[0])
    assert np.allclose(views[1] - quad[0], [3.0, 0.0])  # 3% of the 100 px width, rightwards
    assert np.allclose(views[2] - quad[0], [-3.0, 0.0])
    with pytest.raises(ValueError, match="views must be 1..7"):
        view_quads(quad, 8)


def test_a_shortened_look_moves_both_short_edges_in_by_half_the_share():
    # a card 100 px wide and 150 px long, found upside down (its first edge at the bottom)
    quad = np.array([[[110, 170], [10, 170], [10, 20], [110, 20]]], np.float32)
    looks = shortened_quads(quad, (0.1, 0.2))
    assert looks.shape == (3, 4, 2)
    assert np.array_equal(looks[0], quad[0])
    # 10% of the 150 px long side: each short edge 7.5 px inwards, the width unchanged
    assert np.allclose(looks[1], [[110, 162.5], [10, 162.5], [10, 27.5], [110, 27.5]])
    assert np.allclose(looks[2], [[110, 155], [10, 155], [10, 35], [110, 35]])
    two = shortened_quads(np.concatenate([quad, quad + 500]), (0.1,))
    assert np.allclose(two[2], quad[0] + 500) and np.allclose(two[3], looks[1] + 500)


def test_the_surest_look_gives_the_number_and_only_above_the_bar():
    looks = [
        Reading(np.array([7, -1, 3, 5], np.int16), np.array([0.9, 0.0, 0.99, 0.5], np.float32)),
        Reading(np.array([7, 8, 8, -1], np.int16), np.array([0.98, 0.97, 0.6, 0.0], np.float32)),
    ]
    read = surest(looks, 0.95)
    # card 2: only the shortened look read it; card 3: the surer look wins whatever the
    # other read; card 4: no look reaches the bar, so no number
    assert read.values.tolist() == [7, 8, 3, -1]
    assert np.allclose(read.confidence, [0.98, 0.97, 0.99, 0.0])


def test_shortened_looks_are_checked():
    from pathlib import Path

    from vision.name.numbers import NumberReader

    model = Path(__file__).resolve().parents[1] / "models" / "tallero-numbers.onnx"
    with pytest.raises(ValueError, match="views or shortened"):
        NumberReader(model, threads=1, views=3, shortened=(0.1,))
    with pytest.raises(ValueError, match="within"):
        NumberReader(model, threads=1, shortened=(0.6,))


def test_a_one_needs_its_own_higher_bar():
    """A blurred index's lone stroke reads as a 1: a 1 at 0.97 is not given where a 7 at
    0.97 is; a 1 at 0.995 is (the other index covered each time)."""
    from pathlib import Path

    from vision.core.cards import FACE, Cards
    from vision.name.numbers import NumberReader

    model = Path(__file__).resolve().parents[1] / "models" / "tallero-numbers.onnx"
    reader = NumberReader(model, threads=1, min_confidence=0.95, one_min_confidence=0.99)
    probabilities = np.array(
        [band(1, 0.97), band(None, 0.9), band(7, 0.97), band(None, 0.9)]
        + [band(1, 0.995), band(None, 0.9)]
    )
    reader.band_probabilities = lambda bands: probabilities  # type: ignore[method-assign]
    quad = [[10, 10], [66, 10], [66, 97], [10, 97]]
    cards = Cards(
        np.array([quad] * 3, np.float32), np.full(3, FACE, np.int8), np.ones(3, np.float32)
    )
    read = reader.read(np.zeros((120, 120, 3), np.uint8), cards)
    assert read.values.tolist() == [-1, 7, 1]
    assert np.allclose(read.confidence, [0.0, 0.97, 0.995])
    with pytest.raises(ValueError, match="one_min_confidence"):
        NumberReader(model, threads=1, one_min_confidence=1.5)


def test_a_scene_face_lengthened_at_each_end_as_a_pile_top_is_found():
    from vision.synth.face_crops import stretch_ends

    quad = np.array([[10, 20], [110, 20], [110, 170], [10, 170]], np.float32)
    # 10% of the 150 px long side out at the first short edge, 4% at the other
    longer = stretch_ends(quad, 0.1, 0.04)
    assert np.allclose(longer, [[10, 5], [110, 5], [110, 176], [10, 176]])
    # a negative share moves the edge in: shortened_quads' look, one end at a time
    assert np.allclose(stretch_ends(quad, -0.05, -0.05), shortened_quads(quad[None], (0.1,))[1])


def test_found_faces_are_cut_where_the_counter_found_them_and_labelled_from_the_truth(tmp_path):
    import json
    from types import SimpleNamespace

    import cv2

    from vision.core.cards import BACK, FACE, Cards
    from vision.train.numbers import found_crops

    (tmp_path / "images").mkdir()
    (tmp_path / "truth").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.jpg"), np.full((300, 400, 3), 128, np.uint8))
    seven = [[20, 20], [76, 20], [76, 107], [20, 107]]
    three = [[200, 20], [256, 20], [256, 107], [200, 107]]
    covered = [[20, 150], [76, 150], [76, 237], [20, 237]]
    cards = [
        {"side": "face", "value": 7, "visible_fraction": 1.0, "corners": seven},
        {"side": "face", "value": 3, "visible_fraction": 0.97, "corners": three},
        {"side": "face", "value": 5, "visible_fraction": 0.4, "corners": covered},
    ]
    truth = {"image": "a.jpg", "decks": ["pump", "pail"], "cards": cards}
    (tmp_path / "truth" / "a.json").write_text(json.dumps(truth))
    found = [
        (np.add(seven, [0, -6]), FACE),  # found a little long: still the 7
        (np.add(three, [0, 0]), BACK),  # a back is no face to read
        (np.add(covered, [1, 1]), FACE),  # too little of it shows to be labelled
        (np.add(three, [150, 150]), FACE),  # no true face near it
    ]
    counted = Cards(
        np.array([q for q, _ in found], np.float32),
        np.array([s for _, s in found], np.int8),
        np.ones(len(found), np.float32),
    )
    asked = []

    def count(image, name, decks):
        asked.append((image.shape, name, decks))
        return SimpleNamespace(cards=counted)

    crops, values = found_crops(tmp_path, SimpleNamespace(count=count), shortened=(0.05, 0.1))
    assert asked == [((300, 400, 3), "a.jpg", ("pump", "pail"))]
    assert values.tolist() == [7, 7, 7]  # the found corners, then shortened by 5% and 10%
    assert crops.shape == (3, 72, 48, 3)


def test_a_nearly_square_face_taken_the_wrong_way_round_is_read_turned_a_quarter():
    """A card seen from a low angle looks nearly square, and its outline may start from a
    long edge: its indices then lie on the crop's sides and nothing is read. Read turned a
    quarter too, the committed pile tops are read right; outlines under the bar only."""
    import json
    from pathlib import Path

    import cv2

    from vision.core.cards import FACE, Cards
    from vision.name.numbers import NumberReader, side_ratio

    root = Path(__file__).resolve().parents[1]
    piles = json.loads((root / "tests" / "data" / "piles" / "clear.json").read_text())
    image = cv2.imread(str(root / "tests" / "data" / "piles" / "clear.jpg"))
    ups = [p for p in piles if not p["face_down"]]
    found = np.array([p["corners"] for p in ups], np.float32)
    assert (side_ratio(found) < 1.3).all()  # the camera's tilt makes them nearly square
    wrong_way = Cards(np.roll(found, -1, axis=1), np.full(len(ups), FACE, np.int8), np.ones(4))
    model = root / "models" / "tallero-numbers.onnx"

    def reader(bar: float) -> NumberReader:
        return NumberReader(model, 1, 0.97, 1, True, (0.05, 0.1), 0.99, bar)

    assert reader(0.0).read(image, wrong_way).values.tolist() == [-1] * len(ups)
    assert reader(1.3).read(image, wrong_way).values.tolist() == [p["top"] for p in ups]
    assert reader(1.1).read(image, wrong_way).values.tolist() == [-1] * len(ups)
    assert side_ratio(np.float32([[[0, 0], [56, 0], [56, 87], [0, 87]]])).round(3).tolist() == [
        1.554
    ]
    with pytest.raises(ValueError, match="quarter_below_aspect"):
        reader(-1.0)


def test_a_face_found_turned_away_from_the_card_is_read_in_its_painted_outline():
    """Outlines turned 20 degrees off the committed pile tops leave their indices off the
    crop; the patch of each face's printed colour gives the card's own outline back, and
    the number is read there. Turned 30 degrees, the outlines as found read two wrong
    numbers with no doubt; in their painted outlines those read otherwise, so they are
    left unread, and nothing is read wrong. A cloth or a grey picture makes no outline."""
    import json
    from pathlib import Path

    import cv2

    from vision.core.cards import FACE, Cards
    from vision.name.numbers import NumberReader
    from vision.name.painted import outline_iou, painted_outline

    root = Path(__file__).resolve().parents[1]
    piles = json.loads((root / "tests" / "data" / "piles" / "clear.json").read_text())
    image = cv2.imread(str(root / "tests" / "data" / "piles" / "clear.jpg"))
    ups = [p for p in piles if not p["face_down"]]
    truth = np.array([p["corners"] for p in ups], np.float32)
    tops = [p["top"] for p in ups]
    model = root / "models" / "tallero-numbers.onnx"

    def turned(degrees: float) -> Cards:
        """Each outline turned about its centre, every other one the other way."""
        quads = []
        for k, quad in enumerate(truth):
            t = np.deg2rad(degrees if k % 2 else -degrees)
            turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]], np.float32)
            quads.append((quad - quad.mean(axis=0)) @ turn.T + quad.mean(axis=0))
        return Cards(np.stack(quads), np.full(len(ups), FACE, np.int8), np.ones(len(ups)))

    def read(painted: bool, found: Cards) -> list[int]:
        reader = NumberReader(model, 1, 0.97, 1, True, (0.05, 0.1), 0.99, 1.3, painted)
        values: list[int] = reader.read(image, found).values.tolist()
        return values

    found = turned(20)
    as_found = read(False, found)
    assert sum(v == t for v, t in zip(as_found, tops, strict=True)) <= 1
    assert read(True, found) == tops
    for quad, want in zip(found.corners, truth, strict=True):
        outline = painted_outline(image, quad)
        assert outline is not None
        # the same corners, in the same order, within 8 px on cards 150 px long
        assert np.abs(outline - want).max() < 8
        assert outline_iou(outline, want) > 0.85 > outline_iou(quad, outline)
    further = turned(30)
    wrong = [v for v, t in zip(read(False, further), tops, strict=True) if v not in (-1, t)]
    assert len(wrong) >= 1  # read with no doubt, and wrong
    checked = read(True, further)
    assert all(v in (-1, t) for v, t in zip(checked, tops, strict=True))
    assert sum(v == t for v, t in zip(checked, tops, strict=True)) >= 2
    # the striped cloth and a grey picture make no card; a card under 120 px is not looked for
    cloth = np.float32([[60, 60], [160, 60], [160, 210], [60, 210]])
    assert painted_outline(image, cloth) is None
    assert painted_outline(np.full((300, 300, 3), 128, np.uint8), cloth + 20) is None
    small = (truth[0] - truth[0].mean(axis=0)) * 0.7 + truth[0].mean(axis=0)
    assert painted_outline(image, small) is None


def test_a_profiles_reader_and_the_shipped_one_give_a_number_either_reads_never_against():
    from vision.name.numbers import either

    own = Reading(np.array([7, -1, 7, -1, 3], np.int16), np.array([0.98, 0, 0.99, 0, 0.97]))
    shipped = Reading(np.array([7, 5, 4, -1, -1], np.int16), np.array([0.99, 0.98, 0.99, 0, 0]))
    got = either(own, shipped)
    # both 7: the lesser confidence; only the shipped reads 5; they differ (7, 4): unread;
    # neither reads; only the profile's reads 3
    assert got.values.tolist() == [7, 5, -1, -1, 3]
    assert got.confidence.tolist() == pytest.approx([0.98, 0.98, 0.0, 0.0, 0.97])


def test_a_reader_pair_reads_with_both_and_keeps_what_they_agree_on():
    from vision.name.numbers import ReaderPair

    class Stub:
        def __init__(self, values):
            self.values = values

        def read(self, image_bgr, cards):
            v = np.array(self.values, np.int16)
            return Reading(v, np.where(v >= 1, 0.99, 0.0).astype(np.float32))

    pair = ReaderPair(Stub([2, -1, 9]), Stub([2, 6, 8]))
    assert pair.read(None, None).values.tolist() == [2, 6, -1]
    assert pair.parts == [pair.own, pair.shipped]


def test_an_object_over_an_index_hides_it_and_one_beside_it_does_not():
    from vision.synth.face_crops import INDEX_COVERED, index_covered

    card = (10, 20, 56, 87)  # x, y, w, h of a card lying in a 120x130 picture
    mask = np.zeros((130, 120), np.uint8)
    mask[20:40, 10:30] = 1  # a fingertip over the top-left index
    top, bottom = index_covered(mask, card)
    assert top >= INDEX_COVERED and bottom == 0.0
    mask[:] = 0
    mask[50:80, 30:40] = 1  # a pen across the middle of the card
    assert index_covered(mask, card) == (0.0, 0.0)
    mask[95:107, 50:66] = 1  # and over the bottom-right index
    assert index_covered(mask, card)[1] >= INDEX_COVERED


def test_faces_drawn_with_objects_over_them_teach_hidden_indices_and_stay_reproducible():
    from vision.synth.face_crops import drawn_crops

    plain = drawn_crops(40, 5, 48, 72)
    crops, values, covered = drawn_crops(40, 5, 48, 72, objects=1.0)
    again = drawn_crops(40, 5, 48, 72, objects=1.0)
    assert np.array_equal(crops, again[0]) and np.array_equal(covered, again[2])
    assert values.shape == (40,) and set(values.tolist()) <= set(range(1, 11))
    # fingers, pens and phones aimed at the indices hide many more than neighbours alone
    assert covered.sum() > plain[2].sum() + 10
    # and most faces keep at least one index readable
    assert (~covered.all(axis=1)).mean() > 0.5
