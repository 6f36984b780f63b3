"""The card check: facts about candidates, labels for fitting it, the model file, its use."""

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scoring.errors import ModelError
from vision.core.geometry import xywhr_to_corners
from vision.core.settings import VisionSettings
from vision.count.counter import Counter
from vision.detect.check import FEATURES, CardCheck, candidate_features, edge_features
from vision.train.check_fit import fit_check, greedy_labels, upright_labels

F = {name: k for k, name in enumerate(FEATURES)}
DATA = Path(__file__).parent / "data"


def boxes(*rows: tuple[float, float, float, float, float]) -> np.ndarray:
    """Quads from (centre x, centre y, width, height, angle in degrees)."""
    xywhr = np.array([[x, y, w, h, np.radians(a)] for x, y, w, h, a in rows], np.float32)
    return xywhr_to_corners(xywhr)


def table_with_card() -> tuple[np.ndarray, np.ndarray]:
    """A dark table with one light upright 40 x 60 px card at (100, 100)."""
    gray = np.full((200, 200), 40, np.uint8)
    card = boxes((100, 100, 40, 60, 0))
    cv2.fillConvexPoly(gray, card[0].astype(np.int32), 220)
    return gray, card


def features_of(corners: np.ndarray, confidence: list[float], gray: np.ndarray | None = None):
    n = len(corners)
    p = np.tile(np.array([[0.9, 0.05, 0.05]]), (n, 1))  # deck A, deck B, other
    if gray is None:
        gray = np.full((300, 300), 40, np.uint8)
    return candidate_features(
        gray,
        corners,
        np.array(confidence),
        np.zeros(n, bool),
        p,
        np.array([True, True, False]),
        2,
    )


def test_a_box_on_the_card_lies_on_edges_and_a_shifted_one_does_not() -> None:
    gray, card = table_with_card()
    shifted = boxes((120, 130, 40, 60, 0))  # half a card right and down
    on = edge_features(gray, card)[0]
    off = edge_features(gray, shifted)[0]
    assert on[0] > 2 * off[0]  # the two strongest sides
    assert on[1] > off[1]  # the weakest side
    assert edge_features(gray, np.zeros((0, 4, 2), np.float32)).shape == (0, 6)


def test_a_box_across_a_stripe_as_wide_as_a_card_has_no_long_side_on_an_edge() -> None:
    """A light stripe 60 px wide on a dark cloth: a 60 x 40 box lying across it has its
    short sides on the stripe's edges and its long sides on nothing; the card has both."""
    gray = np.full((200, 200), 40, np.uint8)
    gray[:, 70:130] = 220
    across = boxes((100, 100, 60, 40, 0))
    card_gray, card = table_with_card()
    stripe = edge_features(gray, across)[0]
    on_card = edge_features(card_gray, card)[0]
    long, short = FEATURES.index("edge_long_sides"), FEATURES.index("edge_short_sides")
    edge_long, edge_short = 4, 5
    assert stripe[edge_short] > 0.5 and stripe[edge_long] < 0.05
    assert on_card[edge_long] > 0.5 and on_card[edge_short] > 0.5
    facts = features_of(across, [0.9], gray)[0]
    assert facts[long] < 0.05 < 0.5 < facts[short]


def test_a_check_fitted_before_a_fact_was_added_reads_the_facts_it_knows(tmp_path: Path) -> None:
    shipped = json.loads((Path(__file__).parents[1] / "models" / "tallero-check.json").read_text())
    older = CardCheck(Path(__file__).parents[1] / "models" / "tallero-check.json")
    assert older.columns == [FEATURES.index(n) for n in shipped["features"]]
    facts = np.random.default_rng(0).normal(size=(5, len(FEATURES)))
    reordered = dict(shipped, features=shipped["features"][::-1])
    reordered["mean"], reordered["scale"] = shipped["mean"][::-1], shipped["scale"][::-1]
    first = reordered["layers"][0]
    first = dict(first, weight=[row[::-1] for row in first["weight"]])
    reordered["layers"] = [first, *reordered["layers"][1:]]
    path = tmp_path / "check.json"
    path.write_text(json.dumps(reordered))
    np.testing.assert_allclose(CardCheck(path).chance(facts), older.chance(facts), atol=1e-9)
    path.write_text(json.dumps(dict(shipped, features=[*shipped["features"][:-1], "no_such"])))
    with pytest.raises(ModelError, match="other features"):
        CardCheck(path)


