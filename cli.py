"""`tallero`: the thin command-line front that wires scoring/ and vision/ together.

Score-sheet commands import neither torch nor ultralytics, so they start fast; the
camera commands import ``vision`` lazily inside their own functions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
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
PilesOpt = Annotated[
    str | None,
    typer.Option(
        help="Top card of each Dutch pile, 'down' for a finished pile (e.g. 10,down,7): "
        "cross-checked against the Dutch counts."
    ),
]


def _pile_tops(piles: str | None) -> list[str] | None:
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


def emit_json(payload: object) -> None:
    typer.echo(json.dumps(payload, ensure_ascii=False))


def print_table(table: object) -> None:
    from rich.console import Console

    Console().print(table)


def enrolled_deck_names(profile: str | None) -> tuple[str, ...]:
    """Deck names enrolled in the profile (read from its JSON file; no model is loaded)."""
    from scoring.home import tallero_home
    from vision.enroll.profiles import ProfileStore, profile_name

    return ProfileStore(tallero_home()).load(profile_name(profile)).deck_names


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
    profile: Annotated[
        str | None, typer.Option("--profile", help="Profile whose enrolled decks may be used.")
    ] = None,
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
    enrolled = enrolled_deck_names(profile)
    setup = GameSetup(
        tuple(Seat(p, deck_by_name(d, enrolled)) for p, d in split_pairs(seats, "players")),
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
    piles: PilesOpt = None,
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
        tops = _pile_tops(piles)
        if tops is not None:
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


@app.command("score")
def score(
    dutch_photo: Annotated[
        Path, typer.Option("--dutch", help="Photo of the sorted Dutch cards, backs up.")
    ],
    blitz_photo: Annotated[
        Path | None, typer.Option("--blitz", help="Photo of the Blitz leftovers, backs up.")
    ] = None,
    game: GameOpt = None,
    commit: Annotated[
        bool, typer.Option("--commit", help="Append the round to the sheet with its evidence.")
    ] = False,
    accept: Annotated[
        bool, typer.Option("--accept", help="Confirm the flagged cards: the counts stand.")
    ] = False,
    fix_dutch: CountsOpt = None,
    fix_blitz: CountsOpt = None,
    reason: Annotated[
        str | None, typer.Option("--reason", help="Why counts were corrected or accepted.")
    ] = None,
    piles: PilesOpt = None,
    annotate: Annotated[
        Path | None,
        typer.Option("--annotate", help="Folder for annotated photos (default: in TALLERO_HOME)."),
    ] = None,
    model: Annotated[Path | None, typer.Option("--model", help="Detector to use.")] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", help="Profile of enrolled decks.")
    ] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Score a round from photos: count every deck, map decks to players, show the round."""
    from scoring.evidence import commit_photo_round, keep_photo, photo_round_json
    from scoring.home import tallero_home
    from scoring.ledger import Evidence, Ledger
    from scoring.parse import parse_counts
    from scoring.report import round_table
    from scoring.rules import build_round
    from scoring.tally import Tally, round_from_tallies
    from vision.count.photos import count_photos

    home = tallero_home()
    with Ledger.open(home) as ledger:
        g = ledger.game(game)
    named = g.setup.player_named
    fixes_d = {named(k): v for k, v in parse_counts(fix_dutch or [], "Dutch").items()}
    fixes_b = {named(k): v for k, v in parse_counts(fix_blitz or [], "Blitz").items()}
    if (fixes_d or fixes_b) and not (reason and reason.strip()):
        raise UsageError('a hand correction needs --reason "..."')
    counter = make_counter(model, None, profile)
    known = counter.decks  # type: ignore[attr-defined]
    unknown_decks = [s.deck.id for s in g.setup.seats if s.deck.id not in known]
    if unknown_decks:
        raise UsageError(
            f"the deck model does not know {', '.join(unknown_decks)}; enroll "
            "them (tallero enroll backs) or pick their profile with --profile"
        )
    game_decks = tuple(s.deck.id for s in g.setup.seats)
    photos = count_photos(
        counter, dutch_photo, blitz_photo, annotate or home / "annotated", game_decks
    )
    tallies = {
        p.role: Tally(
            p.count.counts,
            p.count.unknown,
            tuple(p.count.uncertain),
            p.count.ranges,
            sum(1 for decks in p.count.possible_could_be if decks),
        )
        for p in photos
    }
    tops = _pile_tops(piles)
    result = round_from_tallies(
        g.setup, tallies["dutch"], tallies.get("blitz"), fixes_d, fixes_b, tops
    )
    counts = build_round(g.setup.players, result.dutch, result.blitz)
    number = None
    if commit:
        evidence = []
        for p in photos:
            kept, sha = keep_photo(p.path, home)
            evidence.append(Evidence(p.role, str(kept), sha, p.to_json(), p.count.model["name"]))
        number = commit_photo_round(home, g.id, counts, result, evidence, accept, force, reason)
        with Ledger.open(home) as ledger:
            g = ledger.game(g.id)
    if as_json:
        emit_json(photo_round_json(g, counts, result, [p.to_json() for p in photos], number))
        return
    print_table(round_table(g, number, counts, result.ranges))
    for p in photos:
        typer.echo(f"{p.role} photo: {p.path} -> annotated: {p.annotated}")
    if blitz_photo is None:
        typer.echo("No Blitz photo: every Blitz pile counts 0 (correct with --fix-blitz).")
    for line in result.corrections:
        typer.echo(f"corrected by hand: {line}")
    for problem in result.problems:
        typer.echo(f"check: {problem}")
    if number is not None:
        typer.echo(f"Round {number} committed with its evidence.")
        report_status(g)
    elif result.problems:
        typer.echo(
            "Not committed. Look at the annotated photo, then --accept or correct with "
            '--fix-dutch/--fix-blitz NAME=N --reason "...", and add --commit.'
        )
    else:
        typer.echo("Not committed (add --commit to append it to the sheet).")


