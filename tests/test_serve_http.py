"""`tallero serve` over HTTP: the token, the cross-site guard, upload limits, the JSON API
against the CLI's ``--json``, and a round committed by two phones at once landing once."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from serve_helpers import BLITZ, DUTCH, PLAYERS, TOKEN, live_server, png_header_only

from scoring.errors import UsageError

ORIGIN = "http://testserver"
# Starlette's TestClient still runs on httpx here; its notice about a successor is not ours.
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def counter() -> Any:
    """One counter for the module (as the server keeps one)."""
    from commands.app import make_counter

    return make_counter(None, None, None)


@pytest.fixture
def app(home: Path, counter: Any) -> Any:
    from commands.web.app import make_app
    from commands.web.desk import RoundDesk

    return make_app(TOKEN, RoundDesk(home, lambda: counter))


@pytest.fixture
def client(app: Any) -> Iterator[Any]:
    """A phone that opened the link (it holds the cookie)."""
    from starlette.testclient import TestClient

    with TestClient(app, base_url=ORIGIN) as c:
        assert c.get(f"/?token={TOKEN}").status_code == 200
        yield c


def post(client: Any, path: str, headers: dict[str, str] | None = None, **kw: Any) -> Any:
    """A POST as the page sends it: same origin, token in the header."""
    return client.post(
        path, headers={"origin": ORIGIN, "x-tallero-token": TOKEN, **(headers or {})}, **kw
    )


def uploads(home: Path) -> list[Path]:
    folder = home / "uploads"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def test_without_the_token_every_address_is_401(app):
    from starlette.testclient import TestClient

    with TestClient(app, base_url=ORIGIN) as c:
        for path in ("/", "/games/1", "/static/serve.js", "/pending/x", "/?token=wrong"):
            r = c.get(path)
            assert r.status_code == 401, path
            assert "this page needs the link with its token" in r.text
        r = c.get("/api/games")
        assert r.status_code == 401
        assert r.json() == {
            "error": "this page needs the link with its token (?token=...)",
            "status": 401,
        }
        r = c.post("/api/games", data={"players": PLAYERS}, headers={"origin": ORIGIN})
        assert r.status_code == 401
        assert "set-cookie" not in r.headers


def test_the_link_sets_a_cookie_that_carries_the_token(app):
    from starlette.testclient import TestClient

    with TestClient(app, base_url=ORIGIN) as c:
        r = c.get(f"/?token={TOKEN}")
        assert r.status_code == 200
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"tallero_token={TOKEN};")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert c.get("/api/games").json() == {"games": []}


def test_the_api_has_the_shapes_of_the_cli_json(client, tallero):
    r = post(client, "/api/games", data={"players": PLAYERS, "name": "Friday", "target": "50"})
    assert r.status_code == 201
    game = r.json()["game"]
    assert (game["id"], game["name"], game["target"]) == (1, "Friday", 50)
    assert [p["name"] for p in game["players"]] == ["Ann", "Ben", "Cy", "Dee"]
    assert client.get("/api/games").json() == tallero("games", "--json").json()
    assert client.get("/api/games/1/sheet").json() == tallero("sheet", "--json").json()
    r = client.get("/api/games/9/sheet")
    assert r.status_code == 404 and "9" in r.json()["error"]


def test_posts_need_the_token_and_the_same_origin(client, home):
    data = {"players": PLAYERS}
    r = client.post("/api/games", data=data, headers={"origin": ORIGIN})  # cookie only
    assert r.status_code == 403
    assert r.json()["error"] == "the form must carry the page's token"
    r = post(client, "/api/games", data=data, headers={"origin": "http://evil.example"})
    assert r.status_code == 403
    assert r.json()["error"] == "cross-site request refused (Origin does not match)"
    r = client.post("/api/games", data=data, headers={"x-tallero-token": TOKEN})  # no origin
    assert r.status_code == 403
    r = post(client, "/api/games", data={**data, "token": "wrong"}, headers={"x-tallero-token": ""})
    assert r.status_code == 403
    assert client.get("/api/games").json() == {"games": []}  # nothing refused was written
    # The page's own form: the token in a field, the Referer naming this host.
    r = client.post(
        "/games",
        data={**data, "token": TOKEN},
        headers={"referer": f"{ORIGIN}/"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/games/1"
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == [1]


def test_an_upload_over_30_mb_is_refused_with_413(client, home):
    post(client, "/api/games", data={"players": PLAYERS})
    big = b"\xff\xd8\xff" + b"\0" * (30 * 1024 * 1024)
    r = post(client, "/api/games/1/rounds", files={"dutch": ("a.jpg", big, "image/jpeg")})
    assert r.status_code == 413
    assert r.json()["error"] == "upload over 30 MB refused"
    r = post(client, "/games/1/rounds", files={"dutch": ("a.jpg", big, "image/jpeg")})
    assert r.status_code == 413 and 'role="alert">upload over 30 MB refused<' in r.text
    assert uploads(home) == []


def test_a_non_image_is_422_and_the_sent_name_reaches_no_path(client, home, tmp_path):
    post(client, "/api/games", data={"players": PLAYERS})
    files = {"dutch": ("../../evil.jpg", b"this is no photo", "image/jpeg")}
    r = post(client, "/api/games/1/rounds", files=files)
    assert r.status_code == 422
    assert r.json()["error"] == "the Dutch photo: not an image (unrecognised format)"
    assert uploads(home) == []  # a refused upload is not kept
    assert not list(tmp_path.parent.rglob("evil*"))
    r = post(client, "/games/1/rounds", files=files)
    assert r.status_code == 422 and "the Dutch photo: not an image" in r.text


def test_a_decompression_bomb_is_refused_before_it_is_decoded(client, home):
    post(client, "/api/games", data={"players": PLAYERS})
    bomb = png_header_only(15_000, 15_000)  # 225 MP in under 100 bytes
    assert len(bomb) < 100
    r = post(client, "/api/games/1/rounds", files={"dutch": ("x.png", bomb, "image/png")})
    assert r.status_code == 422
    assert r.json()["error"] == "the Dutch photo: image dimensions too large to decode"
    files = {"dutch": ("d.jpg", DUTCH.read_bytes()), "blitz": ("b.png", bomb, "image/png")}
    r = post(client, "/api/games/1/rounds", files=files)
    assert r.status_code == 422
    assert r.json()["error"] == "the Blitz photo: image dimensions too large to decode"


def test_a_round_is_scored_as_the_cli_scores_it_and_lands_once(app, home, tallero, tmp_path):
    import httpx

    with live_server(app) as base:
        headers = {"origin": base, "x-tallero-token": TOKEN}
        with httpx.Client(base_url=base, headers=headers, timeout=120) as phone:
            phone.cookies.set("tallero_token", TOKEN)
            assert phone.post("/api/games", data={"players": PLAYERS}).status_code == 201
            files = {"dutch": ("d.jpg", DUTCH.read_bytes()), "blitz": ("b.jpg", BLITZ.read_bytes())}
            r = phone.post("/api/games/1/rounds", files=files)
            assert r.status_code == 201, r.text
            page = r.json()
            cli = tallero(
                "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--annotate",
                str(tmp_path), "--json",
            ).json()  # fmt: skip
            for key in ("game", "round", "committed", "players", "decks", "problems", "ranges"):
                assert page[key] == cli[key], key
            for mine, theirs in zip(page["photos"], cli["photos"], strict=True):
                assert (mine["role"], mine["counts"]) == (theirs["role"], theirs["counts"])
            pid = page["pending"]
            assert phone.get(f"/pending/{pid}/photo/dutch").headers["content-type"] == "image/jpeg"
            ann = page["players"]["Ann"]["blitz"]
            fix = {"label": "Blitz", "player": "ann", "count": str(ann + 1)}
            r = phone.post(f"/api/pending/{pid}/correct", data=fix)
            assert r.status_code == 400 and r.json()["error"] == "a hand correction needs a reason"
            r = phone.post(
                f"/api/pending/{pid}/correct", data={**fix, "reason": "one under a pile"}
            )
            fixed = r.json()
            assert fixed["players"]["Ann"]["blitz"] == ann + 1
            assert fixed["corrections"] == [f"Ann Blitz {ann} -> {ann + 1}"]

            # Two phones press commit at the same moment.
            start = threading.Barrier(2)
            answers: list[httpx.Response] = []

            def press() -> None:
                with httpx.Client(base_url=base, headers=headers, timeout=120) as other:
                    other.cookies.set("tallero_token", TOKEN)
                    start.wait()
                    answers.append(other.post(f"/api/pending/{pid}/commit", data={}))

            threads = [threading.Thread(target=press) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(a.status_code for a in answers) == [201, 409]
            landed = next(a for a in answers if a.status_code == 201).json()
            refused = next(a for a in answers if a.status_code == 409).json()
            assert (landed["round"], landed["committed"]) == (1, True)
            assert refused["error"] == "this round was already committed as round 1 of game 1"
            sheet = phone.get("/api/games/1/sheet").json()
            assert [r["round"] for r in sheet["rounds"]] == [1]
            assert sheet["rounds"][0]["players"]["Ann"]["blitz"] == ann + 1
            history = tallero("history", "1", "--json").json()
            (rev,) = history["revisions"]
            assert rev["reason"].endswith("(one under a pile)")
            assert [e["role"] for e in rev["evidence"]] == ["dutch", "blitz"]


def test_flagged_cards_must_be_accepted_before_the_round_lands(client, home):
    post(client, "/api/games", data={"players": PLAYERS})
    r = post(client, "/api/games/1/rounds", files={"blitz": ("b.jpg", BLITZ.read_bytes())})
    assert r.status_code == 400 and r.json()["error"] == "choose or take the Dutch photo"
    r = post(client, "/api/games/1/rounds", files={"dutch": ("d.jpg", DUTCH.read_bytes())})
    assert r.status_code == 201
    page = r.json()
    assert page["problems"] and page["corrections"] == []
    assert all(c["blitz"] == 0 for c in page["players"].values())  # no Blitz photo
    pid = page["pending"]
    r = post(client, f"/api/pending/{pid}/commit", data={})
    assert r.status_code == 409
    assert r.json()["error"].startswith("not committed: " + page["problems"][0])
    assert client.get("/api/games/1/sheet").json()["rounds"] == []
    assert not (home / "evidence").exists()  # a refused round keeps no photo
    r = post(client, f"/api/pending/{pid}/commit", data={"accept": "1"})
    assert r.status_code == 201 and r.json()["round"] == 1
    assert r.json()["players"] == page["players"]
    r = post(client, f"/api/pending/{pid}/commit", data={"accept": "1"})
    assert r.status_code == 409
    assert r.json()["error"] == "this round was already committed as round 1 of game 1"
    r = client.get(f"/pending/{pid}")
    assert r.status_code == 409 and "already committed as round 1" in r.text


def test_typed_pile_tops_settle_the_round_as_score_piles_does(client, home, tallero):
    post(client, "/api/games", data={"players": PLAYERS})
    dutch = {"dutch": ("d.jpg", DUTCH.read_bytes())}
    r = post(client, "/api/games/1/rounds", files=dutch, data={"piles": "10, 12"})
    assert r.status_code == 400
    assert r.json()["error"] == "pile top 12 is neither 1..10 nor 'down'"
    assert uploads(home) == []  # a refused round keeps no upload
    r = post(client, "/api/games/1/rounds", files=dutch, data={"piles": "10, 10 7"})
    assert r.status_code == 201, r.text
    page = r.json()
    cli = tallero("score", "--dutch", str(DUTCH), "--piles", "10,10,7", "--json").json()
    assert page["problems"] == cli["problems"] and page["players"] == cli["players"]
    assert any("Dutch piles' total 27" in p for p in page["problems"])
    assert "Dutch pile tops: 10, 10, 7" in client.get(f"/pending/{page['pending']}").text


def test_a_piles_photo_settles_the_round_and_is_kept_with_it(client, home, tallero):
    piles = Path(__file__).parent / "data" / "piles" / "clear.jpg"
    post(client, "/api/games", data={"players": PLAYERS})
    dutch = ("d.jpg", DUTCH.read_bytes())
    blitz = ("b.jpg", BLITZ.read_bytes())
    both = {"dutch": dutch, "blitz": blitz, "piles_photo": ("p.jpg", piles.read_bytes())}
    r = post(client, "/api/games/1/rounds", files=both, data={"piles": "10"})
    assert r.status_code == 400
    assert r.json()["error"] == "give the Dutch piles either typed or as a photo, not both"
    bare = {"dutch": dutch, "piles_photo": ("e.jpg", piles.with_name("empty.jpg").read_bytes())}
    r = post(client, "/api/games/1/rounds", files=bare)
    assert r.status_code == 422 and "the piles photo" in r.json()["error"]
    assert uploads(home) == []  # refused rounds keep no upload
    r = post(client, "/api/games/1/rounds", files=both)
    assert r.status_code == 201, r.text
    page = r.json()
    cli = tallero(
        "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--piles-photo", str(piles),
        "--json",
    ).json()  # fmt: skip
    assert page["problems"] == cli["problems"] and page["players"] == cli["players"]
    assert [p["role"] for p in page["photos"]] == ["dutch", "blitz", "piles"]
    assert page["photos"][2]["total"] == cli["photos"][2]["total"]
    pid = page["pending"]
    assert client.get(f"/pending/{pid}/photo/piles").headers["content-type"] == "image/jpeg"
    assert "Dutch piles, " in client.get(f"/pending/{pid}").text
    r = post(client, f"/api/pending/{pid}/commit", data={"accept": "1", "force": "1"})
    assert r.status_code == 201, r.text
    (rev,) = tallero("history", "1", "--json").json()["revisions"]
    assert [e["role"] for e in rev["evidence"]] == ["dutch", "blitz", "piles"]


def test_a_piles_top_given_on_the_page_completes_the_total_as_fix_piles_does(client, home, tallero):
    """``under-phone.jpg``: pile #11 (a yellow 1 half under a phone) is to look at; its top
    given on the page gives the command line's round with ``--fix-piles 11=1``."""
    piles = Path(__file__).parent / "data" / "piles" / "under-phone.jpg"
    post(client, "/api/games", data={"players": PLAYERS})
    files = {"dutch": ("d.jpg", DUTCH.read_bytes()), "piles_photo": ("p.jpg", piles.read_bytes())}
    r = post(client, "/api/games/1/rounds", files=files)
    assert r.status_code == 201, r.text
    pid = r.json()["pending"]
    assert r.json()["photos"][-1]["uncertain"] == [11]
    page = client.get(f"/pending/{pid}").text
    assert '<option value="11">#11 (to look at)</option>' in page  # listed first
    # the pile to look at, cut out of the photo large enough to read on a phone
    assert f'src="/pending/{pid}/piles/11"' in page
    crop = client.get(f"/pending/{pid}/piles/11")
    assert crop.status_code == 200 and crop.headers["content-type"] == "image/jpeg"
    import cv2
    import numpy as np

    shown = cv2.imdecode(np.frombuffer(crop.content, np.uint8), cv2.IMREAD_COLOR)
    assert max(shown.shape[:2]) == 320
    assert client.get(f"/pending/{pid}/piles/12").status_code == 400
    for form, error in [
        ({"pile": "11", "top": "1", "reason": " "}, "a hand correction needs a reason"),
        ({"pile": "12", "top": "1", "reason": "x"}, "#12 is none of them"),
        ({"pile": "11", "top": "11", "reason": "x"}, "pile top 11 is neither 1..10 nor 'down'"),
    ]:
        r = post(client, f"/api/pending/{pid}/pile", data=form)
        assert r.status_code == 400 and error in r.json()["error"], r.text
    r = post(client, f"/api/pending/{pid}/pile", data={"pile": "11", "top": "1", "reason": "x"})
    assert r.status_code == 200, r.text
    got = r.json()
    cli = tallero("score", "--dutch", str(DUTCH), "--piles-photo", str(piles), "--fix-piles",
                  "11=1", "--reason", "x", "--json").json()  # fmt: skip
    assert got["problems"] == cli["problems"] and got["corrections"] == cli["corrections"]
    assert got["photos"][-1]["given"] == [{"id": 11, "read": None, "top": 1}]
    assert got["photos"][-1]["total"] == 45 and got["photos"][-1]["complete"] is True
    r = post(client, f"/api/pending/{pid}/commit", data={"accept": "1", "force": "1"})
    assert r.status_code == 201, r.text
    (rev,) = tallero("history", "1", "--json").json()["revisions"]
    assert rev["evidence"][-1]["role"] == "piles"
    # a round without a piles photo has no pile to give
    r = post(client, "/api/games/1/rounds", files={"dutch": ("d.jpg", DUTCH.read_bytes())})
    r = post(client, f"/api/pending/{r.json()['pending']}/pile",
             data={"pile": "1", "top": "1", "reason": "x"})  # fmt: skip
    assert r.status_code == 400 and r.json()["error"] == "this round has no piles photo"


