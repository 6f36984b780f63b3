"""Keeping a scored round's evidence: the photos themselves and what the camera saw.

Photos are copied into ``$TALLERO_HOME/evidence`` under their sha256, so an audit still
works after the originals are moved or deleted.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scoring.errors import NeedsForce
from scoring.home import file_sha256
from scoring.ledger import Evidence, Game, Ledger, confirm_round
from scoring.report import counts_json, standing_json
from scoring.rules import RoundCounts
from scoring.tally import PhotoRound

EVIDENCE_DIR = "evidence"


def keep_photo(path: Path, home: Path) -> tuple[Path, str]:
    """Copy ``path`` into the evidence folder (once per content); returns (copy, sha256)."""
    sha = file_sha256(path)
    folder = home / EVIDENCE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / f"{sha}{path.suffix.lower()}"
    if not kept.exists():
        tmp = kept.with_name(kept.name + ".part")
        shutil.copyfile(path, tmp)
        os.replace(tmp, kept)  # atomic: a crash never leaves half a photo under its hash
    return kept, sha


@dataclass(frozen=True)
class Photo:
    """A photo a round was read off, and what the camera saw in it."""

    role: str  # "dutch", "blitz" or "piles"
    path: Path
    detections: Any  # JSON-serialisable: the count of the photo
    model_id: str


def commit_photo_round(
    ledger: Ledger,
    home: Path,
    game_id: int,
    counts: RoundCounts,
    result: PhotoRound,
    photos: Sequence[Photo],
    accept: bool,
    force: bool,
    reason: str | None,
) -> int:
    """Append a round read off photos, with the photos kept as its evidence.

    Flagged problems need ``accept`` or corrections, and counts possible only by mistake
    need ``force``; every check runs before a photo is copied, so a refused round leaves
    nothing in the evidence folder.
    """
    if result.problems and not (accept or result.corrections):
        raise NeedsForce(
            "not committed: "
            + "; ".join(result.problems)
            + ". Look at the annotated photo, then confirm with --accept or correct with "
            "--fix-dutch/--fix-blitz NAME=N --reason"
        )
    confirm_round(counts, force)
    ledger.require_open(game_id)
    notes = [f"corrected by hand: {c}" for c in result.corrections]
    if result.settled:
        notes.append(result.settled)
    if accept:
        notes += [f"accepted: {p}" for p in result.problems]
    note = "; ".join(notes)
    if reason and reason.strip():
        note = f"{note} ({reason.strip()})" if note else reason.strip()
    evidence = []
    for photo in photos:
        kept, sha = keep_photo(photo.path, home)
        evidence.append(Evidence(photo.role, str(kept), sha, photo.detections, photo.model_id))
    return ledger.add_round(game_id, counts, force=force, evidence=evidence, reason=note or None)


def photo_round_json(
    game: Game,
    counts: RoundCounts,
    result: PhotoRound,
    photos: Sequence[dict[str, Any]],
    number: int | None,
) -> dict[str, Any]:
    """``tallero score --json``: the round read off the photos, and the standing."""
    return {
        "game": game.id,
        "round": number,
        "committed": number is not None,
        "players": counts_json(counts),
        "decks": {s.deck.id: s.player for s in game.setup.seats},
        "photos": list(photos),
        "problems": list(result.problems),
        "corrections": list(result.corrections),
        "settled": result.settled,
        "ranges": {
            label.lower(): {player: list(span) for player, span in spans.items()}
            for label, spans in result.ranges.items()
        },
        **standing_json(game),
    }
