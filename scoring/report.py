"""What the score-sheet commands print: stable JSON shapes, CSV and rich tables.

The JSON shapes are a contract (README, "JSON output"): add keys, never rename or drop.
Every name a user typed goes into a table as a `rich.text.Text`, never as a string rich
would read as markup (a player called ``[/]`` is printed as ``[/]``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from scoring.ledger import Game, Revision
from scoring.rules import RoundCounts

if TYPE_CHECKING:
    from scoring.evidence import EvidenceCheck


def game_json(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "name": game.name,
        "created_at": game.created_at,
        "target": game.setup.target,
        "tie": game.setup.tie.value,
        "players": [
            {"name": s.player, "deck": s.deck.id, "deck_name": s.deck.display}
            for s in game.setup.seats
        ],
    }


def counts_json(counts: RoundCounts) -> dict[str, dict[str, int]]:
    return {
        name: {"dutch": c.dutch, "blitz": c.blitz, "points": c.points} for name, c in counts.counts
    }


def standing_json(game: Game) -> dict[str, Any]:
    status = game.standing()
    return {
        "totals": status.totals,
        "leaders": list(status.leaders),
        "over": status.over,
        "winners": list(status.winners),
        "tie_at_target": status.tied_at_target,
    }


def round_json(
    game: Game, number: int, revision: int, counts: RoundCounts, warnings: Sequence[str] = ()
) -> dict[str, Any]:
    """A round just written (``tallero round`` / ``amend``) with the standing after it."""
    return {
        "game": game.id,
        "round": number,
        "revision": revision,
        "players": counts_json(counts),
        "warnings": list(warnings),
        **standing_json(game),
    }


def sheet_json(game: Game) -> dict[str, Any]:
    return {
        "game": game_json(game),
        "rounds": [
            {"round": r.number, "revision": r.revision, "players": counts_json(r.counts)}
            for r in game.live_rounds
            if r.counts is not None
        ],
        "undone_rounds": [r.number for r in game.rounds if r.undone],
        **standing_json(game),
    }


def history_json(
    game: Game,
    number: int,
    revisions: Sequence[Revision],
    checks: Mapping[str, EvidenceCheck] | None = None,
) -> dict[str, Any]:
    """``tallero history --json``; ``checks`` (evidence path -> its check) adds each
    evidence file's ``status`` and ``sha256_now``."""
    checks = checks or {}
    return {
        "game": game.id,
        "round": number,
        "revisions": [
            {
                "revision": rev.number,
                "created_at": rev.created_at,
                "kind": rev.kind,
                "reason": rev.reason,
                "forced": rev.forced,
                "warnings": list(rev.warnings),
                "players": counts_json(rev.counts) if rev.counts else None,
                "evidence": [
                    {
                        "role": e.role,
                        "path": e.path,
                        "sha256": e.sha256,
                        "model": e.model_id,
                        "cards": len(e.detections.get("cards", []))
                        if isinstance(e.detections, dict)
                        else None,
                        **(
                            {
                                "status": checks[e.path].status,
                                "sha256_now": checks[e.path].sha256_now,
                            }
                            if e.path in checks
                            else {}
                        ),
                    }
                    for e in rev.evidence
                ],
            }
            for rev in revisions
        ],
    }


def sheet_csv(game: Game) -> str:
    """One row per player: deck, the points of each live round, the total."""
    rounds = [r for r in game.live_rounds if r.counts is not None]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["player", "deck", *[f"round {r.number}" for r in rounds], "total"])
    totals = game.standing().totals
    for seat in game.setup.seats:
        points = [r.counts[seat.player].points for r in rounds if r.counts is not None]
        writer.writerow([seat.player, seat.deck.id, *points, totals[seat.player]])
    return out.getvalue()


def sheet_table(game: Game) -> Table:
    """The score sheet as players know it: one column per round, then the totals."""
    status = game.standing()
    rounds = [r for r in game.live_rounds if r.counts is not None]
    title = Text(f"{game.name} (game {game.id}) - first to {game.setup.target}", "table.title")
    table = Table(title=title, title_justify="left")
    table.add_column("Player")
    table.add_column("Deck")
    for record in rounds:
        mark = "*" if record.revision > 1 else ""
        table.add_column(f"R{record.number}{mark}", justify="right")
    table.add_column("Total", justify="right", style="bold")
    for seat in game.setup.seats:
        name = seat.player
        if name in status.winners:
            name += " (winner)"
        elif name in status.leaders and rounds:
            name += " (leads)"
        points = [str(r.counts[seat.player].points) for r in rounds if r.counts is not None]
        table.add_row(Text(name), Text(seat.deck.display), *points, str(status.totals[seat.player]))
    return table


def sheet_notes(game: Game) -> list[str]:
    """Lines printed under the sheet: amendments, the winner or a tie at the top."""
    status = game.standing()
    notes = []
    if any(r.revision > 1 for r in game.live_rounds):
        notes.append("* amended: see `tallero history ROUND`")
    if status.over:
        notes.append(f"Game over: {' and '.join(status.winners)} won.")
    elif status.tied_at_target:
        notes.append(f"Tied at the top ({', '.join(status.leaders)}): play another round.")
    return notes


def round_table(
    game: Game,
    number: int | None,
    counts: RoundCounts,
    ranges: Mapping[str, Mapping[str, tuple[int, int]]] | None = None,
) -> Table:
    """One round: each player's cards and points, and the totals after it.

    ``number`` None is a round not (yet) on the sheet: it has no totals column.
    ``ranges`` (``"Dutch"`` / ``"Blitz"`` -> player -> (low, high)) shows the counts
    that could be off as ``6 (5-6)``.
    """
    ranges = ranges or {}

    def cell(label: str, player: str, n: int) -> str:
        span = ranges.get(label, {}).get(player)
        return f"{n} ({span[0]}-{span[1]})" if span and span[0] != span[1] else str(n)

    totals = game.standing().totals
    if number is None:
        title = Text(f"Round from photos, not on the sheet of {game.name}", "table.title")
    else:
        title = Text(f"Round {number} of {game.name}", "table.title")
    table = Table(title=title, title_justify="left")
    columns = ["Player", "Deck", "Dutch", "Blitz", "Points"] + (["Total"] if number else [])
    for col in columns:
        table.add_column(col, justify="left" if col in ("Player", "Deck") else "right")
    for seat in game.setup.seats:
        c = counts[seat.player]
        dutch, blitz = cell("Dutch", seat.player, c.dutch), cell("Blitz", seat.player, c.blitz)
        row: list[Text | str] = [Text(seat.player), Text(seat.deck.display)]
        row += [dutch, blitz, f"{c.points:+d}"]
        table.add_row(*row, *([str(totals[seat.player])] if number else []))
    return table
