"""Hostile images: memory within budget, slivers refused, library warnings kept off the
terminal, nothing written outside $TALLERO_HOME, and a fuzz corpus of the sample photos
(truncations, bit flips, header edits) that ends in a count or one error line.

TALLERO_FUZZ_LONG=1 runs the long version: ten times the bit flips, every decoded input
counted, and the peak memory of a whole `tallero count` on each big image.
"""

from __future__ import annotations

import collections
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hostile_images import (
    big_jpeg,
    big_png,
    corrupt_exif_jpeg,
    fuzz_corpus,
    measure_count,
    sliver,
)

from scoring.errors import ImageError
from vision.core.imageio import load_image

ROOT = Path(__file__).resolve().parents[1]
LONG = os.environ.get("TALLERO_FUZZ_LONG") == "1"
GB = 1024  # MB


def peak_of_load(path: Path) -> tuple[str, int]:
    """(outcome, peak MB) of `load_image` on ``path`` in a fresh process.

    Linux keeps a process's peak memory across exec, so a child of this (large) test
    process would report the test's own peak: a small launcher starts the child and
    reads the child's peak from its own usage of children."""
    code = (
        "import sys\n"
        "from scoring.errors import ImageError\n"
        "from vision.core.imageio import load_image\n"
        "try:\n"
        "    print('ok %dx%d' % load_image(sys.argv[1]).shape[1::-1])\n"
        "except ImageError as exc:\n"
        "    print('error: %s' % exc)\n"
    )
    launcher = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(r.returncode, repr(r.stderr), r.stdout.strip(), sep='\\n')\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", launcher, sys.executable, "-c", code, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    rc, stderr, outcome, peak = r.stdout.strip().splitlines()
    assert rc == "0" and stderr == "''", stderr
    return outcome, int(peak)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("big")
    return {
        "png14000": big_png(folder / "rgba14000.png", 14000, 14000),
        "png8000": big_png(folder / "rgba8000.png", 8000, 8000),
        "jpeg30": big_jpeg(folder / "photo30mp.jpg", 6708, 4472),
        "jpeg12": big_jpeg(folder / "photo12mp.jpg", 4000, 3000),
    }


MEMORY = [
    # (image, outcome starts with, peak MB at most)
    ("png14000", "error: ", 400),  # refused from its header: decoding needs 748 MiB
    ("png8000", "ok 4000x4000", int(1.5 * GB)),  # decoded whole (256 MiB), then halved
    ("jpeg30", "ok 3354x2236", 600),  # decoded at half scale by libjpeg
    ("jpeg12", "ok 4000x3000", 600),  # a phone photo: decoded as it is
]


@pytest.mark.parametrize(("image", "outcome", "peak_mb"), MEMORY)
def test_decoding_stays_within_the_memory_budget(big, image, outcome, peak_mb):
    got, peak = peak_of_load(big[image])
    assert got.startswith(outcome), got
    assert peak <= peak_mb, f"{image}: peak {peak} MB"
    if image == "png14000":
        assert "decoding it needs 748 MiB, over Tallero's 512 MiB" in got


@pytest.mark.skipif(not LONG, reason="whole counts of big images: TALLERO_FUZZ_LONG=1")
@pytest.mark.parametrize(
    ("image", "peak_mb"),
    [
        ("png14000", int(1.5 * GB)),
        ("png8000", int(1.5 * GB)),
        ("jpeg30", int(1.5 * GB)),
        ("jpeg12", 600),
    ],
)
def test_a_whole_count_stays_within_the_memory_budget(big, image, peak_mb):
    rc, seconds, peak, line = measure_count(big[image])
    print(f"{image}: exit {rc}, {seconds} s, peak {peak} MB: {line}")
    assert rc in (0, 1) and peak <= peak_mb, (rc, peak, line)


@pytest.mark.parametrize(
    ("size", "message"),
    [
        ((16, 2000), "16x2000 px, a sliver"),
        ((2000, 16), "2000x16 px, a sliver"),
        ((40, 401), "40x401 px, a sliver"),
        ((15, 100), "too small to hold cards"),
    ],
)
def test_degenerate_shapes_are_refused_before_decoding(tmp_path, size, message):
    path = sliver(tmp_path / "thin.png", *size)
    with pytest.raises(ImageError, match=message):
        load_image(path)


def test_a_shape_just_inside_the_limits_is_decoded(tmp_path):
    assert load_image(sliver(tmp_path / "thin.png", 40, 400)).shape == (400, 40, 3)


def test_alpha_is_composited_on_grey_in_8_bits(tmp_path):
    from PIL import Image

    rgba = np.zeros((20, 20, 4), np.uint8)
    rgba[:10] = (255, 0, 0, 255)  # opaque red on top
    rgba[10:] = (0, 0, 255, 128)  # half-transparent blue below
    Image.fromarray(rgba).save(tmp_path / "a.png")
    out = load_image(tmp_path / "a.png")
    assert tuple(out[0, 0]) == (0, 0, 255)  # BGR red
    assert abs(int(out[15, 0, 0]) - 191) <= 1 and abs(int(out[15, 0, 2]) - 64) <= 1


