"""Enrollment end to end on committed layout photos of the held-out "heirloom" art.

The classifier is fitted with a deliberately small recipe here: these tests check what
enrollment does (finding, ordering, storing, replacing, removing, failing clearly), not
how accurate a full fit is; that is measured by ``tallero eval --profile`` (README).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data" / "enroll"
LAYOUT = DATA / "heirloom-layout.jpg"
THREE = DATA / "heirloom-layout-three.jpg"
MODELS = Path(__file__).resolve().parents[1] / "models"

pytestmark = pytest.mark.skipif(
    not (MODELS / "tallero-cards.onnx").is_file(), reason="no shipped card detector"
)


@pytest.fixture
def quick_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.enroll import run as enroll_run
    from vision.enroll.fit import FitRecipe

    monkeypatch.setattr(enroll_run, "FIT_RECIPE", FitRecipe(scenes=6, epochs=1))


def test_a_layout_with_the_wrong_number_of_cards_is_a_clear_error(tallero, home):
    r = tallero("enroll", "backs", str(THREE), "--decks", "pump,carriage,plow,pail")
    assert r.code == 1 and len(r.err.strip().splitlines()) == 1
    assert "card(s) but 4 deck(s) were named (pump, carriage, plow, pail)" in r.err
    shown = Path(r.err.strip().rsplit("What was found: ", 1)[1])
    assert shown.is_file() and shown.parent == home / "enroll"
    assert not (home / "profiles" / "default" / "profile.json").exists()  # nothing enrolled


@pytest.mark.parametrize(
    ("decks", "message"),
    [
        ("pump,pump,plow,pail", "named twice"),
        ("a,b,c,d,e,f,g,h,i", "1 to 8 decks"),
        ("pump,car riage?,plow,pail", "not usable"),
    ],
)
def test_bad_deck_names(tallero, decks, message):
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", decks)
    assert r.code != 0 and message in r.err and "Traceback" not in r.err


@pytest.mark.slow
def test_enroll_count_replace_and_remove(tallero, home, quick_fit):
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", "grandma,buggy-red,plow,pail", "--json")
    assert r.code == 0, r.err
    first = r.json()
    assert first["decks"] == ["grandma", "buggy-red", "plow", "pail"]
    folder = home / "profiles" / "default"
    profile = json.loads((folder / "profile.json").read_text())
    assert (folder / "decks.onnx").is_file()
    assert profile["classifier"]["decks"] == ["grandma", "buggy-red", "plow", "pail"]
    # The enrolled classifier records how many crops of each class it learnt from, so
    # naming can even out its decks' odds.
    from vision.name.classifier import DeckClassifier

    clf = DeckClassifier(folder / "decks.onnx", threads=1)
    counts = json.loads(clf.session.get_modelmeta().custom_metadata_map["class_counts"])
    assert len(counts) == len(clf.classes) and sum(counts) == profile["classifier"]["crops"]
    assert clf.deck_weights is not None and min(clf.deck_weights) == 1.0
    # Counting with it names a back from a lower bar than the built-in classifier's.
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter

    settings = VisionSettings()
    assert settings.enrolled_min_deck_probability < settings.min_deck_probability
    enrolled = Counter(classifier_path=folder / "decks.onnx", threads=1).classifier
    assert enrolled.min_deck_probability == settings.enrolled_min_deck_probability
    assert Counter(threads=1).classifier.min_deck_probability == settings.min_deck_probability
    for record in profile["decks"].values():
        assert len(record["cards"]) == 1 and (folder / record["cards"][0]).is_file()

    # Counting now speaks the enrolled names.
    r = tallero("count", str(LAYOUT), "--json")
    assert r.code == 0, r.err
    assert set(r.json()["counts"]) == {"grandma", "buggy-red", "plow", "pail"}

    # A game can bind players to enrolled decks.
    r = tallero("game", "new", "Ann=grandma", "Ben=plow", "--json")
    assert r.code == 0, r.err
    assert r.json()["game"]["players"][0]["deck"] == "grandma"

    # Enrolling again replaces the deck's picture (and keeps the others).
    before = profile["decks"]["plow"]["enrolled_at"], profile["decks"]["plow"]["cards"]
    r = tallero(
        "enroll",
        "backs",
        str(LAYOUT),
        str(LAYOUT),
        "--decks",
        "grandma,buggy-red,plow,pail",
        "--json",
    )
    assert r.code == 0, r.err
    profile = json.loads((folder / "profile.json").read_text())
    assert list(profile["decks"]) == ["grandma", "buggy-red", "plow", "pail"]
    assert len(profile["decks"]["plow"]["cards"]) == 2  # one picture per photo
    assert profile["decks"]["plow"]["enrolled_at"] >= before[0]

    listed = tallero("enroll", "list", "--json").json()
    assert listed["active"] == "default"
    assert listed["profiles"][0]["decks"] == ["grandma", "buggy-red", "plow", "pail"]

    r = tallero("enroll", "remove", "grandma", "--json")
    assert r.code == 0 and r.json()["decks"] == ["buggy-red", "plow", "pail"]
    r = tallero("enroll", "remove", "grandma")
    assert r.code == 2 and "has no deck 'grandma'" in r.err
    for deck in ("buggy-red", "plow", "pail"):
        assert tallero("enroll", "remove", deck).code == 0
    assert not folder.exists()
    assert "built-in stand-in decks" in tallero("enroll", "list").out


@pytest.mark.slow
def test_a_second_profile_keeps_its_own_decks(tallero, home, quick_fit):
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", "a,b,c,d", "--profile", "cabin")
    assert r.code == 0, r.err
    listed = tallero("enroll", "list", "--json").json()
    assert listed["active"] == "default"
    assert [(p["name"], p["decks"]) for p in listed["profiles"]] == [
        ("cabin", ["a", "b", "c", "d"])
    ]
    r = tallero("count", str(LAYOUT), "--json")  # default profile: built-in decks
    assert "pump" in r.json()["counts"]
    r = tallero("count", str(LAYOUT), "--json", "--profile", "cabin")
    assert set(r.json()["counts"]) == {"a", "b", "c", "d"}


# A close photo of three heirloom backs (pump, carriage, plow) with three face-up cards
# below them, which enrollment leaves out; and sorted-pile photos of the heirloom art
# (generator seed 7204, scenes 3, 8 and 14; truth JSON beside each) with those decks and
# pails, a deck that is not enrolled. Expected counts are the scenes' truth; the three
# were chosen among 16 such scenes as ones the enrolled profile counts exactly (8 of 16
# are: `python -m vision.lab.unenrolled`, see README, "How well enrollment works today"), as a
# guard against regressions.
ROW_THREE = DATA / "heirloom-row-three.jpg"
COUNTED = [
    # (photo, truth counts of the enrolled decks, pail backs in view)
    ("heirloom-sorted-7204-03.jpg", {"pump": 0, "carriage": 0, "plow": 0}, 11),
    ("heirloom-sorted-7204-08.jpg", {"pump": 0, "carriage": 23, "plow": 0}, 23),
    ("heirloom-sorted-7204-14.jpg", {"pump": 0, "carriage": 17, "plow": 0}, 0),
]


@pytest.mark.slow
def test_enrolled_decks_count_exactly_and_an_unenrolled_deck_is_unknown(tallero, home):
    # The full fitting recipe, as a user gets it (about a minute on 2 cores).
    r = tallero("enroll", "backs", str(ROW_THREE), "--decks", "pump,carriage,plow", "--json")
    assert r.code == 0, r.err
    assert "left out 3 face-up card(s)" in r.err
    assert r.json()["decks"] == ["pump", "carriage", "plow"]
    for photo, counts, pails in COUNTED:
        truth = json.loads((DATA / photo).with_suffix(".json").read_text())["counts"]
        assert {d: truth[d] for d in counts} == counts and truth["pail"] == pails
        r = tallero("count", str(DATA / photo), "--json")
        assert r.code == 0, r.err
        out = r.json()
        assert out["counts"] == counts, photo
        assert out["unknown"] == pails, photo
    # The profile's classifier is known as enrolled, so the bar for backs that look like
    # no deck is the enrolled one (off), not the built-in classifier's.
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter
    from vision.name.classifier import DeckClassifier

    (onnx,) = home.glob("profiles/*/decks.onnx")
    assert DeckClassifier(onnx).enrolled
    assert not DeckClassifier(MODELS / "tallero-decks.onnx").enrolled
    count = Counter(classifier_path=onnx, decks=("pump", "carriage", "plow")).count(
        DATA / COUNTED[0][0]
    )
    assert (
        count.uncertain_other_probability == VisionSettings().enrolled_uncertain_other_probability
    )
    assert count.other_game_probability == VisionSettings().enrolled_other_game_probability
    assert count.range_below_confidence == VisionSettings().enrolled_range_below_confidence
    # A profile's classifier, surer than it is right, has bars of its own for doubt.
    bars = VisionSettings(
        enrolled_uncertain_below_confidence=0.97, enrolled_alternative_min_probability=0.03
    )
    counter = Counter(classifier_path=onnx, decks=("pump", "carriage", "plow"), settings=bars)
    assert counter.count(DATA / COUNTED[0][0]).uncertain_below_confidence == 0.97

    def faint_plow(namer) -> list[tuple[str, ...]]:  # noqa: ANN001
        p = np.zeros((1, len(namer.classifier.classes)), np.float32)
        p[0, namer.classifier.classes.index("pump")] = 0.94
        p[0, namer.classifier.classes.index("plow")] = 0.06
        return namer.could_be(p, ("pump", "plow"), ["pump"])

    assert faint_plow(counter.namer) == [("plow",)]
    # Not on live frames, whose tracks gather every frame's alternatives.
    live = Counter(classifier_path=onnx, decks=("pump", "plow"), settings=bars, live=True)
    assert faint_plow(live.namer) == [()]
    assert faint_plow(Counter(decks=("pump", "plow"), settings=bars).namer) == [()]
    # Backs that could be a deck of their ink or object cast doubt with the profile's
    # classifier only, and not on live frames.
    eight = ("pump", "plow", "green-pail")
    assert counter.look_alikes(eight) == {"pump": ("green-pail",), "green-pail": ("pump",)}
    assert live.look_alikes(eight) == {}
    assert Counter(decks=("pump", "plow")).look_alikes(eight) == {}
    off = Counter(classifier_path=onnx, settings=VisionSettings(enrolled_look_alikes=False))
    assert off.look_alikes(eight) == {}


# Scene 7 of `tallero dataset synth DIR --kind fan --art heirloom --decks 4 --seed 7150 --n 8
# --imgsz 1600`, shrunk to 1024 px: 13 backs of the heirloom pail, in a row and a fan.
FAN = DATA / "heirloom-fan-pail.jpg"


@pytest.mark.slow
def test_a_fan_photo_teaches_a_deck_its_slivers(tallero, home, quick_fit):
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", "grandma,buggy-red,plow,pail", "--json")
    assert r.code == 0, r.err
    folder = home / "profiles" / "default"
    crops_before = json.loads((folder / "profile.json").read_text())["classifier"]["crops"]

    r = tallero("enroll", "fan", str(FAN), "--decks", "pail", "--json")
    assert r.code == 0, r.err
    assert r.json()["fans"] == {"pail": 13}  # every back of the photo, as the pail's
    profile = json.loads((folder / "profile.json").read_text())
    (fan,) = profile["decks"]["pail"]["fans"]
    assert (folder / fan["photo"]).is_file() and len(fan["cards"]) == 13
    assert fan["source"]["path"] == str(FAN.resolve())
    # The same drawn scenes as before, and each fan card cut 16 times.
    from vision.enroll.fit import FitRecipe

    added = 13 * FitRecipe().fan_copies
    assert profile["classifier"]["crops"] == crops_before + added
    assert not any("fans" in profile["decks"][d] for d in ("grandma", "buggy-red", "plow"))

    # A new picture of the deck keeps its fan; removing the deck forgets the photo.
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", "grandma,buggy-red,plow,pail")
    assert r.code == 0, r.err
    profile = json.loads((folder / "profile.json").read_text())
    assert profile["decks"]["pail"]["fans"][0]["photo"] == fan["photo"]
    assert profile["classifier"]["crops"] == crops_before + added
    assert tallero("enroll", "remove", "pail").code == 0
    assert not (folder / fan["photo"]).exists()


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        ([str(FAN), "--decks", "pail"], 2, "has no deck 'pail' (enrolled: none); enroll its back"),
        ([str(FAN), str(FAN), "--decks", "pail"], 1, "2 photo(s) and 1 deck(s)"),
        ([str(FAN), "--decks", "p ail?"], 2, "not usable"),
    ],
)
def test_fan_photos_that_cannot_be_enrolled_say_why(tallero, home, args, code, says):
    r = tallero("enroll", "fan", *args)
    assert r.code == code and says in r.err and "Traceback" not in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1
    assert not (home / "profiles" / "default" / "profile.json").exists()


@pytest.mark.slow
def test_a_fan_photo_with_no_backs_is_refused(tallero, home, quick_fit):
    r = tallero("enroll", "backs", str(LAYOUT), "--decks", "pump,carriage,plow,pail")
    assert r.code == 0, r.err
    before = (home / "profiles" / "default" / "profile.json").read_text()
    faces = Path(__file__).parent / "data" / "numbers" / "heirloom-numbers.jpg"
    r = tallero("enroll", "fan", str(faces), "--decks", "pail")
    assert r.code == 1 and "0 back(s) found; fan out 10 or more cards of pail" in r.err, r.err
    assert (home / "profiles" / "default" / "profile.json").read_text() == before
    assert not (home / "profiles" / ".default.staging").exists()
