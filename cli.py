"""`tallero`: the thin command-line front that wires scoring/ and vision/ together.

The commands live in `commands/`, one module per way of using Tallero; this file gathers
them into one app and turns a user's mistake into one line on stderr and an exit code.
"""

from __future__ import annotations

import logging
import sys

import typer

from commands.app import app
from scoring.errors import TalleroError

# isort: off
# Each module adds its commands to the app; the help lists them in this order.
from commands import sheet, care, photos, piles, live, audit, serve, enroll, training, demo  # noqa: F401, E402
# isort: on


def main() -> None:
    """Entry point: user mistakes become one line on stderr and a non-zero exit.

    Library warnings go to the ``py.warnings`` log, which only ``--verbose`` prints.
    """
    logging.captureWarnings(True)
    quiet = logging.NullHandler()
    logging.getLogger("py.warnings").addHandler(quiet)
    try:
        _run()
    finally:
        logging.getLogger("py.warnings").removeHandler(quiet)
        logging.captureWarnings(False)


def _run() -> None:
    try:
        # Outside standalone mode click returns the code of a typer.Exit instead of raising.
        code = app(standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except TalleroError as exc:
        typer.echo(f"tallero: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("tallero: aborted", err=True)
        sys.exit(130)
    except KeyboardInterrupt:
        typer.echo("tallero: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:
        # Command-line parsing errors (typer's click exceptions) arrive here when not
        # in standalone mode; they carry their own message and exit code (2 for usage).
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
            message = exc.format_message()
            if message:  # empty after no_args_is_help has printed the help
                typer.echo(f"tallero: error: {message}", err=True)
            sys.exit(exc.exit_code)
        raise


if __name__ == "__main__":
    main()
