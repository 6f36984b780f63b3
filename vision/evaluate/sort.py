"""`tallero eval` on a folder of sort clips: the tally while sorting against the still.

Each clip (``NAME.avi`` beside its truth ``NAME.json`` with ``"kind": "sort"``, as written
by ``dataset synth --kind sort``) goes through the watch loop with the tally
(``watch --tally``); its last frame is also counted as a still photo (``count``). Per
(clip, deck), against ``final`` (each deck's cards laid):

- ``tally_exact``: the final tally is right; ``still_exact``: the still count is right;
- ``counted_twice`` / ``never``: cards the tally counted over / under the truth, summed;
- ``still_reaches``: the truth lies in the still count's range;
- ``flagged``: the tally lies outside the still count's range (``watch --tally`` flags it
  at ``d``); ``unflagged_exact``: the tally is right where it was not flagged;
- by the deck's place (``stack``, ``spread``) and by whether one of its cards was moved or
  taken back.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.count.counter import Counter
from vision.evaluate.video import clip_files
from vision.live.counting import InLoop
from vision.live.settings import LiveSettings
from vision.live.sources import CaptureSource
from vision.live.tally import SortTally, TallySettings
from vision.live.watch import Watcher


def is_sort_folder(folder: Path) -> bool:
    """Whether the folder's first clip is a sort clip (``"kind": "sort"`` in its truth)."""
    files = clip_files(folder)
    if not files:
        return False
    rec = json.loads(files[0].with_suffix(".json").read_text())
    return bool(rec.get("kind") == "sort")


@dataclass
class DeckResult:
    """One deck of one clip: the truth, the tally, the still count and its range."""

    deck: str
    place: str
    truth: int
    tally: int
    still: int
    still_range: tuple[int, int]
    moved: bool  # one of its cards was moved or taken back in the clip

    @property
    def flagged(self) -> bool:
        lo, hi = self.still_range
        return not lo <= self.tally <= hi


@dataclass
class SortResult:
    """The figures of one clip."""

    name: str
    decks: list[DeckResult]
    frames: int
    fps: float
    events: int


def evaluate_sort(
    path: Path,
    live: Counter,
    still: Counter,
    settings: LiveSettings,
    tally_settings: TallySettings | None = None,
    delay_s: float = 0.0,
) -> SortResult:
    """Run one sort clip through the watch loop with the tally, and count its last frame;
    ``delay_s``: each count reaches the tally that long after its frame (`InLoop`), as
    with a counter that takes that long beside a camera."""
    rec = json.loads(path.with_suffix(".json").read_text())
    decks = tuple(rec["decks"])
    fps = float(rec["fps"])
    tally = SortTally(decks, tally_settings)
    watcher = Watcher(live, decks, settings, fps=fps, tally=tally, pace=InLoop(delay_s))
    source = CaptureSource(str(path), live=False)
    source.open()
    last = None
    k = 0
    t0 = time.perf_counter()
    try:
        while (image := source.read()) is not None:
            watcher.step(image, k / fps)
            last = image
            k += 1
    finally:
        source.close()
    wall = time.perf_counter() - t0
    counts = tally.counts()
    if last is not None:
        photo = still.count(last, name=path.name, decks=decks)
        still_counts, ranges = photo.counts, photo.ranges
    else:
        still_counts, ranges = {}, {}
    touched = {e["deck"] for e in rec["events"] if e["kind"] in ("move", "take_back")}
    out = []
    for d in decks:
        n = int(still_counts.get(d, 0))
        lo, hi = ranges.get(d, (n, n))
        out.append(
            DeckResult(
                d,
                rec["places"][d],
                int(rec["final"][d]),
                counts.get(d, 0),
                n,
                (int(lo), int(hi)),
                d in touched,
            )
        )
    return SortResult(path.name, out, k, k / wall if wall > 0 else 0.0, len(tally.events))


def _rate(xs: list[bool]) -> float | None:
    return round(sum(xs) / len(xs), 4) if xs else None


