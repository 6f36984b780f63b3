"""`tallero piles`: the Dutch piles read off a photo, and `score --piles-photo`.

The committed photos (tests/data/piles, drawn by make.py there, truth beside each) hold:
``mixed`` green 2, red 10, yellow 5, blue 8; ``down`` two face-down finished piles and a
yellow 6; ``covered`` red 7 half covered by a blue 4, and a green 9; ``round`` a face-down
pile, red 10 and blue 7; ``clear`` five piles photographed close; ``empty`` no card.
Whatever top is given must be right; a top the reader cannot read must be flagged, with
no number.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.errors import ImageError
from vision.core.cards import BACK, FACE, Cards
from vision.count.result import Count
from vision.piles.read import read_piles

DATA = Path(__file__).resolve().parent / "data" / "piles"


def truth_of(name: str) -> list[tuple[str | None, int, bool]]:
    piles = json.loads((DATA / f"{name}.json").read_text())
    return sorted(
        ((None if p["face_down"] else p["color"], p["top"], p["face_down"]) for p in piles),
        key=lambda t: (t[0] or "", t[1], t[2]),
    )


def read_of(payload: dict) -> list[tuple[str | None, int, bool]]:
    return sorted(
        ((p["color"], p["top"], p["down"]) for p in payload["piles"]),
        key=lambda t: (t[0] or "", t[1] or 0, t[2]),
    )


# ---- grouping cards into piles (no model) ----


def quad(cx: float, cy: float) -> list[list[float]]:
    return [[cx - 28, cy - 43], [cx + 28, cy - 43], [cx + 28, cy + 43], [cx - 28, cy + 43]]


def count_of(cards: list[tuple[int, str | None, int, float]], centres: list[tuple[float, float]]):
    n = len(cards)
    c = Cards(
        np.array([quad(*xy) for xy in centres], np.float32),
        np.array([side for side, *_ in cards], np.int8),
        np.full(n, 0.95, np.float32),
        deck=np.array(["pump" if side == BACK else None for side, *_ in cards], dtype=object),
        color=np.array([color for _, color, *_ in cards], dtype=object),
        value=np.array([v for _, _, v, _ in cards], np.int16),
    )
    conf = np.array([q for *_, q in cards], np.float32)
    return Count("t.jpg", (640, 480), c, ("pump",), {"name": "m"}, value_confidence=conf)


def test_cards_peeking_out_of_one_pile_are_one_pile_topped_by_the_highest():
    count = count_of(
        [(FACE, "red", 6, 0.99), (FACE, "red", 5, 0.97), (FACE, "blue", 3, 0.99)],
        [(100, 100), (104, 103), (300, 100)],
    )
    piles = read_piles(count)
    assert [(p.color, p.top, p.down) for p in piles.piles] == [
        ("red", 6, False),
        ("blue", 3, False),
    ]
    assert piles.total == 9 and piles.complete and piles.uncertain == []


def test_backs_lying_together_are_one_finished_pile_of_ten():
    count = count_of([(BACK, None, -1, 0.0), (BACK, None, -1, 0.0)], [(100, 100), (103, 98)])
    piles = read_piles(count)
    assert [(p.color, p.top, p.down) for p in piles.piles] == [(None, 10, True)]
    assert piles.tops() == ["down"]


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


def test_a_top_not_read_is_flagged_never_guessed():
    count = count_of(
        [(FACE, "red", -1, 0.0), (FACE, "red", 4, 0.99), (FACE, "green", 2, 0.99)],
        [(100, 100), (103, 100), (300, 100)],
    )
    piles = read_piles(count)
    assert [(p.color, p.top, p.uncertain) for p in piles.piles] == [
        ("red", None, True),
        ("green", 2, False),
    ]
    assert piles.uncertain == [1] and not piles.complete
    assert piles.to_json()["piles"][0]["top"] is None


def test_small_unread_tops_bring_a_tip_to_photograph_closer():
    from commands.piles import pile_lines

    count = count_of(
        [(FACE, "red", -1, 0.0), (FACE, "green", -1, 0.0), (FACE, "blue", 2, 0.99)],
        [(100, 100), (300, 100), (500, 100)],
    )
    corners = count.cards.corners
    corners[1] = (corners[1] - corners[1].mean(axis=0)) * 0.6 + corners[1].mean(axis=0)
    piles = read_piles(count)
    assert [round(p.long_side_px) for p in piles.piles] == [86, 52, 86]
    assert piles.uncertain == [1, 2] and piles.small_unread == [2]
    lines = pile_lines(piles)
    assert lines[-2].startswith("total: 2 Dutch cards on 3 piles (not complete: look at #1, #2")
    assert lines[-1].startswith("tip: the top of #2 lies under 65 px long in the photo")
    # a small top that was read needs no tip, nor does a large one left unread
    corners[2] = (corners[2] - corners[2].mean(axis=0)) * 0.6 + corners[2].mean(axis=0)
    corners[1] = corners[0] + [200, 0]
    assert read_piles(count).small_unread == []
    assert not pile_lines(read_piles(count))[-1].startswith("tip:")


def test_two_piles_of_one_colour_side_by_side_stay_two():
    count = count_of([(FACE, "red", 3, 0.99), (FACE, "red", 8, 0.99)], [(100, 100), (160, 100)])
    assert [p.top for p in read_piles(count).piles] == [3, 8]


def test_a_read_top_whose_colour_or_deck_is_in_doubt_still_counts_but_a_doubtful_card_not():
    # pile 1: red 6, its colour named at 0.6 (the number read at 0.99): read, as red;
    # pile 2: green 4 found at 0.5 (the detector unsure it is a card): flagged;
    # pile 3: a back named pump at 0.6: a finished pile whichever deck it is, read;
    # pile 4: a back named no deck (a sheet of paper, a face taken for a back): flagged
    count = count_of(
        [(FACE, "red", 6, 0.99), (FACE, "green", 4, 0.99), (BACK, None, -1, 0.0)]
        + [(BACK, None, -1, 0.0)],
        [(100, 100), (300, 100), (500, 100), (700, 100)],
    )
    count.cards.deck_confidence[:] = [0.6, 1.0, 0.6, 0.3]
    count.cards.deck[3] = None
    count.cards.confidence[1] = 0.5
    piles = read_piles(count)
    assert [(p.color, p.top, p.uncertain) for p in piles.piles] == [
        ("red", 6, False),
        ("green", None, True),
        (None, 10, False),
        (None, 10, True),
    ]
    assert piles.uncertain == [2, 4] and not piles.complete


# ---- the committed photos, end to end ----


def check_against_truth(payload: dict, name: str) -> None:
    """Every pile found once; each top given is right; each one not read is flagged."""
    truth = truth_of(name)
    assert len(payload["piles"]) == len(truth)
    given = [p for p in payload["piles"] if p["id"] not in payload["uncertain"]]
    for p in payload["piles"]:
        if p["id"] in payload["uncertain"]:
            assert p["top"] is None or p["confidence"] < 0.8
    for p in given:
        assert (p["color"], p["top"], p["down"]) in truth
    assert payload["total"] == sum(p["top"] or 0 for p in payload["piles"])
    assert payload["complete"] == (payload["uncertain"] == [])


@pytest.mark.parametrize("name", ["mixed", "down", "covered", "round"])
def test_piles_photo_tops_are_right_or_flagged(tallero, name):
    r = tallero("piles", str(DATA / f"{name}.jpg"), "--json")
    assert r.code == 0, r.err
    check_against_truth(r.json(), name)


def test_face_down_piles_and_a_clear_top_are_read_whole(tallero):
    payload = tallero("piles", str(DATA / "down.jpg"), "--json").json()
    assert read_of(payload) == truth_of("down")
    assert payload["total"] == 26 and payload["complete"] is True


def test_a_half_covered_top_is_never_read_wrong(tallero):
    payload = tallero("piles", str(DATA / "covered.jpg"), "--json").json()
    red = [p for p in payload["piles"] if p["color"] == "red"]
    assert len(red) == 1
    assert red[0]["top"] == 7 or (red[0]["id"] in payload["uncertain"] and red[0]["top"] is None)


def test_piles_table_and_annotation(tallero, tmp_path):
    out = tmp_path / "piles.png"
    r = tallero("piles", str(DATA / "down.jpg"), "--annotate", str(out))
    assert r.code == 0, r.err
    assert r.out.count("face down (10)") == 2
    assert "total: 26 Dutch cards on 3 piles" in r.out
    assert out.is_file() and out.stat().st_size > 10_000


def test_a_photo_with_no_piles_is_a_clear_error(tallero):
    r = tallero("piles", str(DATA / "empty.jpg"))
    assert r.code == 1
    assert r.err.strip().startswith("tallero: error: ") and "no Dutch piles found" in r.err


def test_count_json_gives_the_numbers_of_faces_or_lists_them_unread(tallero):
    r = tallero("count", str(DATA / "mixed.jpg"), "--json")
    assert r.code == 0, r.err
    payload = r.json()
    truth = {(c, t) for c, t, _ in truth_of("mixed")}
    faces = [c for c in payload["cards"] if c["side"] == "face"]
    assert len(faces) == 4
    read = [c for c in faces if c["value"] is not None]
    assert {(c["color"], c["value"]) for c in read} <= truth
    assert ("red", 10) in {(c["color"], c["value"]) for c in read}
    assert sorted(payload["unread"]) == sorted(c["id"] for c in faces if c["value"] is None)


# ---- score --piles-photo ----

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples" / "synth-mini"
SEATS = {"Ann": "pump", "Ben": "carriage", "Cy": "plow", "Dee": "pail"}


def test_score_with_a_piles_photo_asks_for_the_unread_top_and_keeps_the_photo(
    tallero, home, tmp_path
):
    """``round.jpg``: a face-down pile, red 10 and blue 7, whose top the reader does not
    read for sure: nothing is settled, the pile is named, and the photo is kept."""
    assert tallero("game", "new", *(f"{p}={d}" for p, d in SEATS.items())).code == 0
    dutch = str(SAMPLES / "images" / "000000.jpg")
    blitz = str(SAMPLES / "images" / "000001.jpg")
    args = ["score", "--dutch", dutch, "--blitz", blitz, "--annotate", str(tmp_path)]
    r = tallero(*args, "--piles-photo", str(DATA / "round.jpg"), "--json")
    assert r.code == 0, r.err
    out = r.json()
    piles = out["photos"][-1]
    assert piles["role"] == "piles" and Path(piles["annotated"]).is_file()
    check_against_truth(piles, "round")
    if piles["complete"]:
        assert piles["total"] == 27
    else:
        ids = ", ".join(f"#{i}" for i in piles["uncertain"])
        assert f"the top of Dutch pile(s) {ids} in the piles photo was not read" in " ".join(
            out["problems"]
        )
        assert out["settled"] is None
    r = tallero(*args, "--piles-photo", str(DATA / "round.jpg"), "--accept", "--commit",
                "--reason", "checked")  # fmt: skip
    assert r.code == 0, r.err
    evidence = tallero("history", "1", "--json").json()["revisions"][0]["evidence"]
    assert [e["role"] for e in evidence] == ["dutch", "blitz", "piles"]
    import hashlib

    assert evidence[2]["sha256"] == hashlib.sha256((DATA / "round.jpg").read_bytes()).hexdigest()
    # The audit reads the piles photo again: the same models find the same total.
    audit = tallero("audit", "1", "--json")
    assert audit.code == 0, audit.err
    assert audit.json()["piles"]["photo"] == {
        "committed": piles["total"],
        "committed_complete": piles["complete"],
        "today": piles["total"],
        "today_complete": piles["complete"],
    }
    assert "Dutch piles photo: total" in tallero("audit", "1").out


def test_typed_piles_and_a_piles_photo_do_not_go_together(tallero):
    assert tallero("game", "new", "Ann=pump", "Ben=plow").code == 0
    r = tallero("score", "--dutch", str(SAMPLES / "images" / "000000.jpg"), "--piles", "10",
                "--piles-photo", str(DATA / "round.jpg"))  # fmt: skip
    assert r.code == 2 and "either typed (--piles) or as a photo" in r.err


def test_a_close_photo_of_five_piles_reads_every_top_exactly(tallero):
    """``clear.jpg``: yellow 3, blue 9, green 6, red 4 and a face-down pile, cards about
    210 px long: every top read, the total complete."""
    payload = tallero("piles", str(DATA / "clear.jpg"), "--json").json()
    assert read_of(payload) == truth_of("clear")
    assert payload["uncertain"] == [] and payload["complete"] is True
    assert payload["total"] == 3 + 9 + 6 + 4 + 10


def test_a_phone_photo_of_eighteen_piles_reads_every_top(tallero):
    """``phone.jpg``: a 1920 px photo of 18 piles of 8 decks, as a phone takes the middle
    (`dataset synth --kind piles --seed 3348 --decks 8 --imgsz 1920 --same-framing`, scene
    42): every top is read, the total complete. The colour of one of its tops is named
    unsurely; its number, read surely, still counts."""
    payload = tallero("piles", str(DATA / "phone.jpg"), "--json").json()
    assert payload["size"] == [1920, 1440]
    assert read_of(payload) == truth_of("phone")
    assert payload["uncertain"] == [] and payload["complete"] is True
    assert payload["total"] == sum(t[1] for t in truth_of("phone")) == 82


def test_a_top_found_longer_than_it_is_is_read_in_a_shortened_look(tallero):
    """``round.jpg``: the blue 7's box runs past the card (the pile peeks out under it), so
    its indices sit inwards in the crop; read shortened, every top is read and the total
    is the round's 27 Dutch cards."""
    payload = tallero("piles", str(DATA / "round.jpg"), "--json").json()
    assert read_of(payload) == truth_of("round")
    assert payload["uncertain"] == [] and payload["total"] == 27


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
