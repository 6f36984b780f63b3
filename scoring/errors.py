"""Tallero's small exception family.

The CLI turns every ``TalleroError`` into one line on stderr and a non-zero exit code.
"""


class TalleroError(Exception):
    """Base of every error a user can cause or fix."""

    exit_code: int = 1


class UsageError(TalleroError):
    """The command line itself is malformed (exit code 2)."""

    exit_code = 2


class RuleError(TalleroError):
    """Counts or a game setup that the rules of Dutch Blitz forbid."""


class NeedsForce(RuleError):
    """Counts that are possible only by mistake; written only when the user insists."""


class LedgerError(TalleroError):
    """The score ledger cannot do what was asked (no such game, round, ...)."""


class ImageError(TalleroError):
    """An image file that cannot be read or used."""


class ModelError(TalleroError):
    """A detector or deck model that is missing, corrupt or incompatible."""


class EvidenceError(TalleroError):
    """An evidence photo of a committed round is missing or no longer what was recorded."""
