"""Names people type (players, games, reasons): one spelling stored, compared as read.

A name typed with a precomposed ``é`` and one typed ``e`` + combining accent look the same
on screen, so both are stored in Unicode normal form C and compared by `name_key`
(compatibility-normalised and case-folded). Control characters (Unicode category C*:
terminal escapes, zero-width marks, bidirectional overrides) are refused: a name is
printed back to every terminal that shows the sheet.
"""

from __future__ import annotations

import unicodedata

from scoring.errors import RuleError


def control_characters(text: str) -> list[str]:
    """The control and format characters in ``text`` (category C*), as ``U+XXXX`` codes."""
    return [f"U+{ord(ch):04X}" for ch in text if unicodedata.category(ch).startswith("C")]


def clean_text(text: str, what: str) -> str:
    """``text`` in normal form C; ``RuleError`` when it holds a control character.

    ``what`` names the field in the message, e.g. ``"player name"``.
    """
    normal = unicodedata.normalize("NFC", text)
    bad = control_characters(normal)
    if bad:
        shown = normal.encode("ascii", "backslashreplace").decode("ascii")
        raise RuleError(
            f"{what} {shown!r} contains control characters ({', '.join(dict.fromkeys(bad))}); "
            "use letters, digits, spaces and punctuation"
        )
    return normal


def name_key(text: str) -> str:
    """What two names are compared by: NFKC, case-folded, NFKC again (``René`` = ``RENÉ``)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text.strip()).casefold())
