"""`tallero serve` in a real browser at a phone's size (390x844): start a game, send the
Dutch and Blitz photos, check the counts shown against `tallero score --json`, correct one
with a reason, commit, and watch a second phone's sheet update by itself.

Needs Debian's ``chromium``, driven by Playwright without a browser download; without it
the test is skipped on a workstation and fails in CI (``$CI`` set). Screenshots go to
``$SERVE_SCREENSHOTS`` when set (else the test's temporary folder).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from serve_helpers import BLITZ, DUTCH, PLAYERS, SEATS, TOKEN, live_server
from test_audit_page_browser import chromium

PHONE = {"width": 390, "height": 844}
WAIT_MS = 120_000  # counting two photos on a loaded two-core machine


@pytest.fixture
def browser_path() -> str:
    return chromium()


def screenshots(tmp_path: Path) -> Path:
    """Where screenshots go: ``$SERVE_SCREENSHOTS`` when set, else ``tmp_path``."""
    shots = Path(os.environ.get("SERVE_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    return shots


@contextmanager
def served(home: Path, browser_path: str) -> Iterator[tuple[str, Any]]:
    """``tallero serve``'s app on a local port and Chromium: (its address, the browser)."""
    from playwright.sync_api import sync_playwright

    from commands.app import make_counter
    from commands.web.app import make_app
    from commands.web.desk import RoundDesk

    app = make_app(TOKEN, RoundDesk(home, lambda: make_counter(None, None, None)))
    with live_server(app) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        try:
            yield base, browser
        finally:
            browser.close()


def new_round_page(base: str, browser: Any) -> Any:
    """A phone that opened the link, started a game and opened its new-round page."""
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.set_default_timeout(WAIT_MS)
    assert phone.goto(f"{base}/?token={TOKEN}").status == 200
    phone.fill("input[name=players]", PLAYERS)
    phone.click("#new-game button")
    phone.wait_for_url(f"{base}/games/1")
    phone.click("text=New round from photos")
    return phone


def fits(page: Any) -> None:
    """Nothing on the page is wider than the phone's screen."""
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.slow  # two photos counted twice, an audit, a browser: 40 s on two cores
def test_a_round_from_photos_on_two_phones(browser_path, home, tallero, tmp_path):
    shots = screenshots(tmp_path)
    with served(home, browser_path) as (base, browser):
        stranger = browser.new_context(viewport=PHONE).new_page()
        assert stranger.goto(f"{base}/").status == 401
        stranger.screenshot(path=shots / "serve-401.png")

        phone = browser.new_context(viewport=PHONE).new_page()
        phone.set_default_timeout(WAIT_MS)
        assert phone.goto(f"{base}/?token={TOKEN}").status == 200
        phone.fill("input[name=players]", PLAYERS)
        phone.fill("input[name=name]", "Friday night")
        phone.screenshot(path=shots / "serve-games.png", full_page=True)
        phone.click("#new-game button")
        phone.wait_for_url(f"{base}/games/1")
        assert phone.inner_text("h1") == "Friday night"
        fits(phone)
        phone.screenshot(path=shots / "serve-sheet.png", full_page=True)

        # The second phone opens the sheet before the round is committed.
        other = browser.new_context(viewport=PHONE).new_page()
        assert other.goto(f"{base}/games/1?token={TOKEN}").status == 200
        assert other.locator("#sheet tbody tr").count() == 0

        phone.click("text=New round from photos")
        phone.set_input_files("input[name=dutch]", DUTCH)
        phone.set_input_files("input[name=blitz]", BLITZ)
        fits(phone)
        phone.screenshot(path=shots / "serve-new-round.png", full_page=True)
        phone.click("#round-photos button")
        phone.wait_for_url(f"{base}/pending/*")
        images = phone.evaluate("[...document.images].map(i => i.complete && i.naturalWidth > 0)")
        assert images == [True, True]
        fits(phone)
        phone.screenshot(path=shots / "serve-round.png", full_page=True)

        expected = tallero(
            "score", "--dutch", str(DUTCH), "--blitz", str(BLITZ), "--annotate",
            str(tmp_path), "--json",
        ).json()  # fmt: skip
        shown = shown_counts(phone)
        assert shown == {
            p: {k: expected["players"][p][k] for k in ("dutch", "blitz", "points")} for p in SEATS
        }
        problems = phone.locator("#problems li").all_inner_texts()
        assert problems == expected["problems"]

        # Tap Ann's Blitz count, correct it with a reason.
        ann = shown["Ann"]["blitz"]
        phone.click("button.count[data-player=Ann][data-label=Blitz]")
        form = phone.locator("#correct")
        assert form.locator("select[name=player]").input_value() == "Ann"
        assert form.locator("select[name=label]").input_value() == "Blitz"
        assert form.locator("input[name=count]").input_value() == str(ann)
        form.locator("input[name=count]").fill(str(ann + 1))
        form.locator("input[name=reason]").fill("one card under the pile")
        form.locator("button").click()
        phone.wait_for_load_state()
        corrected = shown_counts(phone)
        assert corrected["Ann"] == {
            "dutch": shown["Ann"]["dutch"],
            "blitz": ann + 1,
            "points": shown["Ann"]["dutch"] - 2 * (ann + 1),
        }
        assert phone.locator("#corrections li").all_inner_texts() == [
            f"Ann Blitz {ann} -> {ann + 1}"
        ]
        phone.screenshot(path=shots / "serve-round-corrected.png", full_page=True)

        phone.click("#commit button")
        phone.wait_for_url(f"{base}/games/1?committed=1")
        assert phone.locator("#sheet tbody tr").count() == 1

        # The other phone's sheet catches up by itself (it polls the JSON sheet).
        other.wait_for_selector("#sheet tbody tr", timeout=15_000)
        totals = {name: other.inner_text(f"[data-total={name}]") for name in SEATS}
        assert totals == {p: str(c["points"]) for p, c in corrected.items()}
        fits(other)
        other.screenshot(path=shots / "serve-sheet-updated.png", full_page=True)
        sheet = tallero("sheet", "--json").json()
        assert sheet["totals"] == {p: c["points"] for p, c in corrected.items()}

        phone.click("#sheet tbody a")
        phone.wait_for_url(f"{base}/games/1/rounds/1")
        assert "one card under the pile" in phone.inner_text("body")
        fits(phone)
        phone.screenshot(path=shots / "serve-history.png", full_page=True)
        phone.click("#audit")
        phone.wait_for_load_state()
        assert "intact" in phone.inner_text("body")
        phone.screenshot(path=shots / "serve-audit.png")

        # A file that is no photo: a clear error page.
        phone.goto(f"{base}/games/1/rounds/new")
        phone.set_input_files(
            "input[name=dutch]",
            files=[{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"no photo"}],
        )
        with phone.expect_navigation() as nav:
            phone.click("#round-photos button")
        assert nav.value is not None and nav.value.status == 422
        assert phone.inner_text("#error") == "the Dutch photo: not an image (unrecognised format)"
        phone.screenshot(path=shots / "serve-error.png")


