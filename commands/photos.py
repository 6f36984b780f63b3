"""Counting and scoring from photos: count, score, eval and bench."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from commands.app import (
    AgainOpt,
    CountsOpt,
    DecksOpt,
    ForceOpt,
    GameOpt,
    JsonOpt,
    ModelOpt,
    Output,
    PilesOpt,
    ProfileOpt,
    ThreadsOpt,
    app,
    emit_json,
    make_counter,
    pile_tops,
    report_status,
)
from scoring.errors import UsageError
from scoring.parse import parse_pile_tops, whole_number_option

if TYPE_CHECKING:
    from commands.piles import PilesPhoto
    from scoring.evidence import Photo
    from scoring.ledger import Game, Ledger, Prepare
    from scoring.rules import RoundCounts
    from scoring.tally import PhotoRound
    from vision.count.counter import Counter
    from vision.count.photos import CountedPhoto


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
    piles_photo: Annotated[
        Path | None,
        typer.Option(
            "--piles-photo",
            help="Photo of the Dutch piles before the sort: their total settles the Dutch "
            "counts where exactly one combination within the counts' ranges reaches it.",
        ),
    ] = None,
    fix_piles: Annotated[
        list[str] | None,
        typer.Option(
            help="Tops of piles in the piles photo, by their id: 3=7,5=down (a top it left "
            "unread or read wrong)."
        ),
    ] = None,
    annotate: Annotated[
        Path | None,
        typer.Option("--annotate", help="Folder for annotated photos (default: in TALLERO_HOME)."),
    ] = None,
    model: Annotated[Path | None, typer.Option("--model", help="Detector to use.")] = None,
    profile: Annotated[
        str | None, typer.Option("--profile", help="Profile of enrolled decks.")
    ] = None,
    force: ForceOpt = False,
    again: AgainOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Score a round from photos: count every deck, map decks to players, show the round."""
    from scoring.evidence import photo_round_json
    from scoring.home import tallero_home
    from scoring.ledger import Ledger
    from scoring.parse import parse_counts
    from scoring.report import round_table

    home = tallero_home()
    with Ledger.open(home) as ledger:
        g = ledger.game(game)
        named = g.setup.player_named
        fixes_d = {named(k): v for k, v in parse_counts(fix_dutch or [], "Dutch").items()}
        fixes_b = {named(k): v for k, v in parse_counts(fix_blitz or [], "Blitz").items()}
        given_tops = parse_pile_tops(fix_piles or [])
        if given_tops and piles_photo is None:
            raise UsageError("--fix-piles gives tops of the piles photo: add --piles-photo")
        if (fixes_d or fixes_b or given_tops) and not (reason and reason.strip()):
            raise UsageError('a hand correction needs --reason "..."')
        counter = make_counter(model, None, profile)
        require_game_decks(counter, g)
        photos = count_round_photos(
            counter, g, dutch_photo, blitz_photo, annotate or home / "annotated"
        )
        tops = pile_tops(piles)
        if tops is not None and piles_photo is not None:
            raise UsageError("give the Dutch piles either typed (--piles) or as a photo, not both")
        read = None
        if piles_photo is not None:
            from commands.piles import PilesPhoto

            read_at = (annotate or home / "annotated") / f"{piles_photo.stem}-piles-read.jpg"
            read = PilesPhoto.of(counter, piles_photo, read_at).with_tops(given_tops)
        result, counts = read_round(g, photos, fixes_d, fixes_b, tops, read)
        shown = [p.to_json() for p in photos] + ([read.to_json()] if read is not None else [])
        out = Output()

        def render(after: Game, number: int | None) -> None:
            if as_json:
                out.json(photo_round_json(after, counts, result, shown, number))
                return
            out.table(round_table(after, number, counts, result.ranges))
            for p in photos:
                apart = len(p.count.other_game)
                note = f" ({apart} card(s) of another game set apart, grey)" if apart else ""
                out.line(f"{p.role} photo: {p.path} -> annotated: {p.annotated}{note}")
            if read is not None:
                out.line(
                    f"piles photo: {read.path}: {len(read.read.piles)} piles, total "
                    f"{read.read.total} -> annotated: {read.annotated}"
                )
            if result.settled:
                out.line(f"settled: {result.settled}")
            if blitz_photo is None:
                out.line("No Blitz photo: every Blitz pile counts 0 (correct with --fix-blitz).")
            for line in result.corrections:
                out.line(f"corrected by hand: {line}")
            for problem in result.problems:
                out.line(f"check: {problem}")
            if number is not None:
                out.line(f"Round {number} committed with its evidence.")
                report_status(after, out)
            elif result.problems:
                as_shown = result.shown_way()
                for k, way in enumerate(result.fits, 1):
                    pairs = shlex.quote(",".join(f"{p}={n}" for p, n in way.items()))
                    mark = " (the counts shown: --accept takes them)" if k - 1 == as_shown else ""
                    out.line(f"way {k} to the piles' total: --fix-dutch {pairs}{mark}")
                piles_fix = " (a pile's top: --fix-piles ID=TOP)" if read is not None else ""
                out.line(
                    "Not committed. Look at the annotated photo, then --accept or correct with "
                    f'--fix-dutch/--fix-blitz NAME=N{piles_fix} --reason "...", and add --commit.'
                )
            else:
                out.line("Not committed (add --commit to append it to the sheet).")

        if commit:
            extra = [read.evidence()] if read is not None else []
            commit_counted_round(
                ledger, home, g.id, photos, result, counts, accept, force, reason, render, again,
                extra,
            )  # fmt: skip
        else:
            render(g, None)
    out.flush()


