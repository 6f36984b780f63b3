"""The open-set figures a classifier trial reports (vision.lab.classifier_trial)."""

import numpy as np
import pytest

from vision.lab.classifier_trial import _size, main, open_set_figures, trial_figures

CLASSES = ("pump", "plow", "face:red", "other")


def _logits(rows):
    return np.array(rows, np.float64)


def test_foreign_named_deck_and_decks_named_other():
    logits = _logits(
        [
            [3, 0, 0, 1],  # pump, right
            [0, 3, 0, 1],  # plow, right
            [0, 0, 0, 3],  # a pump named other
            [2, 0, 0, 1],  # a foreign back named pump
            [0, 0, 0, 2],  # a foreign back, right
            [0, 0, 3, 0],  # a face, right
        ]
    )
    labels = np.array([0, 1, 0, 3, 3, 2])
    f = open_set_figures(logits, labels, CLASSES)
    assert f["crops"] == 6 and f["foreign_backs"] == 2 and f["deck_backs"] == 3
    assert f["accuracy"] == pytest.approx(4 / 6, abs=1e-4)
    assert f["foreign_named_deck"] == 0.5
    assert f["deck_named_other"] == pytest.approx(1 / 3, abs=1e-4)
    assert f["deck_named_deck"] == 0.0


def test_figures_at_the_same_cost_shift_the_other_logit():
    rng = np.random.default_rng(0)
    n = 400
    deck = np.zeros((n, 4))
    deck[:, 0] = rng.uniform(2, 6, n)  # pump margins over other: 2..6
    foreign = np.zeros((n, 4))
    foreign[:, 0] = rng.uniform(-1, 5, n)  # half-overlapping foreign backs
    logits = np.vstack([deck, foreign])
    labels = np.array([0] * n + [3] * n)
    f = open_set_figures(logits, labels, CLASSES, loss_shares=(0.05, 0.5))
    assert f["deck_named_other"] == 0.0
    # Naming 5% of the decks other (shift ~2.2) catches the foreign backs under it;
    # naming half of them other (shift ~4) catches more.
    low, high = f["foreign_named_deck_at"]["0.05"], f["foreign_named_deck_at"]["0.5"]
    assert f["foreign_named_deck"] > low > high
    assert low == pytest.approx(1 - 3.2 / 6, abs=0.08)
    assert high == pytest.approx(1 - 5 / 6, abs=0.08)


def test_missing_groups_give_none_and_bad_shapes_raise():
    f = open_set_figures(_logits([[3, 0, 0, 0]]), np.array([0]), CLASSES)
    assert f["foreign_named_deck"] is None and f["foreign_named_deck_at"] is None
    with pytest.raises(ValueError):
        open_set_figures(_logits([[1, 0, 0]]), np.array([0]), CLASSES)
    with pytest.raises(ValueError):
        open_set_figures(_logits([[1, 0, 0, 0]]), np.array([0]), ("a", "b", "c", "d"))


def test_split_by_visibility():
    logits = _logits([[3, 0, 0, 0], [0, 0, 0, 3]])
    f = trial_figures(logits, np.array([0, 0]), np.array([0.3, 0.9]), CLASSES)
    assert f["under_half"]["deck_named_other"] == 0.0
    assert f["half_or_more"]["deck_named_other"] == 1.0


def test_size_and_bad_folders(tmp_path, capsys):
    assert _size("48x72") == (48, 72)
    with pytest.raises(Exception, match="WxH"):
        _size("48")
    with pytest.raises(SystemExit) as e:
        main(["--train", str(tmp_path), "--val", str(tmp_path)])
    assert e.value.code == 2
    assert "not a labelled scene set" in capsys.readouterr().err