DEMO_GAME = (
    ["game", "new", "Ann=pump", "Ben=carriage", "Cy=plow", "--target", "40", "--name", "Demo"],
    ["round", "--dutch", "Ann=14,Ben=9,Cy=11", "--blitz", "Ann=0,Ben=3,Cy=2"],
    ["round", "--dutch", "Ann=8,Ben=17,Cy=10", "--blitz", "Ann=4,Ben=0,Cy=12"],
    ["round", "--dutch", "Ann=8,Ben=17,Cy=10", "--blitz", "Ann=4,Ben=0,Cy=1"],
    ["amend", "2", "--dutch", "Cy=13", "--reason", "three of Cy's cards were under the box"],
    ["round", "--dutch", "Ann=20,Ben=12,Cy=9", "--blitz", "Ann=0,Ben=2,Cy=6"],
    ["round", "--dutch", "Ann=10,Ben=9,Cy=12", "--blitz", "Ann=0,Ben=1,Cy=3"],
    ["sheet"],
    # A round scored from the bundled example photos (synthetic table scenes).
    ["game", "new", "Ann=pump", "Ben=carriage", "Cy=plow", "Dee=pail", "--name", "Photos"],
    [
        "score",
        "--dutch",
        "datasets/samples/synth-mini/images/000000.jpg",
        "--blitz",
        "datasets/samples/synth-mini/images/000001.jpg",
        "--annotate",
        "out/demo",
    ],
)


@app.command("demo")
def demo() -> None:
    """Play a scripted sample game in a throw-away ledger, then score the example photos.

    Run from the project folder (the example photos are in datasets/samples/); annotated
    photos are written to out/demo/.
    """
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


