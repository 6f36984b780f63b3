"""The runtime comparison of the detector: onnxruntime always, OpenVINO when installed."""

from __future__ import annotations

import json

import pytest

from vision.lab import bench_runtimes


def test_onnxruntime_is_timed_at_each_size_and_thread_count(capsys) -> None:
    bench_runtimes.main(["--frames", "5"])
    out = json.loads(capsys.readouterr().out)
    runs = out["runs"]
    assert [(r["threads"], max(r["input"])) for r in runs] == [
        (1, 320),
        (1, 640),
        (2, 320),
        (2, 640),
    ]
    # A 640 px input has four times the pixels of 320 px: it takes longer on the same threads.
    ms = {(r["threads"], max(r["input"])): r["onnxruntime_ms"] for r in runs}
    assert all(ms[(t, 640)] > ms[(t, 320)] > 0 for t in (1, 2))
    for r in runs:  # OpenVINO is optional: timed when installed, else None
        assert (r["openvino_ms"] is None) == (not out["openvino_installed"])


@pytest.mark.parametrize(
    ("args", "says"), [(["--frames", "2"], "5 or more"), (["--model", "no.onnx"], "no such")]
)
def test_bad_arguments_exit_2(capsys, args, says) -> None:
    with pytest.raises(SystemExit) as e:
        bench_runtimes.main(args)
    assert e.value.code == 2 and says in capsys.readouterr().err