def test_uploads_are_named_by_the_server_from_their_first_bytes(home):
    from commands.web.desk import RoundDesk

    desk = RoundDesk(home, lambda: pytest.fail("no counter is needed"))
    iphone = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00"
    heads = (b"\xff\xd8\xff\xe0", b"\x89PNG\r\n\x1a\n", iphone, b"../x")
    paths = [desk.new_upload_path(head) for head in heads]
    assert [p.suffix for p in paths] == [".jpg", ".png", ".heic", ".img"]
    assert all(re.fullmatch(r"[0-9a-f]{24}\.(jpg|png|heic|img)", p.name) for p in paths)
    assert len({p.name for p in paths}) == 4
    assert all(p.parent == home / "uploads" for p in paths)


def test_a_token_with_odd_characters_is_refused_not_an_error(app):
    from starlette.testclient import TestClient

    with TestClient(app, base_url=ORIGIN) as c:
        assert c.get("/?token=%C3%A9t%C3%A9").status_code == 401
        assert c.get("/api/games", headers={"x-tallero-token": "%ff"}).status_code == 401


@pytest.mark.parametrize(
    ("size", "shown"), [((640, 480), (640, 480)), ((4032, 3024), (2016, 1512))]
)
def test_the_page_shows_a_12_mp_photo_at_a_phones_size(home, tmp_path, size, shown):
    import cv2
    import numpy as np

    from commands.web.desk import Pending, RoundDesk

    annotated = tmp_path / "annotated.jpg"
    image = np.full((size[1], size[0], 3), 90, np.uint8)
    cv2.imwrite(str(annotated), image)
    desk = RoundDesk(home, lambda: pytest.fail("no counter is needed to show a photo"))
    desk._pending["p"] = Pending("p", 1, [SimpleNamespace(role="dutch", annotated=annotated)])
    jpeg = desk.page_photo("p", "dutch")
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert (decoded.shape[1], decoded.shape[0]) == shown
    with pytest.raises(UsageError, match="no blitz photo in this round"):
        desk.page_photo("p", "blitz")