def test_a_crossing_second_box_is_seen_against_the_stronger_one() -> None:
    corners = boxes((100, 100, 40, 60, 0), (100, 100, 40, 60, 30), (200, 100, 40, 60, 0))
    x = features_of(corners, [0.9, 0.6, 0.8])
    assert x.shape == (3, len(FEATURES))
    assert x[0, F["max_iou_stronger"]] == 0.0  # nothing outranks the first
    assert x[1, F["max_iou_stronger"]] > 0.4  # the crossed copy overlaps it
    assert x[1, F["confidence_of_that"]] == pytest.approx(0.9)
    assert x[1, F["angle_to_that"]] == pytest.approx(30 / 90, abs=0.01)
    assert x[1, F["same_name_as_that"]] == 1.0
    assert x[0, F["max_iou_weaker"]] == pytest.approx(x[1, F["max_iou_stronger"]])
    assert x[2, F["max_iou_any"]] == 0.0  # the card apart touches nothing
    assert np.allclose(x[:, F["log_aspect_ratio"]], 0.0, atol=1e-3)  # all card-shaped
    assert np.allclose(x[:, F["log_area_ratio"]], 0.0, atol=1e-3)  # all card-sized
    assert features_of(np.zeros((0, 4, 2), np.float32), []).shape == (0, len(FEATURES))


def test_a_box_of_the_wrong_shape_and_size_says_so() -> None:
    corners = boxes((100, 100, 40, 60, 0), (200, 100, 40, 60, 0), (150, 200, 60, 60, 0))
    x = features_of(corners, [0.9, 0.9, 0.5])
    assert x[2, F["log_aspect_ratio"]] == pytest.approx(np.log(1 / 1.5), abs=1e-3)
    assert x[2, F["log_area_ratio"]] == pytest.approx(np.log(1.5), abs=1e-3)


def test_labels_go_to_the_most_confident_box_on_each_card() -> None:
    truth = boxes((100, 100, 40, 60, 0), (300, 100, 40, 60, 0))
    found = boxes(
        (101, 100, 40, 60, 0),  # on card 1, less sure
        (100, 101, 40, 60, 2),  # on card 1, most sure: takes it
        (300, 130, 40, 60, 0),  # half off card 2: IoU 0.33
        (500, 100, 40, 60, 0),  # nothing there
    )
    y = greedy_labels(found, np.array([0.7, 0.9, 0.8, 0.95]), truth)
    assert y.tolist() == [0.0, 1.0, 0.0, 0.0]
    assert greedy_labels(found, np.ones(4), np.zeros((0, 4, 2))).tolist() == [0, 0, 0, 0]


def test_a_real_photos_card_goes_to_the_most_confident_box_around_it() -> None:
    # Labelled photos give upright boxes; a candidate's upright box must overlap one by
    # the photos' scoring IoU (0.4), one candidate per card.
    labelled = np.array([[80.0, 70.0, 120.0, 130.0], [280.0, 70.0, 320.0, 130.0]])
    found = boxes(
        (100, 100, 40, 60, 0),  # on card 1, less sure
        (101, 100, 40, 60, 0),  # on card 1, most sure: takes it
        (300, 132, 40, 60, 0),  # half off card 2: IoU 0.30
        (300, 100, 40, 60, 45),  # card 2 turned: its upright box is larger, IoU 0.48
    )
    y = upright_labels(found, np.array([0.7, 0.9, 0.95, 0.6]), labelled)
    assert y.tolist() == [0.0, 1.0, 0.0, 1.0]
    assert upright_labels(found, np.ones(4), np.zeros((0, 4))).tolist() == [0, 0, 0, 0]


