"""The live window answers what it asks: where several Dutch counts reach the piles' total,
the panel lists them and a number key chooses one, as ``--fix-dutch`` would; the piles read
are outlined with their ids while the picture shows them, so ``look at #2`` finds #2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from live_stubs import keyed_window
from test_watch import SEATS, run_script
from test_watch_piles import piles_of


def keyed(
    home: Path, ticks: list[Any], keys: dict[int, str], *tops: int | None
) -> tuple[list[str], list[list[str]]]:
    """The window over ``ticks`` with ``keys`` pressed (a piles frame of ``tops``, default 4
    and 1): the panel's message and its taken lines at each picture."""
    from commands.taker import RoundTaker
    from vision.live.window import Panel

    piles = piles_of(*(tops or (4, 1)))
    taker = RoundTaker(home, 1, home / "snapshots", read_piles=lambda image: piles)
    panel = Panel([("pump", "Ann (pump)"), ("pail", "Dee (pail)")])
    taken: list[list[str]] = []
    messages, _ = keyed_window(ticks, keys, taker, panel, taken)
    return messages, taken


def first_revision(tallero: Any) -> dict[str, Any]:
    """Round 1 as first committed (`history --json`)."""
    rev: dict[str, Any] = tallero("history", "1", "--json").json()["revisions"][0]
    return rev


def column(rev: dict[str, Any], key: str) -> dict[str, int]:
    """Each player's ``key`` (``dutch``, ``blitz``) in a revision."""
    return {player: counts[key] for player, counts in rev["players"].items()}


def test_a_number_key_chooses_among_the_counts_that_reach_the_piles_total(tallero, home) -> None:
    """Ann 2 (could be 1) and Dee 3 (could be 2), Ben 1: the piles' 5 is reached by Ann 2,
    Dee 2 or by Ann 1, Dee 3. ``c`` lists both; ``2`` chooses the second, ``c`` commits it
    with the choice kept as a correction by hand."""
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    keys = {15: "p", 16: "d", 17: "c", 18: "3", 19: "2", 20: "c"}
    messages, taken = keyed(home, ticks, keys)
    # the window's own keys come first (the panel may cut a long line's end)
    assert messages[18].startswith("not committed (a accepts, 1-2 choose): ")
    assert "2 ways to reach the Dutch piles' total 5" in messages[18]
    assert "--fix-dutch" not in messages[18]  # the command line's advice is not the window's
    assert taken[18][-3:] == [
        "the piles' total fits (keys 1-2):",
        "1: Ann 2, Dee 2",
        "2: Ann 1, Dee 3",
    ]
    assert messages[19] == "choose 1 to 2"
    assert messages[20] == "Dutch counts chosen: Ann 1, Dee 3; c commits"
    assert taken[20][-1] == "Dutch chosen: Ann 1, Dee 3"
    assert messages[21] == "round 1 committed with its evidence"
    assert not any(line.startswith(("1:", "Dutch chosen")) for line in taken[21])
    rev = first_revision(tallero)
    assert column(rev, "dutch") == {"Ann": 1, "Ben": 1, "Cy": 0, "Dee": 3}
    assert "corrected by hand: Ann Dutch 2 -> 1" in rev["reason"]
    assert "chosen in the window among the counts that reach the piles' total 5" in rev["reason"]


def test_the_fits_go_when_the_counts_they_fit_are_taken_again(tallero, home) -> None:
    """A number key chooses nothing once ``d`` took the count again (the fits were of the
    count before), nor before ``c`` listed any."""
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    keys = {14: "1", 15: "p", 16: "d", 17: "c", 18: "d", 19: "1", 20: "c"}
    messages, taken = keyed(home, ticks, keys)
    assert messages[15] == ""  # nothing to choose from yet: the key does nothing
    assert taken[18][-1] == "2: Ann 1, Dee 3"
    assert messages[19] == "Dutch count taken" and taken[19][-1].startswith("Dutch piles")
    assert messages[20] == "Dutch count taken"  # 1 chose nothing
    assert "2 ways to reach" in messages[21]


def test_accepting_commits_the_counts_shown_without_choosing(tallero, home) -> None:
    """``a`` then ``c`` commits the round as shown, as ``--accept`` does."""
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    keys = {15: "p", 16: "d", 17: "c", 18: "a", 19: "c"}
    messages, _ = keyed(home, ticks, keys)
    assert messages[20] == "round 1 committed with its evidence"
    reason = tallero("history", "1", "--json").json()["revisions"][0]["reason"]
    assert reason.startswith("accepted: ") and "corrected by hand" not in reason


def test_a_round_possible_only_by_mistake_asks_for_the_counts_again(tallero, home) -> None:
    """Nobody at 0 in the Blitz count: the window has no --force, so it asks to take the
    counts again, and writes nothing."""
    assert tallero("game", "new", "Ann=pump", "Ben=carriage", "Dee=pail").code == 0
    ticks = run_script(lambda k: "abcdef", 30)
    messages, _ = keyed(home, ticks, {15: "d", 16: "b", 17: "c"})
    assert messages[18] == (
        "nothing written: nobody has 0 Blitz cards left, but someone must have called Blitz. "
        "Take the counts again (d, b), or enter this round with `tallero round ... --force`"
    )
    assert tallero("sheet", "--json").json()["rounds"] == []


