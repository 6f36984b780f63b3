"""Enrollment keeps what the shipped classifier knows: anchors, relabelling, head rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.enroll.fit import (
    LEFT_OUT,
    _init_state,
    _shift_logit,
    base_crop_size,
    blend_weights,
    find_anchors,
    other_prior_factor,
    pair_decks,
    relabel_truth,
)

MODELS = Path(__file__).resolve().parents[1] / "models"


def _truth(tmp_path: Path, decks: list[str | None]) -> Path:
    (tmp_path / "truth").mkdir()
    cards = [{"side": "back", "deck": d} for d in decks] + [{"side": "face", "color": "red"}]
    (tmp_path / "truth" / "000000.json").write_text(json.dumps({"cards": cards}))
    return tmp_path


def _decks(dataset: Path) -> list[str | None]:
    truth = json.loads((dataset / "truth" / "000000.json").read_text())
    return [c.get("deck") for c in truth["cards"] if c["side"] == "back"]


def test_relabel_names_enrolled_slots_and_anchored_stand_ins(tmp_path):
    data = _truth(tmp_path, ["pump", "carriage", "plow", "pail", None])
    relabel_truth(data, slots={"pump": "grandma"}, anchors={"plow": "blue-one"})
    # Slot "pump" holds the enrolled art; a stand-in plow is the user's "blue-one";
    # carriage and pail are decks nobody enrolled: "other" (no deck, random art).
    assert _decks(data) == ["grandma", None, "blue-one", None, None]
    truth = json.loads((data / "truth" / "000000.json").read_text())
    assert [c.get("random_art", False) for c in truth["cards"][:4]] == [
        False,
        True,
        False,
        True,
    ]


def test_kin_stand_ins_are_left_out_of_the_fit(tmp_path):
    from vision.train.deck_net import class_counts, class_of, default_classes

    data = _truth(tmp_path, ["pump", "red-plow", "carriage"])
    relabel_truth(data, slots={}, anchors={"pump": "mine"}, left_out={"red-plow"})
    # The kin deck is neither a class nor "other"; an unpaired deck still teaches "other".
    assert _decks(data) == ["mine", LEFT_OUT, None]
    truth = json.loads((data / "truth" / "000000.json").read_text())
    classes = default_classes(("mine",), ("red",))
    assert [class_of(c) for c in truth["cards"]] == ["mine", LEFT_OUT, "other", "face:red"]
    assert LEFT_OUT not in classes
    assert class_counts([data], classes) == [1, 1, 1]


def test_other_prior_factor_restores_the_shipped_odds_of_other():
    shipped = ("a", "b", "face:red", "other")
    # Shipped: 50 "other" crops against 100 per deck (odds 0.5).
    shipped_counts = [100, 100, 7, 50]
    mine = ("x", "face:red", "other")
    # The fit: 300 "other" crops against 150 for its one deck (odds 2).
    assert other_prior_factor([150, 3, 300], mine, shipped_counts, shipped, 1.0) == 0.25
    assert other_prior_factor([150, 3, 300], mine, shipped_counts, shipped, 0.5) == 0.125
    # Off, or nothing to compare with: unchanged.
    assert other_prior_factor([150, 3, 300], mine, shipped_counts, shipped, 0.0) == 1.0
    assert other_prior_factor([150, 3, 0], mine, shipped_counts, shipped, 1.0) == 1.0
    assert other_prior_factor([150, 3], ("x", "face:red"), shipped_counts, shipped, 1.0) == 1.0


def test_shifting_a_logit_multiplies_that_class_odds_only():
    torch = pytest.importorskip("torch")
    from vision.train.deck_net import build_net

    torch.manual_seed(0)
    net = build_net(3, 4).eval()
    x = torch.rand(2, 3, 48, 32)
    before = torch.softmax(net(x)[0], dim=1)
    _shift_logit(net, 2, 0.25)
    after = torch.softmax(net(x)[0], dim=1)
    odds = lambda p: p[:, 2] / p[:, 0]  # noqa: E731
    assert torch.allclose(odds(after), 0.25 * odds(before), rtol=1e-4)
    assert torch.allclose(after[:, 1] / after[:, 0], before[:, 1] / before[:, 0], rtol=1e-4)


def test_blending_moves_every_weight_toward_the_shipped_ones_and_keeps_counters():
    torch = pytest.importorskip("torch")
    from vision.train.deck_net import build_net

    torch.manual_seed(0)
    net = build_net(3, 4)
    net.train()
    net(torch.rand(4, 3, 48, 32))  # batch norm statistics and counters move
    own = {k: v.clone() for k, v in net.state_dict().items()}
    shipped = {k: (v + 1.0 if v.is_floating_point() else v + 5) for k, v in own.items()}
    blend_weights(net, shipped, 0.25)
    after = net.state_dict()
    for key, value in own.items():
        if value.is_floating_point():
            assert torch.allclose(after[key], value + 0.25), key
        else:
            assert torch.equal(after[key], value), key
    assert any(not v.is_floating_point() for v in own.values())
    head = net.state_dict()["head.weight"].clone()
    blend_weights(net, shipped, 1.0, skip=("head.",))
    assert torch.equal(net.state_dict()["head.weight"], head)
    blend_weights(net, shipped, 1.0)
    assert torch.allclose(net.state_dict()["head.weight"], shipped["head.weight"])


def test_head_rows_start_from_the_anchored_built_in_decks():
    torch = pytest.importorskip("torch")
    from vision.synth.decks import ALL_DECKS, FACE_COLORS
    from vision.train.deck_net import default_classes

    shipped = default_classes(ALL_DECKS, FACE_COLORS)
    init = {
        "features.0.weight": torch.zeros(1),
        "head.weight": torch.arange(len(shipped) * 3, dtype=torch.float32).reshape(-1, 3),
        "head.bias": torch.arange(len(shipped), dtype=torch.float32),
    }
    # "pump" is a user's name for a deck nothing was anchored to: not the built-in pump.
    classes = ("mine", "pump", "face:red", "face:blue", "face:green", "face:yellow", "other")
    state = _init_state(init, classes, {"plow": "mine"})
    w, b = state["head.weight"], state["head.bias"]
    assert torch.equal(w[0], init["head.weight"][shipped.index("plow")])
    assert float(b[0]) == shipped.index("plow")
    deck_rows = [shipped.index(d) for d in ALL_DECKS]
    assert torch.allclose(w[1], init["head.weight"][deck_rows].mean(0))
    for k, c in enumerate(classes[2:], start=2):
        assert torch.equal(w[k], init["head.weight"][shipped.index(c)])
    assert state["features.0.weight"] is init["features.0.weight"]


@pytest.mark.skipif(
    not (MODELS / "tallero-decks.onnx").is_file(), reason="no shipped deck classifier"
)
def test_the_shipped_classifier_anchors_its_own_art():
    from vision.synth import art_standin
    from vision.synth.decks import CARD_H_PX, CARD_W_PX

    rng = np.random.default_rng(5)
    pictures = {
        name: [art_standin.draw_back(deck, rng, CARD_W_PX, CARD_H_PX)]
        for name, deck in (("green-one", "pump"), ("red-one", "carriage"), ("pale", "plow"))
    }
    anchors = find_anchors(pictures, MODELS / "tallero-decks.onnx")
    assert anchors == {"pump": "green-one", "carriage": "red-one", "plow": "pale"}


@pytest.mark.skipif(
    not (MODELS / "tallero-decks.onnx").is_file(), reason="no shipped deck classifier"
)
def test_a_picture_the_classifier_cannot_place_gets_no_anchor():
    blank = np.full((120, 80, 3), 200, np.uint8)
    anchors = find_anchors({"plain": [blank]}, MODELS / "tallero-decks.onnx", 0.5)
    assert anchors == {}
    # Its likeliest built-in deck is only kin: its stand-ins are left out of the fit.
    anchors, kin = pair_decks({"plain": [blank]}, MODELS / "tallero-decks.onnx", 0.5)
    assert anchors == {} and list(kin.values()) == ["plain"]


def test_crops_are_cut_at_the_size_the_base_classifier_reads():
    said = []
    onnx = MODELS / "tallero-decks.onnx"
    assert base_crop_size(onnx, (32, 48), said.append) == (32, 48)
    assert said == []
    assert base_crop_size(onnx, (48, 72), said.append) == (32, 48)
    assert said == ["enroll: crops cut at 32x48 px, the size the base classifier reads"]
