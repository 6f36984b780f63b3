"""The score sheet by hand: start a game, score, correct and undo rounds, read the sheet."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from commands.app import (
    AgainOpt,
    CountsOpt,
    ForceOpt,
    GameOpt,
    JsonOpt,
    Output,
    PilesOpt,
    ReasonOpt,
    RoundArg,
    app,
    emit_json,
    game_app,
    pile_tops,
    print_table,
    report_status,
)
from scoring.errors import UsageError
from scoring.parse import whole_number_option

if TYPE_CHECKING:
    from scoring.evidence import EvidenceCheck
    from scoring.ledger import Game, Ledger, Revision


def enrolled_deck_names(profile: str | None) -> tuple[str, ...]:
    """Deck names enrolled in the profile (read from its JSON file; no model is loaded)."""
    from scoring.home import tallero_home
    from vision.enroll.profiles import ProfileStore, profile_name

    return ProfileStore(tallero_home()).load(profile_name(profile)).deck_names


def start_game(
    seats: list[str],
    target: int,
    tie: str,
    name: str | None,
    profile: str | None,
    home: Path | None = None,
) -> Game:
    """Record a new game from ``Ann=pump`` seats (``tallero game new``) and make it current."""
    from scoring.decks import deck_by_name
    from scoring.game import GameSetup, Seat, TiePolicy
    from scoring.ledger import Ledger
    from scoring.parse import split_pairs

    try:
        policy = TiePolicy(tie)
    except ValueError:
        raise UsageError(f"--tie must be play-on or share, not {tie!r}") from None
    enrolled = enrolled_deck_names(profile)
    setup = GameSetup(
        tuple(Seat(p, deck_by_name(d, enrolled)) for p, d in split_pairs(seats, "players")),
        target=target,
        tie=policy,
    )
    with Ledger.open(home) as ledger:
        return ledger.new_game(setup, name)


def games_json(ledger: Ledger) -> dict[str, Any]:
    """``tallero games --json``: every game with its round count and standing."""
    from scoring.report import game_json, standing_json

    ids = ledger.game_ids()
    current = ledger.current_game_id() if ids else None
    return {
        "games": [
            {
                **game_json(g),
                "rounds": len(g.live_rounds),
                "current": g.id == current,
                **standing_json(g),
            }
            for g in (ledger.game(i) for i in ids)
        ]
    }


@game_app.command("new")
def game_new(
    seats: Annotated[
        list[str], typer.Argument(help="Players and their decks: Ann=pump Ben=carriage")
    ],
    target: Annotated[
        int, typer.Option(help="Points that end the game.", parser=whole_number_option("--target"))
    ] = 75,
    tie: Annotated[
        str, typer.Option(help="Tie for highest at the end: play-on or share.")
    ] = "play-on",
    name: Annotated[str | None, typer.Option(help="A name for the game.")] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", help="Profile whose enrolled decks may be used.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Start a game: 2 to 8 players, each bound to one deck."""
    from scoring.report import game_json

    game = start_game(seats, target, tie, name, profile)
    setup = game.setup
    if as_json:
        emit_json({"game": game_json(game)})
        return
    players = ", ".join(f"{s.player} ({s.deck.display})" for s in setup.seats)
    typer.echo(f"Game {game.id} '{game.name}' started: {players}; first to {setup.target}.")


@app.command("games")
def games(as_json: JsonOpt = False) -> None:
    """List every game with its standing."""
    from rich.table import Table
    from rich.text import Text

    from scoring.ledger import Ledger

    with Ledger.open(readonly=True) as ledger:
        listing = games_json(ledger)
        all_games = [ledger.game(i) for i in ledger.game_ids()]
        current = ledger.current_game_id() if all_games else None
    if as_json:
        emit_json(listing)
        return
    if not all_games:
        typer.echo("No games yet: start one with `tallero game new Ann=pump Ben=carriage`.")
        return
    table = Table(title="Games", title_justify="left")
    for col in ("", "Id", "Name", "Players", "Rounds", "Status"):
        table.add_column(col)
    for g in all_games:
        status = g.standing()
        state = (
            f"won by {' and '.join(status.winners)}"
            if status.over
            else (
                f"{', '.join(status.leaders)} lead{'s' if len(status.leaders) == 1 else ''}"
                if g.live_rounds
                else "not started"
            )
        )
        table.add_row(
            "*" if g.id == current else "",
            str(g.id),
            Text(g.name),
            Text(", ".join(g.setup.players)),
            str(len(g.live_rounds)),
            Text(state),
        )
    print_table(table)


