"""The page and API handlers of ``tallero serve`` (see `commands.web.app` for the guards).

The JSON answers have the shapes of the CLI's ``--json``: ``games``, ``sheet`` and
``score`` (with ``pending``, the id of a round not yet committed).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from commands.web.desk import Pending, RoundDesk, typed_tops
from commands.web.forms import read_form, save_upload
from scoring.errors import TalleroError, UsageError

# How often the score sheet asks for new rounds, seconds.
POLL_SECONDS = 3


def made() -> str:
    """When a page was made, as its footer says."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _text(form: Any, key: str) -> str:
    value = form.get(key)
    return value.strip() if isinstance(value, str) else ""


class Pages:
    """Handlers bound to one server's templates, rounds and token."""

    def __init__(self, env: Any, desk: RoundDesk, token: str) -> None:
        self.env = env
        self.desk = desk
        self.token = token

    def render(self, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(name).render(
            token=self.token, made=made(), poll_seconds=POLL_SECONDS, **context
        )
        return HTMLResponse(html, status_code=status)

    # --- reading the ledger -------------------------------------------------------------

    def _games(self) -> dict[str, Any]:
        from commands.sheet import games_json
        from scoring.ledger import Ledger

        with Ledger.open(self.desk.home) as ledger:
            return games_json(ledger)

    def _game(self, game_id: int) -> Any:
        from scoring.ledger import Ledger

        with Ledger.open(self.desk.home) as ledger:
            return ledger.game(game_id)

    def _sheet(self, game_id: int) -> dict[str, Any]:
        from scoring.report import sheet_json

        return sheet_json(self._game(game_id))

    # --- games ------------------------------------------------------------------------------

    async def games(self, request: Request) -> HTMLResponse:
        return self.render("serve_games.html.j2", games=self._games()["games"])

    async def _start(self, request: Request) -> Any:
        from commands.sheet import start_game

        form = await read_form(request, self.token)
        seats = _text(form, "players").replace("\n", " ").split()
        target = _text(form, "target") or "75"
        if not target.isdigit():
            raise UsageError(f"the target must be a whole number of points, not {target!r}")
        name = _text(form, "name") or None
        tie = _text(form, "tie") or "play-on"
        return start_game(seats, int(target), tie, name, self.desk.profile, self.desk.home)

    async def new_game(self, request: Request) -> RedirectResponse:
        game = await self._start(request)
        return RedirectResponse(f"/games/{game.id}", status_code=303)

    async def sheet(self, request: Request) -> HTMLResponse:
        from scoring.report import sheet_notes

        game = self._game(request.path_params["game"])
        from scoring.report import sheet_json

        return self.render("serve_sheet.html.j2", sheet=sheet_json(game), notes=sheet_notes(game))

    # --- a new round -------------------------------------------------------------------------

    async def new_round(self, request: Request) -> HTMLResponse:
        game = self._game(request.path_params["game"])
        return self.render("serve_new_round.html.j2", game=game)

    async def _count(self, request: Request) -> Pending:
        game = self._game(request.path_params["game"])
        form = await read_form(request, self.token)
        dutch = await save_upload(self.desk, form.get("dutch"))
        blitz = await save_upload(self.desk, form.get("blitz"))
        piles = await save_upload(self.desk, form.get("piles_photo"))
        try:
            if dutch is None:
                raise UsageError("choose or take the Dutch photo")
            typed = form.get("piles")
            tops = typed_tops(typed if isinstance(typed, str) else None)
            return await run_in_threadpool(self.desk.count, game, dutch, blitz, tops, piles)
        except TalleroError:
            for path in (dutch, blitz, piles):  # a refused upload is not kept
                if path is not None:
                    path.unlink(missing_ok=True)
            raise

    async def upload(self, request: Request) -> RedirectResponse:
        pending = await self._count(request)
        return RedirectResponse(f"/pending/{pending.id}", status_code=303)

    def _score_json(self, pid: str) -> dict[str, Any]:
        from scoring.evidence import photo_round_json

        game, pending, result, counts = self.desk.read(pid)
        photos = pending.photos_json()
        return {**photo_round_json(game, counts, result, photos, None), "pending": pid}

    async def pending(self, request: Request) -> HTMLResponse:
        pid = request.path_params["pid"]
        game, pending, result, counts = self.desk.read(pid)
        rows = [
            {
                "player": s.player,
                "deck": s.deck.display,
                "dutch": counts[s.player].dutch,
                "blitz": counts[s.player].blitz,
                "points": counts[s.player].points,
                "dutch_range": result.ranges.get("Dutch", {}).get(s.player),
                "blitz_range": result.ranges.get("Blitz", {}).get(s.player),
                "fixed": [
                    label for label in ("Dutch", "Blitz") if s.player in pending.fixes[label]
                ],
            }
            for s in game.setup.seats
        ]
        photos = [
            {
                "role": p.role,
                "cards": len(p.count.cards),
                "flagged": list(p.count.uncertain),
                "unknown": p.count.unknown,
            }
            for p in pending.photos
        ]
        return self.render(
            "serve_pending.html.j2",
            game=game,
            pid=pid,
            rows=rows,
            photos=photos,
            result=result,
            shown_way=result.shown_way(),
            reasons=pending.reasons,
            tops=pending.tops,
            piles=pending.piles.read if pending.piles is not None else None,
            piles_order=piles_order(pending),
        )

    async def photo(self, request: Request) -> Response:
        pid, role = request.path_params["pid"], request.path_params["role"]
        jpeg = await run_in_threadpool(self.desk.page_photo, pid, role)
        return Response(jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    async def pile_photo(self, request: Request) -> Response:
        pid, pile = request.path_params["pid"], request.path_params["pile"]
        jpeg = await run_in_threadpool(self.desk.pile_crop, pid, pile)
        return Response(jpeg, media_type="image/jpeg", headers={"cache-control": "no-store"})

    async def _correct(self, request: Request) -> str:
        pid = str(request.path_params["pid"])
        form = await read_form(request, self.token)
        self.desk.correct(
            pid,
            _text(form, "label"),
            _text(form, "player"),
            _text(form, "count"),
            _text(form, "reason"),
        )
        return pid

    async def correct(self, request: Request) -> RedirectResponse:
        pid = await self._correct(request)
        return RedirectResponse(f"/pending/{pid}", status_code=303)

    async def _choose(self, request: Request) -> str:
        pid = str(request.path_params["pid"])
        form = await read_form(request, self.token)
        self.desk.choose(pid, _text(form, "fit"))
        return pid

    async def choose(self, request: Request) -> RedirectResponse:
        pid = await self._choose(request)
        return RedirectResponse(f"/pending/{pid}", status_code=303)

    async def _give_top(self, request: Request) -> str:
        pid = str(request.path_params["pid"])
        form = await read_form(request, self.token)
        self.desk.give_top(pid, _text(form, "pile"), _text(form, "top"), _text(form, "reason"))
        return pid

    async def give_top(self, request: Request) -> RedirectResponse:
        pid = await self._give_top(request)
        return RedirectResponse(f"/pending/{pid}", status_code=303)

    async def _commit(self, request: Request) -> tuple[int, dict[str, Any]]:
        pid = request.path_params["pid"]
        form = await read_form(request, self.token)
        accept, force = bool(_text(form, "accept")), bool(_text(form, "force"))
        return await run_in_threadpool(self.desk.commit, pid, accept, force)

    async def commit(self, request: Request) -> RedirectResponse:
        number, payload = await self._commit(request)
        return RedirectResponse(f"/games/{payload['game']}?committed={number}", status_code=303)

    # --- history and audit --------------------------------------------------------------------

    async def history(self, request: Request) -> HTMLResponse:
        from scoring.ledger import Ledger
        from scoring.report import history_json

        game_id, number = request.path_params["game"], request.path_params["number"]
        with Ledger.open(self.desk.home) as ledger:
            game = ledger.game(game_id)
            revisions = ledger.history(game_id, number)
        return self.render(
            "serve_history.html.j2",
            game=game,
            history=history_json(game, number, revisions),
            players=list(game.setup.players),
        )

    async def audit(self, request: Request) -> HTMLResponse:
        game_id, number = request.path_params["game"], request.path_params["number"]
        html = await run_in_threadpool(self._audit_html, game_id, number)
        return HTMLResponse(html)

    def _audit_html(self, game_id: int, number: int) -> str:
        import tempfile

        from commands.audit import audit_round
        from commands.audit_page import write_audit_page

        data, pictures, _ = audit_round(game_id, number, self.desk.counter, self.desk.home)
        with tempfile.TemporaryDirectory() as tmp:
            with self.desk.count_lock:
                out = write_audit_page(Path(tmp) / "audit.html", data, pictures)
            return out.read_text(encoding="utf-8")

    # --- JSON API ------------------------------------------------------------------------

    async def api_games(self, request: Request) -> JSONResponse:
        return JSONResponse(self._games())

    async def api_new_game(self, request: Request) -> JSONResponse:
        from scoring.report import game_json

        return JSONResponse({"game": game_json(await self._start(request))}, status_code=201)

    async def api_sheet(self, request: Request) -> JSONResponse:
        return JSONResponse(self._sheet(request.path_params["game"]))

    async def api_upload(self, request: Request) -> JSONResponse:
        pending = await self._count(request)
        return JSONResponse(self._score_json(pending.id), status_code=201)

    async def api_pending(self, request: Request) -> JSONResponse:
        return JSONResponse(self._score_json(request.path_params["pid"]))

    async def api_correct(self, request: Request) -> JSONResponse:
        return JSONResponse(self._score_json(await self._correct(request)))

    async def api_choose(self, request: Request) -> JSONResponse:
        return JSONResponse(self._score_json(await self._choose(request)))

    async def api_give_top(self, request: Request) -> JSONResponse:
        return JSONResponse(self._score_json(await self._give_top(request)))

    async def api_commit(self, request: Request) -> JSONResponse:
        _, payload = await self._commit(request)
        return JSONResponse(payload, status_code=201)


def piles_order(pending: Pending) -> list[int]:
    """The ids of the piles photo's piles, those to look at first (none without one)."""
    if pending.piles is None:
        return []
    read = pending.piles.read
    ids = range(1, len(read.piles) + 1)
    return [*read.uncertain, *(i for i in ids if i not in read.uncertain)]