class HeldCounter:
    """The module's counter, holding each count until the test lets it go."""

    def __init__(self, counter: Any) -> None:
        self.counter = counter
        self.counting = threading.Event()
        self.release = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.counter, name)

    def count(self, *args: Any, **kwargs: Any) -> Any:
        self.counting.set()
        assert self.release.wait(60)
        return self.counter.count(*args, **kwargs)


def test_the_sheet_answers_while_a_photo_is_being_counted(home, counter):
    import httpx

    from commands.web.app import make_app
    from commands.web.desk import RoundDesk

    held = HeldCounter(counter)
    with live_server(make_app(TOKEN, RoundDesk(home, lambda: held))) as base:
        headers = {"origin": base, "x-tallero-token": TOKEN}
        with httpx.Client(base_url=base, headers=headers, timeout=120) as phone:
            phone.cookies.set("tallero_token", TOKEN)
            assert phone.post("/api/games", data={"players": PLAYERS}).status_code == 201
            answers: list[httpx.Response] = []

            def upload() -> None:
                with httpx.Client(base_url=base, headers=headers, timeout=120) as other:
                    other.cookies.set("tallero_token", TOKEN)
                    files = {"dutch": ("d.jpg", DUTCH.read_bytes())}
                    answers.append(other.post("/api/games/1/rounds", files=files))

            thread = threading.Thread(target=upload)
            thread.start()
            try:
                assert held.counting.wait(60)
                # The photo is being counted: the sheet and the pages still answer at once.
                r = phone.get("/api/games/1/sheet", timeout=5)
                assert r.status_code == 200 and r.json()["rounds"] == []
                assert phone.get("/games/1", timeout=5).status_code == 200
                assert answers == []
            finally:
                held.release.set()
                thread.join()
            assert [a.status_code for a in answers] == [201]


