"""How much the card check leaves on the table: ``python -m vision.lab.check_room DIR``.

A labelled synthetic set (images/, truth/) is counted three ways:

- ``detector``: the detector's own thresholds decide which boxes are cards (no check);
- ``check``: the shipped pipeline, the card check (and its card look) deciding;
- ``perfect_check``: from the same candidates the check sees, exactly those that match a
  truth card (IoU >= 0.5, one each) are kept, then named as usual;
- ``perfect_naming``: the cards the shipped pipeline keeps, each one that matches a truth
  card named as that card (its deck, unknown or a face; false finds keep their names);
- ``perfect_both``: the perfect check's cards named as their truth cards.

``perfect_check`` is what a flawless check would give with this detector and classifier,
``perfect_naming`` what a flawless namer would give with this check; ``perfect_both`` is
what the detector's candidates hold (the gap to 1 is cards never proposed). One JSON
object is printed, the headline figures of ``tallero eval`` per way.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from vision.core.cards import BACK, FACE, Cards
from vision.core.imageio import load_image
from vision.count.counter import Counter
from vision.count.result import Count
from vision.evaluate.metrics import Evaluation, counted_scenes, match_cards, truth_quads
from vision.train.deck_net import class_of

HEADLINE = ("deck_exact", "image_exact", "mae", "card_precision", "card_recall", "deck_accuracy")


def perfect_count(counter: Counter, image_path: Path, truth: dict) -> Count:
    """The count when exactly the candidates matching a truth card are kept."""
    s = counter.settings
    image = load_image(image_path, s)
    candidates = counter.locator.locate(image)
    profile = tuple(truth["decks"])
    first = counter.namer.first_look(image, candidates, profile)
    pairs = match_cards(candidates.corners, truth_quads(truth))
    keep = np.array(sorted(i for i, _ in pairs), np.int64)
    named = counter.namer.name(image, candidates[keep], first[keep], profile).cards
    h, w = image.shape[:2]
    return Count(str(image_path), (w, h), named, profile, counter.model_info)


def truth_named(count: Count, truth: dict) -> Count:
    """``count`` with every card that matches a truth card named as that card."""
    cards: Cards = count.cards[np.arange(len(count.cards))]
    for i, j in match_cards(cards.corners, truth_quads(truth)):
        card = truth["cards"][j]
        if card["side"] == "face":
            cards.side[i], cards.deck[i], cards.color[i] = FACE, None, card["color"]
        else:
            deck = class_of(card)
            cards.side[i], cards.color[i] = BACK, None
            cards.deck[i] = deck if deck in count.decks else None
    return Count(count.image, count.size, cards, count.decks, count.model)


def check_room(
    directory: Path,
    limit: int | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Headline figures per way of choosing the cards (see the module docstring)."""
    directory = Path(directory)
    with_check = Counter(threads=threads)
    if with_check.checker is None:
        raise ValueError("the card check is off in these settings; nothing to compare")
    without = Counter(
        settings=with_check.settings.with_overrides(card_check=False), threads=threads
    )
    names = ("detector", "check", "perfect_check", "perfect_naming", "perfect_both")
    ways = {name: Evaluation() for name in names}
    for truth, count in counted_scenes(directory, with_check, limit, progress):
        path = directory / "images" / truth["image"]
        ways["check"].add(truth, count)
        ways["detector"].add(truth, without.count(path, decks=tuple(truth["decks"])))
        perfect = perfect_count(with_check, path, truth)
        ways["perfect_check"].add(truth, perfect)
        ways["perfect_naming"].add(truth, truth_named(count, truth))
        ways["perfect_both"].add(truth, truth_named(perfect, truth))
    out: dict[str, Any] = {"images": ways["check"].overall.images}
    for name, ev in ways.items():
        figures = ev.to_json()
        out[name] = {k: figures[k] for k in HEADLINE}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.lab.check_room", description=__doc__)
    ap.add_argument("directory", type=Path)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    if not (args.directory / "truth").is_dir():
        ap.error(f"{args.directory}: not a labelled synthetic set (no truth/ folder)")
    print(json.dumps(check_room(args.directory, args.limit, args.threads)), flush=True)


if __name__ == "__main__":
    main()
