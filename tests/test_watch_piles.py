"""`tallero watch`'s ``p``: the Dutch piles read off the live picture, over several frames,
their total settling the round as a piles photo's does. A stub reads the piles of each
frame, so what the window's keys do with them is checked on its own."""

from __future__ import annotations

from typing import Any

import numpy as np
from live_stubs import keyed_window
from test_watch import DECKS, ROOT, SEATS, run_script, window_run


def piles_of(*tops: int | None, long_px: float = 90.0) -> Any:
    """A stub of the piles read off a frame: face-up piles with these tops (None: unread),
    each top ``long_px`` long in the frame."""
    from vision.piles.read import Pile, Piles

    corners = np.array([[0, 0], [0.7, 0], [0.7, 1], [0, 1]], np.float32) * long_px
    return Piles(
        "frame",
        (200, 160),
        tuple(Pile(corners, "red", t, False, 1.0, (), t is None) for t in tops),
        {"name": "stub-piles"},
    )


def test_p_reads_the_dutch_piles_and_their_total_settles_the_round(tallero, home) -> None:
    """Ann 2, Ben 1, Dee 3 counted: piles of 4 and 2 (6) agree, and the piles frame is
    kept as evidence; piles of 7 fit no counts, so the round needs a look (a) first."""
    from scoring.errors import ImageError

    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30)

    def none_there(image: Any) -> Any:
        raise ImageError("no Dutch piles found (no card in the photo)")

    messages, _ = window_run(home, ticks, {1: "p", 15: "p"}, none_there)
    assert messages[2] == "wait for STEADY to read the Dutch piles"
    assert messages[16] == "no Dutch piles found in this frame"
    keys = {15: "p", 16: "d", 17: "c"}
    messages, screen = window_run(home, ticks, keys, lambda image: piles_of(4, 2))
    assert messages[16] == "Dutch piles: 2, total 6 taken"
    assert messages[18] == "round 1 committed with its evidence"
    rev = tallero("history", "1", "--json").json()["revisions"][0]
    assert [e["role"] for e in rev["evidence"]] == ["dutch", "piles"]
    audit = tallero("audit", "1", "--json").json()["piles"]["photo"]
    assert (audit["committed"], audit["committed_complete"]) == (6, True)
    keys = {15: "p", 16: "d", 17: "c", 18: "a", 19: "c"}
    messages, _ = window_run(home, ticks, keys, lambda image: piles_of(4, 3))
    assert messages[18].startswith(
        "not committed (a accepts): no Dutch counts within the counts' ranges add up to the "
        "piles' total 7"
    )
    # accepted, it passes the piles' check (to the guard against the same round twice)
    assert messages[20].startswith("nothing written: round 1 has exactly these counts")
    keys = {15: "p", 16: "d", 17: "c"}
    messages, _ = window_run(home, ticks, keys, lambda image: piles_of(4, None))
    assert messages[16] == "Dutch piles: 2, total 4 (not all read: look at #2) taken"
    assert "the top of Dutch pile(s) #2 in the piles photo was not read" in messages[18]
    # a top left unread that lies small in the picture: how to read it
    messages, _ = window_run(home, ticks, keys, lambda image: piles_of(4, None, long_px=50))
    assert messages[16] == (
        "Dutch piles: 2, total 4 (not all read: look at #2) taken; the top of #2 lies under "
        "65 px: bring the camera closer or ask it for --size 1280x720"
    )


def test_the_piles_key_reads_a_frame_as_a_piles_photo_is_read() -> None:
    """``p`` reads the frame with the photo counter: ``clear.jpg`` (yellow 3, blue 9, green
    6, red 4 and a face-down pile) gives its five piles, complete."""
    from commands.piles import PilesReader
    from vision.core.imageio import load_image

    image = load_image(ROOT / "tests" / "data" / "piles" / "clear.jpg")
    piles = PilesReader(None, None, 2, DECKS).read(image)
    assert sorted(p.top for p in piles.piles) == [3, 4, 6, 9, 10]
    assert piles.complete and piles.total == 32


def two_piles_read(frames: list[tuple[int | None, int | None]]) -> Any:
    """A stub of ``read_piles`` giving, frame after frame, two piles side by side with these
    tops (None: unread)."""
    from vision.piles.read import Pile, Piles

    def at(x: float, top: int | None) -> Pile:
        corners = np.array([[x, 10], [x + 40, 10], [x + 40, 70], [x, 70]], np.float32)
        return Pile(corners, "red", top, False, 1.0, (), top is None)

    reads = iter(frames)

    def read(image: Any) -> Piles:
        a, b = next(reads)
        return Piles("frame", (200, 160), (at(20, a), at(120, b)), {"name": "stub-piles"})

    return read


def committed_over_three_frames(tallero: Any) -> dict[str, Any]:
    """Round 1 keeps the Dutch frame and the three piles frames as evidence; its audit."""
    rev = tallero("history", "1", "--json").json()["revisions"][0]
    assert [e["role"] for e in rev["evidence"]] == ["dutch", "piles", "piles", "piles"]
    audit: dict[str, Any] = tallero("audit", "1", "--json").json()
    return audit


