"""The ``tallero`` Typer app, the options its commands share, and how they print."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scoring.errors import UsageError
from scoring.parse import whole_number_option

if TYPE_CHECKING:
    from rich.console import Console

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


@app.callback()
def main_options(
    verbose: Annotated[
        bool,
        typer.Option("--verbose", "-v", help="Log what the libraries warn about (on stderr) too."),
    ] = False,
) -> None:
    """Tallero: scores Dutch Blitz rounds from the table and keeps the score sheet."""
    if verbose:
        import logging

        logging.basicConfig(level=logging.INFO, format="tallero: %(name)s: %(message)s")


app.add_typer(game_app, name="game")
app.add_typer(dataset_app, name="dataset")
app.add_typer(enroll_app, name="enroll")

MAX_THREADS = 256  # more inference threads than any machine Tallero runs on has cores
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON (see README).")]
GameOpt = Annotated[
    int | None,
    typer.Option(
        "--game",
        help="Game id (default: the current game).",
        parser=whole_number_option("--game"),
    ),
]
RoundArg = Annotated[
    int,
    typer.Argument(metavar="ROUND", help="Round number.", parser=whole_number_option("ROUND")),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Write counts that look like a mistake anyway.")
]
AgainOpt = Annotated[
    bool,
    typer.Option(
        "--again",
        help="Write a round with the same counts as the last one, minutes after it "
        "(without it, that is taken for the same command run twice and refused).",
    ),
]
ReasonOpt = Annotated[str, typer.Option("--reason", help="Why; kept in the round's history.")]
CountsOpt = Annotated[list[str] | None, typer.Option(help="Per-player counts: Ann=12,Ben=9")]
PilesOpt = Annotated[
    str | None,
    typer.Option(
        help="Top card of each Dutch pile, 'down' for a finished pile (e.g. 10,down,7): "
        "cross-checked against the Dutch counts (score: their total settles them as "
        "--piles-photo's does)."
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
ThreadsOpt = Annotated[
    int | None,
    typer.Option(
        "--threads",
        help="CPU threads for inference.",
        parser=whole_number_option("--threads", 1, MAX_THREADS),
    ),
]
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


def _console() -> Console:
    # markup off: a name a user typed is never read as rich markup (tables also wrap
    # every user string in a Text; this is the second guard).
    from rich.console import Console

    return Console(markup=False, highlight=False)


def print_table(table: object) -> None:
    """A rich table on stdout."""
    _console().print(table)


class Output:
    """What a command prints after a write, rendered before the write is committed.

    A command fills it in the ledger's ``prepare`` step (inside the transaction), so a
    failure to render rolls the write back; after the commit only `flush` runs, which
    writes the finished text and cannot fail on the data.
    """

    def __init__(self) -> None:
        self._parts: list[tuple[str, bool]] = []  # (text, to stderr)

    def line(self, text: str, err: bool = False) -> None:
        """One line of plain text (stdout, or stderr with ``err``)."""
        self._parts.append((text + "\n", err))

    def json(self, payload: object) -> None:
        """One JSON object on stdout (the ``--json`` contracts)."""
        self.line(json.dumps(payload, ensure_ascii=False))

    def table(self, table: object) -> None:
        """A rich table, rendered now for the terminal it will be printed on."""
        console = _console()
        with console.capture() as captured:
            console.print(table)
        self._parts.append((captured.get(), False))

    def flush(self) -> None:
        """Print everything rendered, in order."""
        for text, err in self._parts:
            typer.echo(text, err=err, nl=False)


def echo_progress(message: str) -> None:
    """A progress line on stderr (stdout stays for results)."""
    typer.echo(message, err=True)


def report_status(game: Game, out: Output) -> None:
    """The end of the game, or a tie at the top, after a round."""
    status = game.standing()
    if status.over:
        out.line(
            f"Game over: {' and '.join(status.winners)} won with {max(status.totals.values())}."
        )
    elif status.tied_at_target:
        out.line(f"Tie at the top ({', '.join(status.leaders)}): play another round.")


def pile_tops(piles: str | None) -> list[str] | None:
    """``--piles 10,down,7`` as a list of tops (checked by `scoring.crosscheck`)."""
    if piles is None:
        return None
    from scoring.parse import split_tops

    tops = split_tops(piles)  # a bad top is refused before any photo is counted
    if not tops:
        raise UsageError("--piles needs at least one pile top (1..10 or 'down')")
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
    from vision.enroll.profiles import check_enrolled, profile_counter

    check_enrolled(profile)
    return profile_counter(profile, model, deck_list(decks), threads, live)