def test_the_shipped_classifier_measured_on_committed_scenes(capsys):
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    main(
        [
            "--model",
            str(root / "models" / "tallero-decks.onnx"),
            "--val",
            str(root / "datasets" / "samples" / "synth-mini"),
        ]
    )
    f = json.loads(capsys.readouterr().out)
    # The three bundled scenes hold 66 cards at least 0.3 visible: 47 deck backs and 6
    # backs of no deck.
    assert (f["crops"], f["deck_backs"], f["foreign_backs"]) == (66, 47, 6)
    assert f["size"] == [32, 48]
    assert f["accuracy"] >= 0.9
    assert f["under_half"]["crops"] + f["half_or_more"]["crops"] == 66


def test_train_or_model_not_both(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["--val", str(tmp_path)])
    assert e.value.code == 2
    assert "either --train" in capsys.readouterr().err


def test_a_trial_fits_and_measures_a_classifier_of_the_size_asked(capsys, tmp_path):
    import json
    from pathlib import Path

    mini = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "synth-mini"
    out = tmp_path / "trial.json"
    main(["--train", str(mini), "--val", str(mini), "--size", "24x36", "--width", "8",
          "--epochs", "1", "--out", str(out)])  # fmt: skip
    f = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == f
    assert (f["size"], f["width"], f["train_crops"], f["crops"]) == ([24, 36], 8, 66, 66)
    # The sample's 66 truth cards: 47 backs of a deck, 6 backs of no deck, 13 faces.
    assert (f["deck_backs"], f["foreign_backs"]) == (47, 6)
    # A share of the 66 crops, to 4 places.
    assert any(abs(f["accuracy"] - k / 66) < 5e-5 for k in range(67))


def test_a_trial_continues_weights_and_exports_a_classifier_that_counts(capsys, tmp_path):
    import json
    from pathlib import Path

    from vision.lab.sweep import sweep
    from vision.name.classifier import DeckClassifier

    root = Path(__file__).resolve().parent.parent
    mini = root / "datasets" / "samples" / "synth-mini"
    shipped = root / "models" / "tallero-decks.pt"
    # Weights of another width are refused with one line.
    with pytest.raises(SystemExit) as e:
        main(["--train", str(mini), "--val", str(mini), "--init", str(shipped), "--width", "8",
              "--epochs", "1"])  # fmt: skip
    assert e.value.code == 2
    assert "width-8" in capsys.readouterr().err
    out = tmp_path / "ft.onnx"
    main(["--train", str(mini), "--val", str(mini), "--init", str(shipped), "--width", "24",
          "--epochs", "1", "--lr", "1e-5", "--export", str(out)])  # fmt: skip
    f = json.loads(capsys.readouterr().out)
    assert f["init"] == str(shipped) and f["lr"] == 1e-5
    assert out.is_file() and out.with_suffix(".pt").is_file()
    clf = DeckClassifier(out)
    assert (clf.width_px, clf.height_px) == (32, 48) and "other" in clf.classes
    # The export keeps its history: the sets it fitted on as drawn, the weights it
    # continued by sha256, and their own recipe (the shipped classifier's).
    import hashlib

    recipe = json.loads(clf.metadata["recipe"])["trial"]
    assert recipe["train"] == [
        {"name": "synth-mini", **json.loads((mini / "recipe.json").read_text())}
    ]
    assert (recipe["epochs"], recipe["lr"], recipe["width"]) == (1, 1e-5, 24)
    assert recipe["init"]["sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
    shipped_onnx = DeckClassifier(shipped.with_suffix(".onnx"))
    assert recipe["init"]["recipe"] == json.loads(shipped_onnx.metadata["recipe"])
    # Barely moved from the shipped weights, it still reads the committed scenes well.
    assert f["accuracy"] >= 0.9
    (row,) = sweep(mini, [{}], limit=3, threads=1, classifier=out)
    assert row["card_recall"] > 0.9 and row["deck_exact"] >= 0.8


def test_export_must_be_onnx(tmp_path, capsys):
    from pathlib import Path

    mini = Path(__file__).resolve().parent.parent / "datasets" / "samples" / "synth-mini"
    with pytest.raises(SystemExit) as e:
        main(["--train", str(mini), "--val", str(mini), "--export", str(tmp_path / "x.pt")])
    assert e.value.code == 2
    assert "must end in .onnx" in capsys.readouterr().err