def test_p_reads_several_frames_and_a_top_one_leaves_unread_another_reads(tallero, home) -> None:
    """With ``piles_frames`` 3, ``p`` reads three STEADY frames 0.2 s apart: the second reads
    the top the first and third leave unread, so the total is complete; ``c`` waits until
    the three are read, and every frame read is kept as evidence."""
    from commands.taker import RoundTaker
    from vision.live.window import Panel

    # the three frames, then their median picture, which leaves #2 unread too
    read_piles = two_piles_read([(4, None), (4, 2), (4, None), (4, None)])

    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30)
    taker = RoundTaker(home, 1, home / "snapshots", None, None, None, read_piles, 3, 0.2)
    panel = Panel([("pump", "Ann (pump)")])
    keys = {15: "p", 17: "c", 20: "d", 21: "c"}
    messages, _ = keyed_window(ticks, keys, taker, panel)
    assert messages[16] == "reading the Dutch piles: frame 1 of 3"
    assert messages[17] == "reading the Dutch piles: frame 2 of 3"
    assert messages[18] == "wait: the Dutch piles are still being read"
    assert messages[19] == "Dutch piles: 2, total 6 taken"
    assert messages[22] == "round 1 committed with its evidence"
    audit = committed_over_three_frames(tallero)
    assert (
        audit["piles"]["photo"]["committed"],
        audit["piles"]["photo"]["committed_complete"],
    ) == (6, True)
    # the frames show the same cards: the audit lists each to look at once
    listed = [(i["role"], i["card"]) for i in audit["review"] if i["role"] == "piles"]
    assert listed and len(listed) == len(set(listed))


def test_p_starts_again_where_the_picture_changes_between_its_frames(tallero, home) -> None:
    """A frame that does not show the first frame's picture (a hand over the piles) starts
    the reading again from it: only a calm table's three frames are judged together."""
    from commands.taker import RoundTaker
    from vision.live.window import Panel

    read_piles = two_piles_read([(4, None), (4, None), (4, 2), (4, None), (4, None)])

    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30)
    hand = ticks[17].image

    def same_table(first: Any, image: Any) -> bool:
        return image is not hand

    taker = RoundTaker(
        home, 1, home / "snapshots", None, None, None, read_piles, 3, 0.2, same_table
    )
    messages, _ = keyed_window(ticks, {15: "p", 23: "d", 24: "c"}, taker, Panel([]))
    assert messages[16] == "reading the Dutch piles: frame 1 of 3"
    assert messages[17] == "the picture changed; reading the Dutch piles: frame 1 of 3"
    assert messages[19] == "reading the Dutch piles: frame 2 of 3"
    assert messages[21] == "Dutch piles: 2, total 6 taken"
    assert messages[25] == "round 1 committed with its evidence"
    committed_over_three_frames(tallero)


def test_p_takes_the_piles_of_the_frames_median_picture_where_it_reads_every_top(
    tallero, home
) -> None:
    """No frame reads pile #2, the median picture of the three does: its piles are taken,
    kept with the first frame's evidence as the median's."""
    from commands.taker import RoundTaker
    from vision.live.window import Panel

    seen: list[Any] = []
    frames = two_piles_read([(4, None), (4, None), (4, None), (4, 2)])

    def read_piles(image: Any) -> Any:
        seen.append(image)
        return frames(image)

    assert tallero("game", "new", *SEATS).code == 0
    ticks = run_script(lambda k: "abcdef", 30)
    taker = RoundTaker(home, 1, home / "snapshots", None, None, None, read_piles, 3, 0.2)
    messages, _ = keyed_window(ticks, {15: "p", 20: "d", 21: "c"}, taker, Panel([]))
    assert messages[19] == "Dutch piles: 2, total 6 taken"
    assert len(seen) == 4 and seen[3].shape == seen[0].shape  # the median, read last
    assert messages[22] == "round 1 committed with its evidence"
    audit = committed_over_three_frames(tallero)
    assert audit["piles"]["photo"]["committed"] == 6
    assert audit["piles"]["photo"]["committed_median"] is True


def test_the_audit_judges_p_s_frames_again_as_p_did_median_picture_and_all(tallero, home) -> None:
    """``clear.jpg`` filmed as three small webcam frames: judged together they leave a top
    to look at, their median picture reads every top (32). ``p`` takes the median's
    piles; the audit reads the kept frames again, median and all, and comes to the same."""
    import dataclasses
    import json

    import cv2

    from commands.piles import PilesReader
    from commands.taker import RoundTaker
    from vision.lab.piles_frames import film
    from vision.live.window import Panel
    from vision.piles.frames import merge_frames

    folder = ROOT / "tests" / "data" / "piles"
    truth = {"dutch_piles": json.loads((folder / "clear.json").read_text())}
    photo = cv2.imread(str(folder / "clear.jpg"))
    frames, _ = film(photo, truth, (400, 300), 3, np.random.default_rng(2))
    ticks = run_script(lambda k: "abcdef", 30)
    for k in range(15, 30):  # the piles' frames from 15 on, one each 0.2 s
        ticks[k] = dataclasses.replace(ticks[k], image=frames[min((k - 15) // 2, 2)])
    reader = PilesReader(None, None, 2, DECKS)
    assert not merge_frames([reader.read(f) for f in frames]).complete

    assert tallero("game", "new", *SEATS).code == 0
    taker = RoundTaker(home, 1, home / "snapshots", None, None, None, reader.read, 3, 0.2)
    keys = {15: "p", 20: "d", 21: "c", 22: "a", 23: "c"}
    messages, _ = keyed_window(ticks, keys, taker, Panel([]))
    assert messages[19] == "Dutch piles: 5, total 32 taken"
    assert messages[24] == "round 1 committed with its evidence"
    photo = committed_over_three_frames(tallero)["piles"]["photo"]
    committed = (photo["committed"], photo["committed_complete"], photo["committed_median"])
    assert committed == (32, True, True)
    assert (photo["today"], photo["today_complete"], photo["today_median"]) == (32, True, True)
    said = "read off the median picture of the frames when scored and today"
    assert said in tallero("audit", "1").out
    page = home / "audit.html"
    assert tallero("audit", "1", "--html", str(page)).code == 0
    assert "(read off the median picture of the frames)" in page.read_text()
