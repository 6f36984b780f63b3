"""Evidence is checked, never trusted: a kept photo that changed is replaced on the next
commit, `tallero history` hashes every evidence file, and orphan files can be listed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from scoring.errors import EvidenceError

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "data" / "scene_4242_000002.jpg"
OTHER = ROOT / "tests" / "data" / "scene_4242_000016.jpg"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def flip_byte(path: Path, at: int = 1000) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.fixture
def photo_round(tallero, home: Path) -> list[Path]:
    """Round 1 of a two-player game, committed with two evidence photos (no model run)."""
    from scoring.evidence import keep_photo
    from scoring.ledger import Evidence, Ledger
    from scoring.rules import build_round

    assert tallero("game", "new", "Ann=pump", "Ben=carriage").code == 0
    kept = []
    evidence = []
    for role, photo in (("dutch", PHOTO), ("blitz", OTHER)):
        path, digest = keep_photo(photo, home)
        kept.append(path)
        evidence.append(Evidence(role, str(path), digest, {"cards": []}, "detector+classifier"))
    counts = build_round(("Ann", "Ben"), {"Ann": 10, "Ben": 8}, {"Ann": 0, "Ben": 3})
    with Ledger.open(home) as ledger:
        assert ledger.add_round(ledger.current_game_id(), counts, evidence=evidence) == 1
    return kept


def test_keep_photo_replaces_a_kept_copy_that_changed(home: Path) -> None:
    from scoring.evidence import keep_photo

    kept, digest = keep_photo(PHOTO, home)
    assert digest == sha(PHOTO) and sha(kept) == digest
    flip_byte(kept)
    assert sha(kept) != digest
    again, digest2 = keep_photo(PHOTO, home)
    assert again == kept and digest2 == digest
    assert sha(kept) == digest  # the bad copy was replaced, so the recorded hash is true
    kept.unlink()
    keep_photo(PHOTO, home)
    assert sha(kept) == digest
    assert sorted(p.name for p in (home / "evidence").iterdir()) == [kept.name]


def test_history_reports_intact_evidence(tallero, photo_round: list[Path]) -> None:
    r = tallero("history", "1")
    assert r.code == 0, r.err
    assert r.out.count(": intact") == 2
    out = tallero("history", "1", "--json").json()
    statuses = [(e["role"], e["status"]) for e in out["revisions"][0]["evidence"]]
    assert statuses == [("dutch", "ok"), ("blitz", "ok")]
    assert out["revisions"][0]["evidence"][0]["sha256_now"] == sha(PHOTO)


def test_history_fails_on_a_changed_evidence_photo(tallero, photo_round: list[Path]) -> None:
    dutch, blitz = photo_round
    flip_byte(dutch)
    r = tallero("history", "1")
    assert r.code == 1
    assert f"evidence: dutch photo {dutch}" in r.out and ": CHANGED" in r.out
    assert f"evidence: blitz photo {blitz}" in r.out and r.out.count(": intact") == 1
    assert r.err.startswith("tallero: error: evidence of round 1 is not intact: ")
    assert f"dutch photo {dutch} has CHANGED (sha256 {sha(dutch)[:12]}" in r.err
    assert len(r.err.strip().splitlines()) == 1
    r = tallero("history", "1", "--json")
    assert r.code == 1
    evidence = r.json()["revisions"][0]["evidence"]
    assert [e["status"] for e in evidence] == ["changed", "ok"]
    assert evidence[0]["sha256_now"] == sha(dutch) != evidence[0]["sha256"]


def test_history_fails_on_a_missing_evidence_photo(tallero, photo_round: list[Path]) -> None:
    blitz = photo_round[1]
    blitz.unlink()
    r = tallero("history", "1", "--json")
    assert r.code == 1
    assert [e["status"] for e in r.json()["revisions"][0]["evidence"]] == ["ok", "missing"]
    assert r.json()["revisions"][0]["evidence"][1]["sha256_now"] is None
    assert f"blitz photo {blitz} is MISSING" in r.err


def test_committing_the_photo_again_repairs_the_evidence(
    tallero, home: Path, photo_round: list[Path]
) -> None:
    from scoring.evidence import keep_photo

    dutch = photo_round[0]
    flip_byte(dutch)
    assert tallero("history", "1").code == 1
    keep_photo(PHOTO, home)  # what committing the original photo again does first
    assert tallero("history", "1").code == 0


def test_orphan_evidence_files_are_listed_by_doctor(home: Path, photo_round: list[Path]) -> None:
    from scoring.doctor import check_ledger
    from scoring.evidence import keep_photo

    assert check_ledger(home).orphans == ()
    # A copy made by a command stopped before its round was written, and half a copy.
    orphan, _ = keep_photo(ROOT / "tests" / "data" / "scene_4242_000032.jpg", home)
    part = home / "evidence" / "abc.jpg.part"
    part.write_bytes(b"half")
    assert check_ledger(home).orphans == tuple(sorted([str(orphan), str(part)]))


def test_require_intact_names_every_bad_file() -> None:
    from scoring.evidence import EvidenceCheck, require_intact

    checks = [
        EvidenceCheck("dutch", "/e/a.jpg", "a" * 64, "ok", "a" * 64),
        EvidenceCheck("blitz", "/e/b.jpg", "b" * 64, "missing", None),
        EvidenceCheck("dutch", "/e/c.jpg", "c" * 64, "changed", "d" * 64),
    ]
    require_intact(checks[:1], "fine")
    with pytest.raises(EvidenceError) as err:
        require_intact(checks, "round 2")
    text = str(err.value)
    assert "blitz photo /e/b.jpg is MISSING" in text
    assert "dutch photo /e/c.jpg has CHANGED (sha256 dddddddddddd, recorded cccccccccccc)" in text
    assert "/e/a.jpg" not in text
