"""Count ranges: cards possibly not counted, decks a card could be, how far counts may be off."""

import json

import numpy as np
import pytest

from scoring.decks import deck_by_name
from scoring.game import GameSetup, Seat
from scoring.tally import Tally, photo_problems, round_from_tallies
from vision.core.cards import BACK, FACE, Cards
from vision.core.settings import VisionSettings
from vision.count.annotate import CountAnnotator, count_text
from vision.count.doubts import count_ranges, expected_counts
from vision.count.result import Count
from vision.count.tally import tally_of
from vision.detect.checker import possible_cards
from vision.evaluate.metrics import Evaluation
from vision.name.namer import alternatives


def quad(x: float, y: float, w: float = 40, h: float = 60) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def quads(*xs: float) -> np.ndarray:
    return np.asarray([quad(x, 0) for x in xs], np.float32).reshape(-1, 4, 2)


def test_possible_cards_keeps_the_band_away_from_counted_cards() -> None:
    corners = quads(0, 2, 100, 102, 200, 300)
    chance = np.array([0.3, 0.35, 0.2, 0.25, 0.05, 0.5])
    kept = quads(0)  # candidates 0 and 1 lie on a counted card
    got = possible_cards(corners, chance, kept, 0.1, 0.4, 0.5)
    # 100 and 102 are one place: the likelier (102) stands for both; 200 is under the
    # band, 300 above it (the check kept such ones).
    assert got.tolist() == [3]
    assert possible_cards(corners, chance, quads(), 0.1, 0.4, 0.5).tolist() == [1, 3]
    assert possible_cards(corners[:0], chance[:0], kept, 0.1, 0.4, 0.5).tolist() == []


def test_alternatives_leave_out_the_own_name_and_keep_the_likely() -> None:
    classes = ("pump", "plow", "pail", "other")
    p = np.array([[0.6, 0.3, 0.05, 0.05], [0.1, 0.15, 0.7, 0.05]])
    assert alternatives(p, classes, ("pump", "plow", "pail"), 0.2, ["pump", None]) == [
        ("plow",),
        ("pail",),
    ]
    assert alternatives(p, classes, ("pump", "plow", "pail"), 0.1) == [
        ("pump", "plow"),
        ("pail", "plow", "pump"),
    ]
    # Decks the classifier does not know are never suggested.
    assert alternatives(p, classes, ("pump", "red-plow"), 0.05) == [("pump",), ("pump",)]


def test_count_ranges() -> None:
    counts = {"pump": 3, "plow": 2, "pail": 0}
    named = ["pump", "pump", "pump", "plow", "plow", None]
    doubted = [False, True, False, True, False, True]
    could_be = [("plow",), ("plow",), (), (), ("pump",), ("pail", "plow")]
    ranges = count_ranges(counts, named, doubted, could_be, [("pail",), ()])
    # pump: #2 may not be one; plow: #4 may not be one, #2 and #6 may be; pail: #6 and
    # a possible card may be. Sure cards (#1, #5) move nothing.
    assert ranges == {"pump": (2, 3), "plow": (1, 4), "pail": (0, 2)}
    assert count_ranges(counts, [], [], [], []) == {d: (n, n) for d, n in counts.items()}


def test_expected_counts_move_by_what_each_doubt_is_unsure_of() -> None:
    counts = {"pump": 3, "plow": 2, "pail": 0}
    named = ["pump", "pump", "plow", None]
    doubted = [False, True, True, True]
    sure = [0.99, 0.6, 0.9, 0.7]
    could_be = [("plow",), ("plow", "pail"), (), ("pail",)]
    got = expected_counts(counts, named, doubted, sure, could_be, [("plow",), ()], [0.25, 0.2])
    # #2 (pump, 0.6 sure) gives 0.4 away, half to plow and half to pail; #3 (plow) loses its
    # 0.1 to no deck; #4 (no deck) is all pail's; the first possible card adds 0.25 to plow,
    # the second could be no deck of the game. The sure #1 moves nothing.
    assert got == pytest.approx({"pump": 2.6, "plow": 2.0 + 0.2 - 0.1 + 0.25, "pail": 1.2})
    assert expected_counts(counts, [], [], [], [], [], []) == {"pump": 3, "plow": 2, "pail": 0}


