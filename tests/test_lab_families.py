"""`python -m vision.lab.families`: per-family figures and their worst and mean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.lab import families


@pytest.mark.slow
def test_two_families_give_a_row_each_and_a_summary_of_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TALLERO_HOME", str(tmp_path / "elsewhere"))
    families.main(
        [str(tmp_path), "--families", "10000001,10000002", "--n", "2", "--kind", "layout",
         "--imgsz", "640", "--no-enroll", "--annotate", str(tmp_path / "worst"), "--worst", "1"]
    )  # fmt: skip
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rows, summary = lines[:-1], lines[-1]
    assert [(r["family"], r["decks"], r["images"]) for r in rows] == [
        (10000001, 4, 2),
        (10000002, 4, 2),
    ]
    for r in rows:
        # Every wrong count is explained by card errors of one stage or the other.
        wrong = (1 - r["deck_exact"]) * 2 * 4
        assert (r["errors_detector"] + r["errors_naming"] > 0) == (wrong > 0.5)
    for key in ("present_deck_exact", "card_recall", "range_covers"):
        values = [r[key] for r in rows]
        assert summary[f"worst_{key}"] == min(values)
        assert summary[f"mean_{key}"] == round(sum(values) / 2, 4)
    assert summary["worst_decks_lost"] == max(r["decks_lost"] for r in rows)
    # The scenes and the scratch home stay under OUT.
    assert (tmp_path / "family-10000001-4" / "layout" / "truth").is_dir()
    # The worst scene of each family that counted wrong is drawn, with its errors beside it.
    for r in rows:
        drawn = sorted((tmp_path / "worst" / f"family-{r['family']}-4").glob("*"))
        if r["deck_exact"] == 1:
            assert not drawn
            continue
        assert [p.suffix for p in drawn] == [".jpg", ".json"]
        why = json.loads(drawn[1].read_text())
        assert why["wrong"] and any(d["truth"] != d["counted"] for d in why["decks"].values())


def test_a_profile_enrolls_from_as_many_layout_photos_as_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scoring.errors import TalleroError
    from vision.enroll import run

    images = tmp_path / "layout" / "images"
    images.mkdir(parents=True)
    for k in range(4):
        (images / f"{k:06d}.jpg").write_bytes(b"")
    monkeypatch.setattr(families, "scenes", lambda out, *a: out)
    monkeypatch.setenv("TALLERO_HOME", str(tmp_path / "home"))

    def pictures(photos, names, *args):
        if photos[0].name == "000000.jpg":  # a layout photo whose row is cut short
            raise TalleroError("found 3 card(s), expected 4")
        return {}, []

    enrolled: list[list[str]] = []

    def enroll(photos, names, kind, profile, model, log):
        enrolled.append([p.name for p in photos])
        return {"seconds": 1.0}

    monkeypatch.setattr(run, "layout_pictures", pictures)
    monkeypatch.setattr(run, "enroll_layout", enroll)
    got = families.enroll_family(tmp_path, 10000001, 4, "p", layouts=2)
    assert enrolled == [["000001.jpg", "000002.jpg"]]
    assert got["photos"] == ["000001.jpg", "000002.jpg"]
    assert got["refused"] == ["000000.jpg: found 3 card(s), expected 4"]
    with pytest.raises(RuntimeError, match="3 of 4 layout scenes enrolled"):
        families.enroll_family(tmp_path, 10000001, 4, "p", layouts=4)


def test_a_profile_enrolls_the_first_fan_scene_of_each_deck(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.enroll import run

    fans = tmp_path / "fan"
    (fans / "truth").mkdir(parents=True)
    # Fan scenes draw their deck at random: carriage twice, pump, pail, plow.
    for k, deck in enumerate(["carriage", "pump", "carriage", "pail", "plow"]):
        truth = {"image": f"{k:06d}.jpg", "cards": [{"side": "back", "deck": deck}] * 10}
        (fans / "truth" / f"{k:06d}.json").write_text(json.dumps(truth))
    monkeypatch.setattr(families, "scenes", lambda out, *a: out)
    asked: list[tuple[list[str], list[str], str]] = []

    def enroll(photos, names, profile, model, log):
        asked.append(([p.name for p in photos], list(names), profile))
        return {"fans": dict.fromkeys(names, 10), "seconds": 2.0}

    monkeypatch.setattr(run, "enroll_fans", enroll)
    got = families.enroll_family_fans(tmp_path, 10000001, 4, "p-fans")
    order = ["000001.jpg", "000000.jpg", "000004.jpg", "000003.jpg"]
    assert asked == [(order, ["pump", "carriage", "plow", "pail"], "p-fans")]
    assert got == {"fans": order, "backs": dict.fromkeys(asked[0][1], 10), "seconds": 2.0}
    with pytest.raises(RuntimeError, match="no fan scene of blue-pump"):
        families.enroll_family_fans(tmp_path, 10000001, 8, "p8-fans")