def test_the_piles_read_are_outlined_with_their_ids_while_they_are_in_view(home) -> None:
    """After ``p``, pile #2 (its top not read) is outlined in magenta on the frame; once
    the picture no longer shows the piles' table, the outlines go."""
    import numpy as np

    from commands.taker import RoundTaker
    from vision.live.window import Panel
    from vision.piles.annotate import UNREAD_BGR
    from vision.piles.read import Pile, Piles

    def quad(x: int, y: int) -> np.ndarray:
        return np.array([[x, y], [x + 40, y], [x + 40, y + 60], [x, y + 60]], np.float32)

    piles = Piles(
        "frame",
        (200, 160),
        (
            Pile(quad(10, 10), "red", 4, False, 1.0, (), False),
            Pile(quad(130, 90), "blue", None, False, 0.5, (), True),
        ),
        {"name": "stub-piles"},
    )
    in_view = {"now": True}
    taker = RoundTaker(
        home,
        None,
        home / "snapshots",
        read_piles=lambda image: piles,
        same_table=lambda first, now: in_view["now"],
    )

    def turn(k: int) -> None:
        if k == 20:
            in_view["now"] = False  # the camera turned to the sorted cards

    ticks = run_script(lambda k: "ab", 25)
    _, screen = keyed_window(ticks, {15: "p"}, taker, Panel([("pump", "pump")]), None, turn)

    def magenta(k: int) -> int:
        frame = screen.pictures[k][:, :200].astype(int)  # the frame, not the panel
        near = np.abs(frame - np.array(UNREAD_BGR)).max(axis=2) < 60
        return int(np.count_nonzero(near))

    assert magenta(15) == 0  # before p
    assert magenta(16) > 40 and magenta(19) > 40  # #2 outlined while the piles are in view
    assert magenta(23) == 0  # gone with the picture (checked every 0.2 s)


def test_t_gives_the_top_of_a_pile_the_frames_left_unread(tallero, home) -> None:
    """Piles of 4 and an unread top: ``c`` asks for pile #2; ``t`` picks it, ``2`` gives its
    top, and the total (6) settles the round, the top kept as a correction by hand and with
    the piles' evidence, as ``--fix-piles 2=2`` keeps it."""
    assert tallero("game", "new", *SEATS).code == 0
    keys = {14: "t", 15: "p", 16: "d", 17: "c", 18: "t", 19: "t", 20: "t", 21: "2", 22: "c"}
    messages, _ = keyed(home, run_script(lambda k: "abcdef", 30), keys, 4, None)
    assert messages[15] == "read the Dutch piles first (p when STEADY)"
    assert "the top of Dutch pile(s) #2 in the piles photo was not read" in messages[18]
    assert messages[19].startswith("pile #2 (not read): its top? 1-9, 0 for 10, x face down")
    assert messages[20].startswith("pile #1 (4): its top?")  # t: the next pile, then round
    assert messages[21].startswith("pile #2 (not read)")
    assert messages[22] == "pile #2: top 2 given; Dutch piles: 2, total 6"
    assert messages[23] == "round 1 committed with its evidence"
    rev = first_revision(tallero)
    assert "corrected by hand: Dutch pile #2 top ? -> 2" in rev["reason"]
    assert "pile tops given in the window" in rev["reason"]
    audit = tallero("audit", "1", "--json").json()["piles"]["photo"]
    assert (audit["committed"], audit["committed_complete"]) == (6, True)


def test_x_gives_a_finished_pile_face_down_and_0_a_ten(home) -> None:
    """``t`` picks the unread pile first, then goes round every pile; ``x`` gives a pile
    face down (10), ``0`` a top of 10, a digit that top."""
    from commands.piles import given_corrections
    from commands.taker import RoundTaker

    taker = RoundTaker(home, None, home / "snapshots", read_piles=lambda image: piles_of(4, None))
    tick = run_script(lambda k: "ab", 20)[-1]
    taker.press("p", tick)
    replies = []
    for key in ("t", "x", "t", "0", "t", "t", "9"):
        reply = taker.press(key, tick)
        assert reply is not None
        replies.append(reply.message)
    assert replies[1] == "pile #2: top down given; Dutch piles: 2, total 14"
    assert replies[2].startswith("pile #1 (4): its top?")  # none unread now: from #1
    assert replies[3] == "pile #1: top 10 given; Dutch piles: 2, total 20"
    assert replies[5].startswith("pile #2 (down): its top?")
    assert replies[6] == "pile #2: top 9 given; Dutch piles: 2, total 19"
    assert taker.piles is not None
    assert given_corrections(taker.piles.read) == [
        "Dutch pile #1 top 4 -> 10",
        "Dutch pile #2 top ? -> 9",
    ]


