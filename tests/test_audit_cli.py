"""`tallero audit`: the evidence checked, the photos counted again, the trail and the cards
to look at first; a changed byte in an evidence photo fails the audit with the file named."""

from __future__ import annotations

from pathlib import Path

# photo_round is a shared fixture, imported for pytest to find; tests take it by name.
# ruff: noqa: F811
from audit_round import BLITZ, DUTCH, SEATS, PhotoRound, photo_round, run, sha  # noqa: F401


def test_audit_of_an_intact_round(photo_round: PhotoRound, tmp_path: Path) -> None:
    home, score = photo_round.home, photo_round.score
    r = run(home, "audit", "1", "--json")
    assert r.code == 0, r.err
    audit = r.json()
    assert (audit["game"], audit["round"], audit["intact"], audit["undone"]) == (1, 1, True, False)
    assert [(e["role"], e["status"], e["revision"]) for e in audit["evidence"]] == [
        ("dutch", "ok", 1),
        ("blitz", "ok", 1),
    ]
    assert audit["evidence"][0]["path"] == str(photo_round.evidence["dutch"])
    # Today's models are the ones the round was scored with: nothing changed.
    now = audit["models"]["now"]
    assert now["sha256"] == score["photos"][0]["model"]["sha256"]
    assert audit["models"]["changed"] == []
    # Per player and pile: the camera then, the sheet, and today all agree.
    rows = {(r["pile"], r["player"]): r for r in audit["counts"]}
    assert len(rows) == 2 * len(SEATS)
    for (pile, player), row in rows.items():
        committed = score["players"][player][pile]
        photo = score["photos"][0 if pile == "dutch" else 1]
        assert row["deck"] == SEATS[player]
        assert row["camera"] == row["committed"] == row["today"] == committed
        assert row["range"] == photo["ranges"][SEATS[player]]
        assert row["agrees"] is True
    dutch_total = sum(score["players"][p]["dutch"] for p in SEATS)
    assert audit["piles"] == {
        "dutch_committed": dutch_total,
        "dutch_today": dutch_total,
        "notes": [],
        "photo": None,  # no piles photo in this round
    }
    assert [p["today"]["cards"] for p in audit["photos"]] == [p["cards"] for p in score["photos"]]
    assert [rev["reason"] for rev in audit["revisions"]] == ["looked at the photos"]
    flagged = [(p["role"], i) for p in score["photos"] for i in p["uncertain"]]
    assert {(i["role"], i["card"]) for i in audit["review"] if i["card"]} >= set(flagged)
    text = run(home, "audit", "1")
    assert text.code == 0, text.err
    assert f"  intact   dutch photo {photo_round.evidence['dutch']}" in text.out
    assert "the same models as at the commit" in text.out
    assert "DIFFERS" not in text.out


def test_an_amended_count_is_shown_against_today(photo_round: PhotoRound, tmp_path: Path) -> None:
    from scoring.audit import audit_lines
    from scoring.evidence import keep_photo
    from scoring.ledger import Evidence, Ledger
    from scoring.rules import build_round

    # The shared round's counts and detections, committed again in a home of its own.
    score = photo_round.score
    home = tmp_path / "home"
    assert run(home, "game", "new", *(f"{p}={d}" for p, d in SEATS.items())).code == 0
    evidence = []
    for photo, path in zip(score["photos"], (DUTCH, BLITZ), strict=True):
        kept, digest = keep_photo(path, home)
        evidence.append(Evidence(photo["role"], str(kept), digest, photo, photo["model"]["name"]))
    players = score["players"]
    counts = build_round(
        tuple(SEATS),
        {p: players[p]["dutch"] for p in SEATS},
        {p: players[p]["blitz"] for p in SEATS},
    )
    with Ledger.open(home) as ledger:
        ledger.add_round(1, counts, force=True, evidence=evidence, reason="ok")
    ann = players["Ann"]["dutch"]
    reason = "Ann found a card under the box <b>"
    amend = run(home, "amend", "1", "--dutch", f"Ann={ann + 1}", "--reason", reason, "--force")
    assert amend.code == 0, amend.err
    page = tmp_path / "out" / "round-1-audit.html"
    audit = run(home, "audit", "1", "--json", "--html", str(page))
    assert audit.code == 0, audit.err
    out = audit.json()
    ann_row = next(r for r in out["counts"] if (r["pile"], r["player"]) == ("dutch", "Ann"))
    assert (ann_row["camera"], ann_row["committed"], ann_row["today"]) == (ann, ann + 1, ann)
    assert ann_row["agrees"] is False
    assert out["review"][0] == {
        "role": "dutch",
        "card": None,
        "deck": "pump",
        "why": f"Ann: today {ann}, committed {ann + 1}",
    }
    assert [(v["revision"], v["kind"]) for v in out["revisions"]] == [(1, "new"), (2, "amend")]
    html = page.read_text()
    # Names and reasons are escaped; the page is self-contained.
    assert "Ann found a card under the box &lt;b&gt;" in html and "box <b>" not in html
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert html.count('class="crop"') == sum(len(p["today"]["cards"]) for p in out["photos"])
    text = "\n".join(audit_lines(out))
    assert f"Dutch  Ann          pump       {ann:>3} / {ann + 1:>3} / {ann}" in text
    assert "DIFFERS" in text


