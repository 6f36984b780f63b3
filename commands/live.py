"""`tallero watch`: the live view of the table, its steady counts, and a round from it."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol

import typer

from commands.app import JsonOpt, ModelOpt, ProfileOpt, ThreadsOpt, app, emit_json, make_counter
from commands.piles import PilesReader
from commands.taker import RoundTaker
from scoring.errors import LedgerError, TalleroError, UsageError

if TYPE_CHECKING:
    from vision.live.tally import SortTally
    from vision.live.watch import Event, Tick
    from vision.live.window import Panel

FLASH_S = 1.0  # a card just counted flashes this long (s of the picture's clock)


class NoDisplay(TalleroError):
    """A window was asked for where none can be opened."""


class Screen(Protocol):
    """Where the window loop shows pictures and reads keys (a stub in tests)."""

    def show(self, picture: Any) -> None: ...
    def key(self) -> str | None: ...


def run_window(events: Iterable[Event], screen: Screen, taker: RoundTaker, panel: Panel) -> None:
    """Show every event on ``screen`` and act on its keys until ``q`` or the end."""
    from vision.live.watch import Fault
    from vision.live.window import draw_window
    from vision.piles.annotate import annotate_piles

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
            reply = taker.follow(tick)
            if reply is not None:
                panel.message, panel.error = reply.message, reply.error
        panel.taken = taker.taken_lines()
        piles = taker.piles_in_view(tick)
        panel.overlay = None if piles is None else functools.partial(annotate_piles, piles=piles)
        if taker.tally is not None:
            tally_panel(taker.tally, panel, tick.t, taker.labels)
        picture = draw_window(tick, panel)
        screen.show(picture)
        key = screen.key()
        reply = taker.press(key, tick, picture) if key else None
        if reply is not None:
            if reply.quit:
                return
            panel.message, panel.error = reply.message, reply.error


def tally_panel(tally: SortTally, panel: Panel, t: float, labels: dict[str, str]) -> None:
    """The panel's tally lines (one per player) and the cards counted in the last
    ``FLASH_S`` to flash, with their deck."""
    from vision.live.tally import COUNTED, MOVED

    counts = tally.counts()
    panel.tally = [f"{label}: {counts.get(deck, 0)}" for deck, label in panel.rows]
    panel.flash = []
    for event in reversed(tally.events):
        if t - event.t > FLASH_S:
            break
        outline = tally.outline_of(event.card)
        if event.kind in (COUNTED, MOVED) and outline is not None:
            sign = "+1" if event.kind == COUNTED else "moved"
            panel.flash.append((f"{sign} {labels.get(event.deck, event.deck)}", outline))


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
        str | None,
        typer.Option("--size", help="Ask a camera for WxH pixels (default 1280x720; 640x480 ...)."),
    ] = None,
    model: ModelOpt = None,
    threads: ThreadsOpt = None,
    tally: Annotated[
        bool,
        typer.Option(
            "--tally",
            help="Also count each card as it is laid down while sorting (u undoes the last).",
        ),
    ] = False,
) -> None:
    """Watch the table live: every card outlined, steady counts per player, keys to score."""
    from scoring.home import tallero_home
    from vision.live.counting import Beside, InLoop, Pace, Replayed
    from vision.live.settings import LiveSettings
    from vision.live.sources import FolderSource, Recorder, open_source, parse_size
    from vision.live.still import StillCheck
    from vision.live.tally import SortTally
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
    sort_tally = SortTally(decks) if tally else None
    # A camera's frames keep coming while a frame is counted: counted beside the loop, the
    # window keeps the camera's pace. A file waits for each count (the same every run); a
    # recorded session is counted at the pace it was (its counts taken when they were).
    pace: Pace = Beside() if src.live else InLoop()
    if isinstance(src, FolderSource) and src.taken_at is not None and src.times is not None:
        pace = Replayed(src.taken_at, src.times)
    watcher = Watcher(counter, decks, settings, fps=src.fps, tally=sort_tally, pace=pace)
    recorder = Recorder(record) if record is not None else None
    events = watch_events(src, watcher, max_frames, recorder)
    if as_json:
        lines = JsonLines(settings.json_every_s, sort_tally)
        for event in events:
            out = lines.line(event)
            if out is not None:
                emit_json(out)
        emit_json(lines.final())
        return
    home = tallero_home()
    window = HighguiWindow()
    try:
        labels = dict(rows) or {d: d for d in decks}
        taker = RoundTaker(
            home,
            game_id,
            home / "snapshots",
            sort_tally,
            watcher.count_photo,
            labels,
            PilesReader(model, profile, threads, decks).read,
            settings.piles_frames,
            settings.piles_every_s,
            StillCheck(settings).same_table,
        )
        run_window(events, window, taker, Panel(rows or [(d, d) for d in decks]))
    finally:
        window.close()