def count_with(
    decks: list,
    could_be: tuple,
    confidence: list,
    possible: Cards | None,
    other: list | None = None,
    other_game: float | None = None,
) -> Count:
    cards = Cards(quads(*(60 * k for k in range(len(decks)))), [BACK] * len(decks), confidence)
    cards.deck[:] = decks
    if other is not None:
        cards.other_probability[:] = other
    return Count(
        "x.jpg",
        (640, 480),
        cards,
        ("pump", "plow"),
        {"name": "t", "sha256": "0"},
        uncertain_other_probability=None,
        other_game_probability=other_game,
        could_be=could_be,
        possible=possible,
        possible_could_be=(("plow",),) if possible is not None else (),
    )


def test_count_ranges_travel_in_json_and_drawing() -> None:
    possible = Cards(quads(400), [BACK], [0.25])
    count = count_with(["pump", "pump", "plow"], (("plow",), (), ()), [0.5, 0.95, 0.9], possible)
    assert count.uncertain == [1]
    assert count.ranges == {"pump": (1, 2), "plow": (1, 3)}
    assert not count.sure
    doc = json.loads(json.dumps(count.to_json()))
    assert doc["ranges"] == {"pump": [1, 2], "plow": [1, 3]}
    assert doc["possible"] == [
        {
            "corners": [[400.0, 0.0], [440.0, 0.0], [440.0, 60.0], [400.0, 60.0]],
            "chance": 0.25,
            "decks": ["plow"],
        }
    ]
    scene = np.full((480, 640, 3), 128, np.uint8)
    drawn = CountAnnotator().annotate(scene, count)
    # The possible card's outline is drawn: black dashes on white.
    edge = drawn[0:3, 405:435].reshape(-1, 3)
    assert (edge.max(axis=1) > 200).any() and (edge.max(axis=1) < 60).any()
    assert count_text(2, (1, 2)) == "2 (1-2)" and count_text(2, (2, 2)) == "2"
    # Where within the ranges the counts most likely lie, and the tally that carries it.
    assert count.expected == pytest.approx({"pump": 1.5, "plow": 1.75})
    assert tally_of(count).expected == count.expected


def test_a_count_without_doubts_is_sure() -> None:
    count = count_with(["pump", "plow"], ((), ()), [0.95, 0.9], None)
    assert count.sure and count.ranges == {"pump": (1, 1), "plow": (1, 1)}
    assert count.to_json()["possible"] == []
    # A count made without working out alternatives gives its counts as ranges.
    bare = Count("x.jpg", (640, 480), count.cards, count.decks, count.model)
    assert bare.ranges == {"pump": (1, 1), "plow": (1, 1)}


def test_round_lists_ranges_and_possible_cards() -> None:
    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Ben", deck_by_name("plow"))))
    tally = Tally({"pump": 4, "plow": 2}, 0, (3,), {"pump": (3, 4), "plow": (2, 2)}, 1)
    problems = round_from_tallies(setup, tally, None).problems
    assert "Ann: 4 Dutch card(s) counted, could be 3 to 4 in the Dutch photo" in problems
    assert "1 possible card(s) not counted in the Dutch photo (marked +? on it)" in problems
    assert not any(p.startswith("Ben:") for p in problems)


def test_evaluation_scores_ranges() -> None:
    decks = ["pump", "plow"]
    truth_cards = [
        {"side": "back", "deck": "pump", "corners": quad(0, 0), "visible_fraction": 0.9},
        {"side": "back", "deck": "plow", "corners": quad(60, 0), "visible_fraction": 0.9},
        {"side": "back", "deck": "plow", "corners": quad(400, 0), "visible_fraction": 0.4},
    ]
    truth = {
        "image": "x.jpg",
        "kind": "sorted",
        "decks": decks,
        "cards": truth_cards,
        "counts": {"pump": 1, "plow": 2},
    }
    # pump counted right and sure; plow missed one card, which a possible card covers.
    count = count_with(["pump", "plow"], ((), ()), [0.95, 0.95], Cards(quads(402), [BACK], [0.3]))
    ev = Evaluation()
    ev.add(truth, count)
    d = ev.overall.as_dict()
    assert d["deck_exact"] == 0.5
    assert d["sure_share"] == 0.5 and d["sure_exact"] == 1.0
    assert d["wrong_counts_ranged"] == 1.0 and d["right_counts_ranged"] == 0.0
    assert d["range_covers"] == 1.0
    assert d["image_sure"] == 0.0 and d["image_sure_exact"] is None
    assert d["possible_per_image"] == 1.0 and d["possible_missed"] == 1.0


