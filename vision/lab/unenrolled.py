"""Counting with some of the table's decks not enrolled: ``python -m vision.lab.unenrolled DIR
--profile P [--limit N]``.

A user may enroll only some of the decks in view. Their backs must come out as unknown,
never as the nearest enrolled deck. Every scene of a labelled synthetic set (`tallero
dataset synth`) is counted with the profile's decks alone (not the scene's, as `tallero
eval` does), and one JSON object is printed:

- ``photos`` and ``exact``: scenes, and scenes whose every enrolled deck is counted exactly;
- ``over`` / ``under``: cards counted beyond / short of the truth, summed over the enrolled
  decks of every scene;
- ``unenrolled_found``: found cards whose truth is a back of one of the scene's decks the
  profile lacks, and ``unenrolled_named``: how many of those were named an enrolled deck
  (the rest are unknown or faces);
- ``scenes``: per scene, the counts that were off (deck: found minus truth).

This is the figure the README gives for sorted piles with pails not enrolled (scenes of
``tallero dataset synth DIR --n 16 --seed 7204 --kind sorted --decks 4 --art heirloom``,
profile enrolled from ``tests/data/enroll/heirloom-row-three.jpg``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from vision.evaluate.metrics import (
    counted_scenes,
    found_labels,
    match_cards,
    truth_label,
    truth_quads,
)


def score_scene(truth: dict[str, Any], count: Any, enrolled: tuple[str, ...]) -> dict[str, Any]:
    """One scene's figures: counts off per enrolled deck, unenrolled backs found and named."""
    want = {d: int(truth["counts"].get(d, 0)) for d in enrolled}
    got = count.counts
    off = {d: got.get(d, 0) - n for d, n in want.items() if got.get(d, 0) != n}
    left_out = set(truth["decks"]) - set(enrolled)
    labels = found_labels(count.cards)
    found = named = 0
    for i, j in match_cards(count.cards.corners, truth_quads(truth)):
        if truth_label(truth["cards"][j]) in left_out:
            found += 1
            named += labels[i] in enrolled
    return {
        "image": truth["image"],
        "off": off,
        "unenrolled_found": found,
        "unenrolled_named": named,
    }


def summarize(scenes: list[dict[str, Any]]) -> dict[str, Any]:
    """The set's totals over `score_scene` results."""
    offs = [v for s in scenes for v in s["off"].values()]
    return {
        "photos": len(scenes),
        "exact": sum(not s["off"] for s in scenes),
        "over": sum(v for v in offs if v > 0),
        "under": -sum(v for v in offs if v < 0),
        "unenrolled_found": sum(s["unenrolled_found"] for s in scenes),
        "unenrolled_named": sum(s["unenrolled_named"] for s in scenes),
        "scenes": [{"image": s["image"], "off": s["off"]} for s in scenes if s["off"]],
    }


def check_dir(
    directory: Path, profile: str, limit: int | None = None, threads: int | None = None
) -> dict[str, Any]:
    """Count every scene of ``directory`` with ``profile``'s enrolled decks and score it."""
    from vision.count.counter import Counter
    from vision.enroll.profiles import classifier_for

    classifier, enrolled = classifier_for(profile)
    if enrolled is None:
        raise ValueError(f"profile {profile!r} has no enrolled decks")
    counter = Counter(classifier_path=classifier, decks=enrolled, threads=threads)
    scenes = [
        score_scene(truth, count, enrolled)
        for truth, count in counted_scenes(Path(directory), counter, limit, decks=enrolled)
    ]
    return {"profile": profile, "decks": list(enrolled), **summarize(scenes)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.unenrolled", description=__doc__)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--profile", required=True, help="profile of enrolled decks ($TALLERO_HOME)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if not (args.directory / "truth").is_dir():
        ap.error(f"{args.directory}: not a labelled synthetic set (no truth/ folder)")
    try:
        result = check_dir(args.directory, args.profile, args.limit, args.threads)
    except ValueError as exc:
        ap.error(str(exc))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
