"""What the ledger hands out: games with their rounds, revisions and evidence records.

Frozen values read off the ledger (`scoring.ledger`); they know nothing of SQLite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scoring.game import GameSetup, Standing, standing
from scoring.rules import RoundCounts


@dataclass(frozen=True)
class Evidence:
    """A photo that backs a round, with what the camera saw in it."""

    role: str  # "dutch" or "blitz"
    path: str
    sha256: str
    detections: Any  # JSON-serialisable
    model_id: str


@dataclass(frozen=True)
class Revision:
    number: int
    created_at: str
    kind: str  # "new", "amend" or "undo"
    reason: str | None
    forced: bool
    warnings: tuple[str, ...]
    counts: RoundCounts | None  # None for an undo
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class RoundRecord:
    """A round with its latest revision; ``counts`` is None once the round is undone."""

    number: int
    revision: int
    counts: RoundCounts | None

    @property
    def undone(self) -> bool:
        return self.counts is None


@dataclass(frozen=True)
class Game:
    id: int
    name: str
    created_at: str
    setup: GameSetup
    rounds: tuple[RoundRecord, ...] = field(default=())

    @property
    def live_rounds(self) -> tuple[RoundRecord, ...]:
        return tuple(r for r in self.rounds if not r.undone)

    def standing(self) -> Standing:
        return standing(self.setup, [r.counts for r in self.live_rounds if r.counts])
