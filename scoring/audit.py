"""An audit of a committed round: its evidence checked, counted again, and what to look at.

Everything here is plain data. The counting itself happens elsewhere (the commands layer
runs today's models on the kept photos); this module takes those counts as ``count --json``
objects and sets them beside what the ledger recorded, so it knows nothing of pixels.
The JSON shape of :func:`audit_json` is a contract (README, ``tallero audit --json``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scoring.evidence import EvidenceCheck, check_evidence
from scoring.ledger import Game, Revision
from scoring.report import history_json

PILES = ("dutch", "blitz")


@dataclass(frozen=True)
class Recount:
    """A kept photo counted again today: its ``count --json`` object, or why it was not."""

    role: str  # "dutch" or "blitz"
    path: str
    count: Mapping[str, Any] | None  # None when the photo could not be counted
    skipped: str | None = None  # why it was not counted (missing or changed file)


def check_round_evidence(revisions: Sequence[Revision]) -> list[tuple[int, EvidenceCheck]]:
    """Each evidence file of the round, with the revision that recorded it, hashed now."""
    return [(rev.number, check_evidence(e)) for rev in revisions for e in rev.evidence]


def model_changes(
    recorded: Mapping[str, Any] | None, now: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    """The model parts whose sha256 differs between the commit and today.

    Both arguments are ``count --json``'s ``model`` objects (``parts``: name, sha256). A part
    present on one side only is listed with ``None`` on the other.
    """
    if not recorded or not now:
        return []
    before = {p["name"]: p["sha256"] for p in recorded.get("parts", [])}
    after = {p["name"]: p["sha256"] for p in now.get("parts", [])}
    return [
        {"part": name, "recorded": before.get(name), "now": after.get(name)}
        for name in [*before, *(n for n in after if n not in before)]
        if before.get(name) != after.get(name)
    ]


def count_rows(
    game: Game, revisions: Sequence[Revision], recounts: Sequence[Recount]
) -> list[dict[str, Any]]:
    """Per player and pile: the camera's count at the commit, the count committed (the
    round as it stands), today's count and its range, and whether today agrees."""
    latest = revisions[-1].counts if revisions else None
    camera: dict[str, Mapping[str, Any]] = {}
    for rev in revisions:
        for e in rev.evidence:
            if isinstance(e.detections, dict):
                camera.setdefault(e.role, e.detections)
    today = {r.role: r.count for r in recounts if r.count is not None}
    rows = []
    for pile in PILES:
        for seat in game.setup.seats:
            deck = seat.deck.id
            committed = None
            if latest is not None:
                c = latest[seat.player]
                committed = c.dutch if pile == "dutch" else c.blitz
            then = camera.get(pile, {}).get("counts", {}).get(deck) if pile in camera else None
            now = today.get(pile)
            n = int(now["counts"].get(deck, 0)) if now is not None else None
            span = now.get("ranges", {}).get(deck, [n, n]) if now is not None else None
            rows.append(
                {
                    "player": seat.player,
                    "deck": deck,
                    "pile": pile,
                    "camera": then,
                    "committed": committed,
                    "today": n,
                    "range": list(span) if span is not None else None,
                    "agrees": None if n is None or committed is None else n == committed,
                }
            )
    return rows