def test_e_gives_one_players_dutch_count_and_c_commits_it(tallero, home) -> None:
    """Ann 2 (could be 1), Ben 1, Dee 3 (could be 2): ``e`` steps to Ben's Dutch count,
    ``4`` and Enter give it, and ``c`` commits the round with it, as ``--fix-dutch
    Ben=4`` would (a correction by hand answers the doubts, as on the command line)."""
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    keys = {15: "d", 16: "e", 17: "e", 18: "4", 19: "\r", 20: "c"}
    messages, taken = keyed(home, ticks, keys)
    assert messages[17] == "Ann Dutch (counted 2): _; Enter sets it, e: the next count"
    assert messages[18] == "Ben Dutch (counted 1): _; Enter sets it, e: the next count"
    assert messages[19] == "Ben Dutch (counted 1): 4; Enter sets it, e: the next count"
    assert messages[20] == "Ben Dutch 4 given; c commits it"
    assert taken[20][-1] == "Dutch given: Ben 4"
    assert messages[21] == "round 1 committed with its evidence"
    assert not any("given" in line for line in taken[21])
    rev = first_revision(tallero)
    assert column(rev, "dutch") == {"Ann": 2, "Ben": 4, "Cy": 0, "Dee": 3}
    assert "corrected by hand: Ben Dutch 1 -> 4" in rev["reason"]
    assert "counts given in the window" in rev["reason"]


def test_e_gives_a_blitz_count_checked_and_another_key_gives_up(tallero, home) -> None:
    """Before ``d`` only the Blitz counts can be given (no Blitz photo: 0 each); 12 is
    refused (a Blitz pile holds 10), Backspace takes a digit back; ``d`` keeps the Blitz
    count given, and ``e`` then starts from the Dutch counts; any other key gives up
    the count being typed, and the digit after it does nothing."""
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    keys = {15: "e", 16: "1", 17: "2", 18: "\r", 19: "7", 20: "\x7f", 21: "3", 22: "\r"}
    keys |= {23: "d", 24: "e", 25: "a", 26: "3", 27: "c"}
    messages, taken = keyed(home, ticks, keys)
    assert messages[16] == "Ann Blitz (counted 0): _; Enter sets it, e: the next count"
    assert messages[18].startswith("Ann Blitz (counted 0): 12;")
    assert messages[19] == "Ann's Blitz count is 0 to 10, not 12: type it again"
    assert messages[21].startswith("Ann Blitz (counted 0): _;")
    assert messages[23] == "Ann Blitz 3 given; c commits it"
    assert taken[24][-1] == "Blitz given: Ann 3"  # kept when the Dutch count is taken
    assert messages[25].startswith("Ann Dutch (counted 2): _;")
    assert messages[26] == messages[27] == "flagged cards accepted"
    assert messages[28] == "round 1 committed with its evidence"
    rev = first_revision(tallero)
    assert column(rev, "blitz") == {"Ann": 3, "Ben": 0, "Cy": 0, "Dee": 0}
    assert rev["players"]["Ann"]["dutch"] == 2
    assert "corrected by hand: Ann Blitz 0 -> 3" in rev["reason"]


def test_e_without_a_game_says_how_to_start_one(home) -> None:
    from commands.taker import RoundTaker

    taker = RoundTaker(home, None, home / "snapshots")
    reply = taker.press("e", run_script(lambda k: "ab", 5)[-1])
    assert reply is not None and reply.error
    assert reply.message == "no game: start one with `tallero game new`"


def test_a_dutch_count_given_that_misses_the_piles_total_says_so(tallero, home) -> None:
    """Piles of 4 and 1 (total 5), Dutch counts Ann 2, Ben 1, Dee 3: Ben given 4 makes 9,
    which the panel says before ``c`` commits it as given."""
    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    keys = {15: "p", 16: "d", 17: "e", 18: "e", 19: "4", 20: "\r", 21: "e", 22: "e"}
    keys |= {23: "0", 24: "\r"}
    messages, _ = keyed(home, ticks, keys)
    assert (
        messages[21] == "Ben Dutch 4 given; the Dutch counts make 9, the piles 5: c commits them so"
    )
    assert messages[23].startswith("Ben Dutch (counted 1, given 4): _;")
    assert messages[25] == "Ben Dutch 0 given; c commits it"  # 2 + 0 + 3 = 5


def test_a_count_taken_again_drops_the_counts_given_but_a_refused_one_does_not(
    tallero, home
) -> None:
    from commands.taker import RoundTaker

    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30, unsure="ad")
    steady, settling = ticks[20], ticks[0]
    assert steady.view.steady and not settling.view.steady
    taker = RoundTaker(home, 1, home / "snapshots")
    for key in ("d", "e", "4", "\r", "e", "e", "e", "e", "e", "1", "\r"):
        taker.press(key, steady)
    assert taker.taken_lines()[-2:] == ["Dutch given: Ann 4", "Blitz given: Ann 1"]
    reply = taker.press("d", settling)
    assert reply is not None and reply.message == "wait for STEADY to take the Dutch count"
    assert taker.taken_lines()[-2:] == ["Dutch given: Ann 4", "Blitz given: Ann 1"]
    taker.press("d", steady)
    assert taker.taken_lines()[-1] == "Blitz given: Ann 1"
    assert not any(line.startswith("Dutch given") for line in taker.taken_lines())