def write_model(path: Path, **changes: object) -> Path:
    """A one-layer check that trusts the detector's confidence alone."""
    n = len(FEATURES)
    weight = [[0.0] * n]
    weight[0][F["confidence"]] = 10.0
    data = {
        "features": list(FEATURES),
        "mean": [0.5] * n,
        "scale": [1.0] * n,
        "layers": [{"weight": weight, "bias": [0.0]}],
    }
    data.update(changes)
    path.write_text(json.dumps(data))
    return path


def test_a_model_file_gives_the_chance_it_describes(tmp_path: Path) -> None:
    check = CardCheck(write_model(tmp_path / "check.json"))
    x = np.zeros((3, len(FEATURES)))
    x[:, F["confidence"]] = [0.5, 0.9, 0.1]
    assert check.chance(x) == pytest.approx([0.5, 1 / (1 + np.exp(-4)), 1 / (1 + np.exp(4))])
    assert len(check.sha256) == 64


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"features": ["confidence"], "mean": [0], "scale": [1], "layers": []}),
        None,  # a layer of the wrong width, written below
    ],
)
def test_a_broken_model_file_is_refused(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "check.json"
    if content is None:
        write_model(path, layers=[{"weight": [[1.0, 2.0]], "bias": [0.0]}])
    else:
        path.write_text(content)
    with pytest.raises(ModelError, match="check.json"):
        CardCheck(path)
    with pytest.raises(ModelError, match="no such card check"):
        CardCheck(tmp_path / "missing.json")


def test_fitting_learns_a_separable_rule_and_writes_a_usable_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, len(FEATURES))).astype(np.float32)
    y = (x[:, F["confidence"]] + x[:, F["edge_best_sides"]] > 0).astype(np.float32)
    out = fit_check(
        x, y, tmp_path / "check.json", hidden=(8,), epochs=30, lr=0.03, log=lambda _: None
    )
    check = CardCheck(out)
    right = ((check.chance(x) >= 0.5) == (y == 1)).mean()
    assert right > 0.95
    assert json.loads(out.read_text())["trained"]["candidates"] == 2000


def test_counting_with_and_without_the_check_names_its_models() -> None:
    on = Counter(threads=1)
    off = Counter(settings=VisionSettings(card_check=False), threads=1)
    assert "tallero-check.json" in [p["name"] for p in on.model_info["parts"]]
    # detector, classifier and the face number reader
    assert [p["name"] for p in off.model_info["parts"]] == [
        "tallero-cards.onnx",
        "tallero-decks.onnx",
        "tallero-numbers.onnx",
    ]
    assert on.model_info["sha256"] != off.model_info["sha256"]
    # Both count the committed scene right: every card found, every deck's count exact.
    truth = json.loads((DATA / "scene_4242_000002.json").read_text())
    image = cv2.imread(str(DATA / "scene_4242_000002.jpg"))
    for counter in (on, off):
        counted = counter.count(image, decks=tuple(truth["decks"]))
        assert len(counted.cards) == len(truth["cards"])
        assert counted.counts == {d: truth["counts"][d] for d in truth["decks"]}


def test_live_frames_are_checked_by_the_live_check_and_photos_by_the_photos_one() -> None:
    photos = [p["name"] for p in Counter(threads=1).model_info["parts"]]
    live = [p["name"] for p in Counter(threads=1, live=True).model_info["parts"]]
    assert "tallero-check.json" in photos and "tallero-check-live.json" not in photos
    assert "tallero-check-live.json" in live and "tallero-check.json" not in live


def check_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table, photo_table, **fields: object
):  # noqa: ANN001, ANN201
    """The card-check stage's inputs with its candidate tables stubbed: (recipe, models, data)."""
    from dataclasses import replace

    from vision.train import check_fit
    from vision.train.stages import TrainRecipe

    monkeypatch.setattr(check_fit, "proposing_counter", lambda *a, **k: None)
    monkeypatch.setattr(check_fit, "candidate_table", table)
    monkeypatch.setattr(check_fit, "real_photo_table", photo_table)
    models = [tmp_path / n for n in ("cards.onnx", "decks.onnx")]
    for m in models:
        m.write_bytes(b"weights")
    # Two small scene sets, drawn by the stage itself (the tables above never read them).
    sets = (("fresh-mixed", 2, 1100, "mixed"), ("fresh-sorted", 1, 1101, "sorted"))
    recipe = replace(
        TrainRecipe(), check_photos=str(tmp_path / "photos"), check_sets=sets, **fields
    )
    return recipe, models, tmp_path / "data"


