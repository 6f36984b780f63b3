"""Parallel, deterministic driver: writes an ultralytics OBB dataset of synthetic table photos.

Scene ``i`` depends only on ``(seed, i)`` (and the options), never on the worker that drew it,
so datasets can be split or extended and the worker count does not change a single byte.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scoring.decks import CLASSIC, DECKS
from vision.synth.art import ArtPool, check_style, is_registered, load_style
from vision.synth.art_family import ENDLESS, FAMILY_PREFIX, endless_family, parse_family
from vision.synth.labels import CLASS_NAMES, obb_lines, truth
from vision.synth.photo_hard import hard_camera, hard_frame
from vision.synth.plans import KINDS, Plan, make_plan
from vision.synth.scene import Rendered, fit_plan, render
from vision.synth.tables import BARE_PX_PER_MM, bare_table, make_tile
from vision.synth.tables import KINDS as TABLE_KINDS

RECIPE_KINDS = (*KINDS, "mixed")
POOL_BLOCK = 1000  # scenes sharing one pool of pre-rendered art and table tiles
TILES_PER_POOL = 12


@dataclass(frozen=True)
class SceneOptions:
    """Everything besides the index that a scene depends on."""

    seed: int
    kind: str = "mixed"
    min_visible: float = 0.3
    decks: int | None = None
    imgsz: int = 640
    art: str = "standin"
    # True: ``imgsz`` draws the 640 px scene's framing at that resolution (the cards grow
    # with it, as a phone photographs the same table); False: a wider view at that size.
    same_framing: bool = False

    @property
    def card_scale(self) -> float:
        """How much larger than in a 640 px scene the cards are drawn."""
        return self.imgsz / 640.0 if self.same_framing else 1.0

    def check(self) -> None:
        """ValueError for options out of range."""
        if self.kind not in RECIPE_KINDS:
            raise ValueError(f"kind must be one of {', '.join(RECIPE_KINDS)}, not {self.kind!r}")
        if not 0.2 <= self.min_visible <= 1.0:
            raise ValueError(f"min_visible must be between 0.2 and 1.0, not {self.min_visible}")
        if self.decks not in (None, 4, 8):
            raise ValueError(f"decks must be 4 or 8, not {self.decks}")
        if not 160 <= self.imgsz <= 4096:
            raise ValueError(f"imgsz must be between 160 and 4096, not {self.imgsz}")
        check_style(self.art)
        if self.seed < 0:
            raise ValueError("seed must be >= 0")


_CACHE: dict[tuple[str, int, int, int], tuple[ArtPool, list[np.ndarray]]] = {}


def _pools(art: str, seed: int, block: int) -> tuple[ArtPool, list[np.ndarray]]:
    # the style object is part of the key: a style registered anew under an old name counts
    key = (art, id(load_style(art)), seed, block)
    if key not in _CACHE:
        _CACHE.clear()  # one block at a time per worker
        rng = np.random.default_rng([seed, block, 0xA47])
        pool = ArtPool(art, rng)
        tiles = [make_tile(rng) for _ in range(TILES_PER_POOL)]
        _CACHE[key] = (pool, tiles)
    return _CACHE[key]


_TILES: dict[tuple[int, int], list[np.ndarray]] = {}


def _tiles(seed: int, block: int) -> list[np.ndarray]:
    """Table tiles of a block, for styles without a block-wide art pool (``endless``)."""
    if (seed, block) not in _TILES:
        _TILES.clear()
        rng = np.random.default_rng([seed, block, 0x711E5])
        _TILES[(seed, block)] = [make_tile(rng) for _ in range(TILES_PER_POOL)]
    return _TILES[(seed, block)]


def scene_art(opts: SceneOptions, index: int) -> tuple[Any, list[np.ndarray], int | None]:
    """The art pool, table tiles and art family (None for styles that are no family) of
    scene ``index``. ``endless`` gives every scene a fresh family and a pool of its own."""
    block = index // POOL_BLOCK
    if opts.art == ENDLESS:
        from vision.synth.art_family_style import FamilyPool, FamilyStyle

        family = endless_family(opts.seed, index)
        return FamilyPool(FamilyStyle(family), [opts.seed, index]), _tiles(opts.seed, block), family
    pool, tiles = _pools(opts.art, opts.seed, block)
    family = parse_family(opts.art) if opts.art.startswith(FAMILY_PREFIX) else None
    return pool, tiles, family


@dataclass
class Scene:
    """A drawn scene before labelling: what lay on the table and how it was photographed."""

    plan: Plan
    rendered: Rendered
    quality: int  # JPEG quality the image is written with
    family: int | None  # the art family, for family and endless art


def build_scene(opts: SceneOptions, index: int) -> Scene:
    """Draw scene ``index`` (plan, camera, pixels); :func:`make_scene` labels it."""
    ss = np.random.SeedSequence([opts.seed, index])
    r_plan, r_render, r_misc = (np.random.default_rng(s) for s in ss.spawn(3))
    n_decks = opts.decks if opts.decks is not None else int(r_misc.choice([4, 8]))
    hard = opts.kind == "hard"
    if hard:
        frame = hard_frame(opts.imgsz, r_misc)
        w, h, quality = frame.width, frame.height, frame.jpeg_quality
    else:
        portrait = r_misc.random() < 0.2
        long_side, short_side = opts.imgsz, int(round(opts.imgsz * 3 / 4))
        w, h = (short_side, long_side) if portrait else (long_side, short_side)
        quality = int(r_misc.integers(60, 96))
    pool, tiles, family = scene_art(opts, index)
    tile = tiles[int(r_misc.integers(len(tiles)))]
    plan = make_plan(opts.kind, n_decks, r_plan, opts.min_visible)
    if hard:
        cam = hard_camera(plan, frame, r_render)
    else:
        cam = fit_plan(plan, w, h, r_render, opts.card_scale)
    rendered = render(plan, pool, tile, w, h, opts.min_visible, r_render, camera=cam, hard=hard)
    return Scene(plan, rendered, quality, family)


def label_scene(opts: SceneOptions, index: int, sc: Scene) -> tuple[np.ndarray, dict[str, Any]]:
    """The BGR uint8 image and the truth record of a drawn scene."""
    img = np.clip(sc.rendered.image, 0, 255, out=sc.rendered.image).astype(np.uint8)
    rec = truth(
        sc.plan,
        sc.rendered,
        opts.min_visible,
        image=f"{index:06d}.jpg",
        seed=opts.seed,
        index=index,
        art=opts.art,
        family=sc.family,
        recipe_kind=opts.kind,
        jpeg_quality=sc.quality,
    )
    return img, rec


def make_scene(opts: SceneOptions, index: int) -> tuple[np.ndarray, dict[str, Any], int]:
    """Render scene ``index``: the BGR uint8 image, its truth record and its JPEG quality."""
    sc = build_scene(opts, index)
    img, rec = label_scene(opts, index, sc)
    return img, rec, sc.quality


def write_scene(out_dir: Path, opts: SceneOptions, index: int) -> dict[str, Any]:
    """Render scene ``index`` and write its image, OBB labels and truth JSON."""
    img, rec, quality = make_scene(opts, index)
    stem = f"{index:06d}"
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    (out_dir / "images" / f"{stem}.jpg").write_bytes(buf.tobytes())
    (out_dir / "labels" / f"{stem}.txt").write_text("".join(f"{ln}\n" for ln in obb_lines(rec)))
    (out_dir / "truth" / f"{stem}.json").write_text(json.dumps(rec, separators=(",", ":")))
    return {"kind": rec["kind"], "cards": len(rec["cards"])}


def write_bare_tables(
    out_dir: Path,
    n: int,
    seed: int,
    kind_p: tuple[float, ...] | None = None,
    decks: tuple[tuple[str, ...], ...] = (
        tuple(d.id for d in CLASSIC),
        tuple(d.id for d in DECKS),
    ),
    px_per_mm: tuple[float, float] = BARE_PX_PER_MM,
) -> Path:
    """``n`` tables with nothing on them (`vision.synth.tables.bare_table`), 640x480, as a
    scene set: images, empty OBB label files (ultralytics' background images) and truth
    JSON with no card, so any card found on one is a wrong find.

    ``kind_p``: the chance of each table kind (`vision.synth.tables.KINDS` order); None:
    `make_tile`'s own mix. Picture ``k`` says the decks ``decks[k % len(decks)]`` are in
    play. ``px_per_mm``: the range of scales (`bare_table`). Returns ``out_dir``.
    """
    rng = np.random.default_rng(seed)
    out_dir = Path(out_dir)
    for sub in ("images", "labels", "truth"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    for k in range(n):
        kind = None if kind_p is None else str(rng.choice(TABLE_KINDS, p=kind_p))
        stem = f"{k:06d}"
        cv2.imwrite(
            str(out_dir / "images" / f"{stem}.jpg"), bare_table(rng, kind, px_per_mm=px_per_mm)
        )
        (out_dir / "labels" / f"{stem}.txt").write_text("")
        in_play = list(decks[k % len(decks)])
        rec = {
            "image": f"{stem}.jpg",
            "size": [640, 480],
            "seed": seed,
            "index": k,
            "kind": "bare",
            "table": kind or "any",
            "decks": in_play,
            "cards": [],
            "counts": dict.fromkeys(in_play, 0),
        }
        (out_dir / "truth" / f"{stem}.json").write_text(json.dumps(rec, separators=(",", ":")))
    return out_dir


def _work(args: tuple[Path, SceneOptions, int]) -> dict[str, Any]:
    return write_scene(*args)


def write_data_yaml(out_dir: Path) -> Path:
    """The ultralytics dataset file: images used for train and val alike."""
    names = "\n".join(f"  {k}: {v}" for k, v in CLASS_NAMES.items())
    path = out_dir / "data.yaml"
    path.write_text(f"path: {out_dir.resolve()}\ntrain: images\nval: images\nnames:\n{names}\n")
    return path


def synthesize(
    out_dir: Path,
    n: int,
    seed: int,
    kind: str = "mixed",
    min_visible: float = 0.3,
    decks: int | None = None,
    imgsz: int = 640,
    workers: int = 2,
    progress: bool = True,
    art: str = "standin",
    *,
    start: int = 0,
    same_framing: bool = False,
) -> Path:
    """Write scenes ``start .. start+n-1`` of the dataset ``(seed, options)`` into ``out_dir``.

    Layout: ``images/NNNNNN.jpg``, ``labels/NNNNNN.txt`` (ultralytics OBB, classes 0 back and
    1 face), ``truth/NNNNNN.json`` and ``data.yaml``. ``min_visible`` is the smallest visible
    fraction of a labelled card (0.2..1); ``decks`` 4 or 8 fixes the deck profile (None: half
    and half); ``same_framing``: see `SceneOptions`. Returns ``out_dir``. Raises ValueError
    for bad options.
    """
    opts = SceneOptions(seed, kind, float(min_visible), decks, imgsz, art, same_framing)
    opts.check()
    if n < 0 or start < 0:
        raise ValueError("n and start must be >= 0")
    if workers < 1:
        raise ValueError("workers must be >= 1")
    out_dir = Path(out_dir)
    for sub in ("images", "labels", "truth"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    write_data_yaml(out_dir)
    recipe = {
        "seed": seed,
        "n": n,
        "start": start,
        "kind": kind,
        "min_visible": min_visible,
        "decks": decks,
        "imgsz": imgsz,
        "art": art,
        "same_framing": same_framing,
    }
    (out_dir / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n")
    tasks = [(out_dir, opts, i) for i in range(start, start + n)]
    workers = max(1, min(workers, n or 1, os.cpu_count() or 1) if n > 1 else 1)
    if is_registered(art):
        workers = 1  # a registered style object exists in this process only

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not progress,
        transient=False,
    ) as bar:
        job = bar.add_task("synthesizing scenes", total=n)
        if workers == 1:
            prev = cv2.getNumThreads()
            cv2.setNumThreads(1)
            try:
                for t in tasks:
                    _work(t)
                    bar.advance(job)
            finally:
                cv2.setNumThreads(prev)
        else:
            # Workers start from a clean server process, not a fork of this one: a fork of a
            # process whose OpenCV (or torch) thread pool is running can wait forever on a
            # lock held by a thread that did not survive the fork. Art styles therefore
            # travel by name (``enrolled:<profile folder>`` included), not as objects.
            methods = mp.get_all_start_methods()
            method = "forkserver" if "forkserver" in methods else "spawn"
            prev = cv2.getNumThreads()
            cv2.setNumThreads(1)
            try:
                with mp.get_context(method).Pool(workers) as pool:
                    for _ in pool.imap(_work, tasks, chunksize=8):
                        bar.advance(job)
            finally:
                cv2.setNumThreads(prev)
    return out_dir
