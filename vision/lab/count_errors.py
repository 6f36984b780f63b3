"""Why deck counts go wrong: ``python -m vision.lab.count_errors DIR [--model M] [--limit N]
[--profile P]`` (``--profile``: with that profile's enrolled classifier, as ``tallero eval
--profile``; a profile with nothing enrolled counts with the built-in decks).

For every (image, deck) pair of a labelled synthetic set whose count is wrong, the card
errors behind it are sorted into kinds:

- ``missed_under_half`` / ``missed``: a card of the deck was not found (it shows under
  half of itself / at least half);
- ``named_otherwise``: a card of the deck was found but named another deck, a face or
  unknown;
- ``deck_named_this``, ``other_art_named_this``, ``face_named_this``: a card of another
  deck, a back of no deck of the profile, or a face was found and named this deck;
- ``double_find``, ``off_find``, ``false_find``: a find that matches no card was named
  this deck; it lies on a card that another find matched (a second box on one card), on
  a card that nothing matched (a box too far off to match it), or on no card (IoU under
  `ON_CARD_IOU` with every card).

A wrong pair is *due to* a kind when fixing that kind alone makes it exact. One JSON object
is printed: pair totals, error events per kind, and pairs due to each kind (and to it
alone), over the whole set and per layout kind; ``given_as_one_number`` repeats the pair
count and the events for the wrong pairs whose count had no range (`Count.ranges`): the
miscounts nothing warned of. This is how the next improvement is
chosen: detection (missed, false finds) or naming (the rest).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Container
from pathlib import Path
from typing import Any

from vision.core.cards import Cards
from vision.core.geometry import quad_iou
from vision.evaluate.metrics import (
    counted_scenes,
    found_labels,
    match_cards,
    truth_label,
    truth_quads,
)

# Kinds that take a card away from the deck's count; the others add one.
UNDER = ("missed_under_half", "missed", "named_otherwise")
# A find that matches no card still lies on the card it overlaps this much (IoU).
ON_CARD_IOU = 0.2


def unmatched_kind(quad: Any, quads: Any, matched_truth: Container[int]) -> str:
    """``double_find``, ``off_find`` or ``false_find`` for a find that matched no card."""
    ious = [quad_iou(quad, t) for t in quads]
    if not ious or max(ious) < ON_CARD_IOU:
        return "false_find"
    best = max(range(len(ious)), key=ious.__getitem__)
    return "double_find" if best in matched_truth else "off_find"


def pair_errors(
    truth: dict[str, Any], cards: Cards, ranges: dict[str, tuple[int, int]] | None = None
) -> list[dict[str, Any]]:
    """One record per deck of ``truth`` whose count from ``cards`` is wrong; with the
    count's ``ranges``, each record says whether its count was given as one number."""
    quads = truth_quads(truth)
    found = {j: i for i, j in match_cards(cards.corners, quads)}
    matched = set(found.values())
    names = found_labels(cards)
    out = []
    for deck in truth["decks"]:
        want = int(truth["counts"].get(deck, 0))
        got = sum(1 for n in names if n == deck)
        if got == want:
            continue
        kinds: Counter[str] = Counter()
        for j, card in enumerate(truth["cards"]):
            label = truth_label(card)
            if label == deck and j not in found:
                half = float(card.get("visible_fraction", 1.0)) < 0.5
                kinds["missed_under_half" if half else "missed"] += 1
            elif label == deck and names[found[j]] != deck:
                kinds["named_otherwise"] += 1
            elif label != deck and j in found and names[found[j]] == deck:
                if label == "face":
                    kinds["face_named_this"] += 1
                elif label in truth["decks"]:
                    kinds["deck_named_this"] += 1
                else:
                    kinds["other_art_named_this"] += 1
        for i, n in enumerate(names):
            if n == deck and i not in matched:
                kinds[unmatched_kind(cards.corners[i], quads, found)] += 1
        kinds = +kinds  # drop zero counts
        record = {"deck": deck, "want": want, "got": got, "kinds": dict(kinds)}
        if ranges is not None:
            low, high = ranges.get(deck, (got, got))
            record["one_number"] = low == high
        out.append(record)
    return out


def due_to(record: dict[str, Any]) -> list[str]:
    """Kinds whose fixing alone makes the pair of ``record`` exact."""
    out = []
    for kind, n in record["kinds"].items():
        change = n if kind in UNDER else -n
        if record["got"] + change == record["want"]:
            out.append(kind)
    return out


def summarize(records: list[tuple[str, dict[str, Any]]], pairs: int) -> dict[str, Any]:
    """Totals over ``(layout kind, record)`` pairs of a whole set."""
    events: Counter[str] = Counter()
    due: Counter[str] = Counter()
    only: Counter[str] = Counter()
    only_by_layout: dict[str, Counter[str]] = {}
    wrong_by_kind: Counter[str] = Counter()
    for layout, rec in records:
        wrong_by_kind[layout] += 1
        events.update(rec["kinds"])
        causes = due_to(rec)
        due.update(causes)
        if len(rec["kinds"]) == 1:
            only.update(causes)
            only_by_layout.setdefault(layout, Counter()).update(causes)
    unwarned = [rec for _, rec in records if rec.get("one_number")]
    unwarned_events: Counter[str] = Counter()
    for rec in unwarned:
        unwarned_events.update(rec["kinds"])
    return {
        "pairs": pairs,
        "wrong": len(records),
        "given_as_one_number": {
            "wrong": len(unwarned),
            "events": dict(unwarned_events.most_common()),
        },
        "wrong_by_layout": dict(wrong_by_kind.most_common()),
        "events": dict(events.most_common()),
        "pairs_due_to": dict(due.most_common()),
        "pairs_due_only_to": dict(only.most_common()),
        "pairs_due_only_to_by_layout": {
            layout: dict(c.most_common()) for layout, c in sorted(only_by_layout.items())
        },
    }


def analyse_dir(
    directory: Path,
    model: Path | None = None,
    limit: int | None = None,
    threads: int | None = None,
    profile: str | None = None,
) -> dict[str, Any]:
    """Count every image of a labelled set and sort its wrong pairs' errors (with the
    enrolled decks of ``profile`` when it has any, as `tallero eval --profile`)."""
    from vision.count.counter import Counter as CardCounter
    from vision.enroll.profiles import classifier_for

    classifier, enrolled = classifier_for(profile)
    counter = CardCounter(
        model_path=model, classifier_path=classifier, decks=enrolled, threads=threads
    )
    records: list[tuple[str, dict[str, Any]]] = []
    pairs = 0
    for truth, count in counted_scenes(Path(directory), counter, limit):
        pairs += len(truth["decks"])
        layout = str(truth.get("kind", "?"))
        records.extend((layout, r) for r in pair_errors(truth, count.cards, count.ranges))
    return summarize(records, pairs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.count_errors", description=__doc__)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--profile", default=None, help="profile of enrolled decks ($TALLERO_HOME)")
    args = ap.parse_args(argv)
    if not (args.directory / "truth").is_dir():
        ap.error(f"{args.directory}: not a labelled synthetic set (no truth/ folder)")
    result = analyse_dir(args.directory, args.model, args.limit, args.threads, args.profile)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
