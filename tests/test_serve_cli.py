"""`tallero serve` as typed: the link with its token and the QR code, the page behind it,
an unknown game refused before the server starts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from serve_helpers import ROOT, free_port

from commands.serve import address


def test_serve_prints_the_link_and_its_qr_code_and_guards_the_page(home: Path):
    import httpx

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "cli.py"), "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env=dict(os.environ),
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any("Ctrl+C" in line for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        out = "".join(lines)
        (link,) = re.findall(r"http://\S+", out)
        match = re.fullmatch(rf"http://127\.0\.0\.1:{port}/\?token=([A-Za-z0-9_-]{{24}})", link)
        assert match is not None, link
        assert "\u2588" in out or "\u2580" in out  # the QR code, drawn in block characters
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(link, timeout=5)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert r.status_code == 200 and "New game" in r.text
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 401
        wrong = httpx.get(f"http://127.0.0.1:{port}/?token={match[1][:-1]}x", timeout=5)
        assert wrong.status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_refuses_an_unknown_game_before_it_starts(tallero):
    r = tallero("serve", "--game", "7", "--port", str(free_port()))
    assert r.code == 1
    assert r.err.startswith("tallero: error: ") and "7" in r.err
    assert "token=" not in r.out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "99999"], "--port must be 1-65535, got 99999"),
        (["--profile", "nobody"], "no profile 'nobody'"),
    ],
)
def test_serve_refuses_a_bad_port_or_an_unenrolled_profile_in_one_line(tallero, args, message):
    r = tallero("serve", *args)
    assert r.code == 2 and message in r.err and len(r.err.strip().splitlines()) == 1
    assert "token=" not in r.out


def test_the_link_opens_the_game_asked_for():
    assert address("127.0.0.1", 8750, "abc", 3) == "http://127.0.0.1:8750/games/3?token=abc"
    assert address("localhost", 9000, "abc", None) == "http://localhost:9000/?token=abc"
    lan = address("0.0.0.0", 8750, "abc", None)
    assert re.fullmatch(r"http://\d+\.\d+\.\d+\.\d+:8750/\?token=abc", lan)
    assert not lan.startswith("http://0.0.0.0")