def review_list(
    recounts: Sequence[Recount], rows: Sequence[Mapping[str, Any]], low_confidence: float
) -> list[dict[str, Any]]:
    """The cards to look at first: counts today disagrees with, cards matching no deck of
    the game, low confidence (below ``low_confidence``, 0..1), other flagged cards, then
    places that may hold a card not counted."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if row["agrees"] is False:
            out.append(
                {
                    "role": row["pile"],
                    "card": None,
                    "deck": row["deck"],
                    "why": f"{row['player']}: today {row['today']}, committed {row['committed']}",
                }
            )
    cards: list[tuple[int, dict[str, Any]]] = []
    roles: set[str] = set()
    for r in recounts:
        # a role's later photos (the frames `watch` read the piles over) show its cards again
        if r.count is None or r.role in roles:
            continue
        roles.add(r.role)
        flagged = set(r.count.get("uncertain", []))
        for card in r.count.get("cards", []):
            item = {
                "role": r.role,
                "card": card["id"],
                "deck": card["deck"],
                "confidence": card["confidence"],
            }
            if card["side"] == "back" and card["deck"] is None:
                cards.append((0, {**item, "why": "matches no deck of the game"}))
            elif card["confidence"] < low_confidence:
                cards.append((1, {**item, "why": "low confidence"}))
            elif card["id"] in flagged:
                cards.append((2, {**item, "why": "flagged: may be another deck"}))
        for k, p in enumerate(r.count.get("possible", []), start=1):
            why = f"possible card not counted (+?), chance {p['chance']:.2f}"
            decks = ", ".join(p["decks"]) or "no deck"
            cards.append((3, {"role": r.role, "card": None, "deck": decks, "why": why, "k": k}))
    cards.sort(key=lambda c: c[0])  # stable: photo order within each kind
    return out + [{k: v for k, v in c.items() if k != "k"} for _, c in cards]


def pile_notes(revisions: Sequence[Revision]) -> list[str]:
    """What the Dutch-pile cross-check said, as recorded: forced warnings and accepted
    problems that name the piles. Pile tops that matched leave no record."""
    notes = []
    for rev in revisions:
        texts = list(rev.warnings) + (rev.reason.split("; ") if rev.reason else [])
        for text in texts:
            if "Dutch piles" in text or "counts' ranges" in text:
                notes.append(f"revision {rev.number}: {text}")
    return notes


def audit_json(
    game: Game,
    number: int,
    revisions: Sequence[Revision],
    checks: Sequence[tuple[int, EvidenceCheck]],
    recounts: Sequence[Recount],
    model_now: Mapping[str, Any] | None,
    low_confidence: float,
) -> dict[str, Any]:
    """``tallero audit --json``: the evidence check, the recount, the trail, the review."""
    rows = count_rows(game, revisions, recounts)
    recorded_models: list[dict[str, Any]] = [
        {"role": e.role, "revision": rev.number, "model": e.detections.get("model")}
        for rev in revisions
        for e in rev.evidence
        if isinstance(e.detections, dict)
    ]
    changes = []
    for m in recorded_models:
        for change in model_changes(m["model"], model_now):
            if change not in changes:
                changes.append(change)
    history = history_json(game, number, revisions, {c.path: c for _, c in checks})
    return {
        "game": game.id,
        "game_name": game.name,
        "round": number,
        "undone": bool(revisions) and revisions[-1].kind == "undo",
        "intact": all(c.ok for _, c in checks),
        "evidence": [{**c.to_json(), "revision": rev} for rev, c in checks],
        "models": {"recorded": recorded_models, "now": model_now, "changed": changes},
        "counts": rows,
        "photos": [
            {"role": r.role, "path": r.path, "today": r.count, "skipped": r.skipped}
            for r in recounts
        ],
        "revisions": history["revisions"],
        "piles": {
            "dutch_committed": _total(rows, "committed"),
            "dutch_today": _total(rows, "today"),
            "notes": pile_notes(revisions),
            "photo": piles_photo_totals(revisions, recounts),
        },
        "review": review_list(recounts, rows, low_confidence),
    }


def piles_photo_totals(
    revisions: Sequence[Revision], recounts: Sequence[Recount]
) -> dict[str, Any] | None:
    """The Dutch piles' total read off the round's piles photo when it was scored, and read
    again today (with whether every top was read); None for a round without one."""
    then = piles_evidence(revisions)
    if then is None:
        return None
    now = next((r.count for r in recounts if r.role == "piles" and r.count is not None), None)
    read = now.get("piles") if now is not None else None
    return {
        "committed": then.get("total"),
        "committed_complete": then.get("complete"),
        "today": read["total"] if read else None,
        "today_complete": read["complete"] if read else None,
        # read off the median picture of the frames ``watch`` read them over
        "committed_median": bool(then.get("median", False)),
        "today_median": bool(read.get("median", False)) if read else False,
        "given": list(then.get("given") or []),
    }


def piles_evidence(revisions: Sequence[Revision]) -> Mapping[str, Any] | None:
    """What the round's piles photo (or the first frame ``watch`` read them over) keeps as
    its detections when it was scored: the piles' JSON; None for a round without one."""
    for rev in revisions:
        for e in rev.evidence:
            if e.role == "piles" and isinstance(e.detections, dict):
                return e.detections
    return None


def given_pile_tops(revisions: Sequence[Revision]) -> dict[int, str]:
    """The pile tops given by hand when the round was scored (pile id -> top, as
    ``--fix-piles`` takes them), from its piles photo's evidence: an audit reads the photo
    again with them, so that the totals compare what the camera read."""
    then = piles_evidence(revisions) or {}
    return {int(g["id"]): str(g["top"]) for g in then.get("given") or []}


