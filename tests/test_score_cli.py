"""`tallero score`: a round from photos, its checks, and the evidence it keeps.

The bundled photos come with their truth (``datasets/samples/synth-mini/truth``): the
Dutch photo holds pump 6, carriage 2, plow 6 and pail 13 (27 cards) and 6 backs of no deck
of the game; the Blitz photo pump 3, plow 4 and pail 5. These tests hold Tallero to what
must be true of any good model on them: each player's true count lies within the range
it is given, a count that is off is flagged, and the problems listed are the photos' own.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from scoring.errors import NeedsForce

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples" / "synth-mini"
DUTCH = SAMPLES / "images" / "000000.jpg"
BLITZ = SAMPLES / "images" / "000001.jpg"
SEATS = {"Ann": "pump", "Ben": "carriage", "Cy": "plow", "Dee": "pail"}


def truth(image: Path) -> dict[str, int]:
    """The true number of backs of each deck in a bundled photo."""
    return json.loads((SAMPLES / "truth" / f"{image.stem}.json").read_text())["counts"]


DUTCH_TRUTH = {p: truth(DUTCH).get(d, 0) for p, d in SEATS.items()}
BLITZ_TRUTH = {p: truth(BLITZ).get(d, 0) for p, d in SEATS.items()}


@pytest.fixture
def game(tallero):
    r = tallero("game", "new", *(f"{p}={d}" for p, d in SEATS.items()))
    assert r.code == 0, r.err


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def evidence_files(home: Path) -> list[Path]:
    folder = home / "evidence"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_score_shows_the_round_and_writes_nothing_without_commit(tallero, game, tmp_path, home):
    r = tallero(
        "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--annotate", str(tmp_path), "--json"
    )
    assert r.code == 0, r.err
    out = r.json()
    assert out["committed"] is False and out["round"] is None
    assert out["decks"] == {d: p for p, d in SEATS.items()}
    assert [p["role"] for p in out["photos"]] == ["dutch", "blitz"]
    for photo in out["photos"]:
        assert Path(photo["annotated"]).is_file()
        assert set(photo["counts"]) == set(SEATS.values())
    # Points follow the counts of the photos, deck by deck.
    dutch, blitz = out["photos"][0]["counts"], out["photos"][1]["counts"]
    for player, deck in SEATS.items():
        c = out["players"][player]
        assert (c["dutch"], c["blitz"]) == (dutch[deck], blitz[deck])
        assert c["points"] == c["dutch"] - 2 * c["blitz"]
    assert tallero("sheet", "--json").json()["rounds"] == []
    assert evidence_files(home) == []
    for label, true_counts in (("dutch", DUTCH_TRUTH), ("blitz", BLITZ_TRUTH)):
        for player, n in true_counts.items():
            counted = out["players"][player][label]
            low, high = out["ranges"][label].get(player, [counted, counted])
            # The truth lies within the range; a count that is off is never given alone.
            assert low <= n <= high, (label, player, counted, low, high)
            assert counted == n or low < high, (label, player, counted)
    # The Dutch photo's backs of no deck of the game are named as such.
    assert any("in the Dutch photo match no deck of this game" in p for p in out["problems"])
    assert not [p for p in out["problems"] if "no player uses" in p or "impossible" in p]
    table = tallero("score", "--dutch", str(DUTCH), "--annotate", str(tmp_path)).out
    # Backs surely of another game are set apart, said beside the photo, and ask nothing.
    apart = out["photos"][0]["other_game"]
    assert apart and not set(apart) & set(out["photos"][0]["uncertain"])
    assert f"({len(apart)} card(s) of another game set apart, grey)" in table
    for player, (low, high) in out["ranges"]["dutch"].items():
        n = out["players"][player]["dutch"]
        assert f"{n} ({low}-{high})" in table
        assert f"{player}: {n} Dutch card(s) counted, could be {low} to {high}" in table


def test_flagged_cards_block_commit_until_accepted(tallero, game, home):
    # Backs of no deck of the game lie in the Dutch photo: the round needs a look.
    r = tallero("score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--commit")
    assert r.code == 1 and "not committed" in r.err and "--accept" in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert tallero("sheet", "--json").json()["rounds"] == []
    # A refused round keeps nothing: no photo copied into the evidence.
    assert evidence_files(home) == []

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
    assert "counted again by hand" in hist[0]["reason"]
    evidence = hist[0]["evidence"]
    assert [(e["role"], e["sha256"]) for e in evidence] == [
        ("dutch", sha(DUTCH)),
        ("blitz", sha(BLITZ)),
    ]
    for e in evidence:
        kept = Path(e["path"])
        assert kept.parent == home / "evidence" and sha(kept) == e["sha256"]
        assert e["model"] == r.json()["photos"][0]["model"]["name"]
        assert e["cards"] == len(r.json()["photos"][0 if e["role"] == "dutch" else 1]["cards"])
    assert evidence_files(home) == sorted(Path(e["path"]) for e in evidence)


def test_a_round_the_rules_refuse_copies_no_photo(tallero, game, home):
    # Every count corrected by hand so nothing is flagged, but nobody called Blitz.
    r = tallero(
        "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ),
        "--fix-dutch", "Ann=6,Ben=2,Cy=6,Dee=13", "--fix-blitz", "Ann=3,Ben=1,Cy=4,Dee=5",
        "--reason", "recounted", "--commit",
    )  # fmt: skip
    assert r.code == 1 and "--force" in r.err and "Blitz" in r.err
    assert evidence_files(home) == []
    assert tallero("sheet", "--json").json()["rounds"] == []


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


def test_cards_of_a_deck_no_player_uses_block_the_commit(tallero, home):
    # Only pump and carriage play; the Dutch photo also holds 6 plows and 13 pails. Counting
    # knows only the game's decks, so those backs come out as matching no deck of the game.
    assert tallero("game", "new", "Ann=pump", "Ben=carriage").code == 0
    r = tallero("score", "--dutch", str(DUTCH), "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert any("in the Dutch photo match no deck of this game" in p for p in out["problems"])
    for player, n in (("Ann", 6), ("Ben", 2)):
        counted = out["players"][player]["dutch"]
        low, high = out["ranges"]["dutch"].get(player, [counted, counted])
        assert low <= n <= high
    r = tallero("score", "--dutch", str(DUTCH), "--commit")
    assert r.code == 1 and "not committed" in r.err and "match no deck" in r.err
    assert evidence_files(home) == []


def test_a_tally_with_a_deck_no_player_uses_is_a_problem():
    from scoring.decks import deck_by_name
    from scoring.game import GameSetup, Seat
    from scoring.tally import Tally, round_from_tallies

    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Ben", deck_by_name("plow"))))
    result = round_from_tallies(setup, Tally({"pump": 5, "plow": 3, "pail": 2}), None)
    assert result.problems == ("2 card(s) of deck 'pail' in the Dutch photo, which no player uses",)
    assert result.dutch == {"Ann": 5, "Ben": 3}


def test_more_than_a_deck_of_cards_is_refused(home):
    from scoring.decks import deck_by_name
    from scoring.evidence import commit_photo_round
    from scoring.game import GameSetup, Seat
    from scoring.ledger import Ledger
    from scoring.rules import build_round
    from scoring.tally import Tally, round_from_tallies

    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Ben", deck_by_name("plow"))))
    result = round_from_tallies(setup, Tally({"pump": 41, "plow": 3}), Tally({"plow": 11}))
    assert "41 green pump cards in the Dutch photo: more than 40 is impossible" in result.problems
    assert "11 blue plow cards in the Blitz photo: more than 10 is impossible" in result.problems
    with Ledger.open(home) as ledger:
        game = ledger.new_game(setup, "big")
        with pytest.raises(NeedsForce, match="more than 40 is impossible"):
            commit_photo_round(
                ledger, home, game.id, build_round(("Ann", "Ben"), {"Ann": 30, "Ben": 3},
                {"Ann": 0, "Ben": 10}), result, [], accept=False, force=False, reason=None,
            )  # fmt: skip
        assert ledger.game(game.id).rounds == ()


def test_a_deck_the_model_does_not_know_is_a_clear_error(tallero, home):
    r = tallero("game", "new", "Ann=pump", "Ben=grandma", "--json")
    assert r.code == 1 and "unknown deck 'grandma'" in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert tallero("games", "--json").json()["games"] == []
    # A deck enrolled in a profile whose classifier counting does not use.
    profile = home / "profiles" / "family"
    profile.mkdir(parents=True)
    (profile / "profile.json").write_text(json.dumps({"decks": {"grandma": {"cards": []}}}))
    assert tallero("game", "new", "Ann=pump", "Ben=grandma", "--profile", "family").code == 0
    r = tallero("score", "--dutch", str(DUTCH))
    assert r.code == 2 and "the deck model does not know grandma" in r.err
    assert len(r.err.strip().splitlines()) == 1


def test_typed_dutch_piles_settle_the_photo_as_a_piles_photo_does(tallero, game):
    # The pile tops before the sort: 10 + 10 + 7 = 27, the Dutch photo's true total.
    r = tallero("score", "--dutch", str(DUTCH), "--piles", "10,10,7", "--json")
    assert r.code == 0, r.err
    out = r.json()
    total = [p for p in out["problems"] if "Dutch piles' total 27" in p]
    # The truth lies within the ranges, so the total is reached: settled, or ways to look at.
    assert len(total) == 1 and "no Dutch counts" not in total[0]
    if out["settled"]:
        assert sum(c["dutch"] for c in out["players"].values()) == 27
        assert total[0].endswith("check that the typed tops give every Dutch pile, then accept")
        assert out["fits"] == []
    else:  # the ways, to choose one with --fix-dutch
        assert len(out["fits"]) >= 2 and all(set(f) <= set(out["players"]) for f in out["fits"])
    # Tops that no count could reach are called out as such: 16 piles of 10 (the most four
    # players can make) lie past the highest the photo's ranges reach.
    r = tallero("score", "--dutch", str(DUTCH), "--piles", ",".join(["10"] * 16), "--json")
    assert any(
        p.startswith("no Dutch counts within the counts' ranges add up to the piles' total 160")
        for p in r.json()["problems"]
    )
    # The counts corrected to the truth agree with the piles: nothing is off.
    fixed = ",".join(f"{p}={n}" for p, n in DUTCH_TRUTH.items())
    r = tallero(
        "score", "--dutch", str(DUTCH), "--piles", "10,10,7", "--fix-dutch", fixed,
        "--reason", "counted by hand", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    assert {p: c["dutch"] for p, c in r.json()["players"].items()} == DUTCH_TRUTH
    assert not [p for p in r.json()["problems"] if "ways to reach" in p or "no Dutch" in p]


def test_each_way_to_the_piles_total_is_printed_ready_to_give(tallero, game):
    """Tops 10, 10, 6: several Dutch counts reach 26; each is printed as the --fix-dutch
    that chooses it, and giving one commits those counts."""
    r = tallero("score", "--dutch", str(DUTCH), "--piles", "10,10,6")
    assert r.code == 0, r.err
    ways = [ln for ln in r.out.splitlines() if ln.startswith("way ")]
    assert len(ways) >= 2 and ways[0].startswith("way 1 to the piles' total: --fix-dutch ")
    chosen = ways[-1].split("--fix-dutch ", 1)[1].split(" ")[0]
    # the way the counts shown are is marked: --accept takes it
    assert sum("(the counts shown: --accept takes them)" in w for w in ways) <= 1
    r = tallero(
        "score", "--dutch", str(DUTCH), "--piles", "10,10,6", "--fix-dutch", chosen,
        "--reason", "looked at the cards", "--commit", "--json",
    )  # fmt: skip
    assert r.code == 0, r.err
    players = r.json()["players"]
    way = {p: int(n) for p, n in (pair.split("=") for pair in chosen.split(","))}
    assert {p: players[p]["dutch"] for p in way} == way
    assert sum(c["dutch"] for c in players.values()) == 26


@pytest.mark.parametrize(("piles", "code", "says"), [("10,12", 1, "pile top"), (",", 2, "--piles")])
def test_bad_pile_tops_are_refused_before_counting(tallero, game, piles, code, says):
    r = tallero("score", "--dutch", str(DUTCH), "--piles", piles)
    assert r.code == code and says in r.err
    assert len(r.err.strip().splitlines()) == 1
