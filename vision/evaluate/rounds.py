"""Scoring whole rounds end to end (``dataset synth --kind round``), with and without the
photo of the Dutch piles.

Each round is scored as a game would score it: the sorted Dutch photo and the Blitz photo
counted with the round's decks (player = deck), their tallies turned into the round
(`scoring.tally.round_from_tallies`), once without the piles and once with the total read
off the piles photo (`vision.piles`). Per variant: ``round_exact`` (every player's points
right as Tallero gives them), ``round_flagged`` (Tallero asks for a look) and
``round_silent_wrong`` (points wrong and nothing asked: what a score sheet lives by).
With the piles: ``settled_by_total``, and ``shown_likeliest`` / ``shown_right`` (rounds where
several fits of the total were left to a look and the likeliest was shown; and of all
rounds, those where it was the true one), ``ways_listed`` (rounds offering the ways that
reach the total to choose from: `PhotoRound.fits`), ``truth_among_ways`` (of all rounds,
those where one of the ways offered holds the true Dutch counts) and
``round_exact_after_choice`` (rounds right as shown, or made right by choosing a way offered:
one key or tap).
``asked_by``: the share of rounds in which each photo alone asks for a look (the Dutch or
Blitz photo: `scoring.tally.photo_problems`; the piles photo: a top not read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scoring.decks import deck_by_name
from scoring.errors import ImageError
from scoring.game import GameSetup, Seat
from scoring.tally import PhotoRound, photo_problems, round_from_tallies
from vision.count.tally import tally_of
from vision.evaluate.piles import PilesEvaluation
from vision.piles.read import Piles, read_piles


def is_round_folder(directory: Path) -> bool:
    """Whether ``directory`` was written by ``dataset synth --kind round``."""
    recipe = Path(directory) / "recipe.json"
    return recipe.is_file() and json.loads(recipe.read_text()).get("kind") == "round"


@dataclass
class Variant:
    """Tallies of one way of scoring the rounds."""

    rounds: int = 0
    exact: int = 0
    flagged: int = 0
    silent_wrong: int = 0
    clean: int = 0  # exact and nothing asked
    settled: int = 0
    # not settled, but the likeliest fit of the piles' total shown (`Settlement.shown`)
    shown: int = 0
    shown_right: int = 0
    ways: int = 0  # several ways to reach the total offered to choose from
    truth_in_ways: int = 0  # one of them the true Dutch counts
    exact_after_choice: int = 0  # right as shown, or made right by a way offered

    def add(
        self,
        result: PhotoRound,
        truth: dict[str, Any],
        chosen: Sequence[dict[str, int]] = (),
    ) -> bool:
        """Score one round; True when its points are right. ``chosen``: the Dutch counts
        the round would have with each way offered (``result.fits``) chosen."""
        players = list(truth["dutch"])

        def points_right(dutch: dict[str, int]) -> bool:
            return all(
                dutch[p] - 2 * result.blitz[p] == truth["dutch"][p] - 2 * truth["blitz"][p]
                for p in players
            )

        right = points_right(result.dutch)
        self.ways += bool(result.fits)
        self.truth_in_ways += any(c == truth["dutch"] for c in chosen)
        self.exact_after_choice += right or any(points_right(c) for c in chosen)
        self.rounds += 1
        self.exact += right
        self.flagged += bool(result.problems)
        self.silent_wrong += not right and not result.problems
        self.clean += right and not result.problems
        self.settled += result.settled is not None
        return right

    def to_json(self) -> dict[str, Any]:
        def share(n: int) -> float | None:
            return round(n / self.rounds, 4) if self.rounds else None

        return {
            "rounds": self.rounds,
            "round_exact": share(self.exact),
            "round_flagged": share(self.flagged),
            "round_silent_wrong": share(self.silent_wrong),
            "round_exact_unflagged": share(self.clean),
            "settled_by_total": share(self.settled),
            "shown_likeliest": share(self.shown),
            "shown_right": share(self.shown_right),
            "ways_listed": share(self.ways),
            "truth_among_ways": share(self.truth_in_ways),
            "round_exact_after_choice": share(self.exact_after_choice),
        }


PHOTOS = ("dutch_photo", "blitz_photo", "piles_photo")


@dataclass
class RoundsEvaluation:
    """Both variants and the piles reader over the rounds of a folder."""

    without_piles: Variant = field(default_factory=Variant)
    with_piles: Variant = field(default_factory=Variant)
    piles: PilesEvaluation = field(default_factory=PilesEvaluation)
    # rounds in which each photo alone asks for a look
    asked: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHOTOS, 0))
    failures: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        piles = self.piles.to_json()
        n = self.with_piles.rounds
        return {
            "without_piles": self.without_piles.to_json(),
            "with_piles": self.with_piles.to_json(),
            "asked_by": {k: round(v / n, 4) if n else None for k, v in self.asked.items()},
            "piles": piles,  # with its own failures: the piles photos not right and complete
            "failures": self.failures[:50],
        }


def evaluate_rounds(
    directory: Path,
    counter: Any,
    limit: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RoundsEvaluation:
    """Score every round of a ``--kind round`` folder, with and without its piles photo."""
    directory = Path(directory)
    files = sorted((directory / "truth").glob("*.json"))[: limit or None]
    ev = RoundsEvaluation()
    for k, tf in enumerate(files):
        rec = json.loads(tf.read_text())
        truth = rec["round"]
        decks = tuple(truth["players"])
        setup = GameSetup(tuple(Seat(d, deck_by_name(d)) for d in decks))
        photos = rec["photos"]
        dutch = counter.count(directory / photos["dutch"]["image"], decks=decks)
        blitz = counter.count(directory / photos["blitz"]["image"], decks=decks)
        pile_count = counter.count(directory / photos["piles"]["image"], decks=decks)
        try:
            piles = read_piles(pile_count)
        except ImageError:
            piles = Piles(pile_count.image, pile_count.size, (), pile_count.model)
        ev.piles.add(photos["piles"], piles)
        td, tb = tally_of(dutch), tally_of(blitz)
        ev.asked["dutch_photo"] += bool(photo_problems(setup, "Dutch", td))
        ev.asked["blitz_photo"] += bool(photo_problems(setup, "Blitz", tb))
        ev.asked["piles_photo"] += bool(piles.uncertain)
        plain = round_from_tallies(setup, td, tb)
        with_piles = round_from_tallies(
            setup, td, tb, pile_total=piles.total, unread_piles=piles.uncertain
        )
        right0 = ev.without_piles.add(plain, truth)
        chosen = [
            round_from_tallies(
                setup, td, tb, fix_dutch=way, pile_total=piles.total, unread_piles=piles.uncertain
            ).dutch
            for way in with_piles.fits
        ]
        right1 = ev.with_piles.add(with_piles, truth, chosen)
        if with_piles.settled is None and with_piles.dutch != plain.dutch:
            ev.with_piles.shown += 1
            ev.with_piles.shown_right += with_piles.dutch == truth["dutch"]
        if not (right0 and right1):
            ev.failures.append(
                {
                    "round": tf.stem,
                    "truth_dutch": truth["dutch"],
                    "truth_blitz": truth["blitz"],
                    "dutch": plain.dutch,
                    "blitz": plain.blitz,
                    "settled_dutch": with_piles.dutch,
                    "piles_total": piles.total,
                    "piles_complete": piles.complete,
                    "flagged": [bool(plain.problems), bool(with_piles.problems)],
                }
            )
        if progress:
            progress(k + 1, len(files))
    return ev


def format_rounds(ev: RoundsEvaluation) -> str:
    """A plain-text table: both variants, then the piles reader."""
    from vision.evaluate.piles import format_piles

    cols = ("round_exact", "round_flagged", "round_silent_wrong", "round_exact_unflagged")
    lines = [f"{'':<16}" + "".join(f"{c:>24}" for c in cols)]
    for name, v in (("without piles", ev.without_piles), ("with piles", ev.with_piles)):
        d = v.to_json()
        lines.append(f"{name:<16}" + "".join(f"{d[c]!s:>24}" for c in cols))
    lines.append(
        f"rounds {ev.with_piles.rounds}; settled by the piles' total: {ev.with_piles.settled}; "
        f"the likeliest fit shown: {ev.with_piles.shown} ({ev.with_piles.shown_right} right); "
        f"ways offered to choose: {ev.with_piles.ways} (the truth among them: "
        f"{ev.with_piles.truth_in_ways}); exact after a choice: "
        f"{ev.with_piles.to_json()['round_exact_after_choice']}"
    )
    asked = ev.to_json()["asked_by"]
    lines.append("asked for a look by: " + ", ".join(f"{k} {v}" for k, v in asked.items()))
    return "\n".join([*lines, format_piles(ev.piles)])