def require_game_decks(counter: Counter, game: Game) -> None:
    """Refuse a counter that does not know every deck of ``game``."""
    unknown_decks = [s.deck.id for s in game.setup.seats if s.deck.id not in counter.decks]
    if unknown_decks:
        raise UsageError(
            f"the deck model does not know {', '.join(unknown_decks)}; enroll "
            "them (tallero enroll backs) or pick their profile with --profile"
        )


def count_round_photos(
    counter: Counter, game: Game, dutch: Path, blitz: Path | None, annotate_dir: Path
) -> list[CountedPhoto]:
    """Count a round's Dutch (and Blitz) photo with only the game's decks competing, and
    write each annotated copy into ``annotate_dir``."""
    from vision.count.photos import count_photos

    game_decks = tuple(s.deck.id for s in game.setup.seats)
    return count_photos(counter, dutch, blitz, annotate_dir, game_decks)


def read_round(
    game: Game,
    photos: list[CountedPhoto],
    fixes_dutch: dict[str, int],
    fixes_blitz: dict[str, int],
    tops: list[str] | None = None,
    piles: PilesPhoto | None = None,
) -> tuple[PhotoRound, RoundCounts]:
    """The round the counted photos show, with hand corrections (player -> count) applied:
    per-player counts, problems, ranges, and the points of each player. ``tops`` are typed
    pile tops, ``piles`` a photo of the Dutch piles, read: their total settles the round."""
    from scoring.rules import build_round
    from scoring.tally import round_from_tallies
    from vision.count.tally import tally_of

    tallies = {p.role: tally_of(p.count) for p in photos}
    result = round_from_tallies(
        game.setup,
        tallies["dutch"],
        tallies.get("blitz"),
        fixes_dutch,
        fixes_blitz,
        tops,
        piles.read.total if piles is not None else None,
        tuple(piles.read.uncertain) if piles is not None else (),
    )
    if piles is not None and piles.read.given:
        result = replace(result, corrections=(*result.corrections, *piles.corrections()))
    return result, build_round(game.setup.players, result.dutch, result.blitz)


def commit_counted_round(
    ledger: Ledger,
    home: Path,
    game_id: int,
    photos: list[CountedPhoto],
    result: PhotoRound,
    counts: RoundCounts,
    accept: bool,
    force: bool,
    reason: str | None,
    prepare: Prepare | None = None,
    again: bool = False,
    extra: Sequence[Photo] = (),
) -> int:
    """Append the round to the sheet with its photos kept as evidence; its number.

    ``prepare`` renders the command's output before the commit; ``again`` writes a round
    equal to the last one minutes later (see `scoring.evidence.commit_photo_round`);
    ``extra`` are further photos kept with it (the Dutch piles).
    """
    from scoring.evidence import Photo, commit_photo_round

    kept = [Photo(p.role, p.path, p.to_json(), p.count.model["name"]) for p in photos]
    kept += extra
    return commit_photo_round(
        ledger, home, game_id, counts, result, kept, accept, force, reason, prepare, again
    )


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
            if result.other_game:
                line += f"; another game's cards {len(result.other_game)} (set apart)"
            if result.uncertain:
                line += f"; uncertain cards {', '.join(map(str, result.uncertain))}"
            if result.named_from_table:
                alike = ", ".join(map(str, result.named_from_table))
                line += f" ({alike} named after the backs they look like)"
            if result.possible is not None and len(result.possible):
                line += f"; possible cards not counted {len(result.possible)} (+? on the image)"
            if result.nothing_sure and result.open_when_unsure:
                found = "surely " if len(result.cards) else ""
                line += (
                    f"; no card {found}found: if cards lie there, photograph them again (more "
                    "light, held still, closer)"
                )
            typer.echo(line)
        if annotate is not None:
            write_annotated(image_bgr, result, _annotated_path(annotate, image, several))
    if bad:
        raise bad[-1]


