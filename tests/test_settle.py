"""The Dutch piles' total settles the Dutch counts: one fit settles, several ask, none says so."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.decks import deck_by_name
from scoring.errors import NeedsForce
from scoring.game import GameSetup, Seat
from scoring.settle import MAX_LISTED, nearest_fit, settle_dutch
from scoring.tally import Tally, round_from_tallies

SETUP = GameSetup(
    (
        Seat("Ann", deck_by_name("pump")),
        Seat("Ben", deck_by_name("carriage")),
        Seat("Cy", deck_by_name("plow")),
    )
)


def test_one_combination_within_the_ranges_settles_the_counts():
    s = settle_dutch(27, {"Ann": 12, "Ben": 9, "Cy": 5}, {"Cy": (5, 7)})
    assert s.settled == {"Ann": 12, "Ben": 9, "Cy": 6}
    assert s.changed == {"Cy": (5, 6)}
    assert s.note() == (
        "the Dutch piles' total 27 settled the Dutch counts: Cy 5 -> 6 "
        "(counted before: Ann 12, Ben 9, Cy 5)"
    )


def test_two_combinations_ask_and_name_the_players():
    s = settle_dutch(27, {"Ann": 12, "Ben": 9, "Cy": 5}, {"Ben": (9, 10), "Cy": (5, 6)})
    assert s.settled is None
    assert s.fits == ({"Ann": 12, "Ben": 9, "Cy": 6}, {"Ann": 12, "Ben": 10, "Cy": 5})
    assert s.players_to_look == ("Ben", "Cy")
    assert s.note() == (
        "2 ways to reach the Dutch piles' total 27: Ben 9, Cy 6; Ben 10, Cy 5; look at Ben, Cy"
    )


def test_no_combination_says_so():
    s = settle_dutch(40, {"Ann": 12, "Ben": 9, "Cy": 5}, {"Cy": (5, 7)})
    assert s.fits == ()
    assert s.settled is None
    assert s.note().startswith("no Dutch counts within the counts' ranges add up to the piles'")
    assert s.note().endswith("(the ranges reach 26 to 28)")


def test_many_fits_are_listed_up_to_a_bound():
    s = settle_dutch(
        30, {"Ann": 10, "Ben": 10, "Cy": 10}, {p: (5, 15) for p in "Ann Ben Cy".split()}
    )
    assert len(s.fits) == MAX_LISTED + 1 and s.more
    assert s.fits[0] == {"Ann": 10, "Ben": 10, "Cy": 10}  # the counts as seen come first
    assert s.note().startswith(f"more than {MAX_LISTED} ways to reach")


@settings(max_examples=60, deadline=None)
@given(
    counts=st.lists(st.integers(0, 12), min_size=2, max_size=5),
    widen=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=5, max_size=5),
    total=st.integers(0, 60),
)
def test_every_fit_lies_in_the_ranges_and_reaches_the_total(counts, widen, total):
    dutch = {f"P{i}": n for i, n in enumerate(counts)}
    ranges = {
        p: (max(0, n - widen[i][0]), n + widen[i][1]) for i, (p, n) in enumerate(dutch.items())
    }
    s = settle_dutch(total, dutch, ranges)
    for fit in s.fits:
        assert sum(fit.values()) == total
        assert all(ranges[p][0] <= n <= ranges[p][1] for p, n in fit.items())
    # brute force agrees on how many fit (when few)
    import itertools

    spans = [range(ranges[p][0], ranges[p][1] + 1) for p in dutch]
    n_fits = sum(1 for combo in itertools.product(*spans) if sum(combo) == total)
    assert len(s.fits) == min(n_fits, MAX_LISTED + 1)
    assert (s.settled is not None) == (n_fits == 1)


def test_a_round_the_total_settles():
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5}, uncertain=(4,), ranges={"plow": (5, 7)})
    before = round_from_tallies(SETUP, dutch, Tally({"pump": 0, "carriage": 3, "plow": 2}))
    assert before.problems == (
        "uncertain card(s) in the Dutch photo: #4",
        "Cy: 5 Dutch card(s) counted, could be 5 to 7 in the Dutch photo",
    )
    settled = round_from_tallies(
        SETUP, dutch, Tally({"pump": 0, "carriage": 3, "plow": 2}), pile_total=27
    )
    assert settled.dutch == {"Ann": 12, "Ben": 9, "Cy": 6}
    # One question instead of the photo's doubts: does the piles photo show every pile?
    assert settled.problems == (
        "the Dutch piles' total 27 settled the Dutch counts: Cy 5 -> 6 (counted before: Ann 12, "
        "Ben 9, Cy 5): check that the piles photo shows every Dutch pile, then accept",
    )
    assert settled.ranges["Dutch"] == {}
    assert settled.settled is not None and "Cy 5 -> 6" in settled.settled


def test_a_round_two_combinations_fit_asks():
    dutch = Tally(
        {"pump": 12, "carriage": 9, "plow": 5}, ranges={"carriage": (9, 10), "plow": (5, 6)}
    )
    result = round_from_tallies(SETUP, dutch, None, pile_total=27)
    assert result.dutch == {"Ann": 12, "Ben": 9, "Cy": 5}
    assert result.settled is None
    assert result.problems[-1].startswith("2 ways to reach the Dutch piles' total 27")
    assert "look at Ben, Cy" in result.problems[-1]
    # offered to choose from, as the counts of the players to look at
    assert result.fits == ({"Ben": 9, "Cy": 6}, {"Ben": 10, "Cy": 5})
    chosen = round_from_tallies(SETUP, dutch, None, fix_dutch=result.fits[1], pile_total=27)
    assert chosen.dutch == {"Ann": 12, "Ben": 10, "Cy": 5} and chosen.fits == ()
    assert chosen.corrections == ("Ben Dutch 9 -> 10", "Cy Dutch 5 -> 5")


def test_only_several_fits_are_offered_to_choose_from():
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5}, ranges={"plow": (5, 7)})
    assert round_from_tallies(SETUP, dutch, None, pile_total=27).fits == ()  # one: settled
    assert round_from_tallies(SETUP, dutch, None, pile_total=40).fits == ()  # none
    many = Tally(
        {"pump": 10, "carriage": 10, "plow": 10},
        ranges={d: (5, 15) for d in ("pump", "carriage", "plow")},
    )
    fits = round_from_tallies(SETUP, many, None, pile_total=30).fits
    assert len(fits) == MAX_LISTED  # of more than that, the first listed
    for fit in fits:  # each one chosen reaches the total
        chosen = round_from_tallies(SETUP, many, None, fix_dutch=fit, pile_total=30)
        assert sum(chosen.dutch.values()) == 30


def test_several_fits_show_the_one_the_doubts_make_likeliest():
    # Counted 26 for a total of 27: Ben's or Cy's count is one short. The Dutch photo's
    # doubts lean Cy's way (5.8) more than Ben's (9.1); the round still asks.
    dutch = Tally(
        {"pump": 12, "carriage": 9, "plow": 5},
        ranges={"carriage": (9, 10), "plow": (5, 6)},
        expected={"pump": 12.0, "carriage": 9.1, "plow": 5.8},
    )
    result = round_from_tallies(SETUP, dutch, None, pile_total=27)
    assert result.dutch == {"Ann": 12, "Ben": 9, "Cy": 6}
    assert result.settled is None
    assert result.ranges["Dutch"] == {"Ben": (9, 10), "Cy": (5, 6)}
    assert result.shown_way() == 0  # the way accepting takes: Ben 9, Cy 6
    assert result.problems[-1] == (
        "2 ways to reach the Dutch piles' total 27: Ben 9, Cy 6; Ben 10, Cy 5; shown: Ben 9, "
        "Cy 6, the likeliest by the photo's doubts (counted: Ben 9, Cy 5); look at Ben, Cy"
    )
    # Counts that reach the total stay as counted, wherever the doubts lean.
    reached = round_from_tallies(SETUP, dutch, None, pile_total=26)
    assert reached.dutch == {"Ann": 12, "Ben": 9, "Cy": 5}
    assert "shown:" not in reached.problems[-1]
    assert reached.fits == () and reached.shown_way() is None  # one fit: nothing to choose
    # Two fits as near: nothing is chosen.
    even = Tally(dutch.counts, ranges=dutch.ranges, expected={"carriage": 9.5, "plow": 5.5})
    assert round_from_tallies(SETUP, even, None, pile_total=27).dutch["Cy"] == 5


@settings(max_examples=60, deadline=None)
@given(
    spans=st.lists(st.tuples(st.integers(0, 8), st.integers(0, 3)), min_size=1, max_size=4),
    lean=st.lists(st.floats(-2, 2), min_size=4, max_size=4),
    total=st.integers(0, 30),
)
def test_the_nearest_fit_is_the_brute_force_one(spans, lean, total):
    import itertools

    span = {f"P{i}": (lo, lo + w) for i, (lo, w) in enumerate(spans)}
    expected = {p: lo + lean[i] for i, (p, (lo, _)) in enumerate(span.items())}
    costs = sorted(
        (sum((n - expected[p]) ** 2 for p, n in zip(span, combo, strict=True)), combo)
        for combo in itertools.product(*(range(lo, hi + 1) for lo, hi in span.values()))
        if sum(combo) == total
    )
    got = nearest_fit(total, span, expected)
    if not costs or (len(costs) > 1 and costs[1][0] - costs[0][0] < 1e-9):
        assert got is None
    else:
        assert got == dict(zip(span, costs[0][1], strict=True))


def test_a_blitz_range_reaches_no_further_than_a_blitz_pile():
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5})
    # A Blitz pile holds 10 cards: Ben's 10 (10-13) is 10, Cy's 8 (7-12) could be 7 to 10.
    blitz = Tally(
        {"pump": 0, "carriage": 10, "plow": 8}, ranges={"carriage": (10, 13), "plow": (7, 12)}
    )
    result = round_from_tallies(SETUP, dutch, blitz)
    assert result.problems == ("Cy: 8 Blitz card(s) counted, could be 7 to 10 in the Blitz photo",)
    assert result.ranges["Blitz"] == {"Cy": (7, 10)}


def test_the_likeliest_fit_is_listed_first_even_past_the_listed_ones():
    dutch = {"Ann": 10, "Ben": 10, "Cy": 10}
    ranges = {p: (5, 15) for p in dutch}
    s = settle_dutch(31, dutch, ranges, {"Ann": 14.9, "Ben": 10.0, "Cy": 10.0})
    # The walk lists fits near the counts as seen (Ann 10 in all of them) and stops at
    # MAX_LISTED + 1; the nearest to the expected counts lies beyond and takes the first place.
    assert s.fits[0] == s.shown == {"Ann": 13, "Ben": 9, "Cy": 9}
    assert len(s.fits) == MAX_LISTED + 1 and s.more and s.settled is None
    assert all(f["Ann"] == 10 for f in s.fits[1:])
    assert s.players_to_look == ("Ann", "Ben", "Cy")
    assert "; shown: Ann 13, Ben 9, Cy 9, the likeliest" in s.note()


def test_the_one_blitz_count_that_can_be_0_is_the_caller():
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5})
    # Nobody counted 0 Blitz cards; only Cy's count (1, could be 0 to 1) can be 0.
    blitz = Tally({"pump": 2, "carriage": 3, "plow": 1}, ranges={"plow": (0, 1), "pump": (2, 4)})
    result = round_from_tallies(SETUP, dutch, blitz)
    assert result.blitz == {"Ann": 2, "Ben": 3, "Cy": 0}
    assert result.problems[-1] == (
        "nobody's Blitz count is 0, yet whoever called Blitz has no card left: Cy is the only "
        "one whose range reaches 0, so shown with 0 (counted 1); check the Blitz photo"
    )
    # Two who could have called Blitz, a count of 0 already, or Cy's count fixed by hand:
    # nothing is chosen.
    both = Tally(blitz.counts, ranges={"plow": (0, 1), "pump": (0, 2)})
    assert round_from_tallies(SETUP, dutch, both).blitz["Cy"] == 1
    zero = Tally({"pump": 0, "carriage": 3, "plow": 1}, ranges={"plow": (0, 1)})
    assert round_from_tallies(SETUP, dutch, zero).blitz["Cy"] == 1
    fixed = round_from_tallies(SETUP, dutch, blitz, fix_blitz={"Cy": 1})
    assert fixed.blitz["Cy"] == 1 and not any("called Blitz" in p for p in fixed.problems)


def test_a_spread_heap_is_still_asked_when_the_total_settles():
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5}, ranges={"plow": (5, 7)}, spread=1)
    result = round_from_tallies(SETUP, dutch, None, pile_total=27)
    assert result.dutch["Cy"] == 6
    assert len(result.problems) == 2 and "too tight to count" in result.problems[0]
    assert result.problems[1].endswith("shows every Dutch pile, then accept")


def test_unread_piles_settle_nothing():
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5}, ranges={"plow": (5, 7)})
    result = round_from_tallies(SETUP, dutch, None, pile_total=27, unread_piles=(3,))
    assert result.dutch["Cy"] == 5 and result.settled is None
    assert result.problems[-1] == (
        "the top of Dutch pile(s) #3 in the piles photo was not read: look at them "
        "and give their tops"
    )


@pytest.mark.parametrize("total", [26, 27])
def test_counts_that_match_without_doubt_are_left_alone(total):
    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5})
    result = round_from_tallies(SETUP, dutch, None, pile_total=total)
    assert result.dutch == {"Ann": 12, "Ben": 9, "Cy": 5}
    assert result.settled is None
    if total == 26:
        assert result.problems == ()
    else:
        assert result.problems[0].startswith("no Dutch counts within the counts' ranges")


def test_the_settling_note_is_kept_with_the_committed_round(home):
    from scoring.evidence import commit_photo_round
    from scoring.ledger import Ledger
    from scoring.rules import build_round

    dutch = Tally({"pump": 12, "carriage": 9, "plow": 5}, ranges={"plow": (5, 7)})
    blitz = Tally({"pump": 0, "carriage": 3, "plow": 2})
    result = round_from_tallies(SETUP, dutch, blitz, pile_total=27)
    assert len(result.problems) == 1 and result.problems[0].endswith("then accept")
    counts = build_round(SETUP.players, result.dutch, result.blitz)
    with Ledger.open(home) as ledger:
        game = ledger.new_game(SETUP, "piles")
        with pytest.raises(NeedsForce, match="every Dutch pile"):
            commit_photo_round(
                ledger, home, game.id, counts, result, [], accept=False, force=False, reason=None
            )
        number = commit_photo_round(
            ledger, home, game.id, counts, result, [], accept=True, force=False, reason=None
        )
        revision = ledger.history(game.id, number)[0]
    settled = (
        "the Dutch piles' total 27 settled the Dutch counts: Cy 5 -> 6 "
        "(counted before: Ann 12, Ben 9, Cy 5)"
    )
    assert revision.reason is not None and revision.reason.startswith(settled)
    assert "accepted: " + settled + ": check that the piles photo" in revision.reason
    assert revision.counts is not None and revision.counts["Cy"].dutch == 6
