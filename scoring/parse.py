"""Parse what players type: ``Ann=12,Ben=9`` counts, ``Ann=pump`` seats and whole numbers.

Every number a user types goes through `whole_number`: ASCII digits with at most one
leading sign, inside the range its field allows (SQLite stores 64-bit integers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from scoring.errors import RuleError, UsageError
from scoring.names import clean_text, name_key

# SQLite's INTEGER is a signed 64-bit number; nothing larger can be a game or round id.
INT64_MAX = 2**63 - 1
_WHOLE = re.compile(r"[+-]?[0-9]+")
# A count or id longer than this is refused before int() spends time on it.
_MAX_DIGITS = 30
_HUGE = 10**_MAX_DIGITS


def whole_number(text: str, what: str, low: int = 0, high: int = INT64_MAX) -> int:
    """``text`` as an int in ``low..high``; ``UsageError`` naming ``what`` otherwise.

    Accepts ``12``, ``+12`` and ``-3`` (then refused by the range when ``low`` >= 0);
    refuses ``+-3``, ``--3``, ``1_000``, ``12.0``, ``١٢`` (non-ASCII digits) and spaces.
    """
    value = text.strip()
    if not _WHOLE.fullmatch(value) or len(value) > _MAX_DIGITS:
        shown = value if len(value) <= 40 else value[:37] + "..."
        raise UsageError(f"{what} is not a whole number: {shown!r}")
    number = int(value)
    if number < low:
        raise UsageError(f"{what} must be {low} or more, got {value}")
    if number > high:
        raise UsageError(f"{what} must be at most {high}, got {value}")
    return number


def whole_number_option(what: str, low: int = 1, high: int = INT64_MAX) -> Callable[[str], int]:
    """A command-line parser for `whole_number` (``typer.Option(parser=...)``)."""

    def parse(text: str) -> int:
        return whole_number(str(text), what, low, high)

    return parse


def split_pairs(
    items: Iterable[str], what: str, expected: str = "NAME=VALUE"
) -> list[tuple[str, str]]:
    """``["Ann=12,Ben=9", "Cy=3"]`` -> ``[("Ann", "12"), ("Ben", "9"), ("Cy", "3")]``.

    Names come back in normal form C; a name with control characters is refused; a part
    that is no pair is refused with what was ``expected``.
    """
    pairs = []
    for item in items:
        for part in item.split(","):
            if not part.strip():
                continue
            name, sep, value = part.partition("=")
            if not sep or not name.strip() or not value.strip():
                shown = part.strip().encode("ascii", "backslashreplace").decode("ascii")
                raise UsageError(f"{what}: expected {expected}, got {shown!r}")
            pairs.append((clean_text(name.strip(), "name"), value.strip()))
    return pairs


def parse_counts(items: Iterable[str], what: str) -> dict[str, int]:
    """Parse ``NAME=N`` pairs into whole-number counts; a name given twice is an error.

    A count must be a whole number (one sign at most) of at most 30 digits; its range is
    the rules' business (`scoring.rules`), which refuse anything outside 0..40.
    """
    counts: dict[str, int] = {}
    for name, value in split_pairs(items, what):
        try:
            # Any size: the rules name the range (0..40) a count must be in.
            number = whole_number(value, f"{what} count for {name}", -_HUGE, _HUGE)
        except UsageError as exc:
            raise RuleError(str(exc)) from None
        if name_key(name) in (name_key(k) for k in counts):
            raise UsageError(f"{what}: {name} is given twice")
        counts[name] = number
    return counts


def split_tops(text: str) -> list[str]:
    """``"10, down, 7"`` (commas or spaces between) -> ``["10", "down", "7"]``: the Dutch
    piles' top cards as typed, each checked (1..10 or ``down``; one line otherwise)."""
    from scoring.crosscheck import pile_size

    tops = [t.strip() for t in text.replace(" ", ",").split(",") if t.strip()]
    for top in tops:
        pile_size(top)
    return tops


def parse_pile_tops(items: Iterable[str]) -> dict[int, str]:
    """``["3=7,5=down"]`` -> ``{3: "7", 5: "down"}``: Dutch piles of a piles photo (their
    ids, from 1) and the top cards a person gives them (1..10, or ``down``); an id given
    twice, or a top that is neither, is refused with one line."""
    from scoring.crosscheck import FACE_DOWN, pile_size

    tops: dict[int, str] = {}
    for pile, top in split_pairs(items, "a pile's top", "ID=TOP (e.g. 3=7 or 5=down)"):
        key = whole_number(pile.lstrip("#"), "a pile's id", 1, 999)
        if key in tops:
            raise UsageError(f"pile #{key} is given twice")
        size = pile_size(top)
        tops[key] = FACE_DOWN if top.strip().lower() in (FACE_DOWN, "d", "x") else str(size)
    return tops