@app.command("eval")
def eval_(
    directory: Annotated[
        Path,
        typer.Argument(
            help="A labelled synthetic set (images/, truth/) or a folder of real photos "
            "with Pascal VOC boxes (NAME.jpg beside NAME.xml), or of clips (NAME.avi "
            "beside NAME.json, from dataset synth --kind video or sort)."
        ),
    ],
    model: ModelOpt = None,
    as_json: JsonOpt = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", help="Only the first N images.", parser=whole_number_option("--limit")
        ),
    ] = None,
    threads: ThreadsOpt = None,
    profile: ProfileOpt = None,
    split: Annotated[
        str,
        typer.Option("--split", help="Real photos only: all, val (never trained on) or train."),
    ] = "all",
    piles: Annotated[
        bool,
        typer.Option("--piles", help="Score the Dutch piles read off each photo (piles sets)."),
    ] = False,
    delay: Annotated[
        float,
        typer.Option(
            "--delay",
            metavar="S",
            help="Clips only: each count reaches the live view S seconds after its frame, "
            "no other frame counted meanwhile (a counter that slow beside a camera; "
            "tallero bench gives count_delay_s).",
        ),
    ] = 0.0,
) -> None:
    """Score the counter on a labelled set: per layout kind and visibility band, or, on real
    photos, how many of their cards it finds."""
    from vision.evaluate.metrics import evaluate_dir, format_table
    from vision.evaluate.photos import evaluate_photos, format_photo_table, is_voc_folder
    from vision.evaluate.rounds import evaluate_rounds, format_rounds, is_round_folder
    from vision.evaluate.sort import evaluate_sorts, format_sort_table, is_sort_folder
    from vision.evaluate.video import clip_files, evaluate_clips, format_video_table

    if not directory.exists():
        raise UsageError(f"{directory}: no such folder")
    if not directory.is_dir():
        raise UsageError(f"{directory}: not a folder (eval scores a labelled set)")
    if not 0 <= delay <= 10 or delay != delay:
        raise UsageError(f"--delay must be 0-10 seconds, got {delay}")
    clips_here = is_sort_folder(directory) or bool(clip_files(directory))
    if delay and not clips_here:
        raise UsageError(f"{directory}: --delay is for a folder of clips")
    if is_sort_folder(directory):
        live = make_counter(model, None, profile, threads, live=True)
        still = make_counter(model, None, profile, threads)

        def sort_progress(done: int, total: int) -> None:
            if not as_json:
                typer.echo(f"  {done}/{total} sort clips", err=True)

        sorts = evaluate_sorts(
            directory, live, still, limit=limit, progress=sort_progress, delay_s=delay
        )
        if as_json:
            emit_json({**sorts.to_json(), "model": live.model_info})
        else:
            typer.echo(format_sort_table(sorts))
        return
    if clip_files(directory):
        live = make_counter(model, None, profile, threads, live=True)
        single = make_counter(model, None, profile, threads)

        def clip_progress(done: int, total: int) -> None:
            if not as_json:
                typer.echo(f"  {done}/{total} clips", err=True)

        clips = evaluate_clips(
            directory, live, single, limit=limit, progress=clip_progress, delay_s=delay
        )
        if as_json:
            emit_json({**clips.to_json(), "model": live.model_info})
        else:
            typer.echo(format_video_table(clips))
        return
    real = is_voc_folder(directory)
    if not real and not (directory / "truth").is_dir():
        raise UsageError(f"{directory}: no truth/ folder and no VOC files; not a labelled set")
    counter = make_counter(model, None, profile, threads)

    def progress(done: int, total: int) -> None:
        if not as_json and (done % 25 == 0 or done == total):
            typer.echo(f"  {done}/{total} images", err=True)

    if is_round_folder(directory):
        rounds = evaluate_rounds(directory, counter, limit, progress)
        if as_json:
            emit_json({**rounds.to_json(), "model": counter.model_info})
        else:
            typer.echo(format_rounds(rounds))
        return
    if piles:
        from vision.evaluate.piles import evaluate_piles, format_piles

        read = evaluate_piles(directory, counter, limit, progress)
        if as_json:
            emit_json({**read.to_json(), "model": counter.model_info})
        else:
            typer.echo(format_piles(read))
        return

    if real:
        found = evaluate_photos(directory, counter, split, limit, progress)
        if as_json:
            emit_json({**found.to_json(), "split": split, "model": counter.model_info})
        else:
            typer.echo(format_photo_table(found, split))
        return
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
    frames: Annotated[
        int,
        typer.Option(
            "--frames",
            help="Frames to time (>= 100).",
            parser=whole_number_option("--frames", 1, 1_000_000),
        ),
    ] = 120,
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
