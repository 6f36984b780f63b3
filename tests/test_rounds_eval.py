"""`dataset synth --kind round` draws whole rounds; `eval` scores them with and without piles."""

from __future__ import annotations

import json


def test_a_synthetic_round_is_consistent_and_eval_scores_it(tallero, tmp_path):
    out = tmp_path / "rounds"
    r = tallero("dataset", "synth", str(out), "--n", "1", "--seed", "77", "--kind", "round",
                "--decks", "4", "--imgsz", "480")  # fmt: skip
    assert r.code == 0, r.err
    rec = json.loads((out / "truth" / "000000.json").read_text())
    rnd = rec["round"]
    assert sum(p["top"] for p in rnd["piles"]) == sum(rnd["dutch"].values())
    for role in ("piles", "dutch", "blitz"):
        assert (out / rec["photos"][role]["image"]).is_file()
        assert rec["photos"][role]["out_of_view"] == {}
    # the sorted photo and the Blitz photo show the round's own cards
    assert rec["photos"]["dutch"]["round"] == rnd == rec["photos"]["blitz"]["round"]
    assert sum(p["top"] for p in rec["photos"]["piles"]["dutch_piles"]) == sum(
        rnd["dutch"].values()
    )
    r = tallero("eval", str(out), "--json")
    assert r.code == 0, r.err
    ev = r.json()
    for variant in ("without_piles", "with_piles"):
        v = ev[variant]
        assert v["rounds"] == 1
        assert v["round_exact"] in (0.0, 1.0) and v["round_flagged"] in (0.0, 1.0)
        # a wrong round is either flagged or silently wrong, never both
        assert v["round_silent_wrong"] == (1.0 - v["round_exact"]) * (1.0 - v["round_flagged"])
    # only the piles' total can show its likeliest fit
    assert ev["without_piles"]["shown_likeliest"] == 0.0
    assert 0.0 <= ev["with_piles"]["shown_right"] <= ev["with_piles"]["shown_likeliest"] <= 1.0
    # and offer ways to choose from; a choice can only make a round right
    assert ev["without_piles"]["ways_listed"] == ev["without_piles"]["truth_among_ways"] == 0.0
    w = ev["with_piles"]
    assert w["truth_among_ways"] <= w["ways_listed"]
    assert w["round_exact"] <= w["round_exact_after_choice"]
    assert ev["piles"]["photos"] == 1 and ev["piles"]["piles"] == len(rnd["piles"])
    # a piles photo not right and complete says which piles made it so
    assert len(ev["piles"]["failures"]) == (ev["piles"]["total_exact"] != 1.0)
    # without the piles photo, a round asks for a look exactly when one of its photos does
    asked = ev["asked_by"]
    assert set(asked) == {"dutch_photo", "blitz_photo", "piles_photo"}
    assert ev["without_piles"]["round_flagged"] == max(asked["dutch_photo"], asked["blitz_photo"])


def test_a_way_offered_that_holds_the_truth_makes_the_round_right_after_a_choice():
    from scoring.tally import PhotoRound
    from vision.evaluate.rounds import Variant

    truth = {"dutch": {"Ann": 5, "Ben": 3}, "blitz": {"Ann": 0, "Ben": 2}}
    shown = PhotoRound({"Ann": 4, "Ben": 4}, {"Ann": 0, "Ben": 2}, ("2 ways",), (), {}, None,
                       ({"Ann": 4, "Ben": 4}, {"Ann": 5, "Ben": 3}))  # fmt: skip
    v = Variant()
    assert not v.add(shown, truth, [{"Ann": 4, "Ben": 4}, {"Ann": 5, "Ben": 3}])
    assert not v.add(shown, truth, [{"Ann": 4, "Ben": 4}, {"Ann": 6, "Ben": 2}])
    right = PhotoRound({"Ann": 5, "Ben": 3}, {"Ann": 0, "Ben": 2})
    assert v.add(right, truth)
    out = v.to_json()
    assert out["round_exact"] == round(1 / 3, 4)
    assert out["ways_listed"] == round(2 / 3, 4)
    assert out["truth_among_ways"] == round(1 / 3, 4)
    assert out["round_exact_after_choice"] == round(2 / 3, 4)
