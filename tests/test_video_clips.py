"""Webcam clips: `dataset synth --kind video` draws them with their truth, `eval` scores the
watch loop on them (the committed clip ``tests/data/watch/hand_over_cards.mp4``: one back
each of pump, carriage, plow and pail, a hand over them from 1.2 s to 2.2 s)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.evaluate.video import VideoEvaluation, score_clip

ROOT = Path(__file__).resolve().parents[1]
CLIP = ROOT / "tests" / "data" / "watch" / "hand_over_cards.mp4"


def test_dataset_synth_video_writes_clips_with_the_truth_of_every_frame(tallero, tmp_path) -> None:
    out = tmp_path / "clips"
    r = tallero(
        "dataset",
        "synth",
        str(out),
        "--kind",
        "video",
        "--n",
        "1",
        "--seed",
        "3",
        "--decks",
        "4",
        "--seconds",
        "2",
        "--fps",
        "5",
        "--quiet",
    )
    assert r.code == 0, r.err
    assert sorted(p.name for p in out.iterdir()) == ["000000.avi", "000000.json"]
    rec = json.loads((out / "000000.json").read_text())
    assert rec["fps"] == 5 and rec["size"] == [640, 480] and len(rec["decks"]) == 4
    assert len(rec["frames"]) == 10
    assert rec["event"] in ("still", "hand", "remove", "add")
    assert all(set(f["counts"]) == set(rec["decks"]) for f in rec["frames"])
    assert rec["settled_s"][0] == 0.0
    import cv2

    capture = cv2.VideoCapture(str(out / "000000.avi"))
    frames = 0
    while capture.read()[0]:
        frames += 1
    assert frames == 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seconds", "1"], "clip length must be 2-60 s, not 1.0"),
        (["--fps", "100"], "clip frame rate must be 5-60, not 100.0"),
        (["--size", "4000x3000"], "clip frames must be 320x240 to 1920x1080, not 4000x3000"),
        (["--size", "big"], "--size must look like 1280x720, not 'big'"),
    ],
)
def test_dataset_synth_video_refuses_odd_clips(tallero, tmp_path, args, message) -> None:
    r = tallero("dataset", "synth", str(tmp_path / "c"), "--kind", "video", *args)
    assert r.code == 2 and r.err == f"tallero: error: {message}\n"


def test_size_is_for_webcam_clips_only(tallero, tmp_path) -> None:
    r = tallero("dataset", "synth", str(tmp_path / "c"), "--kind", "sorted", "--size", "1280x720")
    assert r.code == 2
    assert r.err == "tallero: error: --size is for --kind video (the frame of a webcam clip)\n"


def test_a_larger_webcam_frame_shows_the_cards_larger() -> None:
    """A 1280x720 clip is filmed at that size, its cards half as long again as in 480 lines
    (the same framing, `fit_plan`'s ``card_scale``), every card still in the picture."""
    from vision.synth.video import ClipOptions, make_clip

    frames, rec = make_clip(ClipOptions(5, decks=4, seconds=2, fps=5, size=(1280, 720)), 0)
    assert rec["size"] == [1280, 720] and len(frames) == 10
    assert all(f.shape == (720, 1280, 3) for f in frames)
    _, small = make_clip(ClipOptions(5, decks=4, seconds=2, fps=5), 0)
    assert small["size"] == [640, 480]
    assert rec["decks"] == small["decks"]


def test_eval_on_the_committed_clip_gives_steady_right_counts(tallero) -> None:
    r = tallero("eval", str(CLIP.parent), "--json")
    assert r.code == 0, r.err
    figures = r.json()["all"]
    assert figures["clips"] == 1 and figures["frames"] == 40
    assert figures["settled_exact"] == 1.0
    assert figures["single_exact"] == 1.0
    assert figures["flicker_per_min"] == 0.0
    assert figures["wrong_steady"] == 0.0
    assert figures["hand_restored"] == 1.0 and figures["hand_broken"] == 0.0
    assert figures["time_to_steady_s"]["max"] <= 1.0


@pytest.mark.parametrize(
    ("before", "after", "restored", "broken"),
    [
        (3, 3, True, False),  # right before, right after
        (3, 4, False, True),  # a right count turned wrong: broken
        (2, 3, False, False),  # a wrong count put right while the hand was there
        (2, 2, True, False),  # wrong before and after, unchanged: restored, not broken
    ],
)
def test_a_hand_clip_is_broken_only_when_a_right_count_turns_wrong(
    before: int, after: int, restored: bool, broken: bool
) -> None:
    # 40 frames at 10 a second, 3 pump cards throughout, a hand from 1.5 s to 2.5 s
    rec = {
        "decks": ["pump"],
        "fps": 10.0,
        "frames": [{"counts": {"pump": 3}}] * 40,
        "settled_s": [0.0, 2.5],
        "hand_s": [1.5, 2.5],
        "cards_moved": 0,
    }
    shown = [{"pump": before}] * 20 + [{"pump": after}] * 20
    clip = score_clip("c", rec, shown, [True] * 40, {}, 30.0)
    assert (clip.hand_restored, clip.hand_broken) == (restored, broken)
    ev = VideoEvaluation([clip])
    assert ev.summary()["hand_broken"] == float(broken)
    assert ev.to_json()["per_clip"][0]["hand_broken"] is broken


@pytest.mark.parametrize(("decks", "frame"), [(4, (640, 480)), (8, (640, 480)), (8, (1280, 720))])
def test_a_webcam_clip_frames_every_card_whatever_the_drift(
    decks: int, frame: tuple[int, int]
) -> None:
    """The truth of a clip counts every card on the drawn table, so every card must stay in
    the picture however far the webcam drifts (up to 14 px in 480 lines) or shakes."""
    from vision.synth.layouts import all_corners
    from vision.synth.plans import make_plan
    from vision.synth.video import MARGIN, framed_camera

    w, h = round(frame[0] * MARGIN), round(frame[1] * MARGIN)
    drift = (14 + 2) * frame[1] / 480  # the widest drift, a little for shake and turn
    low = np.array([(w - frame[0]) / 2 + drift, (h - frame[1]) / 2 + drift])
    high = np.array([w, h]) - low
    for i in range(40):
        plan = make_plan("sorted", decks, np.random.default_rng([decks, i, 1]), 0.3)
        cam = framed_camera(plan, w, h, np.random.default_rng([decks, i, 2]), frame)
        corners = cam.project(all_corners(np.array([c.pose for c in plan.cards])))
        assert (corners >= low).all() and (corners <= high).all(), f"plan {i}"


def test_eval_with_counts_half_a_second_late_still_settles_the_committed_clip(tallero) -> None:
    r = tallero("eval", str(CLIP.parent), "--json", "--delay", "0.5")
    assert r.code == 0, r.err
    out = r.json()
    assert out["delay_s"] == 0.5
    figures = out["all"]
    assert figures["clips"] == 1 and figures["frames"] == 40
    # the counts come late: the view is STEADY later than on time, and never wrong
    assert figures["wrong_steady"] == 0.0
    assert figures["time_to_steady_s"]["max"] > 1.0
    table = tallero("eval", str(CLIP.parent), "--delay", "0.5").out
    assert "each count reached the live view 0.5 s after its frame" in table


@pytest.mark.parametrize("delay", ["-1", "nan", "11"])
def test_eval_refuses_a_delay_out_of_range(tallero, delay: str) -> None:
    r = tallero("eval", str(CLIP.parent), "--delay", delay)
    assert r.code == 2 and "--delay must be 0-10 seconds" in r.err


def test_eval_refuses_a_delay_on_photos(tallero, tmp_path) -> None:
    (tmp_path / "truth").mkdir()
    r = tallero("eval", str(tmp_path), "--delay", "0.5")
    assert r.code == 2 and "--delay is for a folder of clips" in r.err
