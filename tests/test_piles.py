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

import numpy as np
import pytest

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


def test_two_boxes_reading_one_top_that_overlap_much_ask_for_a_look():
    # a box over a red 4 and the card beside it reads the red 4's index too: 46 of 86 px
    # shared (53%), apart enough to be two piles; the less sure one is to look at
    count = count_of([(FACE, "red", 4, 1.0), (FACE, "green", 4, 0.9)], [(100, 100), (100, 140)])
    piles = read_piles(count)
    assert [(p.top, p.uncertain) for p in piles.piles] == [(4, False), (4, True)]
    assert not piles.complete and piles.uncertain == [2]
    # a fifth shared (16 of 86 px): two piles of 4, side by side
    count = count_of([(FACE, "red", 4, 1.0), (FACE, "red", 4, 0.9)], [(100, 100), (100, 170)])
    assert read_piles(count).complete and read_piles(count).total == 8
    # a pile half covered by a neighbour with another top: both counted
    count = count_of([(FACE, "red", 4, 1.0), (FACE, "blue", 7, 0.99)], [(100, 100), (100, 140)])
    assert read_piles(count).complete and read_piles(count).total == 11


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


def test_an_unsure_box_reading_no_more_than_its_sure_top_does_not_hold_the_pile_back():
    # pile 1: yellow 5 found surely and a second, smaller box on it found at 0.34 also
    # reading 5 (a pile holds one 5): read; pile 2: red 7 under a sure red 8: read;
    # pile 3: blue 6 with an unsure box beside it left unread (it could be a 7): flagged;
    # pile 4: green 3 with an unsure box reading 4: that box is its top, and it is unsure
    count = count_of(
        [(FACE, "yellow", 5, 0.99), (FACE, "yellow", 5, 0.99), (FACE, "red", 8, 0.99)]
        + [(FACE, "red", 7, 0.99), (FACE, "blue", 6, 0.99), (FACE, "blue", -1, 0.0)]
        + [(FACE, "green", 3, 0.99), (FACE, "green", 4, 0.99)],
        [(100, 100), (103, 104), (300, 100), (296, 108), (500, 100), (505, 96)]
        + [(700, 100), (704, 103)],
    )
    count.cards.confidence[[1, 3, 5, 7]] = 0.34
    piles = read_piles(count)
    assert [(p.color, p.top, p.uncertain) for p in piles.piles] == [
        ("yellow", 5, False),
        ("red", 8, False),
        ("blue", None, True),
        ("green", None, True),
    ]
    assert piles.uncertain == [3, 4] and piles.total == 13


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
        "committed_median": False,  # one photo: no median picture
        "today_median": False,
        "given": [],
    }
    assert "Dutch piles photo: total" in tallero("audit", "1").out


def test_a_top_given_by_hand_completes_the_piles_photo_and_is_kept(tallero, home, tmp_path):
    """``under-phone.jpg``: pile #11, a yellow 1 half under a phone, is a place to look at:
    its top given by hand (`--fix-piles`) makes the total complete; the round lists the
    correction, and the evidence and the audit keep what the photo read and what was
    given."""
    assert tallero("game", "new", *(f"{p}={d}" for p, d in SEATS.items())).code == 0
    dutch = str(SAMPLES / "images" / "000000.jpg")
    args = ["score", "--dutch", dutch, "--annotate", str(tmp_path),
            "--piles-photo", str(DATA / "under-phone.jpg")]  # fmt: skip
    before = tallero(*args, "--json").json()
    assert before["photos"][-1]["uncertain"] == [11] and before["photos"][-1]["total"] == 44
    assert any("#11 in the piles photo was not read" in p for p in before["problems"])
    assert "(a pile's top: --fix-piles ID=TOP)" in tallero(*args).out.splitlines()[-1]
    r = tallero(*args, "--fix-piles", "11=1")
    assert r.code == 2 and r.err.strip().endswith('a hand correction needs --reason "..."')
    fixed = ["--fix-piles", "11=1", "--reason", "under the phone"]
    out = tallero(*args, *fixed, "--json").json()
    piles = out["photos"][-1]
    assert piles["complete"] is True and piles["total"] == 45 and piles["uncertain"] == []
    assert piles["given"] == [{"id": 11, "read": None, "top": 1}]
    assert (piles["piles"][10]["top"], piles["piles"][10]["confidence"]) == (1, 1.0)
    assert not any("was not read" in p for p in out["problems"])
    assert "Dutch pile #11 top ? -> 1" in out["corrections"]
    assert any("piles' total 45" in p for p in out["problems"])  # the total settles now
    r = tallero(*args, *fixed, "--accept", "--commit")
    assert r.code == 0, r.err
    assert "corrected by hand: Dutch pile #11 top ? -> 1" in r.out
    evidence = tallero("history", "1", "--json").json()["revisions"][0]["evidence"]
    assert evidence[-1]["role"] == "piles"
    # The audit reads the photo again with the top given then: the totals agree.
    audit = tallero("audit", "1", "--json").json()["piles"]["photo"]
    assert (audit["committed"], audit["today"], audit["today_complete"]) == (45, 45, True)
    assert audit["given"] == [{"id": 11, "read": None, "top": 1}]
    assert "pile #11: top 1 given by hand (not read)" in tallero("audit", "1").out
    assert tallero("audit", "1", "--html", str(tmp_path / "audit.html")).code == 0
    assert (
        "with the tops given by hand: pile #11 1 (not read)"
        in (tmp_path / "audit.html").read_text()
    )


@pytest.mark.parametrize(
    ("fix", "says"),
    [
        ("12=3", "the piles photo has 11 pile(s) (#1 to #11): #12 is none of them"),
        ("11=12", "pile top 12 is neither 1..10 nor 'down'"),
        ("11", "a pile's top: expected ID=TOP (e.g. 3=7 or 5=down), got '11'"),
        ("11=1,#11=2", "pile #11 is given twice"),
    ],
)
def test_a_bad_top_given_by_hand_is_one_clear_line(tallero, fix, says):
    assert tallero("game", "new", "Ann=pump", "Ben=plow").code == 0
    r = tallero("score", "--dutch", str(SAMPLES / "images" / "000000.jpg"), "--piles-photo",
                str(DATA / "under-phone.jpg"), "--fix-piles", fix, "--reason", "x")  # fmt: skip
    assert r.code != 0 and r.err.strip().splitlines() == [f"tallero: error: {says}"]


def test_tops_given_by_hand_need_the_piles_photo(tallero):
    assert tallero("game", "new", "Ann=pump", "Ben=plow").code == 0
    r = tallero("score", "--dutch", str(SAMPLES / "images" / "000000.jpg"), "--fix-piles",
                "1=3", "--reason", "x")  # fmt: skip
    assert r.code == 2 and "add --piles-photo" in r.err


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
