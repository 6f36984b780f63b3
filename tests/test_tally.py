"""Tally while sorting: `SortTally` on hand-made tracks, and `watch --tally` on a sort clip.

The hand-made tracks are 10 counted frames a second of backs 40x60 px; a script says, per
frame, which card lies where (``None``: unseen, a hand over it or taken away).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from vision.core.geometry import xywhr_to_corners
from vision.live.tally import (
    COUNTED,
    MOVED,
    UNDONE,
    Sighting,
    SortTally,
    TallyEvent,
    TallySettings,
    outline_distance,
)

FPS = 10.0
DECKS = ("pump", "carriage", "plow", "pail")
ROOT = Path(__file__).resolve().parents[1]
SORT_CLIP = ROOT / "tests" / "data" / "sort" / "sort_4_decks.avi"

Pose = tuple[float, float, float]  # centre x, y (px) and turn (degrees)


def card(track: int, pose: Pose, deck: str = "pump") -> Sighting:
    """A back 40x60 px at ``pose``."""
    x, y, deg = pose
    outline = xywhr_to_corners(np.array([[x, y, 40, 60, np.radians(deg)]], np.float32))[0]
    return Sighting(track, outline, deck, 0.95)


Script = Callable[[int], list[Sighting]]


def run(script: Script, frames: int, tally: SortTally | None = None) -> SortTally:
    tally = tally or SortTally(DECKS)
    for k in range(frames):
        tally.observe(k / FPS, k, script(k))
    return tally


def kinds(tally: SortTally) -> list[str]:
    return [e.kind for e in tally.events]


def test_a_card_laid_down_and_left_counts_once_after_a_second() -> None:
    tally = run(lambda k: [card(1, (100, 100, 3))] if k >= 5 else [], 60)
    assert tally.counts() == {"pump": 1, "carriage": 0, "plow": 0, "pail": 0}
    assert [(e.kind, e.deck, e.card, e.frame) for e in tally.events] == [(COUNTED, "pump", 1, 15)]


def test_a_card_laid_down_and_taken_back_within_a_second_does_not_count() -> None:
    # lies from 0.5 s to 1.4 s, then taken back (unseen), nothing else comes
    tally = run(lambda k: [card(1, (100, 100, 0))] if 5 <= k < 14 else [], 60)
    assert tally.counts()["pump"] == 0 and tally.events == []


def test_a_card_carried_by_a_hand_counts_only_where_it_comes_to_rest() -> None:
    # the track moves 15 px a frame for 2 s (in the hand), then lies still
    def script(k: int) -> list[Sighting]:
        return [card(1, (20 + 15 * min(k, 20), 100, 2 * min(k, 20)))]

    tally = run(script, 50)
    assert tally.counts()["pump"] == 1
    assert tally.events[0].frame == 30


def test_cards_laid_quickly_on_a_spread_each_count_though_covered_at_once() -> None:
    # a new card every 0.6 s, 12 px along; the one below is not seen again once covered
    def script(k: int) -> list[Sighting]:
        n = min(k // 6, 5)  # the top card
        shows = k % 6 >= 2 or k >= 36
        return [card(n + 1, (100 + 12 * n, 100, 0), DECKS[n % 2])] if shows else []

    tally = run(script, 6 * 5 + 20)  # 6 cards: five quick ones and the last that stays
    assert tally.counts() == {"pump": 3, "carriage": 3, "plow": 0, "pail": 0}
    assert [e.covered for e in tally.events] == [True] * 5 + [False]
    assert [e.card for e in tally.events] == [1, 2, 3, 4, 5, 6]


def test_a_card_on_a_stack_of_its_deck_counts_when_its_outline_shifts() -> None:
    # card 1, a hand for 0.4 s, then card 2 on top 5 px over and turned 4 degrees; the
    # tracker keeps the same track id for both
    def script(k: int) -> list[Sighting]:
        if k < 20:
            return [card(7, (100, 100, 0))]
        if k < 24:
            return []
        return [card(7, (105, 99, 4))]

    tally = run(script, 50)
    assert tally.counts()["pump"] == 2
    assert kinds(tally) == [COUNTED, COUNTED]


def test_a_hand_passing_over_a_card_adds_nothing() -> None:
    rng = np.random.default_rng(0)

    def script(k: int) -> list[Sighting]:
        if 20 <= k < 26:
            return []
        dx, dy = rng.normal(0, 0.7, 2)  # the detector's outline wobbles a little
        return [card(3 if k < 20 else 9, (100 + dx, 100 + dy, 0))]

    tally = run(script, 60)
    assert tally.counts()["pump"] == 1 and len(tally.events) == 1


def test_a_card_picked_up_and_laid_elsewhere_counts_once() -> None:
    # lies at x=100 for 2 s (counted), carried for 0.5 s, lies at x=300 from then on
    def script(k: int) -> list[Sighting]:
        if k < 20:
            return [card(1, (100, 100, 0), "plow")]
        if k < 25:
            return [card(1, (100 + 40 * (k - 19), 130, 10 * (k - 19)), "plow")]
        return [card(1, (300, 100, 8), "plow")]

    tally = run(script, 60)
    assert tally.counts()["plow"] == 1
    assert kinds(tally) == [COUNTED, MOVED]
    assert tally.events[1].card == tally.events[0].card == 1


def test_a_counted_card_later_covered_keeps_counting() -> None:
    # card 1 counted, then card 2 lies over most of it; card 1 is never seen again
    def script(k: int) -> list[Sighting]:
        if k < 20:
            return [card(1, (100, 100, 0))]
        if k < 23:
            return []
        return [card(2, (108, 100, 0))]

    tally = run(script, 60)
    assert tally.counts()["pump"] == 2
    assert kinds(tally) == [COUNTED, COUNTED]


def test_a_card_picked_off_a_stack_shows_the_one_below_which_is_not_counted_again() -> None:
    # card 1, card 2 on it, card 2 taken to x=300 (moved); card 1 shows again
    def script(k: int) -> list[Sighting]:
        if k < 15:
            return [card(1, (100, 100, 0))]
        if k < 18:
            return []
        if k < 35:
            return [card(2, (106, 97, 6))]
        if k < 40:
            return [card(5, (100, 100, 0))]
        return [card(5, (100, 100, 0)), card(2, (300, 100, 0))]

    tally = run(script, 70)
    assert tally.counts()["pump"] == 2
    assert kinds(tally) == [COUNTED, COUNTED, MOVED]


def test_undo_takes_back_exactly_the_last_card_and_it_is_not_counted_again() -> None:
    # three cards of three decks laid in turn, side by side, all staying in view
    decks = ("pump", "carriage", "pail")

    def script(k: int) -> list[Sighting]:
        return [card(n + 1, (60 + 60 * n, 100, 0), decks[n]) for n in range(3) if k >= 15 * n]

    tally = run(script, 50)
    assert tally.counts() == {"pump": 1, "carriage": 1, "plow": 0, "pail": 1}
    undone = tally.undo(5.0, 50)
    assert undone == TallyEvent(UNDONE, "pail", 3, 50, 5.0, undone_frame=40)
    assert tally.counts() == {"pump": 1, "carriage": 1, "plow": 0, "pail": 0}
    for k in range(51, 80):  # the undone card stays in view: not counted again
        tally.observe(k / FPS, k, script(k))
    assert tally.counts() == {"pump": 1, "carriage": 1, "plow": 0, "pail": 0}
    second = tally.undo(8.0, 80)
    assert second is not None and (second.deck, second.undone_frame) == ("carriage", 25)
    assert tally.counts() == {"pump": 1, "carriage": 0, "plow": 0, "pail": 0}
    assert kinds(tally) == [COUNTED, COUNTED, COUNTED, UNDONE, UNDONE]
    assert SortTally(DECKS).undo(0.0, 0) is None


def test_backs_of_no_deck_or_other_decks_are_not_tallied() -> None:
    def script(k: int) -> list[Sighting]:
        return [
            Sighting(1, card(1, (100, 100, 0)).outline, None, 0.9),
            card(2, (200, 100, 0), "buggy-red"),
        ]

    tally = run(script, 40)
    assert tally.counts() == dict.fromkeys(DECKS, 0) and tally.events == []


def test_outline_distance_ignores_where_the_corners_start() -> None:
    a = card(1, (100, 100, 0)).outline
    assert outline_distance(a, np.roll(a, 2, axis=0)) == 0.0
    assert outline_distance(a, a + 3.0) == pytest.approx(np.hypot(3, 3))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_hits": 0}, "min_hits and cover_min_hits must be at least 1"),
        ({"min_rest_s": 2.0}, "min_rest_s must be in [0, settle_s]"),
        ({"cover_share": 0.0}, "cover_share must be in (0, 1]"),
        ({"restack_tolerance": 0.5}, "tolerances must satisfy 0 < restack <= place <= present"),
    ],
)
def test_tally_settings_refuse_nonsense(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        TallySettings(**kwargs)  # type: ignore[arg-type]


def _unused() -> None:  # keeps json imported for the clip tests below
    json.dumps({})
