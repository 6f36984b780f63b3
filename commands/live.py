"""`tallero watch`: the live view of the table, its steady counts, and a round from it."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer

from commands.app import JsonOpt, ModelOpt, ProfileOpt, ThreadsOpt, app, emit_json, make_counter
from scoring.errors import LedgerError, TalleroError, UsageError

if TYPE_CHECKING:
    from vision.count.result import Count
    from vision.live.watch import Event, Tick
    from vision.live.window import Panel


class NoDisplay(TalleroError):
    """A window was asked for where none can be opened."""


@dataclass(frozen=True)
class Taken:
    """A steady count taken with a key: the count, the frame it was taken on."""

    count: Count
    image: Any  # BGR frame

    def detections(self) -> dict[str, Any]:
        """The evidence's detections: every card of the steady count."""
        return self.count.to_json()


@dataclass(frozen=True)
class Reply:
    """What a key did: a line for the panel, whether it is a problem, whether to quit."""

    message: str
    error: bool = False
    quit: bool = False


class RoundTaker:
    """The window's keys: take the steady count as Dutch (``d``) or Blitz (``b``), accept the
    flagged cards (``a``), commit the round (``c``, as ``score --commit``), save a snapshot
    (``s``), quit (``q``). Nothing is committed without ``c``.

    Args:
        home: Tallero's home (ledger, evidence).
        game_id: the game the round belongs to (``None``: no game, ``c`` says so).
        snapshots: folder for ``s``.
    """

    def __init__(self, home: Path, game_id: int | None, snapshots: Path) -> None:
        self.home = home
        self.game_id = game_id
        self.snapshots = snapshots
        self.dutch: Taken | None = None
        self.blitz: Taken | None = None
        self.accept = False

    def taken_lines(self) -> list[str]:
        """The counts taken so far, for the panel."""
        out = []
        for label, taken in (("Dutch", self.dutch), ("Blitz", self.blitz)):
            if taken is not None:
                counts = ", ".join(f"{d} {n}" for d, n in taken.count.counts.items() if n)
                out.append(f"{label}: {counts or 'no cards'}")
        if self.accept:
            out.append("flagged cards accepted")
        return out

    def press(self, key: str, tick: Tick, picture: Any = None) -> Reply | None:
        """Do what ``key`` asks with the table of ``tick``; ``None`` for other keys."""
        if key == "q":
            return Reply("bye", quit=True)
        if key in ("d", "b"):
            label = "Dutch" if key == "d" else "Blitz"
            if not tick.view.steady:
                return Reply(f"wait for STEADY to take the {label} count", error=True)
            taken = Taken(tick.view.count, tick.image)
            if key == "d":
                self.dutch = taken
            else:
                self.blitz = taken
            return Reply(f"{label} count taken")
        if key == "a":
            self.accept = not self.accept
            return Reply("flagged cards accepted" if self.accept else "accept withdrawn")
        if key == "c":
            try:
                number = self.commit()
            except TalleroError as exc:
                return Reply(str(exc), error=True)
            return Reply(f"round {number} committed with its evidence")
        if key == "s":
            return Reply(f"snapshot {self.snapshot(tick, picture)}")
        return None

    def snapshot(self, tick: Tick, picture: Any = None) -> Path:
        """Write the window's picture (or the frame) to the snapshots folder."""
        import cv2

        self.snapshots.mkdir(parents=True, exist_ok=True)
        path = self.snapshots / f"watch-{time.strftime('%Y%m%d-%H%M%S')}-{tick.frame:06d}.png"
        if not cv2.imwrite(str(path), tick.image if picture is None else picture):
            raise UsageError(f"cannot write {path}")
        return path

    def commit(self) -> int:
        """Commit the round from the counts taken, with the same checks and evidence as
        ``tallero score --commit``; returns its number."""
        import cv2

        from scoring.evidence import Photo, commit_photo_round
        from scoring.ledger import Ledger
        from scoring.rules import build_round
        from scoring.tally import round_from_tallies
        from vision.count.tally import tally_of

        if self.game_id is None:
            raise UsageError("no game to commit to: start one with `tallero game new`")
        if self.dutch is None:
            raise UsageError("take the Dutch count first (d when STEADY)")
        with Ledger.open(self.home) as ledger, tempfile.TemporaryDirectory() as tmp:
            g = ledger.game(self.game_id)
            blitz = tally_of(self.blitz.count) if self.blitz is not None else None
            result = round_from_tallies(g.setup, tally_of(self.dutch.count), blitz)
            counts = build_round(g.setup.players, result.dutch, result.blitz)
            photos = []
            for role, taken in (("dutch", self.dutch), ("blitz", self.blitz)):
                if taken is None:
                    continue
                path = Path(tmp) / f"watch-{role}.png"  # lossless: the frame as counted
                if not cv2.imwrite(str(path), taken.image):
                    raise UsageError(f"cannot write {path}")
                model = str(taken.count.model.get("name", ""))
                photos.append(Photo(role, path, taken.detections(), model))
            number = commit_photo_round(
                ledger, self.home, g.id, counts, result, photos, self.accept, False, None
            )
        self.dutch = self.blitz = None
        self.accept = False
        return number


