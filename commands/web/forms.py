"""What a request to the phone page brings: its token, its form and its photos."""

from __future__ import annotations

import secrets
from pathlib import Path

from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request

from commands.web.desk import RoundDesk
from scoring.errors import TalleroError

HEADER = "x-tallero-token"


class HttpError(TalleroError):
    """A request refused before it reaches Tallero (size, token, origin)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def token_matches(given: str, token: str) -> bool:
    """``given`` is the token (compared in constant time; any text, even non-ASCII)."""
    return secrets.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


async def read_form(request: Request, token: str) -> FormData:
    """The POST's form, with the token checked in a field or the header (CSRF)."""
    # a round's photos: Dutch, Blitz and the Dutch piles
    form = await request.form(max_files=3, max_fields=20)
    given = form.get("token")
    sent = given if isinstance(given, str) else request.headers.get(HEADER, "")
    if not token_matches(sent, token):
        raise HttpError(403, "the form must carry the page's token")
    return form


async def save_upload(desk: RoundDesk, item: UploadFile | str | None) -> Path | None:
    """An uploaded photo written under a generated name; None when none was chosen."""
    if not isinstance(item, UploadFile):
        return None
    head = await item.read(16)
    if not head:
        return None
    target = desk.new_upload_path(head)
    with target.open("wb") as out:
        out.write(head)
        while chunk := await item.read(1 << 20):
            out.write(chunk)
    return target
