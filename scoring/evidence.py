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

from scoring.errors import EvidenceError, NeedsForce
from scoring.home import file_sha256
from scoring.ledger import REPEAT_WINDOW_S, Evidence, Game, Ledger, Prepare, confirm_round
from scoring.report import counts_json, standing_json
from scoring.rules import RoundCounts
from scoring.tally import PhotoRound

EVIDENCE_DIR = "evidence"


def keep_photo(path: Path, home: Path) -> tuple[Path, str]:
    """Copy ``path`` into the evidence folder (once per content); returns (copy, sha256).

    A file already kept under that hash is checked first: a copy that was changed or
    truncated since is replaced, so the sha256 recorded is always the kept file's own.
    """
    sha = file_sha256(path)
    folder = home / EVIDENCE_DIR
    folder.mkdir(parents=True, exist_ok=True)
    kept = folder / f"{sha}{path.suffix.lower()}"
    if not (kept.is_file() and file_sha256(kept) == sha):
        tmp = kept.with_name(kept.name + ".part")
        shutil.copyfile(path, tmp)
        os.replace(tmp, kept)  # atomic: a crash never leaves half a photo under its hash
    return kept, sha


@dataclass(frozen=True)
class EvidenceCheck:
    """One evidence file against the sha256 recorded when its round was committed."""

    role: str
    path: str
    sha256: str  # as recorded
    status: str  # "ok", "missing", "changed" or "unreadable"
    sha256_now: str | None  # the file's sha256 today; None when it is missing

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "path": self.path,
            "sha256": self.sha256,
            "status": self.status,
            "sha256_now": self.sha256_now,
        }

    def describe(self) -> str:
        """One line: the file and what is wrong with it (or that it is intact)."""
        if self.status == "missing":
            return f"{self.role} photo {self.path} is MISSING (sha256 {self.sha256[:12]})"
        if self.status == "unreadable":
            return f"{self.role} photo {self.path} is UNREADABLE (sha256 {self.sha256[:12]})"
        if self.status == "changed":
            now = (self.sha256_now or "")[:12]
            return (
                f"{self.role} photo {self.path} has CHANGED "
                f"(sha256 {now}, recorded {self.sha256[:12]})"
            )
        return f"{self.role} photo {self.path} intact (sha256 {self.sha256[:12]})"


def check_evidence(item: Evidence) -> EvidenceCheck:
    """Hash the kept file of ``item`` and compare it with the recorded sha256."""
    path = Path(item.path)
    try:
        now = file_sha256(path)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return EvidenceCheck(item.role, item.path, item.sha256, "missing", None)
    except OSError:
        return EvidenceCheck(item.role, item.path, item.sha256, "unreadable", None)
    status = "ok" if now == item.sha256 else "changed"
    return EvidenceCheck(item.role, item.path, item.sha256, status, now)


def require_intact(checks: Sequence[EvidenceCheck], what: str) -> None:
    """Raise ``EvidenceError`` naming every missing or changed file among ``checks``."""
    bad = [c for c in checks if not c.ok]
    if bad:
        raise EvidenceError(
            f"{what}: "
            + "; ".join(c.describe() for c in bad)
            + ". Nothing was rewritten; restore the file from a backup to keep the audit trail"
        )


@dataclass(frozen=True)
class Photo:
    """A photo a round was read off, and what the camera saw in it."""

    role: str  # "dutch", "blitz" or "piles"
    path: Path
    detections: Any  # JSON-serialisable: the count of the photo
    model_id: str


def needs_look(result: PhotoRound, accept: bool) -> bool:
    """Whether a round read off photos may not be committed yet: it lists problems that
    neither an acceptance nor a correction by hand answered."""
    return bool(result.problems) and not (accept or result.corrections)


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
    prepare: Prepare | None = None,
    again: bool = False,
) -> int:
    """Append a round read off photos, with the photos kept as its evidence.

    Flagged problems need ``accept`` or corrections, and counts possible only by mistake
    need ``force``; every check runs before a photo is copied, so a refused round leaves
    nothing in the evidence folder. The same counts as the game's last round, written
    minutes ago, need ``again`` (else it is taken for a command run again after it
    landed); ``prepare`` renders the command's output before the commit (`Ledger.add_round`).
    """
    if needs_look(result, accept):
        raise NeedsForce(
            "not committed: "
            + "; ".join(result.problems)
            + ". Look at the annotated photo, then confirm with --accept or correct with "
            "--fix-dutch/--fix-blitz NAME=N --reason"
        )
    confirm_round(counts, force)
    ledger.require_open(game_id)
    if not again:  # before a photo is copied: a refused retry leaves no orphan evidence
        ledger.check_repeat(game_id, counts, REPEAT_WINDOW_S)
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
    return ledger.add_round(
        game_id,
        counts,
        force=force,
        evidence=evidence,
        reason=note or None,
        repeat_window_s=None if again else REPEAT_WINDOW_S,
        prepare=prepare,
    )


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
        "fits": [dict(f) for f in result.fits],
        "ranges": {
            label.lower(): {player: list(span) for player, span in spans.items()}
            for label, spans in result.ranges.items()
        },
        **standing_json(game),
    }
