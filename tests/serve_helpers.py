"""Shared by the ``tallero serve`` tests: the sample round, a live server, a bomb."""

from __future__ import annotations

import socket
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "datasets" / "samples" / "synth-mini" / "images"
DUTCH = SAMPLES / "000000.jpg"
BLITZ = SAMPLES / "000001.jpg"
SEATS = {"Ann": "pump", "Ben": "carriage", "Cy": "plow", "Dee": "pail"}
PLAYERS = " ".join(f"{p}={d}" for p, d in SEATS.items())
TOKEN = "test-token-0123456789"


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` x ``height`` pixels in a few dozen bytes (a bomb)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port, in a thread; yields its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