def test_a_refit_with_real_photos_writes_a_live_check_from_the_drawn_scenes_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.train.checks import train_card_check

    rng = np.random.default_rng(1)
    drawn = rng.normal(size=(600, len(FEATURES))).astype(np.float32)
    # Real photos teach the opposite rule: only the photos check may learn it.
    photos = rng.normal(size=(200, len(FEATURES))).astype(np.float32)
    rule = F["confidence"]
    recipe, models, data = check_stage(
        tmp_path,
        monkeypatch,
        lambda *a: (drawn, (drawn[:, rule] > 0).astype(np.float32)),
        lambda *a: (photos, (photos[:, rule] < 0).astype(np.float32)),
        check_epochs=20,
    )
    out = train_card_check(data, *models, tmp_path / "tallero-check.json", recipe, log=print)
    # The stage drew the scene sets it lacked (a refit for a new detector needs no data stage).
    drawn_scenes = [len(list((data / n / "truth").glob("*.json"))) for n, *_ in recipe.check_sets]
    assert drawn_scenes == [2, 1]
    live = tmp_path / "tallero-check-live.json"
    notes = {p: json.loads(p.read_text())["trained"] for p in (out, live)}
    assert notes[live]["candidates"] == 600 and "photos" not in notes[live]
    assert notes[out]["candidates"] == 600 + 200 * recipe.check_photos_repeat
    assert notes[out]["photos"]["candidates"] == 200
    right = {p: ((CardCheck(p).chance(drawn) >= 0.5) == (drawn[:, rule] > 0)).mean() for p in notes}
    assert right[live] > 0.85 > 0.5 > right[out]


def test_bare_tables_join_both_checks_as_wrong_finds_and_the_drawn_table_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vision.train.checks import train_card_check

    rng = np.random.default_rng(2)
    drawn = rng.normal(size=(600, len(FEATURES))).astype(np.float32)
    bare = rng.normal(size=(150, len(FEATURES))).astype(np.float32)
    rule = F["confidence"]
    built: list[list[str]] = []

    def table(dirs: list[Path], *_: object) -> tuple[np.ndarray, np.ndarray]:
        built.append([d.name for d in dirs])
        if dirs[0].name.startswith("bare-tables"):
            assert len(list((dirs[0] / "truth").glob("*.json"))) == 4
            return bare, np.zeros(len(bare), np.float32)
        return drawn, (drawn[:, rule] > 0).astype(np.float32)

    recipe, models, data = check_stage(
        tmp_path,
        monkeypatch,
        table,
        lambda *a: (drawn[:10], np.ones(10, np.float32)),
        check_bare_tables=4,
        check_epochs=5,
    )
    cut_short = data / f"bare-tables-{recipe.check_bare_seed}" / "truth"
    cut_short.mkdir(parents=True)
    (cut_short / "000000.json").write_text("{}")  # a draw killed after one table
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        train_card_check(data, *models, tmp_path / run / "tallero-check.json", recipe, log=print)
    # The drawn scenes' candidates were proposed once; the second fit read them back.
    drawn_sets = [d for d in built if not d[0].startswith("bare")]
    assert len(drawn_sets) == 1 and (data / "card-check-table.npz").is_file()
    for name in ("tallero-check.json", "tallero-check-live.json"):
        notes = json.loads((tmp_path / "b" / name).read_text())["trained"]
        assert notes["bare_tables"]["candidates"] == 150
        assert notes["bare_tables"]["seed"] == recipe.check_bare_seed
    live = json.loads((tmp_path / "b" / "tallero-check-live.json").read_text())["trained"]
    assert live["candidates"] == 600 + 150 and live["real_cards"] == int((drawn[:, rule] > 0).sum())