def test_a_changed_byte_in_an_evidence_photo_fails_the_audit(photo_round: PhotoRound) -> None:
    from scoring.audit import audit_lines

    kept = photo_round.evidence["dutch"]
    original = kept.read_bytes()
    tampered = bytearray(original)
    tampered[len(tampered) // 2] ^= 0x01
    try:
        kept.write_bytes(bytes(tampered))
        r = run(photo_round.home, "audit", "1", "--json")
        assert r.code == 1
        assert r.err.startswith("tallero: error: the evidence of round 1 is not intact: ")
        assert f"dutch photo {kept} has CHANGED (sha256 {sha(kept)[:12]}" in r.err
        assert len(r.err.strip().splitlines()) == 1
        out = r.json()
        text = "\n".join(audit_lines(out))
        assert f"  CHANGED  dutch photo {kept}" in text
        assert "dutch photo not counted again: the file is changed" in text
        assert out["intact"] is False
        assert [e["status"] for e in out["evidence"]] == ["changed", "ok"]
        assert out["evidence"][0]["sha256_now"] == sha(kept)
        # The changed photo is not counted again; the intact one is.
        assert [(p["role"], p["today"] is None) for p in out["photos"]] == [
            ("dutch", True),
            ("blitz", False),
        ]
        assert {r["today"] for r in out["counts"] if r["pile"] == "dutch"} == {None}
        assert kept.read_bytes() == bytes(tampered)  # nothing is ever rewritten
    finally:
        kept.write_bytes(original)


def test_a_missing_evidence_photo_fails_the_audit_without_counting(tmp_path: Path) -> None:
    from scoring.evidence import keep_photo
    from scoring.ledger import Evidence, Ledger
    from scoring.rules import build_round

    home = tmp_path / "home"
    assert run(home, "game", "new", "Ann=pump", "Ben=carriage").code == 0
    kept, digest = keep_photo(DUTCH, home)
    counts = build_round(("Ann", "Ben"), {"Ann": 1, "Ben": 1}, {"Ann": 0, "Ben": 2})
    with Ledger.open(home) as ledger:
        ledger.add_round(1, counts, evidence=[Evidence("dutch", str(kept), digest, {}, "m")])
    kept.unlink()
    r = run(home, "audit", "1", "--json")
    assert r.code == 1 and f"dutch photo {kept} is MISSING" in r.err
    out = r.json()
    assert out["models"]["now"] is None  # no intact photo: no model was loaded
    assert out["photos"] == [
        {"role": "dutch", "path": str(kept), "today": None, "skipped": "the file is missing"}
    ]


def test_a_round_scored_by_hand_has_nothing_to_count(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(home, "game", "new", "Ann=pump", "Ben=carriage").code == 0
    r = run(home, "round", "--dutch", "Ann=10,Ben=12", "--blitz", "Ann=0,Ben=4",
            "--piles", "10,10,3", "--force")  # fmt: skip
    assert r.code == 0, r.err
    r = run(home, "audit", "1")
    assert r.code == 0, r.err
    assert "none: this round was scored by hand" in r.out
    assert (
        "pile check: revision 1: the Dutch piles hold 23 cards but the players' Dutch counts "
        "add up to 22 (-1)"
    ) in r.out
    assert run(home, "audit", "2").err == "tallero: error: game 1 has no round 2\n"


def test_model_changes_name_each_part() -> None:
    from scoring.audit import model_changes

    before = {"parts": [{"name": "a.onnx", "sha256": "1"}, {"name": "b.onnx", "sha256": "2"}]}
    after = {"parts": [{"name": "a.onnx", "sha256": "1"}, {"name": "b.onnx", "sha256": "3"},
                       {"name": "c.onnx", "sha256": "4"}]}  # fmt: skip
    assert model_changes(before, before) == []
    assert model_changes(before, after) == [
        {"part": "b.onnx", "recorded": "2", "now": "3"},
        {"part": "c.onnx", "recorded": None, "now": "4"},
    ]
    assert model_changes(None, after) == []


def test_the_sheet_page_links_each_round_to_its_audit(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(home, "game", "new", "Ann=pump", "Ben=carriage", "--name", "Fri <night>").code == 0
    for dutch in ("Ann=10,Ben=12", "Ann=11,Ben=9"):
        assert run(home, "round", "--dutch", dutch, "--blitz", "Ann=0,Ben=4").code == 0
    (tmp_path / "round-2-audit.html").write_text("made before")
    r = run(home, "sheet", "--html", str(tmp_path / "sheet.html"))
    assert r.code == 0, r.err
    html = (tmp_path / "sheet.html").read_text()
    assert "<h1>Fri &lt;night&gt;" in html
    assert html.count('href="round-1-audit.html"') == 2
    assert html.count('href="round-2-audit.html"') == 2
    assert "tallero audit 1 --game 1 --html round-1-audit.html" in html
    assert "tallero audit 2 --game 1" not in html  # that audit exists already
