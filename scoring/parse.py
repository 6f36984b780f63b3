"""Parse what players type: ``Ann=12,Ben=9`` counts and ``Ann=pump`` seats."""

from __future__ import annotations

from collections.abc import Iterable

from scoring.errors import RuleError, UsageError


def split_pairs(items: Iterable[str], what: str) -> list[tuple[str, str]]:
    """``["Ann=12,Ben=9", "Cy=3"]`` -> ``[("Ann", "12"), ("Ben", "9"), ("Cy", "3")]``."""
    pairs = []
    for item in items:
        for part in item.split(","):
            if not part.strip():
                continue
            name, sep, value = part.partition("=")
            if not sep or not name.strip() or not value.strip():
                raise UsageError(f"{what}: expected NAME=VALUE, got {part.strip()!r}")
            pairs.append((name.strip(), value.strip()))
    return pairs


def parse_counts(items: Iterable[str], what: str) -> dict[str, int]:
    """Parse ``NAME=N`` pairs into whole-number counts; a name given twice is an error."""
    counts: dict[str, int] = {}
    for name, value in split_pairs(items, what):
        if not (value.isascii() and value.lstrip("+-").isdigit()):
            raise RuleError(f"{what} count for {name} is not a whole number: {value!r}")
        key = name.casefold()
        if key in (k.casefold() for k in counts):
            raise UsageError(f"{what}: {name} is given twice")
        counts[name] = int(value)
    return counts