@dataclass
class SortEvaluation:
    """The figures over a folder of sort clips, per number of decks and over all;
    ``delay_s``: how late each count reached the tally (`evaluate_sort`)."""

    clips: list[SortResult] = field(default_factory=list)
    delay_s: float = 0.0

    def summary(self, decks: int | None = None) -> dict[str, Any]:
        """The figures for clips with ``decks`` decks (``None``: every clip)."""
        cs = [c for c in self.clips if decks is None or len(c.decks) == decks]
        if not cs:
            return {"clips": 0}
        ds = [d for c in cs for d in c.decks]
        unflagged = [d.tally == d.truth for d in ds if not d.flagged]

        def by(pick: Callable[[DeckResult], bool]) -> dict[str, Any]:
            sel = [d for d in ds if pick(d)]
            return {
                "decks": len(sel),
                "tally_exact": _rate([d.tally == d.truth for d in sel]),
                "still_exact": _rate([d.still == d.truth for d in sel]),
            }

        return {
            "clips": len(cs),
            "decks": len(ds),
            "cards": sum(d.truth for d in ds),
            "frames": sum(c.frames for c in cs),
            "tally_exact": _rate([d.tally == d.truth for d in ds]),
            "still_exact": _rate([d.still == d.truth for d in ds]),
            "still_reaches": _rate([d.still_range[0] <= d.truth <= d.still_range[1] for d in ds]),
            "counted_twice": sum(max(0, d.tally - d.truth) for d in ds),
            "never": sum(max(0, d.truth - d.tally) for d in ds),
            "still_over": sum(max(0, d.still - d.truth) for d in ds),
            "still_under": sum(max(0, d.truth - d.still) for d in ds),
            "flagged": _rate([d.flagged for d in ds]),
            "unflagged_exact": _rate(unflagged),
            "stack": by(lambda d: d.place == "stack"),
            "spread": by(lambda d: d.place == "spread"),
            "moved_or_taken_back": by(lambda d: d.moved),
            "fps": round(statistics.median(c.fps for c in cs), 1),
        }

    def to_json(self) -> dict[str, Any]:
        """``tallero eval SORTS --json``: the figures by decks and over all, and per clip."""
        return {
            "kind": "sort",
            "delay_s": self.delay_s,
            "by_decks": {
                str(n): self.summary(n) for n in sorted({len(c.decks) for c in self.clips})
            },
            "all": self.summary(),
            "per_clip": [
                {
                    "clip": c.name,
                    "frames": c.frames,
                    "decks": {
                        d.deck: {
                            "place": d.place,
                            "truth": d.truth,
                            "tally": d.tally,
                            "still": d.still,
                            "still_range": list(d.still_range),
                        }
                        for d in c.decks
                    },
                }
                for c in self.clips
            ],
        }


def evaluate_sorts(
    folder: Path,
    live: Counter,
    still: Counter,
    settings: LiveSettings | None = None,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    tally_settings: TallySettings | None = None,
    delay_s: float = 0.0,
) -> SortEvaluation:
    """Every sort clip of ``folder`` (its first ``limit``) through the watch loop's tally,
    each count ``delay_s`` late (`evaluate_sort`)."""
    files = clip_files(folder)[:limit]
    ev = SortEvaluation(delay_s=delay_s)
    for i, path in enumerate(files):
        ev.clips.append(
            evaluate_sort(path, live, still, settings or LiveSettings(), tally_settings, delay_s)
        )
        if progress is not None:
            progress(i + 1, len(files))
    return ev


def format_sort_table(ev: SortEvaluation) -> str:
    """The table of ``tallero eval SORTS``: the tally against the still count."""
    head = (
        f"{'decks':>5} {'clips':>5} {'cards':>5} {'tally_exact':>11} {'still_exact':>11} "
        f"{'twice':>5} {'never':>5} {'still_reaches':>13} {'flagged':>7} {'fps':>5}"
    )
    lines = [head]
    groups = [str(n) for n in sorted({len(c.decks) for c in ev.clips})] + ["all"]
    for g in groups:
        s = ev.summary(None if g == "all" else int(g))
        if not s["clips"]:
            continue
        lines.append(
            f"{g:>5} {s['clips']:>5} {s['cards']:>5} {s['tally_exact']!s:>11} "
            f"{s['still_exact']!s:>11} {s['counted_twice']:>5} {s['never']:>5} "
            f"{s['still_reaches']!s:>13} {s['flagged']!s:>7} {s['fps']:>5}"
        )
    s = ev.summary()
    if s["clips"]:
        for key in ("stack", "spread", "moved_or_taken_back"):
            part = s[key]
            lines.append(
                f"  {key}: {part['decks']} decks, tally_exact {part['tally_exact']}, "
                f"still_exact {part['still_exact']}"
            )
    if ev.delay_s:
        lines.append(f"each count reached the tally {ev.delay_s:g} s after its frame")
    return "\n".join(lines)
