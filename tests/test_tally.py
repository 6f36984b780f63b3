"""Tally while sorting: `SortTally` on hand-made tracks, and `watch --tally` on a sort clip.

The hand-made tracks are 10 counted frames a second of backs 40x60 px; a script says, per
frame, which cards are seen where (a card missing: a hand over it, covered or taken away).

The committed clip (``tests/data/sort/sort_4_decks.mp4``, 6.7 s at 10 fps, 640x480, its
truth beside it) is sort clip 1 of ``SortOptions(37, decks=4, max_cards=2,
take_back_share=0.3, move_share=0.0, lead_s=0.5, tail_s=1.5)`` written with
``write_sort(..., mp4=True)``: a plow card laid on its stack and taken back at once, then
two pump cards onto a spread and the plow card again; the tally is pump 2, plow 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from live_stubs import SPOTS, StubCounter, keyed_window

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
SORT_CLIP = ROOT / "tests" / "data" / "sort" / "sort_4_decks.mp4"

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


SEATS = ("Ann=pump", "Ben=carriage", "Cy=plow", "Dee=pail")
CLIP_TALLY = {"pump": 2, "carriage": 0, "plow": 1, "pail": 0}


def test_sort_clip_through_watch_tally_json_gives_the_exact_tallies(tallero) -> None:
    assert tallero("game", "new", *SEATS).code == 0
    r = tallero("watch", str(SORT_CLIP), "--json", "--tally")
    assert r.code == 0, r.err
    lines = [json.loads(line) for line in r.out.splitlines()]
    final = lines[-1]
    assert final["final"] is True and final["frame"] == 66
    assert final["tally"] == CLIP_TALLY
    counted = [e for e in final["events"] if e["event"] == "counted"]
    assert sorted(e["deck"] for e in counted) == ["plow", "pump", "pump"]
    assert [e["card"] for e in counted] == [1, 2, 3]
    # the plow card taken back at once (laid at frame 9) is not counted; the one laid at
    # frame 35 is, within 2 s
    (plow,) = [e for e in counted if e["deck"] == "plow"]
    assert 35 < plow["frame"] <= 55 and plow["t"] == plow["frame"] / 10
    for line in lines[:-1]:
        assert set(line) >= {"frame", "steady", "counts", "tally", "events"}
    # every event is printed once, on the line of the frame it happened on
    printed = [e for line in lines[:-1] for e in line["events"]]
    assert printed == final["events"]
    assert all(e["frame"] == line["frame"] for line in lines[:-1] for e in line["events"])


def test_watch_without_tally_prints_no_tally(tallero) -> None:
    r = tallero("watch", str(SORT_CLIP), "--json", "--max-frames", "2")
    assert r.code == 0, r.err
    assert all("tally" not in json.loads(line) for line in r.out.splitlines())


def test_dataset_synth_sort_writes_clips_whose_truth_ends_at_the_cards_laid(
    tallero, tmp_path: Path
) -> None:
    out = tmp_path / "sorts"
    args = ["--kind", "sort", "--n", "1", "--seed", "5", "--decks", "4", "--cards", "2"]
    r = tallero("dataset", "synth", str(out), *args, "--quiet")
    assert r.code == 0, r.err
    assert sorted(p.name for p in out.iterdir()) == ["000000.avi", "000000.json"]
    rec = json.loads((out / "000000.json").read_text())
    assert rec["kind"] == "sort" and rec["fps"] == 10 and rec["size"] == [640, 480]
    assert rec["decks"] == list(DECKS)
    assert set(rec["places"].values()) <= {"stack", "spread"}
    assert all(0 <= n <= 2 for n in rec["final"].values())
    assert rec["frames"][0]["counts"] == dict.fromkeys(DECKS, 0)
    assert rec["frames"][-1]["counts"] == rec["final"]
    lays = [e for e in rec["events"] if e["kind"] in ("lay", "move")]
    assert len(lays) == sum(rec["final"].values())
    import cv2

    capture = cv2.VideoCapture(str(out / "000000.avi"))
    frames = 0
    while capture.read()[0]:
        frames += 1
    assert frames == len(rec["frames"])


def test_dataset_synth_sort_refuses_too_many_cards(tallero, tmp_path: Path) -> None:
    r = tallero("dataset", "synth", str(tmp_path / "s"), "--kind", "sort", "--cards", "41")
    assert r.code == 2 and r.err == "tallero: error: cards per deck must be 0-40, not 41\n"


# -- the window's keys with a tally: a stub counter whose cards per frame the test decides


def tally_window(home: Path, keys: dict[int, str], still: str) -> tuple[list[str], Any]:
    """Three cards laid one a second (pump, pump, carriage), 8 s at 10 fps through the
    watch loop with a tally; ``still``: the cards the still count of ``d`` sees."""
    from commands.taker import RoundTaker
    from vision.live.settings import LiveSettings
    from vision.live.watch import Tick, Watcher
    from vision.live.window import Panel

    def script(k: int) -> str:
        return "a" + ("b" if k >= 10 else "") + ("c" if k >= 20 else "")

    tally = SortTally(DECKS)
    watcher = Watcher(StubCounter(script), DECKS, LiveSettings(count_every_s=0), FPS, tally)

    def picture(k: int) -> Any:  # the cards drawn where the stub counter says they lie
        image = np.zeros((160, 200, 3), np.uint8)
        for n in script(k):
            (x, y), _ = SPOTS[n]
            image[y : y + 60, x : x + 40] = 220
        return image

    # frames reach the tally as the window shows them, as they do live
    ticks = (
        Tick(watcher.step(picture(k), k / FPS), picture(k), k, k / FPS, FPS) for k in range(80)
    )
    labels = {"pump": "Ann (pump)", "carriage": "Ben (carriage)"}
    still_counter = StubCounter(lambda k: still)
    taker = RoundTaker(
        home,
        1,
        home / "snapshots",
        tally,
        lambda image: still_counter.count(image, "still", DECKS),
        labels,
    )
    panel = Panel(list(labels.items()))
    messages, _ = keyed_window(ticks, keys, taker, panel)
    return messages, tally


def test_u_undoes_exactly_the_last_card_and_the_evidence_keeps_the_undo(tallero, home) -> None:
    assert tallero("game", "new", *SEATS).code == 0
    # u at 4 s undoes the carriage card; d takes the tally (pump 2) beside a still count that
    # sees pump 2 and no carriage card (the still agrees); c commits
    messages, tally = tally_window(home, {40: "u", 50: "d", 51: "c"}, still="ab")
    undo_at = messages[41]
    assert undo_at == "undone: card 3 (carriage)"
    assert tally.counts() == {"pump": 2, "carriage": 0, "plow": 0, "pail": 0}
    assert messages[51] == "Dutch tally taken; the still photo agrees"
    assert messages[52] == "round 1 committed with its evidence"
    rev = tallero("history", "1", "--json").json()["revisions"][0]
    assert rev["players"]["Ann"]["dutch"] == 2 and rev["players"]["Ben"]["dutch"] == 0
    from scoring.ledger import Ledger

    with Ledger.open(home) as ledger:
        (evidence,) = ledger.history(1, 1)[0].evidence
    events = evidence.detections["tally"]["events"]
    assert evidence.detections["tally"]["counts"]["pump"] == 2
    assert [(e["event"], e["deck"], e["card"]) for e in events] == [
        ("counted", "pump", 1),
        ("counted", "pump", 2),
        ("counted", "carriage", 3),
        ("undone", "carriage", 3),
    ]
    # ByteTrack confirms a track that starts after the first frame one frame late
    assert [e["frame"] for e in events] == [10, 21, 31, 40]
    assert events[3]["undone_frame"] == 31


def test_a_tally_the_still_count_does_not_reach_is_flagged_until_accepted(tallero, home) -> None:
    assert tallero("game", "new", *SEATS).code == 0
    # the still count sees only one pump card and no carriage card: both differ
    messages, _ = tally_window(home, {50: "d", 51: "c", 52: "a", 53: "c"}, still="a")
    assert messages[51] == "Dutch tally taken; 2 difference(s) to look at (a)"
    assert messages[52].startswith(
        "not committed (a accepts): Ann (pump): tally 2, still photo 1: look at the spread; "
        "Ben (carriage): tally 1, still photo 0: look at the spread"
    )
    assert messages[53] == "flagged cards accepted"
    assert messages[54] == "round 1 committed with its evidence"
    rev = tallero("history", "1", "--json").json()["revisions"][0]
    assert rev["players"]["Ann"]["dutch"] == 2 and rev["players"]["Ben"]["dutch"] == 1
    assert rev["reason"].startswith("accepted: Ann (pump): tally 2, still photo 1")


def test_u_with_nothing_counted_says_so(home) -> None:
    messages, tally = tally_window(home, {3: "u", 12: "u", 13: "u"}, still="")
    assert messages[4] == "no card to undo"
    assert messages[13] == "undone: card 1 (pump)"
    assert messages[14] == "no card to undo"
    assert [e.kind for e in tally.events] == [COUNTED, UNDONE, COUNTED, COUNTED]