def test_a_corrupt_exif_block_warns_only_in_the_log(tmp_path, capfd, caplog):
    path = corrupt_exif_jpeg(tmp_path / "exif.jpg")
    with caplog.at_level(logging.INFO, logger="tallero.image"):
        assert load_image(path).shape == (640, 480, 3)
    assert capfd.readouterr().err == ""
    assert any("Tag data larger than file" in r.getMessage() for r in caplog.records)


def test_count_keeps_library_warnings_off_the_terminal_unless_verbose(tmp_path):
    path = corrupt_exif_jpeg(tmp_path / "exif.jpg")
    env = {**os.environ, "TALLERO_HOME": str(tmp_path / "home")}
    quiet = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "count", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    assert quiet.stdout.startswith(f"{path}: pump ")
    loud = subprocess.run(
        [sys.executable, str(ROOT / "cli.py"), "--verbose", "count", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert loud.returncode == 0 and "Tag data larger than file" in loud.stderr
    assert loud.stdout == quiet.stdout


def test_count_writes_nothing_in_the_users_home(tmp_path):
    """onnxruntime's telemetry store and device id stay off (ORT_DISABLE_TELEMETRY)."""
    user_home = tmp_path / "user"
    user_home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "ORT_"))}
    env.update(HOME=str(user_home), TALLERO_HOME=str(tmp_path / "tallero"))
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "cli.py"),
            "count",
            str(ROOT / "tests/data/scene_4242_000002.jpg"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert sorted(p.relative_to(user_home) for p in user_home.rglob("*")) == []


# --- the fuzz corpus -------------------------------------------------------------------

FLIPS = 200 if LONG else 20
COUNTED = None if LONG else 3  # decoded inputs counted in full (None: all)


@pytest.fixture(scope="module")
def counter():
    from vision.count.counter import Counter

    return Counter(threads=2)


def test_every_fuzz_input_decodes_or_gives_one_image_error(tmp_path, counter):
    tried: collections.Counter[str] = collections.Counter()
    outcome: collections.Counter[tuple[str, str]] = collections.Counter()
    counted = 0
    for kind, name, data in fuzz_corpus(flips_per_sample=FLIPS):
        path = tmp_path / "fuzz.jpg"
        path.write_bytes(data)
        tried[kind] += 1
        try:
            image = load_image(path, counter.settings)
        except ImageError as exc:
            message = str(exc)
            assert message.startswith(f"{path}: ") and "\n" not in message, (name, message)
            outcome[(kind, "refused")] += 1
            continue
        assert image.ndim == 3 and image.shape[2] == 3 and image.dtype == np.uint8, name
        outcome[(kind, "decoded")] += 1
        if COUNTED is None or counted < COUNTED:
            result = counter.count(image, name=name)
            assert all(n >= 0 for n in result.counts.values()), name
            counted += 1
    print(f"fuzz: {dict(tried)} inputs; outcomes {dict(outcome)}; counted {counted}")
    assert sum(tried.values()) == 3 * (17 + FLIPS + 30)
    assert outcome[("header", "refused")] >= 3 * 10  # the edits that must fail do
    assert outcome[("truncation", "refused")] >= 3 * 12


def test_the_count_command_gives_a_count_or_one_error_line_per_fuzzed_file(tmp_path, tallero):
    good: list[str] = []
    bad: list[str] = []
    for i, (_, _, data) in enumerate(fuzz_corpus(flips_per_sample=6)):
        path = tmp_path / f"f{i}.jpg"
        path.write_bytes(data)
        try:
            load_image(path)
            good.append(str(path))
        except ImageError:
            bad.append(str(path))
    paths = bad[::20][:5] + good[:3]  # spread over the kinds of damage
    r = tallero("count", *paths)
    errors = r.err.strip().splitlines()
    assert r.code == 1 and len(errors) == 5
    assert all(line.startswith("tallero: error: ") for line in errors), r.err
    assert [line.split(":")[0] for line in r.out.strip().splitlines()] == good[:3]


def _modes() -> list[tuple[str, str]]:
    return [
        ("rgb.jpg", "RGB"),
        ("cmyk.jpg", "CMYK"),
        ("gray.jpg", "L"),
        ("palette.png", "P"),
        ("palette-transparent.gif", "P"),
        ("gray-alpha.png", "LA"),
        ("deep.png", "I;16"),
        ("bits.png", "1"),
        ("rgba.webp", "RGBA"),
        ("rgb.tif", "RGB"),
    ]


@pytest.mark.parametrize(("name", "mode"), _modes())
def test_every_mode_is_reduced_over_the_counted_size(tmp_path, name, mode):
    """A 400x300 image counted at most 0.01 MP comes back 100x75, whatever its mode."""
    from PIL import Image

    from vision.core.settings import VisionSettings

    rgb = np.random.default_rng(0).integers(0, 255, (300, 400, 3)).astype(np.uint8)
    if mode == "I;16":
        img = Image.fromarray(rgb[..., 0].astype(np.uint16) * 200)
    else:
        img = Image.fromarray(rgb).convert(mode)
    path = tmp_path / name
    img.save(path, **({"transparency": 0} if name.endswith(".gif") else {}))
    out = load_image(path, VisionSettings(max_counted_megapixels=0.01))
    assert out.shape == (75, 100, 3) and out.dtype == np.uint8
