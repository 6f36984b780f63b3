"""The phone page's Starlette app: pages, the JSON API under ``/api/`` and its guards.

Every request needs the access token (``?token=`` once, then a cookie); every POST also
carries it in a form field or the ``X-Tallero-Token`` header and comes from the page's
own origin. Uploads are capped in bytes here and in pixels by the image loader.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from commands.web.desk import RoundDesk, RoundTaken
from commands.web.forms import HEADER, HttpError, token_matches
from commands.web.views import Pages, made
from scoring.errors import ImageError, LedgerError, NeedsForce, TalleroError

MAX_UPLOAD_BYTES = 30 * 1024 * 1024  # one request: both photos and the form
COOKIE = "tallero_token"
HERE = Path(__file__).parent


def _templates() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [
                jinja2.FileSystemLoader(HERE / "templates"),
                jinja2.FileSystemLoader(HERE.parent / "templates"),
            ]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def status_of(exc: TalleroError) -> int:
    """The HTTP status for an error a user can cause."""
    if isinstance(exc, HttpError):
        return exc.status
    if isinstance(exc, ImageError):
        return 422
    if isinstance(exc, RoundTaken | NeedsForce):
        return 409
    if isinstance(exc, LedgerError):
        return 404
    return 400


def same_origin(request: Request) -> bool:
    """The POST comes from a page of this server: its Origin (else Referer) names our host."""
    host = request.headers.get("host", "")
    origin = request.headers.get("origin") or request.headers.get("referer")
    if not origin or origin == "null":
        return False
    return urlsplit(origin).netloc == host


class TokenGuard(BaseHTTPMiddleware):
    """401 without the token; sets the cookie when the token came in the address."""

    def __init__(self, app: Any, token: str) -> None:
        super().__init__(app)
        self.token = token

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        given = request.query_params.get("token")
        cookie = request.cookies.get(COOKIE) or request.headers.get(HEADER) or ""
        from_query = given is not None and token_matches(given, self.token)
        if not (from_query or token_matches(cookie, self.token)):
            return error_response(
                request, HttpError(401, "this page needs the link with its token (?token=...)")
            )
        if request.method == "POST":
            length = request.headers.get("content-length")
            if length is None:
                return error_response(request, HttpError(411, "a POST needs a Content-Length"))
            if not length.isdigit() or int(length) > MAX_UPLOAD_BYTES:
                mb = MAX_UPLOAD_BYTES // (1024 * 1024)
                return error_response(request, HttpError(413, f"upload over {mb} MB refused"))
            if not same_origin(request):
                return error_response(
                    request, HttpError(403, "cross-site request refused (Origin does not match)")
                )
        response = await call_next(request)
        if from_query:
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict")
        return response


def error_response(request: Request, exc: TalleroError) -> Response:
    """The error as JSON under /api/, else as a page."""
    status = status_of(exc)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": str(exc), "status": status}, status_code=status)
    html = (
        _templates()
        .get_template("serve_error.html.j2")
        .render(status=status, message=str(exc), made=made())
    )
    return HTMLResponse(html, status_code=status)


def make_app(token: str, desk: RoundDesk) -> Starlette:
    """The app for one ``tallero serve``: ``token`` guards it, ``desk`` holds its rounds."""
    env = _templates()
    pages = Pages(env, desk, token)

    async def on_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, TalleroError)
        return error_response(request, exc)

    routes = [
        Route("/", pages.games),
        Route("/games", pages.new_game, methods=["POST"]),
        Route("/games/{game:int}", pages.sheet),
        Route("/games/{game:int}/rounds/new", pages.new_round),
        Route("/games/{game:int}/rounds", pages.upload, methods=["POST"]),
        Route("/games/{game:int}/rounds/{number:int}", pages.history),
        Route("/games/{game:int}/rounds/{number:int}/audit", pages.audit),
        Route("/pending/{pid}", pages.pending),
        Route("/pending/{pid}/photo/{role}", pages.photo),
        Route("/pending/{pid}/correct", pages.correct, methods=["POST"]),
        Route("/pending/{pid}/pile", pages.give_top, methods=["POST"]),
        Route("/pending/{pid}/choose", pages.choose, methods=["POST"]),
        Route("/pending/{pid}/piles/{pile:int}", pages.pile_photo),
        Route("/pending/{pid}/commit", pages.commit, methods=["POST"]),
        Route("/api/games", pages.api_games),
        Route("/api/games", pages.api_new_game, methods=["POST"]),
        Route("/api/games/{game:int}/sheet", pages.api_sheet),
        Route("/api/games/{game:int}/rounds", pages.api_upload, methods=["POST"]),
        Route("/api/pending/{pid}", pages.api_pending),
        Route("/api/pending/{pid}/correct", pages.api_correct, methods=["POST"]),
        Route("/api/pending/{pid}/pile", pages.api_give_top, methods=["POST"]),
        Route("/api/pending/{pid}/choose", pages.api_choose, methods=["POST"]),
        Route("/api/pending/{pid}/commit", pages.api_commit, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={TalleroError: on_error})
    app.add_middleware(TokenGuard, token=token)
    return app
