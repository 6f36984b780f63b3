"""``tallero serve``: the phone page, to photograph, check and commit rounds at the table."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Annotated

import typer

from commands.app import GameOpt, ProfileOpt, app, make_counter
from scoring.errors import UsageError

if TYPE_CHECKING:
    from pathlib import Path

    from starlette.applications import Starlette

DEFAULT_PORT = 8750


def build_app(home: Path, profile: str | None, token: str) -> Starlette:
    """The page's app over the ledger in ``home``, counting with ``profile``'s decks."""
    from commands.web.app import make_app
    from commands.web.desk import RoundDesk

    desk = RoundDesk(home, lambda: make_counter(None, None, profile), profile)
    return make_app(token, desk)


def address(host: str, port: int, token: str, game: int | None) -> str:
    """The link to open (with its token); on 0.0.0.0, this machine's address on the LAN."""
    shown = host
    if host in ("0.0.0.0", "::"):
        import socket

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.connect(("10.255.255.255", 1))  # no packet is sent: picks the LAN interface
                shown = s.getsockname()[0]
            except OSError:
                shown = "127.0.0.1"
    path = f"/games/{game}" if game is not None else "/"
    return f"http://{shown}:{port}{path}?token={token}"


@app.command("serve")
def serve(
    host: Annotated[
        str,
        typer.Option(
            "--host", help="Address to listen on: 0.0.0.0 lets phones on this network join."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = DEFAULT_PORT,
    game: GameOpt = None,
    profile: ProfileOpt = None,
) -> None:
    """Serve the phone page: open the printed link (or scan its QR code) to score rounds
    from photos, correct counts, commit rounds and watch the sheet."""
    import segno
    import uvicorn

    from scoring.home import tallero_home
    from scoring.ledger import Ledger
    from vision.enroll.profiles import check_enrolled

    if not 1 <= port <= 65535:
        raise UsageError(f"--port must be 1-65535, got {port}")
    check_enrolled(profile)  # a mistyped profile is refused before the server starts
    home = tallero_home()
    if game is not None:
        with Ledger.open(home) as ledger:
            ledger.game(game)  # an unknown game is refused before the server starts
    token = secrets.token_urlsafe(18)
    link = address(host, port, token, game)
    typer.echo(f"Tallero is serving {home}. Open on a phone:\n\n  {link}\n")
    segno.make(link, error="m").terminal(compact=True)
    typer.echo("\nAnyone with this link can change the sheet. Ctrl+C stops the server.")
    uvicorn.run(build_app(home, profile, token), host=host, port=port, log_level="warning")
