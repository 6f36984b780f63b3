"""`tallero enroll faces --numbers`: teaching Tallero the numbers of the user's own faces.

``tests/data/numbers/heirloom-numbers.jpg`` (drawn by ``make_numbers.py`` there) holds the
faces 1 to 10 of one colour of the held-out "heirloom" art in a row. The reader is
fine-tuned with a deliberately small recipe here: these tests check what enrollment does
(finding, ordering, storing, counting with the profile's reader, failing clearly); how much
it helps is measured on piles photos (README, docs/history.md).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from vision.enroll.layout import EnrollError
from vision.enroll.numbers import parse_values

DATA = Path(__file__).parent / "data" / "numbers"
ROW = DATA / "heirloom-numbers.jpg"
PILES = Path(__file__).parent / "data" / "piles"


@pytest.mark.parametrize(
    ("text", "values"),
    [("1-10", list(range(1, 11))), ("3,5,9", [3, 5, 9]), ("1-3,7", [1, 2, 3, 7])],
)
def test_numbers_are_given_as_ranges_or_lists(text, values):
    assert parse_values(text) == values


@pytest.mark.parametrize(
    ("text", "says"),
    [("0-3", "run from 1 to 10"), ("2,2", "2 is named twice"), ("one", "give numbers 1 to 10"),
     ("", "run from 1 to 10")],
)  # fmt: skip
def test_bad_numbers_are_a_clear_error(text, says):
    with pytest.raises(EnrollError, match=says):
        parse_values(text)


@pytest.fixture
def small_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.enroll import run as enroll_run
    from vision.enroll.numbers import NumbersRecipe

    monkeypatch.setattr(enroll_run, "NUMBERS_RECIPE", NumbersRecipe(looks=6, keep=60, epochs=1))


@pytest.mark.slow
def test_enroll_numbers_stores_the_row_and_counting_reads_with_it(tallero, home, small_fit):
    r = tallero("enroll", "faces", str(ROW), "--numbers", "1-10", "--json")
    assert r.code == 0, r.err
    out = r.json()
    assert out["numbers"] == list(range(1, 11)) and out["decks"] == []
    folder = home / "profiles" / "default"
    assert sorted(p.name for p in (folder / "cards").iterdir()) == sorted(
        f"number-{v}-1.png" for v in range(1, 11)
    )
    assert (folder / "numbers.onnx").is_file()
    listed = tallero("enroll", "list", "--json").json()["profiles"]
    assert [(p["name"], p["numbers"], p["decks"]) for p in listed] == [
        ("default", list(range(1, 11)), [])
    ]
    # Counting reads faces with the profile's reader beside the shipped one; the deck
    # classifier stays built in.
    parts = tallero("count", str(PILES / "down.jpg"), "--json").json()["model"]["parts"]
    assert [p["name"] for p in parts][-2:] == ["numbers.onnx", "tallero-numbers.onnx"]
    assert [p["name"] for p in parts][1] == "tallero-decks.onnx"
    # A profile's reader, fitted on few faces, gives a number only at the enrolled bar.
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter
    from vision.name.numbers import NumberReader, ReaderPair

    s = VisionSettings()
    assert s.enrolled_number_min_confidence == s.number_min_confidence == 0.97
    apart = dataclasses.replace(s, number_min_confidence=0.9, enrolled_number_min_confidence=0.99)
    pair = Counter(settings=apart, numbers_path=folder / "numbers.onnx").reader
    assert isinstance(pair, ReaderPair)
    assert pair.own.enrolled and pair.own.min_confidence == 0.99
    assert not pair.shipped.enrolled and pair.shipped.min_confidence == 0.9
    shipped = Counter(settings=apart).reader
    assert isinstance(shipped, NumberReader) and not shipped.enrolled
    assert shipped.min_confidence == 0.9
    # Alone where asked, and on live frames (their speed)
    alone = dataclasses.replace(apart, enrolled_numbers_beside_shipped=False)
    for reader in (
        Counter(settings=alone, numbers_path=folder / "numbers.onnx").reader,
        Counter(settings=apart, numbers_path=folder / "numbers.onnx", live=True).reader,
    ):
        assert isinstance(reader, NumberReader) and reader.enrolled


def test_a_row_that_does_not_match_the_numbers_is_a_clear_error(tallero, home, small_fit):
    r = tallero("enroll", "faces", str(ROW), "--numbers", "1-9")
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1
    assert "found 10 card(s) but 9" in r.err
    assert not (home / "profiles" / "default" / "profile.json").exists()
