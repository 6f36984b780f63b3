"""Live-view trials replay the watch loop over kept counts (`vision.lab.live_replay`), and
give what `tallero eval CLIPS` gives (the committed clip ``tests/data/watch``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vision.count.counter import Counter
from vision.evaluate.video import evaluate_clips
from vision.lab.live_replay import FIGURES, KeptCounts, counters, main, replay
from vision.live.settings import LiveSettings

ROOT = Path(__file__).resolve().parents[1]
CLIPS = ROOT / "tests" / "data" / "watch"


class Refusing:
    """A counter that must not be asked: every frame is kept already."""

    def forget_looks(self) -> None:
        pass

    def count(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a kept frame was counted again")


@pytest.fixture(scope="module")
def shipped() -> tuple[Counter, Counter]:
    return Counter(live=True, threads=1), Counter(threads=1)


def test_a_replay_gives_the_figures_of_eval_and_counts_each_frame_once(shipped, tmp_path) -> None:
    live, single = shipped
    direct = evaluate_clips(CLIPS, live, single, LiveSettings()).to_json()["by_decks"]["4"]
    kept = KeptCounts(tmp_path / "kept.pkl", {"models": "these"})
    first = replay(CLIPS, [{}], kept, live, single)[0]
    assert {k: first["4"][k] for k in FIGURES} == {k: direct[k] for k in FIGURES}
    assert first["counted_anew"] > 0 and (tmp_path / "kept.pkl").is_file()
    # from the file, with a try that counts the same frames: nothing is counted again
    again = KeptCounts(tmp_path / "kept.pkl", {"models": "these"})
    rows = replay(CLIPS, [{}, {"appear_min_share": 0.9}], again, Refusing(), Refusing())  # type: ignore[arg-type]
    assert rows[0]["4"] == first["4"] and rows[0]["counted_anew"] == 0
    assert rows[1]["settings"] == {"appear_min_share": 0.9} and rows[1]["counted_anew"] == 0


def test_counts_kept_by_other_models_are_refused(tmp_path) -> None:
    KeptCounts(tmp_path / "kept.pkl", {"models": "these"}).save()
    with pytest.raises(ValueError, match="other models"):
        KeptCounts(tmp_path / "kept.pkl", {"models": "others"})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--try", "appear_s=soon"], "appear_s takes a float, not 'soon'"),
        (["--try", "no_such=1"], "not a KEY=VALUE of the live settings"),
        (["--vision", "no_such=1"], "not a KEY=VALUE of the vision settings"),
        (["--vision", "scene_min_share=2"], "scene_min_share"),
    ],
)
def test_a_bad_try_is_one_line(args, message, tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([str(CLIPS), "--cache", str(tmp_path / "k.pkl"), *args])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_a_folder_without_clips_is_one_line(tmp_path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([str(tmp_path), "--cache", str(tmp_path / "k.pkl")])
    assert exit_.value.code == 2 and "no clips with their truth JSON" in capsys.readouterr().err


def test_vision_overrides_reach_both_counters() -> None:
    # A trial of the counter itself: naming after look-alikes off in live frames and photos.
    live, single = counters(None, None, 1, {"scene_naming": False})
    assert live.live and not single.live
    for counter in (live, single):
        assert not counter.settings.scene_naming and counter.namer.scene is None
    assert counters(None, None, 1)[0].namer.scene is not None


def test_a_replay_with_parts_keeps_the_parts_counted_and_replays_them(shipped, tmp_path) -> None:
    # `part_max_share`: frames after a whole one are counted only where they need a look;
    # the parts are kept with the frames, and the scale each whole frame left with them
    live, single = shipped
    kept = KeptCounts(tmp_path / "kept.pkl", {"models": "these"})
    # (counts 0.3 s late: a counter slower than the due pace)
    parts = {"part_max_share": 0.9}
    first = replay(CLIPS, [parts], kept, live, single, delay_s=0.3)[0]
    assert any(key[0] == "live part" for key in kept.counts)
    assert any(scale is not None for scale in kept.scales.values())
    again = KeptCounts(tmp_path / "kept.pkl", {"models": "these"})
    rows = replay(CLIPS, [parts], again, Refusing(), Refusing(), delay_s=0.3)  # type: ignore[arg-type]
    assert rows[0]["4"] == first["4"] and rows[0]["counted_anew"] == 0


def test_clips_watched_in_real_time_give_the_figures_of_both_ways(capsys) -> None:
    from vision.lab.live_realtime import main as realtime

    realtime(
        [str(CLIPS), "--a", "part_max_share=0", "--b", "part_max_share=0.9", "--limit", "1"]
        + ["--b-vision", "live_target_card_long_side_input_px=60"]
    )
    lines = [__import__("json").loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["way"] for line in lines] == ["a", "b"]
    assert lines[1]["vision"] == "live_target_card_long_side_input_px=60"
    assert lines[0]["part_share"] == 0.0
    for line in lines:
        assert line["4"]["clips"] == 1 and 0 <= line["4"]["settled_exact"] <= 1
        assert line["count_delay_s"] > 0
    with pytest.raises(SystemExit) as exc:
        realtime([str(CLIPS), "--a", "no_such=1"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        realtime([str(CLIPS), "--a-vision", "part_max_share=0.5"])  # a live setting
    assert exc.value.code == 2
