"""``tallero demo``: a scripted sample game in a throw-away ledger, then the example photos."""

from __future__ import annotations

from pathlib import Path

import typer

from commands.app import app
from scoring.errors import TalleroError

DEMO_GAME = (
    ["game", "new", "Ann=pump", "Ben=carriage", "Cy=plow", "--target", "40", "--name", "Demo"],
    ["round", "--dutch", "Ann=14,Ben=9,Cy=11", "--blitz", "Ann=0,Ben=3,Cy=2"],
    ["round", "--dutch", "Ann=8,Ben=17,Cy=10", "--blitz", "Ann=4,Ben=0,Cy=12"],
    ["round", "--dutch", "Ann=8,Ben=17,Cy=10", "--blitz", "Ann=4,Ben=0,Cy=1"],
    ["amend", "2", "--dutch", "Cy=13", "--reason", "three of Cy's cards were under the box"],
    ["round", "--dutch", "Ann=20,Ben=12,Cy=9", "--blitz", "Ann=0,Ben=2,Cy=6"],
    ["round", "--dutch", "Ann=10,Ben=9,Cy=12", "--blitz", "Ann=0,Ben=1,Cy=3"],
    ["sheet"],
    # A round scored from the bundled example photos (synthetic table scenes).
    ["game", "new", "Ann=pump", "Ben=carriage", "Cy=plow", "Dee=pail", "--name", "Photos"],
    [
        "score",
        "--dutch",
        "datasets/samples/synth-mini/images/000000.jpg",
        "--blitz",
        "datasets/samples/synth-mini/images/000001.jpg",
        "--annotate",
        "out/demo",
    ],
)


# The example photos ship beside the code; the demo finds them from any folder.
ROOT = Path(__file__).resolve().parents[1]


def _located(arg: str) -> str:
    """An example photo's path as it lies on this machine; other arguments as they are."""
    return str(ROOT / arg) if arg.startswith("datasets/") else arg


@app.command("demo")
def demo() -> None:
    """Play a scripted sample game in a throw-away ledger, then score the example photos.

    The example photos are in datasets/samples/; annotated photos are written to out/demo/
    in the current folder.
    """
    import os
    import shlex
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tallero-demo-") as tmp:
        old = os.environ.get("TALLERO_HOME")
        os.environ["TALLERO_HOME"] = tmp
        try:
            for args in DEMO_GAME:
                typer.echo(f"\n$ tallero {shlex.join(args)}")
                try:
                    app([_located(a) for a in args], standalone_mode=False)
                except TalleroError as exc:  # the demo shows a mistake being caught
                    typer.echo(f"tallero: error: {exc}")
        finally:
            if old is None:
                os.environ.pop("TALLERO_HOME", None)
            else:
                os.environ["TALLERO_HOME"] = old
