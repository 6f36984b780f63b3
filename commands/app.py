"""The ``tallero`` Typer app, the options its commands share, and how they print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scoring.errors import UsageError

if TYPE_CHECKING:
    from scoring.ledger import Game
    from vision.count.counter import Counter

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
enroll_app = typer.Typer(help="Learn your own decks from photos of them.", no_args_is_help=True)
app.add_typer(game_app, name="game")
app.add_typer(dataset_app, name="dataset")
app.add_typer(enroll_app, name="enroll")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (see README).")]
GameOpt = Annotated[int | None, typer.Option("--game", help="Game id (default: the current game).")]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Write counts that look like a mistake anyway.")
]
ReasonOpt = Annotated[str, typer.Option("--reason", help="Why; kept in the round's history.")]
CountsOpt = Annotated[list[str] | None, typer.Option(help="Per-player counts: Ann=12,Ben=9")]
PilesOpt = Annotated[
    str | None,
    typer.Option(
        help="Top card of each Dutch pile, 'down' for a finished pile (e.g. 10,down,7): "
        "cross-checked against the Dutch counts."
    ),
]
ModelOpt = Annotated[
    Path | None,
    typer.Option("--model", help="Card detector .onnx (or .pt via ultralytics); default: shipped."),
]
DecksOpt = Annotated[
    str | None,
    typer.Option("--decks", help="Decks of the profile, comma-separated (default: all known)."),
]
ThreadsOpt = Annotated[int | None, typer.Option("--threads", help="CPU threads for inference.")]
ProfileOpt = Annotated[
    str | None,
    typer.Option(
        "--profile",
        help="Profile of enrolled decks (default: $TALLERO_PROFILE, else 'default'; with "
        "nothing enrolled, the built-in decks).",
    ),
]


def emit_json(payload: object) -> None:
    """One JSON object on stdout (the ``--json`` contracts in the README)."""
    typer.echo(json.dumps(payload, ensure_ascii=False))


def print_table(table: object) -> None:
    """A rich table on stdout."""
    from rich.console import Console

    Console().print(table)


def echo_progress(message: str) -> None:
    """A progress line on stderr (stdout stays for results)."""
    typer.echo(message, err=True)


def report_status(game: Game) -> None:
    """The end of the game, or a tie at the top, after a round."""
    status = game.standing()
    if status.over:
        typer.echo(
            f"Game over: {' and '.join(status.winners)} won with {max(status.totals.values())}."
        )
    elif status.tied_at_target:
        typer.echo(f"Tie at the top ({', '.join(status.leaders)}): play another round.")


def pile_tops(piles: str | None) -> list[str] | None:
    """``--piles 10,down,7`` as a list of tops (checked by `scoring.crosscheck`)."""
    if piles is None:
        return None
    from scoring.crosscheck import pile_size

    tops = [t.strip() for t in piles.split(",") if t.strip()]
    if not tops:
        raise UsageError("--piles needs at least one pile top (1..10 or 'down')")
    for top in tops:
        pile_size(top)  # a bad top is refused before any photo is counted
    return tops


def deck_list(decks: str | None) -> tuple[str, ...] | None:
    """``--decks pump,plow`` as deck ids (None: not given)."""
    if decks is None:
        return None
    names = tuple(d.strip() for d in decks.split(",") if d.strip())
    if not names:
        raise UsageError("--decks needs at least one deck id")
    return names


def make_counter(
    model: Path | None,
    decks: str | None,
    profile: str | None,
    threads: int | None = None,
    live: bool = False,
) -> Counter:
    """The counter for a command: the profile's enrolled decks, else the built-in ones
    (``live``: the quick settings for webcam frames)."""
    from vision.count.counter import Counter
    from vision.enroll.profiles import classifier_for

    classifier, enrolled = classifier_for(profile)
    return Counter(
        model_path=model,
        classifier_path=classifier,
        decks=deck_list(decks) or enrolled,
        threads=threads,
        live=live,
    )
