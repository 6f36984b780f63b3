"""The audit and sheet pages as a person sees them: rendered by headless Chromium at a
phone size and a desktop size, every image loaded, every card crop there, nothing wider
than the screen.

Needs Debian's ``chromium`` (``.ci/run`` installs it where missing), driven by Playwright
without a browser download. Without chromium the test is skipped on a workstation and
fails in CI (``$CI`` set), so CI can never pass it by not running it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# photo_round is a shared fixture, imported for pytest to find; tests take it by name.
# ruff: noqa: F811
from audit_round import PhotoRound, photo_round, run  # noqa: F401

SIZES = ((390, 844), (1280, 900))  # a phone held upright, a laptop
PRINT_WIDTH_PX = 718  # an A4 page less 1.5 cm margins, at 96 px per inch


@pytest.fixture(scope="session")
def browser_path() -> str:
    """Chromium's path; checked before the round is built, so a skip costs nothing."""
    return chromium()


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed; .ci/run installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return path


def look(page_file: Path, browser_path: str) -> list[dict[str, object]]:
    """What Chromium shows of ``page_file`` at each size, then printed (print media)."""
    from playwright.sync_api import sync_playwright

    seen = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
        try:
            for width, height in SIZES:
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(page_file.as_uri(), wait_until="load")
                seen.append(
                    page.evaluate(
                        """() => ({
                            width: innerWidth,
                            scrollWidth: document.documentElement.scrollWidth,
                            images: document.images.length,
                            broken: [...document.images]
                                .filter(i => !(i.complete && i.naturalWidth > 0))
                                .map(i => i.alt),
                            crops: document.querySelectorAll('figure.card img.crop').length,
                            flagged: document.querySelectorAll('figure.card.flag').length,
                            photos: document.querySelectorAll('img.annotated').length,
                            external: [...document.querySelectorAll(
                                'script, link, iframe, img:not([src^="data:"])')].length,
                        })"""
                    )
                )
                page.close()
            page = browser.new_page(viewport={"width": PRINT_WIDTH_PX, "height": 1000})
            page.emulate_media(media="print")
            page.goto(page_file.as_uri(), wait_until="load")
            seen.append(
                page.evaluate(
                    "() => ({width: innerWidth, scrollWidth: document.documentElement.scrollWidth})"
                )
            )
            page.close()
        finally:
            browser.close()
    return seen


def test_the_audit_page_in_chromium(
    browser_path: str, photo_round: PhotoRound, tmp_path: Path
) -> None:
    page = tmp_path / "round-1-audit.html"
    r = run(photo_round.home, "audit", "1", "--json", "--html", str(page))
    assert r.code == 0, r.err
    photos = r.json()["photos"]
    cards = sum(len(p["today"]["cards"]) for p in photos)
    flagged = sum(len(p["today"]["uncertain"]) for p in photos)
    assert cards > 0
    *screens, printed = look(page, browser_path)
    assert printed["scrollWidth"] <= printed["width"] == PRINT_WIDTH_PX, printed
    for (width, _), seen in zip(SIZES, screens, strict=True):
        assert seen["width"] == width
        assert seen["broken"] == []
        assert seen["crops"] == cards
        assert seen["flagged"] == flagged
        assert seen["photos"] == len(photos) == 2
        assert seen["images"] == cards + 2
        assert seen["external"] == 0
        assert seen["scrollWidth"] <= seen["width"], seen


def test_the_sheet_page_in_chromium(
    browser_path: str, photo_round: PhotoRound, tmp_path: Path
) -> None:
    page = tmp_path / "sheet.html"
    assert run(photo_round.home, "sheet", "--html", str(page)).code == 0
    *screens, printed = look(page, browser_path)
    assert printed["scrollWidth"] <= printed["width"], printed
    for (width, _), seen in zip(SIZES, screens, strict=True):
        assert seen["width"] == width and seen["images"] == 0 and seen["external"] == 0
        assert seen["scrollWidth"] <= seen["width"], seen
