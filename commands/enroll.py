"""Learning a user's own decks: enroll backs, faces, list and remove."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commands.app import JsonOpt, ModelOpt, ProfileOpt, echo_progress, emit_json, enroll_app
from scoring.errors import UsageError


@enroll_app.command("backs")
def enroll_backs(
    photos: Annotated[list[Path], typer.Argument(help="Photos of one card of each deck in a row.")],
    decks: Annotated[
        str, typer.Option("--decks", help="The decks left to right, e.g. pump,carriage,plow,pail.")
    ],
    profile: ProfileOpt = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Enroll decks: lay one card of each back up in a row, left to right as named."""
    from vision.enroll.layout import parse_names
    from vision.enroll.run import enroll_layout

    result = enroll_layout(photos, parse_names(decks), "decks", profile, model, echo_progress)
    emit_json(result) if as_json else echo_enrolled(result)


@enroll_app.command("faces")
def enroll_faces(
    photos: Annotated[
        list[Path], typer.Argument(help="Photos of one face-up card of each colour in a row.")
    ],
    colors: Annotated[
        str, typer.Option("--colors", help="The colours left to right.")
    ] = "red,blue,green,yellow",
    numbers: Annotated[
        str | None,
        typer.Option(
            "--numbers",
            help="Teach your faces' numbers instead: the row's numbers left to right, e.g. "
            "1-10 (faces of any colour).",
        ),
    ] = None,
    profile: ProfileOpt = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Enroll face colours (optional): one face-up card of each colour in a row; or, with
    --numbers, your faces' numbers: a row of faces, e.g. 1 to 10 of one colour."""
    from vision.enroll.layout import parse_names
    from vision.enroll.run import enroll_layout

    if numbers is not None:
        from vision.enroll.numbers import parse_values
        from vision.enroll.run import enroll_numbers

        result = enroll_numbers(photos, parse_values(numbers), profile, model, echo_progress)
        if as_json:
            emit_json(result)
        else:
            typer.echo(
                f"Profile {result['profile']}: numbers "
                f"{', '.join(map(str, result['numbers']))} enrolled"
            )
            typer.echo(f"Fitted in {result['seconds']} s.")
        return
    names = parse_names(colors, "colour")
    from scoring.decks import FACE_COLORS

    bad = [c for c in names if c not in FACE_COLORS]
    if bad:
        raise UsageError(f"face colours are red, blue, green and yellow, not {bad[0]!r}")
    result = enroll_layout(photos, names, "faces", profile, model, echo_progress)
    emit_json(result) if as_json else echo_enrolled(result)


@enroll_app.command("fan")
def enroll_fan(
    photos: Annotated[
        list[Path], typer.Argument(help="Photos, each of 10 or more backs of one deck, fanned.")
    ],
    decks: Annotated[
        str,
        typer.Option("--decks", help="The deck of each photo, in order, e.g. pump,carriage."),
    ],
    profile: ProfileOpt = None,
    model: ModelOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Teach an enrolled deck how its backs look in a real pile: fan out 10 or more of its
    cards, backs up and overlapping, and photograph them from above (one deck a photo)."""
    from vision.enroll.profiles import check_name
    from vision.enroll.run import enroll_fans

    names = [check_name(n, "deck") for n in decks.split(",") if n.strip()]
    result = enroll_fans(photos, names, profile, model, echo_progress)
    if as_json:
        emit_json(result)
        return
    echo_enrolled(result)
    typer.echo("Fans: " + ", ".join(f"{d} {n} backs" for d, n in result["fans"].items()))


@enroll_app.command("list")
def enroll_list(profile: ProfileOpt = None, as_json: JsonOpt = False) -> None:
    """The profiles and their enrolled decks."""
    from vision.enroll.run import list_profiles

    result = list_profiles(profile)
    if as_json:
        emit_json(result)
        return
    if not result["profiles"]:
        typer.echo("No enrolled decks: Tallero uses its built-in stand-in decks.")
    for p in result["profiles"]:
        mark = "*" if p["active"] else " "
        typer.echo(
            f"{mark} {p['name']}: decks {', '.join(p['decks']) or '-'}; "
            f"faces {', '.join(p['faces']) or '-'}"
        )


@enroll_app.command("remove")
def enroll_remove(
    name: Annotated[str, typer.Argument(help="An enrolled deck.")],
    profile: ProfileOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Forget an enrolled deck (the profile's classifier is fitted again without it)."""
    from vision.enroll.run import remove_deck

    result = remove_deck(name, profile, echo_progress)
    emit_json(result) if as_json else echo_enrolled(result)


def echo_enrolled(result: dict[str, object]) -> None:
    decks = result.get("decks") or []
    typer.echo(f"Profile {result['profile']}: decks {', '.join(map(str, decks)) or '-'}")
    if result.get("seconds") is not None:
        typer.echo(f"Fitted in {result['seconds']} s.")
    if not decks:
        typer.echo("No enrolled decks left: Tallero uses its built-in stand-in decks.")
