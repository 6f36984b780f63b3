"""Hostile images made on the spot from the committed samples (nothing big is committed).

- `big_png`: a huge RGBA PNG written without holding its pixels (one deflate block,
  fully flushed, repeated), so a test can make a 14000x14000 one in a second;
- `big_jpeg`: a phone-sized JPEG tiled from a sample;
- `fuzz_corpus`: truncations, bit flips and header edits of the sample JPEGs.

``python tests/hostile_images.py`` prints the peak memory of `tallero count` on the big
images and the outcome of every fuzz input (the figures quoted in the README).
"""

from __future__ import annotations

import random
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "tests" / "data").glob("*.jpg"))


def big_png(path: Path, width: int, height: int, block_rows: int = 50) -> Path:
    """A width x height RGBA PNG (a grey gradient row repeated); ``height`` must be a
    multiple of ``block_rows``. Takes about a second for 14000x14000, a few MB on disk."""
    row = b"\x00" + bytes((x * 7) % 256 for x in range(width * 4))
    block = row * block_rows
    comp = zlib.compressobj(9)
    first = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)
    again = comp.compress(block) + comp.flush(zlib.Z_FULL_FLUSH)  # no header, same bytes
    blocks = height // block_rows
    adler = 1
    for _ in range(blocks):
        adler = zlib.adler32(block, adler)
    # b"\x03\x00": an empty final block; then the checksum of every row.
    data = first + again * (blocks - 1) + b"\x03\x00" + struct.pack(">I", adler)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    body = _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + body)
    return path


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def big_jpeg(path: Path, width: int, height: int) -> Path:
    """A width x height JPEG tiled from a sample photo (cards and all)."""
    import numpy as np
    from PIL import Image

    tile = np.asarray(Image.open(SAMPLES[0]).convert("RGB"))
    reps = (-(-height // tile.shape[0]), -(-width // tile.shape[1]), 1)
    Image.fromarray(np.tile(tile, reps)[:height, :width]).save(path, quality=90)
    return path


def sliver(path: Path, width: int = 16, height: int = 2000) -> Path:
    from PIL import Image

    Image.open(SAMPLES[0]).convert("RGB").resize((width, height)).save(path)
    return path


def corrupt_exif_jpeg(path: Path) -> Path:
    """A sample with an EXIF block whose first tag's size field is broken: Pillow warns
    'Tag data larger than file' while reading it."""
    import io

    from PIL import Image

    img = Image.open(SAMPLES[0]).convert("RGB")
    exif = img.getexif()
    exif[0x010F] = "Tallero"  # Make
    exif[0x0110] = "Phone"  # Model
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif.tobytes())
    data = bytearray(buf.getvalue())
    tiff = data.index(b"Exif\x00\x00") + 6
    data[tiff + 14] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


def _sof(data: bytes) -> int:
    """Offset of the baseline or progressive start-of-frame marker."""
    for marker in (b"\xff\xc0", b"\xff\xc2"):
        at = data.find(marker)
        if at > 0:
            return at
    raise ValueError("no start of frame")


def _header_edits(data: bytes) -> Iterator[tuple[str, bytes]]:
    sof = _sof(data)
    height_at, width_at = sof + 5, sof + 7
    for name, at, value in (
        ("height 0", height_at, 0),
        ("width 0", width_at, 0),
        ("height 1", height_at, 1),
        ("height 65535", height_at, 65535),
        ("width 65535", width_at, 65535),
        ("width 19999", width_at, 19999),
        ("height 3", height_at, 3),
    ):
        edit = bytearray(data)
        edit[at : at + 2] = struct.pack(">H", value)
        yield name, bytes(edit)
    for name, at, value in (
        ("precision 12", sof + 4, 12),
        ("precision 0", sof + 4, 0),
        ("components 0", sof + 9, 0),
        ("components 9", sof + 9, 9),
        ("component id 200", sof + 10, 200),
        ("sampling 0", sof + 11, 0),
        ("sampling ff", sof + 11, 0xFF),
        ("quant table 3", sof + 12, 3),
        ("sof length 0", sof + 3, 0),
        ("sof length ff", sof + 3, 0xFF),
    ):
        edit = bytearray(data)
        edit[at] = value
        yield name, bytes(edit)
    dqt = data.find(b"\xff\xdb")
    yield "quant table zeroed", data[: dqt + 5] + bytes(64) + data[dqt + 69 :]
    dht = data.find(b"\xff\xc4")
    yield "huffman table garbage", data[: dht + 5] + bytes(range(16, 32)) + data[dht + 21 :]
    sos = data.find(b"\xff\xda")
    yield "scan header cut", data[: sos + 4]
    yield "no start marker", data[2:]
    yield "png magic", b"\x89PNG\r\n\x1a\n" + data[8:]
    yield "gif magic", b"GIF89a" + data[6:]
    yield "bmp magic", b"BM" + data[2:]
    yield "riff magic", b"RIFF" + data[4:]
    yield "two images", data + data
    yield "end marker first", b"\xff\xd9" + data
    yield "only markers", b"\xff\xd8\xff\xd9"
    yield "html", b"<!DOCTYPE html><html>" + bytes(200)
    yield "zeros", bytes(len(data))


def fuzz_corpus(flips_per_sample: int = 20, seed: int = 32) -> Iterator[tuple[str, str, bytes]]:
    """(kind, name, bytes) for every fuzz input: ``kind`` is truncation, bitflip or header.

    Deterministic for a ``seed``; ``flips_per_sample`` inputs of 1 to 16 flipped bits each.
    """
    rng = random.Random(seed)
    for sample in SAMPLES:
        data = sample.read_bytes()
        for fraction in (0.0005, 0.002, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999):
            yield (
                "truncation",
                f"{sample.stem} cut at {fraction}",
                data[: int(len(data) * fraction)],
            )
        for cut in (1, 2, 3, 4, 11, 20):
            yield "truncation", f"{sample.stem} first {cut} bytes", data[:cut]
        for i in range(flips_per_sample):
            edit = bytearray(data)
            # Most flips land in the header (first 1 KB), where they do the most harm.
            for _ in range(rng.randint(1, 16)):
                at = rng.randrange(min(len(data), 1024) if rng.random() < 0.6 else len(data))
                edit[at] ^= 1 << rng.randrange(8)
            yield "bitflip", f"{sample.stem} flips #{i}", bytes(edit)
        for name, edit in _header_edits(data):
            yield "header", f"{sample.stem} {name}", edit


def measure_count(image: Path) -> tuple[int, float, int, str]:
    """(exit code, seconds, peak MB, last line) of `tallero count image` in its own process."""
    import os
    import subprocess
    import sys
    import tempfile

    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.time()\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024\n"
        "line = (r.stdout + r.stderr).strip().splitlines()[-1][:160]\n"
        "print(r.returncode, round(time.time() - t, 1), peak, line, sep='\\t')\n"
    )
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "TALLERO_HOME": home}
        out = subprocess.run(
            [sys.executable, "-c", code, sys.executable, str(ROOT / "cli.py"), "count", str(image)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        ).stdout.strip()
    rc, seconds, peak, line = out.split("\t", 3)
    return int(rc), float(seconds), int(peak), line


def big_images(folder: Path) -> dict[str, Path]:
    """The big probes of the memory budget, made in ``folder``."""
    return {
        "14000x14000 RGBA PNG": big_png(folder / "rgba14000.png", 14000, 14000),
        "8000x8000 RGBA PNG": big_png(folder / "rgba8000.png", 8000, 8000),
        "30 MP JPEG": big_jpeg(folder / "photo30mp.jpg", 6708, 4472),
        "12 MP JPEG": big_jpeg(folder / "photo12mp.jpg", 4000, 3000),
        "16x2000 sliver": sliver(folder / "sliver.png"),
    }


if __name__ == "__main__":
    import sys
    import tempfile

    sys.path.insert(0, str(ROOT))
    from scoring.errors import ImageError
    from vision.core.imageio import load_image

    with tempfile.TemporaryDirectory() as tmp:
        for name, path in big_images(Path(tmp)).items():
            rc, seconds, peak, line = measure_count(path)
            print(f"{name}: exit {rc}, {seconds} s, peak {peak} MB: {line}")
        tried: dict[str, list[int]] = {}
        for kind, _name, data in fuzz_corpus(
            flips_per_sample=int(sys.argv[1]) if len(sys.argv) > 1 else 20
        ):
            path = Path(tmp) / "fuzz.jpg"
            path.write_bytes(data)
            counts = tried.setdefault(kind, [0, 0, 0])
            counts[0] += 1
            try:
                load_image(path)
                counts[1] += 1
            except ImageError:
                counts[2] += 1
        for kind, (n, decoded, refused) in tried.items():
            print(f"fuzz {kind}: {n} inputs, {decoded} decoded, {refused} refused, 0 crashed")