@dataset_app.command("synth")
def dataset_synth(
    out: Annotated[Path, typer.Argument(help="Folder to write images/, labels/, truth/ into.")],
    n: Annotated[int, typer.Option("--n", help="Number of scenes.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Dataset seed; scene i depends on it.")] = 0,
    kind: Annotated[
        str, typer.Option("--kind", help="sorted, blitz, piles, layout or mixed.")
    ] = "mixed",
    min_visible: Annotated[
        float, typer.Option("--min-visible", help="Smallest visible fraction of a card (0.2-1).")
    ] = 0.3,
    decks: Annotated[
        int | None, typer.Option("--decks", help="4 (classic) or 8 (with expansion); default both.")
    ] = None,
    imgsz: Annotated[int, typer.Option("--imgsz", help="Long side of the images, px.")] = 640,
    workers: Annotated[int, typer.Option("--workers", help="Processes to use.")] = 2,
    art: Annotated[str, typer.Option("--art", help="Art style of the decks.")] = "standin",
    start: Annotated[int, typer.Option("--start", help="Index of the first scene.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Write synthetic table photos with OBB labels and per-image truth JSON."""
    import time

    from vision.synth.generate import synthesize

    if n < 1:
        raise UsageError("--n must be at least 1")
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} exists and is not a folder")
    t0 = time.perf_counter()
    try:
        synthesize(
            out,
            n,
            seed,
            kind=kind,
            min_visible=min_visible,
            decks=decks,
            imgsz=imgsz,
            workers=workers,
            progress=not quiet,
            art=art,
            start=start,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    dt = time.perf_counter() - t0
    typer.echo(f"{n} scenes in {dt:.1f} s ({n / dt:.1f} scenes/s) -> {out / 'data.yaml'}")


@dataset_app.command("preview")
def dataset_preview(
    directory: Annotated[Path, typer.Argument(help="A synthetic dataset folder.")],
    out: Annotated[
        Path | None, typer.Option("--out", help="Contact sheet file (default DIR/preview.jpg).")
    ] = None,
    limit: Annotated[int, typer.Option("--limit", help="Number of images on the sheet.")] = 16,
    cols: Annotated[int, typer.Option("--cols", help="Images per row.")] = 4,
    no_labels: Annotated[bool, typer.Option("--no-labels", help="Images only.")] = False,
) -> None:
    """Write a contact sheet of the dataset with the labels drawn on the cards."""
    from vision.synth.preview import contact_sheet

    if limit < 1 or cols < 1:
        raise UsageError("--limit and --cols must be at least 1")
    if not (directory / "truth").is_dir():
        raise UsageError(f"{directory}: no truth/ folder; not a synthetic dataset")
    try:
        path = contact_sheet(directory, out, limit=limit, cols=cols, labels=not no_labels)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    typer.echo(f"contact sheet: {path}")


# --- camera commands ---------------------------------------------------------------------


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


def make_counter(
    model: Path | None, decks: str | None, profile: str | None, threads: int | None = None
) -> object:
    """The counter for a command: the profile's enrolled decks, else the built-in ones."""
    from vision.count.counter import Counter
    from vision.enroll.run import classifier_for

    classifier, enrolled = classifier_for(profile)
    return Counter(
        model_path=model,
        classifier_path=classifier,
        decks=_profile(decks) or enrolled,
        threads=threads,
    )


def _profile(decks: str | None) -> tuple[str, ...] | None:
    if decks is None:
        return None
    names = tuple(d.strip() for d in decks.split(",") if d.strip())
    if not names:
        raise UsageError("--decks needs at least one deck id")
    return names


def _annotated_path(out: Path, image: Path, several: bool) -> Path:
    if not several and out.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp", ".bmp"):
        return out
    return out / f"{image.stem}.annotated.png"


@app.command("count")
def count(
    images: Annotated[list[Path], typer.Argument(help="Photos or frames of the table.")],
    as_json: JsonOpt = False,
    annotate: Annotated[
        Path | None,
        typer.Option("--annotate", help="Write the annotated image here (a folder for several)."),
    ] = None,
    model: ModelOpt = None,
    decks: DecksOpt = None,
    threads: ThreadsOpt = None,
    profile: ProfileOpt = None,
) -> None:
    """Find every card with its deck and count the cards of each deck."""
    from scoring.errors import ImageError
    from vision.core.imageio import load_image
    from vision.count.annotate import count_text
    from vision.count.counter import Counter
    from vision.count.photos import write_annotated

    counter = make_counter(model, decks, profile, threads)
    assert isinstance(counter, Counter)
    bad: list[ImageError] = []
    several = len(images) > 1
    for image in images:
        try:
            image_bgr = load_image(image, counter.settings)  # decoded once: count and draw
            result = counter.count(image_bgr, name=str(image))
        except ImageError as exc:
            # One line per bad file; the last one is raised so the exit code says so.
            if bad:
                typer.echo(f"tallero: error: {bad[-1]}", err=True)
            bad.append(exc)
            continue
        if as_json:
            emit_json(result.to_json())
        else:
            ranges = result.ranges
            counts = ", ".join(f"{d} {count_text(n, ranges[d])}" for d, n in result.counts.items())
            faces = int((result.cards.side == 1).sum())
            line = f"{image}: {counts}; unknown {result.unknown}; faces {faces}"
            if result.uncertain:
                line += f"; uncertain cards {', '.join(map(str, result.uncertain))}"
            if result.possible is not None and len(result.possible):
                line += f"; possible cards not counted {len(result.possible)} (+? on the image)"
            typer.echo(line)
        if annotate is not None:
            write_annotated(image_bgr, result, _annotated_path(annotate, image, several))
    if bad:
        raise bad[-1]


@app.command("eval")
def eval_(
    directory: Annotated[Path, typer.Argument(help="Labelled synthetic set (images/, truth/).")],
    model: ModelOpt = None,
    as_json: JsonOpt = False,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N images.")] = None,
    threads: ThreadsOpt = None,
    profile: ProfileOpt = None,
) -> None:
    """Score the counter on a labelled synthetic set, per layout kind and visibility band."""
    from vision.count.counter import Counter
    from vision.evaluate.metrics import evaluate_dir, format_table

    if not (directory / "truth").is_dir():
        raise UsageError(f"{directory}: no truth/ folder; not a labelled synthetic set")
    counter = make_counter(model, None, profile, threads)
    assert isinstance(counter, Counter)

    def progress(done: int, total: int) -> None:
        if not as_json and (done % 25 == 0 or done == total):
            typer.echo(f"  {done}/{total} images", err=True)

    ev = evaluate_dir(directory, counter, limit=limit, progress=progress)
    if as_json:
        payload = ev.to_json()
        payload["model"] = counter.model_info
        emit_json(payload)
    else:
        typer.echo(format_table(ev))


@app.command("bench")
def bench(
    as_json: JsonOpt = False,
    frames: Annotated[int, typer.Option("--frames", help="Frames to time (>= 100).")] = 120,
    model: ModelOpt = None,
    baseline: Annotated[
        Path | None,
        typer.Option("--baseline", help="Weights for the plain ultralytics baseline (.pt)."),
    ] = None,
) -> None:
    """Time the live path (640x480 frames) and a 12 MP photo, against plain ultralytics."""
    from vision.evaluate.bench import format_bench, run_bench

    result = run_bench(frames=frames, model_path=model, baseline_path=baseline)
    emit_json(result) if as_json else typer.echo(format_bench(result))


@app.command("train")
def train(
    data: Annotated[Path, typer.Option("--data", help="Where the synthetic scenes go.")] = Path(
        "data/cards"
    ),
    runs: Annotated[Path, typer.Option("--runs", help="Training runs and checkpoints.")] = Path(
        "runs"
    ),
    out: Annotated[Path, typer.Option("--out", help="Where the exported models go.")] = Path(
        "models"
    ),
    images: Annotated[int, typer.Option("--images", help="Training scenes.")] = 1800,
    epochs: Annotated[int, typer.Option("--epochs", help="Detector epochs.")] = 5,
    refine_epochs: Annotated[
        int, typer.Option("--refine-epochs", help="Further detector epochs on all scenes.")
    ] = 7,
    polish_epochs: Annotated[
        int, typer.Option("--polish-epochs", help="Last detector epochs at full size.")
    ] = 5,
    imgsz: Annotated[int, typer.Option("--imgsz", help="Detector input size, px.")] = 480,
    stage: Annotated[
        str,
        typer.Option(
            "--stage",
            help="all, data, detector, detector-refine, detector-polish, classifier, "
            "classifier-refine, export, card-check or card-look.",
        ),
    ] = "all",
    refine_base: Annotated[
        Path | None,
        typer.Option(
            "--classifier-base",
            help="Classifier weights (.pt) the classifier-refine stage continues "
            "(default: the classifier stage's).",
        ),
    ] = None,
    crop_detector: Annotated[
        Path | None,
        typer.Option(
            "--crop-detector",
            help="ONNX detector whose finds the classifier-refine stage learns from "
            "(default: the detector-refine stage's, exported).",
        ),
    ] = None,
) -> None:
    """Reproduce the shipped models: scenes, detector, deck classifier, ONNX export, card check
    and card look.

    Stages whose output exists are skipped; an interrupted detector resumes from its
    last epoch.
    """
    from vision.train import stages as t

    stages = (
        "data",
        "detector",
        "detector-refine",
        "detector-polish",
        "classifier",
        "classifier-refine",
        "export",
        "card-check",
        "card-look",
    )
    if stage != "all" and stage not in stages:
        raise UsageError(f"--stage must be all or one of {', '.join(stages)}")
    recipe = t.TrainRecipe(
        train_images=images,
        epochs=epochs,
        refine_epochs=refine_epochs,
        polish_epochs=polish_epochs,
        imgsz_px=imgsz,
    )
    todo = stages if stage == "all" else (stage,)
    data_yaml = data / "cards.yaml"
    if "data" in todo:
        data_yaml = t.make_data(data, recipe)
    base = runs.resolve() / "cards" / "weights" / "best.pt"
    if "detector" in todo:
        base = t.train_detector(data_yaml, runs.resolve(), recipe)
    refined = runs.resolve() / "cards-refine" / "weights" / "best.pt"
    if "detector-refine" in todo:
        refined = t.refine_detector(data, runs.resolve(), base, recipe)
    final = runs.resolve() / "cards-polish" / "weights" / "best.pt"
    if "detector-polish" in todo:
        final = t.polish_detector(data, runs.resolve(), refined, recipe)
    classifier_base = runs.resolve() / "classifier" / "tallero-decks.onnx"
    if "classifier" in todo:
        if classifier_base.exists():
            print(f"classifier: already trained ({classifier_base})")
        else:
            t.train_classifier(data, classifier_base, recipe)
    if "classifier-refine" in todo:
        # Cropped with the refined detector (exported to ONNX beside its .pt) unless
        # --crop-detector names another.
        t.refine_classifier(
            data,
            classifier_base.with_suffix(".pt") if refine_base is None else refine_base,
            t.export_onnx_beside(refined, recipe) if crop_detector is None else crop_detector,
            out / "tallero-decks.onnx",
            recipe,
        )
    if "export" in todo:
        t.export_detector(final, out / "tallero-cards.onnx", recipe)
    if "card-check" in todo:
        t.train_card_check(
            data,
            out / "tallero-cards.onnx",
            out / "tallero-decks.onnx",
            out / "tallero-check.json",
            recipe,
        )
    if "card-look" in todo:
        t.train_card_look(
            data,
            out / "tallero-cards.onnx",
            out / "tallero-decks.onnx",
            out / "tallero-check.json",
            out / "tallero-look.onnx",
            recipe,
        )


# --- enrollment commands -----------------------------------------------------------------

enroll_app = typer.Typer(help="Learn your own decks from photos of them.", no_args_is_help=True)
app.add_typer(enroll_app, name="enroll")


@enroll_app.command("backs")
def enroll_backs(
    photos: Annotated[list[Path], typer.Argument(help="Photos of one card of each deck in a row.")],
    decks: Annotated[
        str, typer.Option("--decks", help="The decks left to right, e.g. pump,carriage,plow,pail.")
    ],
    profile: ProfileOpt = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Enroll decks: lay one card of each back up in a row, left to right as named."""
    from vision.enroll.layout import parse_names
    from vision.enroll.run import enroll_layout

    result = enroll_layout(photos, parse_names(decks), "decks", profile, model, echo_progress)
    emit_json(result) if as_json else echo_enrolled(result)


@enroll_app.command("faces")
def enroll_faces(
    photos: Annotated[
        list[Path], typer.Argument(help="Photos of one face-up card of each colour in a row.")
    ],
    colors: Annotated[
        str, typer.Option("--colors", help="The colours left to right.")
    ] = "red,blue,green,yellow",
    profile: ProfileOpt = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Enroll face colours (optional): one face-up card of each colour in a row."""
    from vision.enroll.layout import parse_names
    from vision.enroll.run import enroll_layout

    names = parse_names(colors, "colour")
    from scoring.decks import FACE_COLORS

    bad = [c for c in names if c not in FACE_COLORS]
    if bad:
        raise UsageError(f"face colours are red, blue, green and yellow, not {bad[0]!r}")
    result = enroll_layout(photos, names, "faces", profile, model, echo_progress)
    emit_json(result) if as_json else echo_enrolled(result)


@enroll_app.command("list")
def enroll_list(profile: ProfileOpt = None, as_json: JsonOpt = False) -> None:
    """The profiles and their enrolled decks."""
    from vision.enroll.run import list_profiles

    result = list_profiles(profile)
    if as_json:
        emit_json(result)
        return
    if not result["profiles"]:
        typer.echo("No enrolled decks: Tallero uses its built-in stand-in decks.")
    for p in result["profiles"]:
        mark = "*" if p["active"] else " "
        typer.echo(
            f"{mark} {p['name']}: decks {', '.join(p['decks']) or '-'}; "
            f"faces {', '.join(p['faces']) or '-'}"
        )


@enroll_app.command("remove")
def enroll_remove(
    name: Annotated[str, typer.Argument(help="An enrolled deck.")],
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Forget an enrolled deck (the profile's classifier is fitted again without it)."""
    from vision.enroll.run import remove_deck

    result = remove_deck(name, profile, echo_progress)
    emit_json(result) if as_json else echo_enrolled(result)


def echo_progress(message: str) -> None:
    typer.echo(message, err=True)


def echo_enrolled(result: dict[str, object]) -> None:
    decks = result.get("decks") or []
    typer.echo(f"Profile {result['profile']}: decks {', '.join(map(str, decks)) or '-'}")
    if result.get("seconds") is not None:
        typer.echo(f"Fitted in {result['seconds']} s.")
    if not decks:
        typer.echo("No enrolled decks left: Tallero uses its built-in stand-in decks.")


def main() -> None:
    """Entry point: user mistakes become one line on stderr and a non-zero exit."""
    try:
        # Outside standalone mode click returns the code of a typer.Exit instead of raising.
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
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
