"""The watch window's keys as a real OpenCV window reads them, under Xvfb.

The window's key handling is tested with stubbed keys (``test_watch*.py``); this checks
what those stubs assume of the real window: typed keys come out as their characters, and
Enter and Backspace (``e``, digits, Enter give a player's count) as ``\\r`` and ``\\b``.
Needs Debian's ``xvfb`` and ``xdotool``; without them the test is skipped on a workstation
and fails in CI (``$CI`` set), where ``.ci/run`` installs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# a window that prints each key it reads (repr), until Enter or 20 s
WINDOW = """
import sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from vision.live.window import HighguiWindow, has_display
assert has_display(), "no display"
window = HighguiWindow()
picture = np.full((120, 200, 3), 200, np.uint8)
end = time.monotonic() + 20
print("open", flush=True)
while time.monotonic() < end:
    window.show(picture)
    key = window.key()
    if key is not None:
        print(repr(key), flush=True)
        if key == "\\r":
            break
window.close()
"""


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed; .ci/run installs it (apt-get install)")
        pytest.skip(f"{name} is not installed (apt-get install xvfb xdotool)")
    return path


def test_the_real_window_reads_letters_digits_backspace_and_enter(tmp_path: Path) -> None:
    xvfb, xdotool = tool("Xvfb"), tool("xdotool")
    read, write = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as displayfd:
            display = ":" + displayfd.readline().strip()
        env = {**os.environ, "DISPLAY": display}
        env.pop("WAYLAND_DISPLAY", None)
        child = subprocess.Popen(
            [sys.executable, "-c", WINDOW, str(ROOT)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "open"
        found = subprocess.run(
            [xdotool, "search", "--sync", "--name", "Tallero watch"],
            env=env,
            capture_output=True,
            text=True,
            timeout=20,
        )
        window = found.stdout.split()[0]
        for key in ("e", "1", "2", "BackSpace", "3", "Return"):
            subprocess.run([xdotool, "key", "--window", window, key], env=env, check=True)
            time.sleep(0.2)
        out, err = child.communicate(timeout=30)
        assert child.returncode == 0, err
        assert out.split() == ["'e'", "'1'", "'2'", "'\\x08'", "'3'", "'\\r'"]
    finally:
        server.terminate()
        server.wait(timeout=10)
