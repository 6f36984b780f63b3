"""Looking after the ledger: `tallero doctor` checks it, `tallero backup` copies it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commands.app import JsonOpt, app, emit_json


@app.command("doctor")
def doctor(as_json: JsonOpt = False) -> None:
    """Check the ledger (SQLite integrity, schema, links) and the evidence folder.

    Reads only. Exit code 1 when something needs the user's hand.
    """
    from scoring.doctor import check_ledger
    from scoring.home import tallero_home

    home = tallero_home()
    result = check_ledger(home)
    if as_json:
        emit_json(result.to_json())
    else:
        for line in _report(result):
            typer.echo(line)
    if not result.healthy:
        raise typer.Exit(1)


def _report(result: object) -> list[str]:
    from scoring.doctor import Checkup

    assert isinstance(result, Checkup)
    if not result.exists:
        lines = [f"ledger: {result.ledger} (none yet; the first game creates it)"]
    else:
        lines = [f"ledger: {result.ledger} (schema {result.schema_version})"]
        lines.append("integrity: " + "; ".join(result.integrity))
        lines += [f"schema: {problem}" for problem in result.schema]
        if result.foreign_keys:
            lines.append(f"links: {result.foreign_keys} row(s) point at rows that are gone")
    lines += [f"missing evidence: {p}" for p in result.missing]
    lines += [f"orphan evidence (no round uses it; safe to delete): {p}" for p in result.orphans]
    if result.healthy:
        lines.append("The ledger is healthy.")
    elif result.foreign:
        lines.append(
            f"{result.ledger} is not a Tallero ledger (another program's SQLite file?): "
            "move it away, or point TALLERO_HOME at another folder."
        )
    else:
        lines.append(
            "The ledger needs care: restore a backup (copy it over the ledger with no "
            "tallero running, and delete its -wal and -shm files), or rescue what is "
            f"readable with `sqlite3 {result.ledger} .recover`."
        )
    return lines


@app.command("backup")
def backup(
    out: Annotated[Path, typer.Argument(help="A new file, or a folder to put the copy in.")],
    as_json: JsonOpt = False,
) -> None:
    """Copy the ledger safely, even while a game is being scored (SQLite's backup API)."""
    from scoring.doctor import backup_ledger
    from scoring.home import tallero_home

    copy = backup_ledger(tallero_home(), out)
    if as_json:
        emit_json({"backup": str(copy)})
    else:
        typer.echo(f"Ledger backed up to {copy}")
