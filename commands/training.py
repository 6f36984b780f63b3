"""The synthetic scenes and the training of the shipped models: dataset and train."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from commands.app import app, dataset_app
from scoring.errors import UsageError


@dataset_app.command("synth")
def dataset_synth(
    out: Annotated[Path, typer.Argument(help="Folder to write images/, labels/, truth/ into.")],
    n: Annotated[int, typer.Option("--n", help="Number of scenes.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Dataset seed; scene i depends on it.")] = 0,
    kind: Annotated[
        str,
        typer.Option(
            "--kind",
            help="sorted, blitz, piles, layout, fan (10-24 backs of one deck, for `enroll "
            "fan`), hard, mixed, round (three photos of one "
            "round: its piles, its sorted Dutch cards, its Blitz leftovers), video "
            "(webcam clips, --seconds and --fps, with the truth of every frame) or sort "
            "(webcam clips of the cards sorted back to their owners, one at a time, "
            "--cards and --fps).",
        ),
    ] = "mixed",
    min_visible: Annotated[
        float, typer.Option("--min-visible", help="Smallest visible fraction of a card (0.2-1).")
    ] = 0.3,
    decks: Annotated[
        int | None, typer.Option("--decks", help="4 (classic) or 8 (with expansion); default both.")
    ] = None,
    imgsz: Annotated[
        int,
        typer.Option("--imgsz", help="Long side of the images, px (160-4096; hard: 1280 and up)."),
    ] = 640,
    same_framing: Annotated[
        bool,
        typer.Option(
            "--same-framing",
            help="With --imgsz: the 640 px scene's framing at that resolution, the cards "
            "growing with it (a phone photo of the same table), not a wider view.",
        ),
    ] = False,
    workers: Annotated[int, typer.Option("--workers", help="Processes to use.")] = 2,
    art: Annotated[
        str,
        typer.Option(
            "--art",
            help="standin, heirloom, endless (a new art family per scene), family:N "
            "(0-999999 training, 10000000 and up held out) or enrolled:FOLDER.",
        ),
    ] = "standin",
    start: Annotated[int, typer.Option("--start", help="Index of the first scene.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    seconds: Annotated[
        float, typer.Option("--seconds", help="Video only: length of each clip (2-60 s).")
    ] = 6.0,
    fps: Annotated[
        float | None,
        typer.Option(
            "--fps", help="Video and sort: frames a second of each clip (5-60; 15, sort 10)."
        ),
    ] = None,
    cards: Annotated[
        int, typer.Option("--cards", help="Sort only: each deck lays 0 to this many (0-40).")
    ] = 40,
    size: Annotated[
        str | None,
        typer.Option(
            "--size", help="Video only: the webcam's frame, WxH (640x480; 1280x720 as asked for)."
        ),
    ] = None,
) -> None:
    """Write synthetic table photos with OBB labels and per-image truth JSON (or, with
    --kind video, webcam clips with the truth of every frame)."""
    import time

    from vision.synth.generate import RECIPE_KINDS, synthesize

    kinds = (*RECIPE_KINDS, "round", "video", "sort")
    if kind not in kinds:
        raise UsageError(f"--kind must be one of {', '.join(kinds)}, not {kind!r}")
    if n < 1:
        raise UsageError("--n must be at least 1")
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} exists and is not a folder")
    if same_framing and kind in ("sort", "video", "hard"):
        raise UsageError("--same-framing is for photos of the table (not hard, video or sort)")
    if size is not None and kind != "video":
        raise UsageError("--size is for --kind video (the frame of a webcam clip)")
    t0 = time.perf_counter()
    if kind in ("sort", "video"):
        try:
            if kind == "sort":
                from vision.synth.sort import SortOptions, synthesize_sorts

                sort = SortOptions(seed, decks=decks, max_cards=cards, fps=fps or 10.0, art=art)
                _write_clips(out, n, start, quiet, sort, synthesize_sorts)
            else:
                from vision.live.sources import parse_size
                from vision.synth.video import FRAME_PX, ClipOptions, synthesize_clips

                frame = parse_size(size) or FRAME_PX
                video = ClipOptions(
                    seed, decks=decks, seconds=seconds, fps=fps or 15.0, art=art, size=frame
                )
                _write_clips(out, n, start, quiet, video, synthesize_clips)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        what = "sort clips" if kind == "sort" else "clips"
        typer.echo(f"{n} {what} in {time.perf_counter() - t0:.1f} s -> {out}")
        return
    if kind == "round":
        from vision.synth.round_scenes import synthesize_rounds

        try:
            synthesize_rounds(out, n, seed, decks, imgsz, art, start, min_visible, same_framing)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        dt = time.perf_counter() - t0
        typer.echo(f"{n} rounds in {dt:.1f} s -> {out}")
        return
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
            same_framing=same_framing,
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
    check_photos: Annotated[
        Path | None,
        typer.Option(
            "--check-photos",
            help="Real photos with Pascal VOC boxes whose training part the card-check "
            "stage learns from too (the shipped check: ../shared/real-photos/images).",
        ),
    ] = None,
    check_bare: Annotated[
        int,
        typer.Option(
            "--check-bare",
            help="Tables with nothing on them whose every find the card-check stage learns "
            "is not a card (0: none).",
        ),
    ] = 0,
) -> None:
    """Reproduce the shipped models: scenes, detector, deck classifier, ONNX export, card check
    and card look.

    Stages whose output exists are skipped; an interrupted detector resumes from its
    last epoch.
    """
    from vision.train.stages import STAGES, TrainRecipe, run_stages

    if stage != "all" and stage not in STAGES:
        raise UsageError(f"--stage must be all or one of {', '.join(STAGES)}")
    if check_photos is not None and not check_photos.is_dir():
        raise UsageError(f"--check-photos {check_photos}: no such folder")
    if check_bare < 0:
        raise UsageError(f"--check-bare {check_bare}: must be 0 or more")
    recipe = TrainRecipe(
        check_photos=str(check_photos) if check_photos is not None else None,
        check_bare_tables=check_bare,
        train_images=images,
        epochs=epochs,
        refine_epochs=refine_epochs,
        polish_epochs=polish_epochs,
        imgsz_px=imgsz,
    )
    run_stages(stage, data, runs, out, recipe, refine_base, crop_detector)


def _write_clips(out: Path, n: int, start: int, quiet: bool, opts: Any, draw: Any) -> None:
    """Check ``opts``, then draw clips ``start`` .. ``start + n - 1`` one at a time with
    ``draw`` (``synthesize_sorts`` or ``synthesize_clips``), a progress line each."""
    opts.check()
    for i in range(start, start + n):
        draw(out, 1, opts, start=i)
        if not quiet:
            typer.echo(f"  clip {i - start + 1}/{n}", err=True)