def test_an_iphone_heic_photo_is_counted_as_its_jpeg_is(client, home, tmp_path):
    from PIL import Image
    from pillow_heif import register_heif_opener

    register_heif_opener()
    heic = tmp_path / "IMG_0002.HEIC"
    Image.open(DUTCH).convert("RGB").save(heic, quality=92)
    post(client, "/api/games", data={"players": PLAYERS})
    as_jpeg = post(client, "/api/games/1/rounds", files={"dutch": ("d.jpg", DUTCH.read_bytes())})
    as_heic = post(
        client, "/api/games/1/rounds", files={"dutch": ("d.heic", heic.read_bytes(), "image/heic")}
    )
    assert as_jpeg.status_code == as_heic.status_code == 201
    assert as_heic.json()["players"] == as_jpeg.json()["players"]
    assert sorted(p.suffix for p in (home / "uploads").iterdir()) == [".heic", ".jpg"]


def test_the_page_offers_the_counts_that_reach_the_piles_total_to_tap(client, home, tallero):
    """Tops 10, 10, 6 (26): several Dutch counts within the photo's ranges reach it; the
    page lists each, and tapping one takes it as corrections by hand, as ``--fix-dutch``."""
    post(client, "/api/games", data={"players": PLAYERS})
    dutch = {"dutch": ("d.jpg", DUTCH.read_bytes())}
    page = post(client, "/api/games/1/rounds", files=dutch, data={"piles": "10, 10, 6"}).json()
    pid, fits = page["pending"], page["fits"]
    assert len(fits) >= 2
    html = client.get(f"/pending/{pid}").text
    assert 'id="fits"' in html and html.count(f'action="/pending/{pid}/choose"') == len(fits)
    # the way the counts shown are (what ticking the box commits) is marked
    shown = [f for f in fits if all(page["players"][p]["dutch"] == n for p, n in f.items())]
    assert html.count("(as shown)") == len(shown) == 1
    stale = post(client, f"/api/pending/{pid}/choose", data={"fit": "Ann=40"})
    assert stale.status_code == 400 and stale.json()["error"].endswith("reload the page")
    chosen = fits[-1]
    text = ",".join(f"{p}={n}" for p, n in chosen.items())
    after = post(client, f"/api/pending/{pid}/choose", data={"fit": text}).json()
    assert {p: after["players"][p]["dutch"] for p in chosen} == chosen
    assert sum(c["dutch"] for c in after["players"].values()) == 26 and after["fits"] == []
    r = post(client, f"/api/pending/{pid}/commit")  # the choice answers the round
    assert r.status_code == 201, r.text
    (rev,) = tallero("history", "1", "--json").json()["revisions"]
    assert "chosen among the Dutch counts that reach the piles' total" in rev["reason"]
