"""`tallero score`: a round from photos, its checks, and the evidence it keeps."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples" / "synth-mini" / "images"
DUTCH = SAMPLES / "000000.jpg"
BLITZ = SAMPLES / "000001.jpg"

pytestmark = pytest.mark.skipif(
    not (ROOT / "models" / "tallero-cards.onnx").is_file(), reason="no shipped card detector"
)


@pytest.fixture
def game(tallero):
    assert tallero("game", "new", "Ann=pump", "Ben=carriage", "Cy=plow", "Dee=pail").code == 0


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_score_shows_the_round_and_writes_nothing_without_commit(tallero, game, tmp_path):
    r = tallero(
        "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--annotate", str(tmp_path), "--json"
    )
    assert r.code == 0, r.err
    out = r.json()
    assert out["committed"] is False and out["round"] is None
    assert set(out["players"]) == {"Ann", "Ben", "Cy", "Dee"}
    assert out["decks"] == {"pump": "Ann", "carriage": "Ben", "plow": "Cy", "pail": "Dee"}
    assert [p["role"] for p in out["photos"]] == ["dutch", "blitz"]
    for photo in out["photos"]:
        assert Path(photo["annotated"]).is_file()
        assert set(photo["counts"]) == {"pump", "carriage", "plow", "pail"}
    # Points follow the counts of the photos, deck by deck.
    dutch, blitz = out["photos"][0]["counts"], out["photos"][1]["counts"]
    assert out["players"]["Ann"]["dutch"] == dutch["pump"]
    assert out["players"]["Dee"]["blitz"] == blitz["pail"]
    assert tallero("sheet", "--json").json()["rounds"] == []
    # The counts that could be off, per player (the bundled photos: the Dutch plow fan's
    # first card is a possible card, not counted (truth: 6 plows), and two Blitz cards are
    # uncertain).
    assert out["ranges"] == {"dutch": {"Cy": [5, 7]}, "blitz": {"Ann": [3, 4], "Dee": [4, 5]}}
    table = tallero("score", "--dutch", str(DUTCH), "--annotate", str(tmp_path)).out
    assert "5 (5-7)" in table and "could be 5 to 7" in table


def test_flagged_cards_block_commit_until_accepted(tallero, game, home):
    r = tallero("score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--commit")
    if r.code == 0:
        pytest.skip("nothing was flagged on these photos")
    assert r.code == 1 and "not committed" in r.err and "--accept" in r.err
    assert tallero("sheet", "--json").json()["rounds"] == []

    r = tallero(
        "score",
        "--dutch",
        str(DUTCH),
        "--blitz",
        str(BLITZ),
        "--commit",
        "--accept",
        "--reason",
        "counted again by hand: the camera was right",
        "--force",
        "--json",
    )
    assert r.code == 0, r.err
    assert r.json()["committed"] and r.json()["round"] == 1
    hist = tallero("history", "1", "--json").json()["revisions"]
    assert len(hist) == 1 and "accepted:" in hist[0]["reason"]
    evidence = hist[0]["evidence"]
    assert [(e["role"], e["sha256"]) for e in evidence] == [
        ("dutch", sha(DUTCH)),
        ("blitz", sha(BLITZ)),
    ]
    for e in evidence:
        kept = Path(e["path"])
        assert kept.parent == home / "evidence" and sha(kept) == e["sha256"]
        assert e["model"] and e["cards"] > 0


def test_hand_corrections_need_a_reason_and_are_kept(tallero, game):
    r = tallero("score", "--dutch", str(DUTCH), "--fix-dutch", "Ann=6")
    assert r.code == 2 and "--reason" in r.err
    r = tallero(
        "score",
        "--dutch",
        str(DUTCH),
        "--blitz",
        str(BLITZ),
        "--fix-dutch",
        "Ann=6,Ben=2,Cy=6,Dee=13",
        "--fix-blitz",
        "Ann=3,Ben=0,Cy=4,Dee=5",
        "--reason",
        "recounted by hand",
        "--commit",
        "--force",
        "--json",
    )
    assert r.code == 0, r.err
    assert r.json()["players"]["Dee"] == {"dutch": 13, "blitz": 5, "points": 3}
    reason = tallero("history", "1", "--json").json()["revisions"][0]["reason"]
    assert "corrected by hand: Dee Dutch" in reason and "recounted by hand" in reason


def test_a_deck_the_model_does_not_know_is_a_clear_error(tallero):
    tallero("game", "new", "Ann=pump", "Ben=grandma", "--json")  # refused: unknown deck
    assert tallero("games", "--json").json()["games"] == []


def test_the_dutch_piles_are_checked_against_the_photo(tallero, game):
    # The bundled Dutch photo is counted pump 6, carriage 2, plow 5 (a range of 5-7), pail
    # 13 = 26; it holds 27 cards (6 plows): the pile tops catch the missed one.
    r = tallero("score", "--dutch", str(DUTCH), "--piles", "10,10,6", "--json")
    assert r.code == 0, r.err
    assert not [p for p in r.json()["problems"] if "piles" in p or "ranges" in p]
    r = tallero("score", "--dutch", str(DUTCH), "--piles", "10,10,7", "--json")
    problems = r.json()["problems"]
    assert "the Dutch piles hold 27 cards but the players' Dutch counts add up to 26 (-1)" in (
        problems
    )
    assert "the counts' ranges reach 26 to 28: look at Cy (5-7) first" in problems
    # A hand correction that makes the total agree settles the check.
    r = tallero(
        "score", "--dutch", str(DUTCH), "--piles", "10,10,7", "--fix-dutch", "Cy=6",
        "--reason", "the plow fan's first card was missed", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert not [p for p in r.json()["problems"] if "piles" in p]


@pytest.mark.parametrize(("piles", "code", "says"), [("10,12", 1, "pile top"), (",", 2, "--piles")])
def test_bad_pile_tops_are_refused_before_counting(tallero, game, piles, code, says):
    r = tallero("score", "--dutch", str(DUTCH), "--piles", piles)
    assert r.code == code and says in r.err
    assert len(r.err.strip().splitlines()) == 1
