"""Scoring the Dutch piles reader on synthetic piles photos (``dataset synth --kind piles``).

Each truth pile (its top card's corners, its top, face down or not) is matched to the read
pile whose top card lies nearest, within half a card. Per pile: its top read exactly,
flagged for a look, or read wrong with no flag (the miss nothing warns of). Per photo: the
total exact and given as complete, flagged (not complete), or wrong with no flag.

A photo whose total is not right and complete is listed in ``failures`` with each pile
not read exactly: missed, flagged or read wrong, and how much of its top card showed and
how long it lay in the photo (a top under a hand, a pencil or a phone is flagged rightly;
one in full view is the reader's to read), and each pile read where none lies.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.core.geometry import long_side
from vision.evaluate.metrics import counted_scenes
from vision.piles.read import Pile, Piles, piles_seen


def read_as(pile: Pile) -> str:
    """What was read of a pile: ``"down"``, its top, or ``"nothing"``."""
    return "down" if pile.down else ("nothing" if pile.top is None else str(pile.top))


def truth_pile_text(cards: dict[int, dict[str, Any]], pile: dict[str, Any]) -> str:
    """A truth pile as a failure names it, its top card found in its photo's ``cards`` (by
    id): ``"yellow 1 (top 82% seen, 159 px)"``."""
    name = "face-down 10" if pile["face_down"] else f"{pile['color']} {pile['top']}"
    top = cards.get(pile.get("top_card_id"))
    length = f"{long_side(np.asarray(pile['corners'], np.float64)):.0f} px"
    if top is None:
        return f"{name} ({length})"
    return f"{name} (top {top['visible_fraction']:.0%} seen, {length})"


@dataclass
class PilesEvaluation:
    """Running tallies of the piles reader over photos."""

    photos: int = 0
    piles: int = 0
    top_exact: int = 0  # read, not flagged, right
    flagged: int = 0  # matched and flagged (whatever it read)
    silent_wrong: int = 0  # matched, not flagged, wrong top
    missed: int = 0  # no read pile near it
    extra: int = 0  # read piles matching no truth pile
    extra_unflagged: int = 0
    total_exact: int = 0  # complete and right
    total_flagged: int = 0  # not complete
    total_silent_wrong: int = 0  # complete and wrong
    down_piles: int = 0
    down_exact: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)

    def add(self, truth: dict[str, Any], piles: Piles) -> None:
        """Score the piles read off one photo against its truth record."""
        self.photos += 1
        tp = truth["dutch_piles"]
        true_total = sum(int(p["top"]) for p in tp)
        centres = np.array([np.mean(p.corners, axis=0) for p in piles.piles]).reshape(-1, 2)
        used: set[int] = set()
        wrong: list[str] = []
        cards = {c["id"]: c for c in truth.get("cards", [])}
        for t in tp:
            q = np.asarray(t["corners"], np.float64)
            reach = 0.5 * float(np.linalg.norm(q[0] - q[2]))
            c = q.mean(axis=0)
            d = np.linalg.norm(centres - c, axis=1) if len(centres) else np.zeros(0)
            order = [int(k) for k in np.argsort(d) if d[k] < reach and int(k) not in used]
            self.piles += 1
            self.down_piles += bool(t["face_down"])
            if not order:
                self.missed += 1
                wrong.append(f"missed {truth_pile_text(cards, t)}")
                continue
            k = order[0]
            used.add(k)
            p = piles.piles[k]
            right = p.top == int(t["top"]) and p.down == bool(t["face_down"])
            read = read_as(p)
            if p.uncertain:
                self.flagged += 1
                wrong.append(f"flagged {truth_pile_text(cards, t)}, read {read}")
            elif right:
                self.top_exact += 1
                self.down_exact += bool(t["face_down"])
            else:
                self.silent_wrong += 1
                wrong.append(f"read {read} for {truth_pile_text(cards, t)}, not flagged")
        for k, p in enumerate(piles.piles):
            if k not in used:
                self.extra += 1
                self.extra_unflagged += not p.uncertain
                what = "a place" if p.place_only else f"read {read_as(p)}"
                flag = "flagged" if p.uncertain else "not flagged"
                wrong.append(f"extra pile where none lies ({what}, {flag})")
        if not piles.complete:
            self.total_flagged += 1
        elif piles.total == true_total:
            self.total_exact += 1
        else:
            self.total_silent_wrong += 1
        if wrong or piles.total != true_total:
            self.failures.append(
                {
                    "image": truth["image"],
                    "total": piles.total,
                    "true_total": true_total,
                    "complete": piles.complete,
                    "wrong": wrong,
                }
            )

    def to_json(self) -> dict[str, Any]:
        """The figures, shares rounded to 4 places."""

        def share(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        return {
            "photos": self.photos,
            "piles": self.piles,
            "top_exact": share(self.top_exact, self.piles),
            "top_flagged": share(self.flagged, self.piles),
            "top_silent_wrong": share(self.silent_wrong, self.piles),
            "missed": share(self.missed, self.piles),
            "extra_piles": self.extra,
            "extra_unflagged": self.extra_unflagged,
            "down_piles": self.down_piles,
            "down_exact": share(self.down_exact, self.down_piles),
            "total_exact": share(self.total_exact, self.photos),
            "total_flagged": share(self.total_flagged, self.photos),
            "total_silent_wrong": share(self.total_silent_wrong, self.photos),
            "failures": self.failures[:50],
        }


def evaluate_piles(
    directory: Path,
    counter: Any,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> PilesEvaluation:
    """Read the piles of every photo of a synthetic piles set and score them."""
    ev = PilesEvaluation()
    for truth, count in counted_scenes(directory, counter, limit, progress):
        if truth.get("dutch_piles") is None:
            continue
        ev.add(truth, piles_seen(count))  # a photo with no pile found: all missed
    return ev


def format_piles(ev: PilesEvaluation) -> str:
    """A plain-text report of :class:`PilesEvaluation`."""
    d = ev.to_json()
    return "\n".join(
        [
            f"photos {d['photos']}, piles {d['piles']} ({d['down_piles']} face down)",
            f"pile tops: exact {d['top_exact']}, flagged {d['top_flagged']}, wrong with no "
            f"flag {d['top_silent_wrong']}, missed {d['missed']}; extra piles {d['extra_piles']}"
            f" ({d['extra_unflagged']} unflagged)",
            f"totals: exact {d['total_exact']}, flagged {d['total_flagged']}, wrong with no "
            f"flag {d['total_silent_wrong']}",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    """``python -m vision.evaluate.piles DIR [--limit N]``: the figures as JSON."""
    import argparse

    from vision.count.counter import Counter

    ap = argparse.ArgumentParser(description="Score the Dutch piles reader on a piles set.")
    ap.add_argument("directory", type=Path)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--numbers", type=Path, default=None, help="number reader .onnx")
    a = ap.parse_args(argv)
    ev = evaluate_piles(a.directory, Counter(numbers_path=a.numbers), a.limit)
    print(json.dumps(ev.to_json()))


if __name__ == "__main__":
    main()