def shown_counts(page: Any) -> dict[str, dict[str, int]]:
    """Each player's Dutch, Blitz and points as the round table shows them."""
    out = {}
    for row in page.locator("#round tbody tr").all():
        player = row.get_attribute("data-player")
        assert player is not None
        buttons = row.locator("button.count")
        out[player] = {
            "dutch": int(buttons.nth(0).inner_text()),
            "blitz": int(buttons.nth(1).inner_text()),
            "points": int(row.locator("td.points").inner_text()),
        }
    return out


@pytest.mark.slow  # two photos counted, a browser: about 20 s on two cores
def test_a_piles_top_given_on_a_phone(browser_path, home, tmp_path):
    """The piles photo ``under-phone.jpg`` leaves pile #11 (half under a phone) unread: the
    page offers it first in "Give a pile's top", and giving it completes the total."""
    piles = Path(__file__).parent / "data" / "piles" / "under-phone.jpg"
    shots = screenshots(tmp_path)
    with served(home, browser_path) as (base, browser):
        phone = new_round_page(base, browser)
        phone.set_input_files("input[name=dutch]", DUTCH)
        phone.set_input_files("input[name=piles_photo]", piles)
        phone.click("#round-photos button")
        phone.wait_for_url(f"{base}/pending/*")
        problems = phone.locator("#problems li").all_inner_texts()
        assert any("#11 in the piles photo was not read" in t for t in problems)
        looks = phone.evaluate(
            "[...document.querySelectorAll('#piles-look img')].map(i => i.naturalWidth)"
        )
        assert len(looks) == 1 and looks[0] > 0  # pile #11 cut out, loaded
        phone.screenshot(path=shots / "serve-pile-to-look-at.png", full_page=True)
        form = phone.locator("#pile-top")
        assert form.locator("select[name=pile]").input_value() == "11"
        form.locator("input[name=top]").fill("1")
        form.locator("input[name=reason]").fill("a yellow 1 under the phone")
        form.locator("button").click()
        phone.wait_for_load_state()
        assert phone.locator("#corrections li").all_inner_texts() == ["Dutch pile #11 top ? -> 1"]
        problems = phone.locator("#problems li").all_inner_texts()
        assert not any("was not read" in t for t in problems)
        assert "11 Dutch piles, 45 cards" in phone.inner_text("body")
        fits(phone)
        phone.screenshot(path=shots / "serve-pile-top.png", full_page=True)


def test_counts_that_reach_the_piles_total_tapped_on_a_phone(browser_path, home, tmp_path):
    """Typed tops 10, 10, 6: several Dutch counts reach 26; the page lists them, and the
    one tapped becomes the round's counts, committed without another question."""
    shots = screenshots(tmp_path)
    with served(home, browser_path) as (base, browser):
        phone = new_round_page(base, browser)
        phone.set_input_files("input[name=dutch]", DUTCH)
        phone.fill("input[name=piles]", "10, 10, 6")
        phone.click("#round-photos button")
        phone.wait_for_url(f"{base}/pending/*")
        buttons = phone.locator("#fits button")
        assert buttons.count() >= 2
        fits(phone)
        phone.locator("#fits").screenshot(path=shots / "serve-fits.png")
        last = buttons.nth(buttons.count() - 1)
        text = last.inner_text().removesuffix(" (as shown)")
        chosen = dict(pair.rsplit(" ", 1) for pair in text.split(", "))
        last.click()
        phone.wait_for_load_state()
        assert phone.locator("#fits").count() == 0
        for player, n in chosen.items():
            cell = phone.locator(f"tr[data-player='{player}'] button[data-label=Dutch]")
            assert cell.inner_text() == n
        dutch = phone.locator("button[data-label=Dutch]").all_inner_texts()
        assert sum(int(n) for n in dutch) == 26
        phone.screenshot(path=shots / "serve-fit-chosen.png", full_page=True)
        phone.click("#commit button")
        phone.wait_for_url(f"{base}/games/1?committed=1")
