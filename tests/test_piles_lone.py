"""What the Dutch piles reader sets apart or lists to look at beyond the piles it finds:
another game's backs (no pile), faces the card check turned away that lie alone and whose
number reads (`vision.count.lone.lone_faces`), and places where the detector was sure of
a card the check turned away (`sure_lone_places`), but none far longer than the table's
cards. Helpers and the committed photos as in ``test_piles``.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from test_piles import DATA, count_of, quad, read_of, truth_of

from scoring.errors import ImageError
from vision.core.cards import BACK, FACE, Cards
from vision.piles.read import read_piles

# ---- another game's backs ----


def test_a_back_surely_of_another_game_is_no_pile():
    """A player's finished pile is of a player's deck: a back named no deck and surely of
    none (`Count.other_game`: most often a patch of a checked cloth between the piles) adds
    no 10 and asks nothing; a back of no deck not that sure still asks."""
    count = count_of(
        [(FACE, "red", 6, 0.99), (BACK, None, -1, 0.0), (BACK, None, -1, 0.0)],
        [(100, 100), (300, 100), (500, 100)],
    )
    count.cards.deck[1:] = None
    count.cards.other_probability[:] = [0.0, 0.95, 0.6]
    count.cards.deck_confidence[:] = [1.0, 0.95, 0.6]  # how sure of no deck
    count.other_game_probability = 0.9
    assert count.other_game == [2]
    piles = read_piles(count)
    assert [(p.top, p.down, p.uncertain) for p in piles.piles] == [
        (6, False, False),
        (10, True, True),
    ]
    assert piles.total == 16 and piles.uncertain == [2]
    count.cards.other_probability[2] = count.cards.deck_confidence[2] = 0.95
    piles = read_piles(count)
    assert [(p.top, p.down) for p in piles.piles] == [(6, False)]
    assert piles.total == 6 and piles.complete and piles.other_game == (2, 3)
    # a photo of nothing but another game's backs holds no Dutch pile: an error, not 0
    only = count_of([(BACK, None, -1, 0.0)], [(300, 100)])
    only.cards.deck[:] = None
    only.cards.other_probability[:] = only.cards.deck_confidence[:] = 0.95
    only.other_game_probability = 0.9
    with pytest.raises(ImageError, match="no Dutch piles found .1 back.s. of another game"):
        read_piles(only)


# ---- a pile whose top the card check turned away (vision/count/lone.py) ----


def test_lone_faces_are_turned_away_faces_apart_from_the_counted_cards():
    """Of the turned-away candidates only faces long enough and lying apart from every
    counted card are read; a face found twice is read once (the surer box)."""
    from vision.count.lone import lone_faces

    kept = Cards(np.array([quad(100, 100)], np.float32), np.array([FACE], np.int8), np.ones(1))
    rows = [
        (FACE, 0.02, quad(300, 100)),  # alone: read
        (FACE, 0.01, quad(303, 104)),  # the same card found again, less surely
        (FACE, 0.05, quad(130, 100)),  # half on the counted card
        (BACK, 0.05, quad(500, 100)),  # a back is no pile's top
        (FACE, 0.05, [[q[0] / 3, q[1] / 3] for q in quad(1500, 300)]),  # 31 px long
        (FACE, 0.001, quad(148, 100)),  # a sliver of it under the counted card: 0.14
    ]
    rejected = Cards(
        np.array([r[2] for r in rows], np.float32),
        np.array([r[0] for r in rows], np.int8),
        np.array([r[1] for r in rows], np.float32),
    )
    assert lone_faces(kept, rejected, 65.0, 0.15).tolist() == [0, 5]
    assert lone_faces(kept, rejected, 65.0, 0.1).tolist() == [0]
    assert lone_faces(kept, None, 65.0, 0.15).tolist() == []


def test_a_lone_face_read_is_a_pile_to_look_at_counted_in_the_total():
    """A lone face whose number was read is a pile of that many cards, flagged (the total
    then not complete); one lying on a pile found already adds nothing."""
    count = count_of([(FACE, "red", 7, 0.99)], [(100, 100)])
    lone = Cards(
        np.array([quad(300, 100), quad(104, 98)], np.float32),
        np.array([FACE, FACE], np.int8),
        np.array([0.02, 0.03], np.float32),
        value=np.array([4, 9], np.int16),
    )
    count.lone_faces, count.lone_value_confidence = lone, np.array([0.998, 0.99], np.float32)
    piles = read_piles(count)
    assert [(p.color, p.top, p.uncertain, p.number_only, p.cards) for p in piles.piles] == [
        ("red", 7, False, False, (1,)),
        (None, 4, True, True, ()),
    ]
    assert piles.total == 11 and not piles.complete and piles.uncertain == [2]
    assert piles.to_json()["piles"][1]["number_only"] is True


def test_a_pile_in_a_print_the_card_check_never_saw_is_listed_to_look_at(tallero):
    """``heirloom.jpg``: 14 piles in the heirloom print (scene 27 of `dataset synth --kind
    piles --n 40 --seed 7304 --art heirloom --imgsz 1920 --same-framing`). The card check
    turns the green 4 away; lying alone, its number reads 4, so it is listed as a pile of 4
    to look at, and the total is the truth's 76, not complete. (Without `enroll faces` the
    heirloom green is named blue: the numbers are checked here, not the colours.)"""
    payload = tallero("piles", str(DATA / "heirloom.jpg"), "--json").json()
    tops = sorted(p["top"] for p in payload["piles"])
    assert tops == sorted(t[1] for t in truth_of("heirloom"))
    lone = [p for p in payload["piles"] if p["number_only"]]
    assert [(p["top"], p["color"], p["cards"]) for p in lone] == [(4, None, [])]
    assert payload["uncertain"] == [lone[0]["id"]]
    assert payload["total"] == 76 and payload["complete"] is False
    text = tallero("piles", str(DATA / "heirloom.jpg")).out
    assert f"pile #{lone[0]['id']}: 4? (not taken for a card, but its number reads 4" in text


# ---- a card the detector was sure of and the check turned away (a pile under a phone) ----


def test_sure_lone_places_are_turned_away_cards_the_detector_was_sure_of():
    """Candidates of either side the detector found at its own bar for a sure find or above,
    lying apart from every counted card, are places to look at; the surer of two boxes on
    one card is kept."""
    from vision.count.lone import sure_lone_places

    kept = Cards(np.array([quad(100, 100)], np.float32), np.array([FACE], np.int8), np.ones(1))
    rows = [
        (BACK, 0.44, quad(500, 100)),  # a back half under a phone: a place
        (FACE, 0.43, quad(300, 100)),  # a face the same way
        (FACE, 0.40, quad(303, 104)),  # the same face boxed again, less surely
        (FACE, 0.20, quad(300, 300)),  # the detector unsure of it
        (BACK, 0.90, quad(130, 100)),  # half on the counted card
        (BACK, 0.90, [[q[0] / 3, q[1] / 3] for q in quad(1500, 900)]),  # 31 px long
    ]
    rejected = Cards(
        np.array([r[2] for r in rows], np.float32),
        np.array([r[0] for r in rows], np.int8),
        np.full(len(rows), 0.001, np.float32),  # the check's chance: it took none for a card
    )
    found = np.array([r[1] for r in rows], np.float32)
    assert sure_lone_places(kept, rejected, found, 0.35, 65.0, 0.15).tolist() == [0, 1]
    assert sure_lone_places(kept, rejected, found, 0.5, 65.0, 0.15).tolist() == []
    assert sure_lone_places(kept, rejected, None, 0.35, 65.0, 0.15).tolist() == []
    assert sure_lone_places(kept, None, None, 0.35, 65.0, 0.15).tolist() == []


def test_a_place_far_longer_than_the_cards_of_the_table_is_none():
    """A patch of a checked cloth near the camera, boxed three cards long, is no card of this
    table: with ``max_size`` 2 only candidates up to twice the median counted card are
    places (and lone faces); a card a little longer than the others still is."""
    from vision.count.lone import lone_faces, sure_lone_places

    kept = Cards(
        np.array([quad(100, 100), quad(100, 300), quad(100, 500)], np.float32),
        np.array([FACE, FACE, BACK], np.int8),
        np.ones(3),
    )

    def grown(cx: float, cy: float, k: float) -> list[list[float]]:
        return [[cx + k * (x - cx), cy + k * (y - cy)] for x, y in quad(cx, cy)]

    rejected = Cards(
        np.array([grown(400, 300, 1.3), grown(800, 300, 2.5)], np.float32),
        np.array([FACE, FACE], np.int8),
        np.array([0.02, 0.03], np.float32),
    )
    found = np.array([0.4, 0.6], np.float32)
    assert sure_lone_places(kept, rejected, found, 0.35, 65.0, 0.15, 2.0).tolist() == [0]
    assert sure_lone_places(kept, rejected, found, 0.35, 65.0, 0.15, 0.0).tolist() == [1, 0]
    assert lone_faces(kept, rejected, 65.0, 0.15, 2.0).tolist() == [0]
    assert lone_faces(kept, rejected, 65.0, 0.15).tolist() == [1, 0]


def test_a_sure_lone_place_is_a_pile_to_look_at_that_adds_nothing_to_the_total():
    """A place lying apart from the piles found is a pile with no top, flagged (the total
    then not complete); one on a pile found already adds nothing."""
    count = count_of([(FACE, "red", 7, 0.99)], [(100, 100)])
    count.lone_places = Cards(
        np.array([quad(300, 100), quad(104, 98)], np.float32),
        np.array([BACK, FACE], np.int8),
        np.array([0.002, 0.001], np.float32),
    )
    piles = read_piles(count)
    assert [(p.top, p.uncertain, p.place_only, p.cards) for p in piles.piles] == [
        (7, False, False, (1,)),
        (None, True, True, ()),
    ]
    assert piles.total == 7 and not piles.complete and piles.uncertain == [2]
    payload = piles.to_json()["piles"]
    assert payload[1]["place_only"] is True and payload[0]["place_only"] is False


def test_a_pile_half_under_a_phone_is_listed_to_look_at(tallero):
    """``under-phone.jpg``: 11 piles, a yellow 1 lying half under a phone. The detector finds
    it (0.43) and the card check turns it away; the other ten tops are read right, and the
    yellow 1 is a place to look at, so the total (44 of the truth's 45) is not complete
    instead of complete and short."""
    payload = tallero("piles", str(DATA / "under-phone.jpg"), "--json").json()
    truth = json.loads((DATA / "under-phone.json").read_text())
    hidden = next(p for p in truth if p["color"] == "yellow" and p["top"] == 1 and
                  min(y for _, y in p["corners"]) < 200)  # fmt: skip
    places = [p for p in payload["piles"] if p["place_only"]]
    assert len(places) == 1 and places[0]["top"] is None
    centre = np.mean(places[0]["corners"], axis=0)
    outline = np.array(hidden["corners"], np.float32)
    assert cv2.pointPolygonTest(outline, (float(centre[0]), float(centre[1])), False) > 0
    read = sorted((p["color"], p["top"]) for p in payload["piles"] if not p["place_only"])
    assert read == sorted((p["color"], p["top"]) for p in truth if p is not hidden)
    assert payload["uncertain"] == [places[0]["id"]]
    assert payload["total"] == 44 and payload["complete"] is False
    text = tallero("piles", str(DATA / "under-phone.jpg")).out
    assert f"pile #{places[0]['id']}: ? (a card may lie here, half covered" in text


def test_a_gap_in_a_checked_cloth_is_set_apart_not_counted_as_a_face_down_pile(tallero, tmp_path):
    """``checked-cloth.jpg``: 13 piles on a checked cloth; a gap of the cloth between two
    piles is found as a back of no deck, surely another game's. It is set apart (listed in
    ``other_game``, said under the table, drawn in grey dashes) and adds no 10: every top is
    read and the total, the truth's 80, is complete."""
    payload = tallero("piles", str(DATA / "checked-cloth.jpg"), "--json").json()
    assert read_of(payload) == truth_of("checked-cloth")
    assert payload["total"] == 80 and payload["complete"] is True
    assert len(payload["other_game"]) == 1
    assert payload["other_game"][0] not in {i for p in payload["piles"] for i in p["cards"]}
    out = tmp_path / "piles.png"
    text = tallero("piles", str(DATA / "checked-cloth.jpg"), "--annotate", str(out)).out
    assert "set apart: 1 back(s) of another game's cards (no Dutch pile)" in text
    assert "total: 80 Dutch cards on 13 piles" in text
    drawn = cv2.imread(str(out))
    assert drawn is not None and drawn.shape[:2] == (864, 1152)
