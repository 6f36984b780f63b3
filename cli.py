"""`tallero`: the thin command-line front that wires scoring/ and vision/ together.

Score-sheet commands import neither torch nor ultralytics, so they start fast; the
camera commands import ``vision`` lazily inside their own functions.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from scoring.errors import TalleroError, UsageError

app = typer.Typer(
    name="tallero",
    help="Tallero: scores Dutch Blitz rounds from the table and keeps the score sheet.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
game_app = typer.Typer(help="Start a game.", no_args_is_help=True)
dataset_app = typer.Typer(
    help="Synthetic table photos for training and evaluation.", no_args_is_help=True
)
app.add_typer(game_app, name="game")
app.add_typer(dataset_app, name="dataset")


def fail(message: str, code: int = 1) -> None:
    """Print one clear line on stderr and exit with ``code``."""
    typer.echo(f"tallero: error: {message}", err=True)
    raise typer.Exit(code)


# --- score-sheet commands ----------------------------------------------------------------

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (see README).")]
GameOpt = Annotated[int | None, typer.Option("--game", help="Game id (default: the current game).")]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Write counts that look like a mistake anyway.")
]
ReasonOpt = Annotated[str, typer.Option("--reason", help="Why; kept in the round's history.")]
CountsOpt = Annotated[list[str] | None, typer.Option(help="Per-player counts: Ann=12,Ben=9")]


def emit_json(payload: object) -> None:
    typer.echo(json.dumps(payload, ensure_ascii=False))


def print_table(table: object) -> None:
    from rich.console import Console

    Console().print(table)


@game_app.command("new")
def game_new(
    seats: Annotated[
        list[str], typer.Argument(help="Players and their decks: Ann=pump Ben=carriage")
    ],
    target: Annotated[int, typer.Option(help="Points that end the game.")] = 75,
    tie: Annotated[
        str, typer.Option(help="Tie for highest at the end: play-on or share.")
    ] = "play-on",
    name: Annotated[str | None, typer.Option(help="A name for the game.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Start a game: 2 to 8 players, each bound to one deck."""
    from scoring.decks import deck_by_name
    from scoring.game import GameSetup, Seat, TiePolicy
    from scoring.ledger import Ledger
    from scoring.parse import split_pairs
    from scoring.report import game_json

    try:
        policy = TiePolicy(tie)
    except ValueError:
        raise UsageError(f"--tie must be play-on or share, not {tie!r}") from None
    setup = GameSetup(
        tuple(Seat(p, deck_by_name(d)) for p, d in split_pairs(seats, "players")),
        target=target,
        tie=policy,
    )
    with Ledger.open() as ledger:
        game = ledger.new_game(setup, name)
    if as_json:
        emit_json({"game": game_json(game)})
        return
    players = ", ".join(f"{s.player} ({s.deck.display})" for s in setup.seats)
    typer.echo(f"Game {game.id} '{game.name}' started: {players}; first to {setup.target}.")


@app.command("games")
def games(as_json: JsonOpt = False) -> None:
    """List every game with its standing."""
    from rich.table import Table

    from scoring.ledger import Ledger
    from scoring.report import game_json, standing_json

    with Ledger.open() as ledger:
        ids = ledger.game_ids()
        current = ledger.current_game_id() if ids else None
        all_games = [ledger.game(i) for i in ids]
    if as_json:
        emit_json(
            {
                "games": [
                    {
                        **game_json(g),
                        "rounds": len(g.live_rounds),
                        "current": g.id == current,
                        **standing_json(g),
                    }
                    for g in all_games
                ]
            }
        )
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
            g.name,
            ", ".join(g.setup.players),
            str(len(g.live_rounds)),
            state,
        )
    print_table(table)


