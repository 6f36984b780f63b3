"""Rule edge cases for one round, the decks and the Dutch-pile cross-check."""

from __future__ import annotations

import pytest

from scoring.crosscheck import check_dutch_piles, pile_size
from scoring.decks import DECK_IDS, deck_by_name
from scoring.errors import RuleError, UsageError
from scoring.game import GameSetup, Seat, TiePolicy
from scoring.parse import parse_counts
from scoring.rules import PlayerCount, build_round, round_warnings

PLAYERS = ("Ann", "Ben", "Cy")


@pytest.mark.parametrize(
    ("dutch", "blitz", "points"),
    [(0, 0, 0), (12, 0, 12), (9, 3, 3), (0, 10, -20), (40, 0, 40), (30, 10, 10)],
)
def test_points_are_plus_one_per_dutch_and_minus_two_per_blitz(dutch, blitz, points):
    assert PlayerCount(dutch, blitz).points == points


@pytest.mark.parametrize(
    ("dutch", "blitz", "message"),
    [
        (41, 0, "outside 0..40"),
        (-1, 0, "outside 0..40"),
        (0, 11, "outside 0..10"),
        (0, -1, "outside 0..10"),
        (31, 10, "more than the 40 cards"),
        (2.5, 0, "not a whole number"),
        ("3", 0, "not a whole number"),
        (True, 0, "not a whole number"),
    ],
)
def test_impossible_counts_are_hard_errors(dutch, blitz, message):
    with pytest.raises(RuleError, match=message):
        PlayerCount(dutch, blitz)


def test_round_needs_every_player_and_nobody_else():
    ok = build_round(PLAYERS, {"Ann": 1, "Ben": 2, "Cy": 3}, {"Ann": 0, "Ben": 1, "Cy": 2})
    assert ok.points == {"Ann": 1, "Ben": 0, "Cy": -1}
    with pytest.raises(RuleError, match="missing for Cy"):
        build_round(PLAYERS, {"Ann": 1, "Ben": 2}, {"Ann": 0, "Ben": 1, "Cy": 2})
    with pytest.raises(RuleError, match="unknown player 'Dee'"):
        build_round(PLAYERS, {"Ann": 1, "Ben": 2, "Cy": 3, "Dee": 1}, {"Ann": 0, "Ben": 1, "Cy": 2})


def test_warnings_nobody_called_blitz_and_nobody_played():
    no_blitz = build_round(PLAYERS, {"Ann": 5, "Ben": 2, "Cy": 3}, {"Ann": 1, "Ben": 1, "Cy": 2})
    assert round_warnings(no_blitz) == [
        "nobody has 0 Blitz cards left, but someone must have called Blitz"
    ]
    no_dutch = build_round(PLAYERS, {"Ann": 0, "Ben": 0, "Cy": 0}, {"Ann": 0, "Ben": 1, "Cy": 2})
    assert round_warnings(no_dutch) == ["every player has 0 Dutch cards"]
    fine = build_round(PLAYERS, {"Ann": 5, "Ben": 0, "Cy": 3}, {"Ann": 0, "Ben": 1, "Cy": 2})
    assert round_warnings(fine) == []


@pytest.mark.parametrize(
    ("name", "deck_id"),
    [
        ("pump", "pump"),
        ("green pump", "pump"),
        ("Buggy", "carriage"),
        ("wagon", "carriage"),
        ("bucket", "pail"),
        ("blue-pump", "blue-pump"),
        ("Blue Pump", "blue-pump"),
        ("red plow", "red-plow"),
        ("yellow buggy", "yellow-carriage"),
        ("green_pail", "green-pail"),
        ("blue plow", "plow"),
        ("red carriage", "carriage"),
    ],
)
def test_decks_by_id_display_name_and_nickname(name, deck_id):
    assert deck_by_name(name).id == deck_id


def test_eight_decks_with_readable_names():
    assert len(DECK_IDS) == 8
    assert deck_by_name("blue-pump").display == "blue pump"
    with pytest.raises(RuleError, match="unknown deck 'tractor'"):
        deck_by_name("tractor")


def seats(*pairs: str) -> tuple[Seat, ...]:
    return tuple(Seat(p.split("=")[0], deck_by_name(p.split("=")[1])) for p in pairs)


@pytest.mark.parametrize(
    ("pairs", "target", "message"),
    [
        (("Ann=pump",), 75, "2 to 8 players"),
        (tuple(f"P{i}={d}" for i, d in enumerate(DECK_IDS)) + ("Zed=pump",), 75, "2 to 8"),
        (("Ann=pump", "Ben=pump"), 75, "bound to two players"),
        (("Ann=pump", "ann=plow"), 75, "appears twice"),
        (("Ann=pump", "Ben=plow"), 0, "positive whole number"),
    ],
)
def test_bad_game_setups(pairs, target, message):
    with pytest.raises(RuleError, match=message):
        GameSetup(seats(*pairs), target=target)


def test_eight_players_with_the_expansion_is_a_game():
    setup = GameSetup(tuple(Seat(f"P{i}", deck_by_name(d)) for i, d in enumerate(DECK_IDS)))
    assert len(setup.players) == 8 and setup.tie is TiePolicy.PLAY_ON and setup.target == 75


def test_parse_counts():
    assert parse_counts(["Ann=12,Ben=9", "Cy=0"], "Dutch") == {"Ann": 12, "Ben": 9, "Cy": 0}
    with pytest.raises(RuleError, match="not a whole number"):
        parse_counts(["Ann=1.5"], "Dutch")
    with pytest.raises(UsageError, match="NAME=VALUE"):
        parse_counts(["Ann"], "Dutch")
    with pytest.raises(UsageError, match="given twice"):
        parse_counts(["Ann=1,ann=2"], "Dutch")


@pytest.mark.parametrize(
    ("tops", "dutch", "ok", "problem"),
    [
        ([10, "down", 5], {"Ann": 12, "Ben": 13}, True, None),
        (
            [3, 4],
            {"Ann": 5, "Ben": 1},
            False,
            "hold 7 cards but the players' Dutch counts add up to 6 (-1)",
        ),
        ([1] * 9, {"Ann": 5, "Ben": 4}, False, "9 Dutch piles, but 2 players can make at most 8"),
    ],
)
def test_dutch_pile_cross_check(tops, dutch, ok, problem):
    check = check_dutch_piles(tops, dutch)
    assert check.ok is ok
    if problem:
        assert any(problem in p for p in check.problems)


@pytest.mark.parametrize("top", [0, 11, "eleven", True])
def test_pile_top_must_be_a_card_value(top):
    with pytest.raises(RuleError):
        pile_size(top)