@app.command("round")
def round_(
    dutch: CountsOpt = None,
    blitz: CountsOpt = None,
    piles: PilesOpt = None,
    game: GameOpt = None,
    force: ForceOpt = False,
    again: AgainOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Score a round by hand: every player's Dutch cards and Blitz cards left."""
    from scoring.crosscheck import check_dutch_piles
    from scoring.ledger import REPEAT_WINDOW_S, Ledger
    from scoring.parse import parse_counts
    from scoring.report import round_json, round_table
    from scoring.rules import build_round, round_warnings

    if not dutch or not blitz:
        raise UsageError(
            "both --dutch and --blitz are required, e.g. --dutch Ann=12,Ben=9 --blitz Ann=0,Ben=3"
        )
    with Ledger.open() as ledger:
        setup = ledger.game(game).setup
        counts = build_round(
            setup.players,
            {setup.player_named(k): v for k, v in parse_counts(dutch, "Dutch").items()},
            {setup.player_named(k): v for k, v in parse_counts(blitz, "Blitz").items()},
        )
        problems: tuple[str, ...] = ()
        tops = pile_tops(piles)
        if tops is not None:
            dutch_counts = {p: counts[p].dutch for p in setup.players}
            problems = check_dutch_piles(tops, dutch_counts).problems
        game_id = game if game is not None else ledger.current_game_id()
        warnings = round_warnings(counts) + list(problems)
        out = Output()

        def prepare(after: Game, number: int) -> None:
            if as_json:
                out.json(round_json(after, number, 1, counts, warnings))
                return
            for warning in warnings:
                out.line(f"warning (forced): {warning}", err=True)
            out.table(round_table(after, number, counts))
            report_status(after, out)

        ledger.add_round(
            game_id,
            counts,
            force=force,
            extra_warnings=problems,
            repeat_window_s=None if again else REPEAT_WINDOW_S,
            prepare=prepare,
        )
    out.flush()


@app.command("sheet")
def sheet(
    game: GameOpt = None,
    as_json: JsonOpt = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the sheet as CSV.")] = False,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Write the sheet as an HTML page linking each round's audit."),
    ] = None,
) -> None:
    """The score sheet: one column per round, the totals, the leader and the winner."""
    from scoring.ledger import Ledger
    from scoring.report import sheet_csv, sheet_json, sheet_notes, sheet_table

    if as_json and as_csv:
        raise UsageError("choose one of --json and --csv")
    with Ledger.open(readonly=True) as ledger:
        g = ledger.game(game)
    if html is not None:
        from commands.audit_page import write_sheet_page

        write_sheet_page(html, g)
        if not (as_json or as_csv):
            typer.echo(f"Sheet written to {html}")
            return
    if as_json:
        emit_json(sheet_json(g))
    elif as_csv:
        typer.echo(sheet_csv(g), nl=False)
    else:
        print_table(sheet_table(g))
        for note in sheet_notes(g):
            typer.echo(note)


@app.command("amend")
def amend(
    round_number: RoundArg,
    reason: ReasonOpt,
    dutch: CountsOpt = None,
    blitz: CountsOpt = None,
    game: GameOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Correct a round: a new revision with the changed counts and a reason."""
    from scoring.ledger import Ledger
    from scoring.parse import parse_counts
    from scoring.report import round_json, round_table
    from scoring.rules import round_warnings

    if not dutch and not blitz:
        raise UsageError("give the corrected counts with --dutch and/or --blitz")
    with Ledger.open() as ledger:
        g = ledger.game(game)
        d = {g.setup.player_named(k): v for k, v in parse_counts(dutch or [], "Dutch").items()}
        b = {g.setup.player_named(k): v for k, v in parse_counts(blitz or [], "Blitz").items()}
        out = Output()

        def prepare(after: Game, number: int) -> None:
            revision = next(r.revision for r in after.rounds if r.number == number)
            counts = next(r.counts for r in after.rounds if r.number == number)
            assert counts is not None
            if as_json:
                result = round_json(after, number, revision, counts, round_warnings(counts))
                out.json({**result, "reason": reason})
                return
            out.line(f"Round {number} amended (revision {revision}): {reason}")
            out.table(round_table(after, number, counts))
            report_status(after, out)

        ledger.amend_round(g.id, round_number, d, b, reason, force=force, prepare=prepare)
    out.flush()


@app.command("undo")
def undo(reason: ReasonOpt, game: GameOpt = None, as_json: JsonOpt = False) -> None:
    """Undo the last round; it stays in the history as a revision."""
    from scoring.ledger import Ledger
    from scoring.report import standing_json

    with Ledger.open() as ledger:
        game_id = game if game is not None else ledger.current_game_id()
        out = Output()

        def prepare(after: Game, number: int) -> None:
            if as_json:
                out.json(
                    {
                        "game": game_id,
                        "round": number,
                        "undone": True,
                        "reason": reason,
                        **standing_json(after),
                    }
                )
            else:
                out.line(f"Round {number} undone: {reason}")

        ledger.undo_last_round(game_id, reason, prepare=prepare)
    out.flush()


@app.command("history")
def history(
    round_number: RoundArg,
    game: GameOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every revision of a round: counts, reasons and evidence (each file's hash checked)."""
    from scoring.evidence import check_evidence, require_intact
    from scoring.ledger import Ledger
    from scoring.report import history_json

    with Ledger.open(readonly=True) as ledger:
        g = ledger.game(game)
        revisions = ledger.history(g.id, round_number)
    checks = {e.path: check_evidence(e) for rev in revisions for e in rev.evidence}
    if as_json:
        emit_json(history_json(g, round_number, revisions, checks))
    else:
        _print_history(g, round_number, revisions, checks)
    # The whole history is printed first; a missing or changed photo then fails the command.
    require_intact(list(checks.values()), f"evidence of round {round_number} is not intact")


def _print_history(
    g: Game, round_number: int, revisions: list[Revision], checks: dict[str, EvidenceCheck]
) -> None:
    typer.echo(f"Round {round_number} of {g.name} (game {g.id}): {len(revisions)} revision(s)")
    for rev in revisions:
        what = {"new": "scored", "amend": "amended", "undo": "undone"}[rev.kind]
        typer.echo(
            f"\nrevision {rev.number}  {rev.created_at}  {what}"
            + (f": {rev.reason}" if rev.reason else "")
        )
        for warning in rev.warnings:
            typer.echo(f"  forced past: {warning}")
        if rev.counts:
            for seat in g.setup.seats:
                c = rev.counts[seat.player]
                typer.echo(
                    f"  {seat.player:<12} Dutch {c.dutch:>2}  Blitz {c.blitz:>2}  {c.points:+d}"
                )
        for e in rev.evidence:
            status = checks[e.path].status
            mark = "intact" if status == "ok" else status.upper()
            typer.echo(
                f"  evidence: {e.role} photo {e.path} (sha256 {e.sha256[:12]}, model "
                f"{e.model_id}): {mark}"
            )