@app.command("round")
def round_(
    dutch: CountsOpt = None,
    blitz: CountsOpt = None,
    piles: Annotated[
        str | None,
        typer.Option(
            help="Top card of each Dutch pile, 'down' for a finished pile (e.g. 10,down,7): "
            "cross-checked against the Dutch counts."
        ),
    ] = None,
    game: GameOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Score a round by hand: every player's Dutch cards and Blitz cards left."""
    from scoring.crosscheck import check_dutch_piles
    from scoring.ledger import Ledger
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
        if piles is not None:
            tops = [t for t in piles.split(",") if t.strip()]
            dutch_counts = {p: counts[p].dutch for p in setup.players}
            problems = check_dutch_piles(tops, dutch_counts).problems
        game_id = game if game is not None else ledger.current_game_id()
        number = ledger.add_round(game_id, counts, force=force, extra_warnings=problems)
        after = ledger.game(game_id)
    warnings = round_warnings(counts) + list(problems)
    if as_json:
        emit_json(round_json(after, number, 1, counts, warnings))
        return
    for warning in warnings:
        typer.echo(f"warning (forced): {warning}", err=True)
    print_table(round_table(after, number, counts))
    report_status(after)


def report_status(game: object) -> None:
    from scoring.ledger import Game

    assert isinstance(game, Game)
    status = game.standing()
    if status.over:
        typer.echo(
            f"Game over: {' and '.join(status.winners)} won with {max(status.totals.values())}."
        )
    elif status.tied_at_target:
        typer.echo(f"Tie at the top ({', '.join(status.leaders)}): play another round.")


@app.command("sheet")
def sheet(
    game: GameOpt = None,
    as_json: JsonOpt = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the sheet as CSV.")] = False,
) -> None:
    """The score sheet: one column per round, the totals, the leader and the winner."""
    from scoring.ledger import Ledger
    from scoring.report import sheet_csv, sheet_json, sheet_notes, sheet_table

    if as_json and as_csv:
        raise UsageError("choose one of --json and --csv")
    with Ledger.open() as ledger:
        g = ledger.game(game)
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
    round_number: Annotated[int, typer.Argument(metavar="ROUND", help="Round number.")],
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
        revision, counts = ledger.amend_round(g.id, round_number, d, b, reason, force=force)
        after = ledger.game(g.id)
    if as_json:
        emit_json(
            {
                **round_json(after, round_number, revision, counts, round_warnings(counts)),
                "reason": reason,
            }
        )
        return
    typer.echo(f"Round {round_number} amended (revision {revision}): {reason}")
    print_table(round_table(after, round_number, counts))
    report_status(after)


@app.command("undo")
def undo(reason: ReasonOpt, game: GameOpt = None, as_json: JsonOpt = False) -> None:
    """Undo the last round; it stays in the history as a revision."""
    from scoring.ledger import Ledger
    from scoring.report import standing_json

    with Ledger.open() as ledger:
        game_id = game if game is not None else ledger.current_game_id()
        number = ledger.undo_last_round(game_id, reason)
        after = ledger.game(game_id)
    if as_json:
        emit_json(
            {
                "game": game_id,
                "round": number,
                "undone": True,
                "reason": reason,
                **standing_json(after),
            }
        )
        return
    typer.echo(f"Round {number} undone: {reason}")


@app.command("history")
def history(
    round_number: Annotated[int, typer.Argument(metavar="ROUND", help="Round number.")],
    game: GameOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every revision of a round: counts, reasons and evidence."""
    from scoring.ledger import Ledger
    from scoring.report import history_json

    with Ledger.open() as ledger:
        g = ledger.game(game)
        revisions = ledger.history(g.id, round_number)
    if as_json:
        emit_json(history_json(g, round_number, revisions))
        return
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
            typer.echo(
                f"  evidence: {e.role} photo {e.path} (sha256 {e.sha256[:12]}, model {e.model_id})"
            )


DEMO_GAME = (
    ["game", "new", "Ann=pump", "Ben=carriage", "Cy=plow", "--target", "40", "--name", "Demo"],
    ["round", "--dutch", "Ann=14,Ben=9,Cy=11", "--blitz", "Ann=0,Ben=3,Cy=2"],
    ["round", "--dutch", "Ann=8,Ben=17,Cy=10", "--blitz", "Ann=4,Ben=0,Cy=12"],
    ["round", "--dutch", "Ann=8,Ben=17,Cy=10", "--blitz", "Ann=4,Ben=0,Cy=1"],
    ["amend", "2", "--dutch", "Cy=13", "--reason", "three of Cy's cards were under the box"],
    ["round", "--dutch", "Ann=20,Ben=12,Cy=9", "--blitz", "Ann=0,Ben=2,Cy=6"],
    ["round", "--dutch", "Ann=10,Ben=9,Cy=12", "--blitz", "Ann=0,Ben=1,Cy=3"],
    ["sheet"],
)


@app.command("demo")
def demo() -> None:
    """Play a scripted sample game in a throw-away ledger and print its sheet."""
    import os
    import shlex
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tallero-demo-") as tmp:
        old = os.environ.get("TALLERO_HOME")
        os.environ["TALLERO_HOME"] = tmp
        try:
            for args in DEMO_GAME:
                typer.echo(f"\n$ tallero {shlex.join(args)}")
                try:
                    app(args, standalone_mode=False)
                except TalleroError as exc:  # the demo shows a mistake being caught
                    typer.echo(f"tallero: error: {exc}")
        finally:
            if old is None:
                os.environ.pop("TALLERO_HOME", None)
            else:
                os.environ["TALLERO_HOME"] = old


# --- dataset commands --------------------------------------------------------------------


# --- camera commands ---------------------------------------------------------------------


def main() -> None:
    """Entry point: user mistakes become one line on stderr and a non-zero exit."""
    try:
        app(standalone_mode=False)
    except TalleroError as exc:
        typer.echo(f"tallero: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("tallero: aborted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        typer.echo("tallero: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        # Command-line parsing errors (typer's click exceptions) arrive here when not
        # in standalone mode; they carry their own message and exit code (2 for usage).
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            message = exc.format_message()
            if message:  # empty after no_args_is_help has printed the help
                typer.echo(f"tallero: error: {message}", err=True)
            sys.exit(exc.exit_code)
        raise


if __name__ == "__main__":
    main()
