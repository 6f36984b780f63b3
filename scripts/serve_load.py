"""Load check of ``tallero serve`` (a script, not a test): on 127.0.0.1 only.

Starts the page's server in this process on a free loopback port with a fresh
TALLERO_HOME, starts a game, then

1. times one upload of a 12 MP photo (the bundled Dutch sample resized to 4032x3024)
   from the POST to the result page loaded with its annotated photo, a few times;
2. sends ``--uploads`` uploads (Dutch + Blitz sample photos) from ``--clients`` clients at
   once, while one more client reads the sheet every 0.2 s, and reports the latency
   percentiles of both and whether every upload came back as its own round.

    python scripts/serve_load.py [--clients 5] [--uploads 20] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
TOKEN = "load-check-token"


def percentiles(values: list[float]) -> str:
    """p50, p90, p95 and max, in seconds."""
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return (
        f"n={len(values)} p50={at(0.5):.2f}s p90={at(0.9):.2f}s p95={at(0.95):.2f}s "
        f"max={ordered[-1]:.2f}s mean={statistics.fmean(values):.2f}s"
    )


def twelve_mp(source: Path, out: Path) -> Path:
    """``source`` resized to 4032x3024 (a 12 MP phone photo) as a JPEG at quality 90."""
    import cv2

    image = cv2.imread(str(source))
    big = cv2.resize(image, (4032, 3024), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(str(out), big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=5)
    parser.add_argument("--uploads", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="12 MP uploads to time")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="tallero-load-"))
    os.environ["TALLERO_HOME"] = str(scratch / "home")
    import httpx
    from serve_helpers import BLITZ, DUTCH, PLAYERS, live_server

    from commands.app import make_counter
    from commands.web.app import make_app
    from commands.web.desk import RoundDesk

    desk = RoundDesk(scratch / "home", lambda: make_counter(None, None, None))
    desk.counter()  # loaded before timing, as after the server's first round
    big = twelve_mp(DUTCH, scratch / "dutch-12mp.jpg")
    with live_server(make_app(TOKEN, desk)) as base:
        headers = {"origin": base, "x-tallero-token": TOKEN}

        def client() -> httpx.Client:
            c = httpx.Client(base_url=base, headers=headers, timeout=600)
            c.cookies.set("tallero_token", TOKEN)
            return c

        with client() as c:
            assert c.post("/api/games", data={"players": PLAYERS}).status_code == 201
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                files = {"dutch": ("p.jpg", big.read_bytes(), "image/jpeg")}
                r = c.post("/games/1/rounds", files=files, follow_redirects=True)
                assert r.status_code == 200 and "Check the round" in r.text, r.text[:300]
                photos = re.findall(r'<img src="([^"]+)"', r.text)
                assert len(photos) == 1
                for src in photos:  # as a browser would
                    assert c.get(src).status_code == 200
                times.append(time.perf_counter() - start)
            print(
                f"12 MP upload to result page and its photo "
                f"({big.stat().st_size / 1e6:.1f} MB JPEG): "
                f"{percentiles(times)}"
            )

        payload = {"dutch": DUTCH.read_bytes(), "blitz": BLITZ.read_bytes()}
        done = threading.Event()
        sheet_times: list[float] = []

        def read_sheet() -> None:
            with client() as c:
                while not done.is_set():
                    start = time.perf_counter()
                    assert c.get("/api/games/1/sheet").status_code == 200
                    sheet_times.append(time.perf_counter() - start)
                    time.sleep(0.2)

        def upload(_: int) -> tuple[int, str, float]:
            with client() as c:
                start = time.perf_counter()
                files = {k: (f"{k}.jpg", v, "image/jpeg") for k, v in payload.items()}
                r = c.post("/api/games/1/rounds", files=files)
                pid = r.json().get("pending", "") if r.status_code == 201 else ""
                return r.status_code, pid, time.perf_counter() - start

        reader = threading.Thread(target=read_sheet)
        reader.start()
        wall = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            results = list(pool.map(upload, range(args.uploads)))
        wall = time.perf_counter() - wall
        done.set()
        reader.join()
    ok = [r for r in results if r[0] == 201]
    print(
        f"{args.uploads} uploads from {args.clients} clients in {wall:.1f}s: "
        f"{percentiles([r[2] for r in results])}"
    )
    print(
        f"answered 201: {len(ok)}/{args.uploads}; distinct rounds: {len({r[1] for r in ok})}; "
        f"statuses: {sorted({r[0] for r in results})}"
    )
    print(f"sheet reads during the load: {percentiles(sheet_times)}")


if __name__ == "__main__":
    main()