def _total(rows: Sequence[Mapping[str, Any]], key: str) -> int | None:
    values = [r[key] for r in rows if r["pile"] == "dutch"]
    return None if not values or any(v is None for v in values) else int(sum(values))


def audit_lines(audit: Mapping[str, Any]) -> list[str]:
    """The audit as plain terminal lines (no markup: names are printed as typed)."""
    lines = [f"Audit of round {audit['round']} of {audit['game_name']} (game {audit['game']})"]
    if audit["undone"]:
        lines.append("This round was undone; it no longer counts on the sheet.")
    lines.append("\nEvidence:")
    if not audit["evidence"]:
        lines.append("  none: this round was scored by hand")
    for e in audit["evidence"]:
        mark = "intact" if e["status"] == "ok" else e["status"].upper()
        now = f", now {e['sha256_now'][:12]}" if e["status"] == "changed" else ""
        lines.append(f"  {mark:<8} {e['role']} photo {e['path']} (sha256 {e['sha256'][:12]}{now})")
    models = audit["models"]
    if models["now"] is not None:
        lines.append(f"\nModels today: {models['now']['name']} ({models['now']['sha256'][:12]})")
        if models["changed"]:
            for c in models["changed"]:
                was, now = (c["recorded"] or "none")[:12], (c["now"] or "none")[:12]
                lines.append(f"  changed since the commit: {c['part']} {was} -> {now}")
        elif models["recorded"]:
            lines.append("  the same models as at the commit")
    lines.append("\nCounts (camera at the commit / committed / today, range):")
    for row in audit["counts"]:
        if row["camera"] is None and row["today"] is None:
            continue
        span = row["range"]
        rng = f" ({span[0]}-{span[1]})" if span and span[0] != span[1] else ""
        today = "-" if row["today"] is None else f"{row['today']}{rng}"
        flag = "  DIFFERS" if row["agrees"] is False else ""
        lines.append(
            f"  {row['pile'].capitalize():<6} {row['player']:<12} {row['deck']:<10} "
            f"{_dash(row['camera']):>3} / {_dash(row['committed']):>3} / {today}{flag}"
        )
    for photo in audit["photos"]:
        if photo["skipped"]:
            lines.append(f"  {photo['role']} photo not counted again: {photo['skipped']}")
    lines.append("\nRevisions:")
    for rev in audit["revisions"]:
        lines.append(f"  {rev['revision']}  {rev['created_at']}  {rev['kind']}")
        lines += [f"     {part}" for part in (rev["reason"] or "").split("; ") if part]
        for w in rev["warnings"]:
            lines.append(f"     forced past: {w}")
    piles = audit["piles"]
    lines.append(
        f"\nDutch total: committed {_dash(piles['dutch_committed'])}, "
        f"today {_dash(piles['dutch_today'])}"
    )
    photo = piles.get("photo")
    if photo is not None:
        lines.append(
            f"Dutch piles photo: total {_dash(photo['committed'])}"
            f"{'' if photo['committed_complete'] else ' (not every top read)'} when scored, "
            f"{_dash(photo['today'])}{'' if photo['today_complete'] else ' (not every top read)'}"
            " today"
        )
        median = (("when scored", photo["committed_median"]), ("today", photo["today_median"]))
        if any(on for _, on in median):
            when = " and ".join(w for w, on in median if on)
            lines.append(f"  read off the median picture of the frames {when}")
        for g in photo.get("given", []):
            read = "not read" if g["read"] is None else f"read {g['read']}"
            lines.append(f"  pile #{g['id']}: top {g['top']} given by hand ({read})")
    lines += [f"  pile check: {n}" for n in piles["notes"]] or ["  no pile check recorded"]
    lines.append("\nLook at first:" if audit["review"] else "\nNothing flagged.")
    for item in audit["review"]:
        card = f"#{item['card']}" if item["card"] is not None else "  "
        conf = f" ({item['confidence']:.2f})" if "confidence" in item else ""
        lines.append(
            f"  {item['role']:<6} {card:<4} {item['deck'] or 'no deck'}: {item['why']}{conf}"
        )
    return lines


def _dash(n: int | None) -> str:
    return "-" if n is None else str(n)