def test_face_is_no_back_in_ranges() -> None:
    cards = Cards(quads(0, 60), [BACK, FACE], [0.95, 0.5])
    cards.deck[:] = ["pump", None]
    count = Count(
        "x.jpg",
        (640, 480),
        cards,
        ("pump",),
        {"name": "t", "sha256": "0"},
        could_be=((), ("pump",)),
    )
    assert count.uncertain == [2]
    assert count.ranges == {"pump": (1, 1)}


@pytest.mark.parametrize(
    "name", ["possible_min_chance", "possible_max_iou", "alternative_min_probability"]
)
def test_settings_refuse_fractions_outside_0_1(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        VisionSettings(**{name: 1.5})
    VisionSettings(possible_min_chance=None)


def test_typed_pile_tops_settle_a_round_as_a_photo_of_them_does() -> None:
    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Ben", deck_by_name("plow"))))
    tally = Tally({"pump": 4, "plow": 2}, ranges={"pump": (3, 5), "plow": (2, 2)})
    # The tops agree with the counts, and no other count in Ann's range does: Ann's doubt
    # is answered.
    same = round_from_tallies(setup, tally, None, piles=[6])
    assert same.dutch == {"Ann": 4, "Ben": 2} and same.ranges["Dutch"] == {}
    assert same.problems == (
        "the Dutch piles' total 6 settled the Dutch counts as counted (the only counts within "
        "the ranges that reach it; counted: Ann 4, Ben 2): check that the typed tops give "
        "every Dutch pile, then accept",
    )
    # One card more on the piles: only Ann's range reaches it, so the round is settled.
    one = round_from_tallies(setup, tally, None, piles=[5, 2])
    assert one.dutch == {"Ann": 5, "Ben": 2}
    assert one.problems == (
        "the Dutch piles' total 7 settled the Dutch counts: Ann 4 -> 5 (counted before: Ann 4, "
        "Ben 2): check that the typed tops give every Dutch pile, then accept",
    )
    far = round_from_tallies(setup, tally, None, piles=["down"])
    assert far.problems[-1].startswith("no Dutch counts within the counts' ranges add up to")
    # A count corrected by hand has no range any more; nine piles are more than two make.
    fixed = round_from_tallies(setup, tally, None, fix_dutch={"Ann": 4}, piles=[1] * 9)
    assert fixed.ranges == {"Dutch": {}, "Blitz": {}}
    assert fixed.problems[-2].startswith("no Dutch counts within the counts' ranges")
    assert fixed.problems[-1] == "9 Dutch piles, but 2 players can make at most 8"
    assert round_from_tallies(setup, tally, None).ranges["Dutch"] == {"Ann": (3, 5)}


def test_a_back_surely_of_no_deck_is_another_games_card_and_asks_nothing() -> None:
    # #1 a pump; #2 a back named no deck whose picture is 0.95 likely of no deck (a card of
    # another game); #3 named no deck at 0.6 (could be a player's card, too little to tell)
    def count(bar: float | None) -> Count:
        could_be = ((), ("pump", "plow"), ("pump", "plow"))
        decks = ["pump", None, None]
        return count_with(decks, could_be, [0.95] * 3, None, [0.01, 0.95, 0.6], bar)

    asked, kept = count(None), count(0.9)
    cards = kept.cards
    assert (asked.other_game, asked.unknown, asked.uncertain) == ([], 2, [2, 3])
    assert asked.ranges == {"pump": (1, 3), "plow": (0, 2)}
    assert (kept.other_game, kept.unknown, kept.uncertain) == ([2], 1, [3])
    assert kept.ranges == {"pump": (1, 2), "plow": (0, 1)}
    assert kept.to_json()["other_game"] == [2] and kept.to_json()["unknown"] == 1
    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Bo", deck_by_name("plow"))))
    alone = count(0.9)
    alone.cards = cards[np.array([0, 1])]
    alone.could_be = ((), ("pump", "plow"))
    assert photo_problems(setup, "Blitz", tally_of(alone)) == []
    assert [line for line, _ in photo_problems(setup, "Blitz", tally_of(kept))] == [
        "1 back(s) in the Blitz photo match no deck of this game",
        "uncertain card(s) in the Blitz photo: #3",
        "Ann: 1 Blitz card(s) counted, could be 1 to 2 in the Blitz photo",
        "Bo: 0 Blitz card(s) counted, could be 0 to 1 in the Blitz photo",
    ]
    # drawn apart in grey dashes (below the legend)
    for c in (kept, asked):
        c.cards = cards[np.arange(3)]
        c.cards.corners += np.float32([0, 300])
    white = np.full((480, 640, 3), 255, np.uint8)
    edge = CountAnnotator().annotate(white, kept)[320:360, 60]
    assert (edge.max(axis=1) < 200).any() and (edge.min(axis=1) > 250).any()
    solid = CountAnnotator().annotate(white, asked)[320:360, 60]
    assert not (solid.min(axis=1) > 250).any()


def test_a_photo_where_no_card_is_surely_found_gives_no_sure_count() -> None:
    # One back found on a glare spot, named pump at 0.75: the photo shows nothing surely.
    glare = Cards(quads(0), [BACK], [1.0])
    glare.deck[:] = ["pump"]
    glare.deck_confidence[:] = [0.75]
    decks = ("pump", "plow")
    model = {"name": "t", "sha256": "0"}
    photo = Count("x.jpg", (640, 480), glare, decks, model, open_when_unsure=True)
    assert photo.nothing_sure and photo.uncertain == [1]
    assert photo.ranges == {"pump": (0, 40), "plow": (0, 40)}
    setup = GameSetup((Seat("Ann", deck_by_name("pump")), Seat("Bo", deck_by_name("plow"))))
    asks = [line for line, _ in photo_problems(setup, "Dutch", tally_of(photo))]
    assert asks[0] == (
        "no card surely found in the Dutch photo: if cards lie there, photograph them again "
        "(more light, held still, closer)"
    )
    assert "Bo: 0 Dutch card(s) counted, could be 0 to 40 in the Dutch photo" in asks
    # A live frame keeps its counts as they are.
    live = Count("x.jpg", (640, 480), glare, decks, model)
    assert live.ranges == {"pump": (1, 1), "plow": (0, 0)}
    # A face surely found, or a back surely named, is a card the camera saw well.
    face = Cards(quads(0, 60), [BACK, FACE], [1.0, 0.9])
    face.deck[:] = ["pump", None]
    face.deck_confidence[:] = [0.75, 0.3]
    seen = Count("x.jpg", (640, 480), face, decks, model, open_when_unsure=True)
    assert not seen.nothing_sure and seen.ranges == {"pump": (1, 1), "plow": (0, 0)}
    assert not tally_of(seen).nothing_sure
    named = Cards(quads(0, 60), [BACK, BACK], [1.0, 0.9])
    named.deck[:] = ["pump", "plow"]
    named.deck_confidence[:] = [0.75, 0.95]
    sure = Count("x.jpg", (640, 480), named, decks, model, open_when_unsure=True)
    assert not sure.nothing_sure and sure.counts == {"pump": 1, "plow": 1}


def test_count_says_to_photograph_again_when_no_card_is_surely_found(
    tallero, monkeypatch, tmp_path
) -> None:
    import cv2

    from vision.count.counter import Counter

    def glare_only(self: Counter, image: object, name: str | None = None, **_: object) -> Count:
        glare = Cards(quads(0), [BACK], [1.0])
        glare.deck[:] = ["pump"]
        glare.deck_confidence[:] = [0.75]
        return Count(name or "x", (640, 480), glare, ("pump",), {}, open_when_unsure=True)

    monkeypatch.setattr(Counter, "count", glare_only)
    photo = tmp_path / "dark.jpg"
    cv2.imwrite(str(photo), np.full((480, 640, 3), 30, np.uint8))
    r = tallero("count", str(photo), "--decks", "pump")
    assert r.code == 0, r.err
    assert r.out == (
        f"{photo}: pump 1 (0-40); unknown 0; faces 0; uncertain cards 1; no card surely found: "
        "if cards lie there, photograph them again (more light, held still, closer)\n"
    )