class Screen(Protocol):
    """Where the window loop shows pictures and reads keys (a stub in tests)."""

    def show(self, picture: Any) -> None: ...
    def key(self) -> str | None: ...


def run_window(events: Iterable[Event], screen: Screen, taker: RoundTaker, panel: Panel) -> None:
    """Show every event on ``screen`` and act on its keys until ``q`` or the end."""
    from vision.live.watch import Fault
    from vision.live.window import draw_window

    last: Tick | None = None
    fault = ""
    for event in events:
        if isinstance(event, Fault):
            fault = panel.message = f"{event.message}; retrying"
            panel.error = True
            if last is None:
                continue
            tick = last  # the last steady table stays on screen
        else:
            tick = last = event
            if fault and panel.message == fault:  # the source is back
                panel.message, panel.error = "", False
            fault = ""
        panel.taken = taker.taken_lines()
        picture = draw_window(tick, panel)
        screen.show(picture)
        key = screen.key()
        reply = taker.press(key, tick, picture) if key else None
        if reply is not None:
            if reply.quit:
                return
            panel.message, panel.error = reply.message, reply.error


def _game(game: int | None) -> tuple[int | None, list[tuple[str, str]]]:
    """The game's id and its ``(deck, "player (deck)")`` rows; no game: ``(None, [])``."""
    from scoring.home import tallero_home
    from scoring.ledger import Ledger

    with Ledger.open(tallero_home()) as ledger:
        try:
            g = ledger.game(game)
        except LedgerError:
            if game is not None:
                raise
            return None, []
        return g.id, [(s.deck.id, f"{s.player} ({s.deck.id})") for s in g.setup.seats]


@app.command("watch")
def watch(
    source: Annotated[
        str,
        typer.Argument(help="Camera index, video file, folder of frames (--record) or stream URL."),
    ] = "0",
    game: Annotated[
        int | None,
        typer.Option("--game", help="Game id (default: the current game, if there is one)."),
    ] = None,
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
    max_frames: Annotated[
        int | None, typer.Option("--max-frames", help="Stop after N frames.")
    ] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Keep the session's frames in this folder.")
    ] = None,
    size: Annotated[
        str | None, typer.Option("--size", help="Ask the camera for WxH pixels (1280x720).")
    ] = None,
    model: ModelOpt = None,
    threads: ThreadsOpt = None,
) -> None:
    """Watch the table live: every card outlined, steady counts per player, keys to score."""
    from scoring.home import tallero_home
    from vision.live.settings import LiveSettings
    from vision.live.sources import Recorder, open_source, parse_size
    from vision.live.watch import JsonLines, Watcher, watch_events
    from vision.live.window import HighguiWindow, Panel, has_display

    if not as_json and not has_display():
        raise NoDisplay(
            "no display for the window (DISPLAY/WAYLAND_DISPLAY unset or OpenCV without a "
            "GUI); use --json to watch without one"
        )
    if max_frames is not None and max_frames < 1:
        raise UsageError("--max-frames must be at least 1")
    settings = LiveSettings()
    src = open_source(source, parse_size(size), settings.frame_timeout_s)
    game_id, rows = _game(game)
    counter = make_counter(model, None, profile, threads, live=True)
    unknown = [d for d, _ in rows if d not in counter.decks]
    if unknown:
        raise UsageError(
            f"the deck model does not know {', '.join(unknown)}; enroll them (tallero enroll "
            "backs) or pick their profile with --profile"
        )
    decks = tuple(d for d, _ in rows) or counter.decks
    watcher = Watcher(counter, decks, settings, fps=src.fps)
    recorder = Recorder(record) if record is not None else None
    events = watch_events(src, watcher, max_frames, recorder)
    if as_json:
        lines = JsonLines(settings.json_every_s)
        for event in events:
            out = lines.line(event)
            if out is not None:
                emit_json(out)
        emit_json(lines.final())
        return
    home = tallero_home()
    window = HighguiWindow()
    try:
        taker = RoundTaker(home, game_id, home / "snapshots")
        run_window(events, window, taker, Panel(rows or [(d, d) for d in decks]))
    finally:
        window.close()
