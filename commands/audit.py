"""Auditing a disputed round: ``tallero audit`` checks, counts again and writes a report."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from commands.app import GameOpt, JsonOpt, ProfileOpt, app, emit_json, make_counter
from scoring.errors import UsageError

if TYPE_CHECKING:
    from scoring.audit import Recount
    from scoring.evidence import EvidenceCheck
    from scoring.ledger import Game
    from vision.count.counter import Counter
    from vision.count.result import Count

HtmlOpt = Annotated[
    Path | None,
    typer.Option("--html", help="Also write the report as one self-contained HTML file."),
]


@app.command("audit")
def audit(
    round_number: Annotated[int, typer.Argument(metavar="ROUND", help="Round number.")],
    game: GameOpt = None,
    html: HtmlOpt = None,
    as_json: JsonOpt = False,
    profile: ProfileOpt = None,
) -> None:
    """Audit a round: check its evidence files, count the photos again with today's models,
    and show the revision trail and the cards to look at first (exit 1 if evidence is bad)."""
    from scoring.audit import audit_lines
    from scoring.evidence import require_intact

    data, pictures, checks = audit_round(
        game, round_number, lambda: make_counter(None, None, profile)
    )
    if html is not None:
        from commands.audit_page import write_audit_page

        write_audit_page(html, data, pictures)
    if as_json:
        emit_json(data)
    else:
        for line in audit_lines(data):
            typer.echo(line)
        if html is not None:
            typer.echo(f"\nReport written to {html}")
    require_intact(checks, f"the evidence of round {round_number} is not intact")


def audit_round(
    game_id: int | None,
    round_number: int,
    counter_for: Callable[[], Counter],
    home: Path | None = None,
) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]], list[EvidenceCheck]]:
    """Check a round's evidence and count its intact photos again (with the counter
    ``counter_for`` gives, made only when there is a photo to count). Returns the audit
    JSON, per role (image BGR, Count) for the HTML report, and the evidence checks."""
    from scoring.audit import audit_json, check_round_evidence, given_pile_tops
    from scoring.ledger import Ledger

    with Ledger.open(home) as ledger:
        g = ledger.game(game_id)
        revisions = ledger.history(g.id, round_number)
    checks = check_round_evidence(revisions)
    counter = counter_for() if any(c.ok for _, c in checks) else None
    recounts, pictures = recount(g, [c for _, c in checks], counter, given_pile_tops(revisions))
    data = audit_json(
        g,
        round_number,
        revisions,
        checks,
        recounts,
        counter.model_info if counter is not None else None,
        counter.settings.uncertain_below_confidence if counter is not None else 0.8,
    )
    return data, pictures, [c for _, c in checks]


def recount(
    game: Game,
    checks: list[EvidenceCheck],
    counter: Counter | None,
    given_tops: Mapping[int, str] | None = None,
) -> tuple[list[Recount], dict[str, tuple[Any, Any]]]:
    """Count every intact evidence photo again with ``counter``, limited to the game's
    decks as when it was scored; the piles photo is read again with the pile tops given by
    hand then (``given_tops``). Returns the recounts and, per role, (image BGR, Count)
    for the HTML report. A missing or changed photo is not counted (it says why)."""
    from scoring.audit import Recount
    from vision.core.imageio import load_image

    recounts: list[Recount] = []
    pictures: dict[str, tuple[Any, Any]] = {}
    # the piles photo, or each frame ``watch`` read them over: (its recount's JSON, its
    # count, its picture)
    pile_counts: list[tuple[dict[str, Any], Count, Any]] = []
    decks = tuple(s.deck.id for s in game.setup.seats)
    if counter is not None:
        unknown = [d for d in decks if d not in counter.decks]
        if unknown:
            raise UsageError(
                f"the deck model does not know {', '.join(unknown)}; pick the profile the "
                "game was scored with (--profile)"
            )
    for check in checks:
        if not check.ok or counter is None:
            recounts.append(Recount(check.role, check.path, None, f"the file is {check.status}"))
            continue
        image = load_image(Path(check.path), counter.settings)
        count = counter.count(image, name=check.path, decks=decks)
        counted = count.to_json()
        if check.role == "piles":  # the Dutch piles before the sort: read again below
            pile_counts.append((counted, count, image))
        recounts.append(Recount(check.role, check.path, counted))
        pictures.setdefault(check.role, (image, count))
    if pile_counts and counter is not None:
        median = None
        if len(pile_counts) > 1:  # the frames' median picture, counted as ``p`` counted it
            from vision.piles.frames import median_picture

            picture = median_picture([image for _, _, image in pile_counts])
            median = counter.count(picture, name="median of the piles frames", decks=decks)
        counts = [count for _, count, _ in pile_counts]
        pile_counts[0][0]["piles"] = piles_again(counts, given_tops or {}, median)
    return recounts, pictures


def piles_again(
    counts: Sequence[Count], given_tops: Mapping[int, str], median: Count | None = None
) -> dict[str, Any]:
    """The Dutch piles read again off the piles photo's counts: one photo, or the frames
    ``watch`` read them over and their median picture's count (``median``), judged as
    ``p`` judged them (`vision.piles.frames.judged`), with the tops given by hand;
    ``total``, ``complete`` and whether the median's piles were taken (``median``)."""
    from vision.piles.frames import judged
    from vision.piles.read import piles_seen

    reads = [piles_seen(count) for count in counts]
    try:
        piles = judged(reads, piles_seen(median) if median is not None else None)
        piles = piles.with_tops(given_tops)
    except UsageError:  # fewer piles than the tops given
        return {"total": 0, "complete": False, "median": False}
    if not piles.piles:
        return {"total": 0, "complete": False, "median": False}
    return {"total": piles.total, "complete": piles.complete, "median": piles.median}
