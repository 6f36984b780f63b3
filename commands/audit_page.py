"""The audit and score-sheet pages: one self-contained HTML file each.

Images are embedded as JPEG data URIs and the CSS is inline, so a page opens offline on
any device; it runs no scripts and loads no fonts. Text from the ledger (names, reasons)
is escaped by the template engine (Jinja2 with autoescaping).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring.errors import TalleroError

if TYPE_CHECKING:
    import jinja2

    from scoring.ledger import Game

TEMPLATES = Path(__file__).with_name("templates")
PHOTO_MAX_SIDE_PX = 1400  # the annotated photo: enough to read its card numbers
CROP_MAX_SIDE_PX = 200  # a card crop in the grid
CROP_MARGIN = 0.08  # around a card's box, as a share of its size
JPEG_QUALITY = 82


def _env() -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def jpeg_data_uri(image_bgr: Any, max_side_px: int) -> str:
    """``image_bgr`` shrunk to at most ``max_side_px`` on its long side, as a JPEG data URI."""
    import cv2

    h, w = image_bgr.shape[:2]
    scale = min(1.0, max_side_px / max(h, w, 1))
    if scale < 1.0:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        image_bgr = cv2.resize(image_bgr, size, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise TalleroError("cannot encode an image for the report")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def card_crops(image_bgr: Any, count: Any) -> list[dict[str, Any]]:
    """One crop per card of ``count`` (a `vision.count.result.Count`): its upright box with
    a small margin, with the card's number, deck, side, confidence and whether it is flagged."""
    import numpy as np

    h, w = image_bgr.shape[:2]
    flagged = set(count.uncertain)
    out = []
    for card in count.to_json()["cards"]:
        quad = np.asarray(card["corners"], np.float64)
        (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
        mx, my = (x1 - x0) * CROP_MARGIN, (y1 - y0) * CROP_MARGIN
        left, top = max(0, int(x0 - mx)), max(0, int(y0 - my))
        right, bottom = min(w, int(np.ceil(x1 + mx))), min(h, int(np.ceil(y1 + my)))
        crop = image_bgr[top : max(bottom, top + 1), left : max(right, left + 1)]
        out.append(
            {
                "id": card["id"],
                "deck": card["deck"],
                "side": card["side"],
                "confidence": card["confidence"],
                "flagged": card["id"] in flagged,
                "src": jpeg_data_uri(crop, CROP_MAX_SIDE_PX),
            }
        )
    return out


def deck_groups(crops: Sequence[Mapping[str, Any]], decks: Sequence[str]) -> list[dict[str, Any]]:
    """Crops grouped per deck (in the game's order, then no deck, then faces up), flagged
    cards first within each group."""
    order = [*decks, None, "face up"]

    def key(c: Mapping[str, Any]) -> str | None:
        return "face up" if c["side"] != "back" else c["deck"]

    groups = []
    for deck in order:
        members = sorted(
            (c for c in crops if key(c) == deck), key=lambda c: (not c["flagged"], c["id"])
        )
        if members:
            label = deck if deck is not None else "no deck of the game"
            groups.append({"deck": label, "cards": members})
    return groups


def trail_rows(
    revisions: Sequence[Mapping[str, Any]], players: Sequence[str]
) -> list[dict[str, Any]]:
    """The revision trail with each count marked where it differs from the revision before."""
    rows = []
    before: Mapping[str, Any] | None = None
    for rev in revisions:
        cells = []
        counts = rev["players"]
        for player in players:
            if counts is None:
                cells.append({"dutch": None, "blitz": None, "points": None, "changed": False})
                continue
            c = counts[player]
            changed = before is not None and before[player] != c
            cells.append({**c, "changed": changed})
        rows.append({**rev, "cells": cells})
        if counts is not None:
            before = counts
    return rows


def write_audit_page(
    out: Path, audit: Mapping[str, Any], pictures: Mapping[str, tuple[Any, Any]]
) -> Path:
    """Write the audit report (``tallero audit --html``): annotated photos, card crops per
    deck, the evidence check, models, counts, the revision trail and the pile check."""
    from vision.count.annotate import CountAnnotator

    decks = list(dict.fromkeys(row["deck"] for row in audit["counts"]))
    players = list(dict.fromkeys(row["player"] for row in audit["counts"]))
    photos = []
    for role, (image, count) in pictures.items():
        photos.append(
            {
                "role": role,
                "src": jpeg_data_uri(CountAnnotator().annotate(image, count), PHOTO_MAX_SIDE_PX),
                "groups": deck_groups(card_crops(image, count), decks),
                "cards": len(count.cards),
                "flagged": list(count.uncertain),
            }
        )
    html = (
        _env()
        .get_template("audit.html.j2")
        .render(
            audit=audit,
            photos=photos,
            players=players,
            trail=trail_rows(audit["revisions"], players),
            made=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )
    return _write(out, html)


def audit_file_name(number: int) -> str:
    """The file name the sheet page links each round's audit to."""
    return f"round-{number}-audit.html"


def write_sheet_page(out: Path, game: Game) -> Path:
    """Write the score sheet (``tallero sheet --html``); each round links to its audit
    page, ``round-N-audit.html`` beside it (``tallero audit N --html ...``)."""
    from scoring.report import sheet_json, sheet_notes

    sheet = sheet_json(game)
    rounds = [
        {
            **r,
            "href": audit_file_name(r["round"]),
            "exists": (out.parent / audit_file_name(r["round"])).is_file(),
        }
        for r in sheet["rounds"]
    ]
    html = (
        _env()
        .get_template("sheet.html.j2")
        .render(
            sheet=sheet,
            rounds=rounds,
            notes=sheet_notes(game),
            made=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )
    return _write(out, html)


def _write(out: Path, html: str) -> Path:
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".part")
        tmp.write_text(html, encoding="utf-8")
        tmp.replace(out)
    except OSError as exc:
        raise TalleroError(f"cannot write {out}: {exc.strerror or exc}") from None
    return out
