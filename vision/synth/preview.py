"""Contact sheet of a synthetic dataset with its labels drawn, for a person to check."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.synth.decks import INK_BGR

_DECK_COLOR = {
    "pump": INK_BGR["green"],
    "carriage": INK_BGR["red"],
    "plow": INK_BGR["blue"],
    "pail": INK_BGR["yellow"],
    "blue-pump": INK_BGR["blue"],
    "red-plow": INK_BGR["red"],
    "yellow-carriage": INK_BGR["yellow"],
    "green-pail": INK_BGR["green"],
}
_SHORT = {
    "pump": "P",
    "carriage": "C",
    "plow": "W",
    "pail": "L",
    "blue-pump": "bP",
    "red-plow": "rW",
    "yellow-carriage": "yC",
    "green-pail": "gL",
}


def annotate(img: np.ndarray, rec: dict[str, object]) -> np.ndarray:
    """Draw every labelled card: outline, a dot on the art's top-left corner, its tag."""
    out = img.copy()
    for c in rec["cards"]:  # type: ignore[attr-defined]
        q = np.asarray(c["corners"], np.float64) - 0.5
        if c["side"] == "face":
            col, tag = (255, 255, 255), f"{c['color'][0]}{c['value']}"
        elif c["random_art"]:
            col, tag = (255, 0, 255), "?"
        else:
            col, tag = _DECK_COLOR[c["deck"]], _SHORT[c["deck"]]
        pts = np.round(q * 4).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 0, 0), 3, cv2.LINE_AA, 2)
        cv2.polylines(out, [pts], True, col, 1, cv2.LINE_AA, 2)
        tl = tuple(int(v) for v in np.round(q[0]))
        cv2.circle(out, tl, 3, (0, 0, 255), -1, cv2.LINE_AA)
        ctr = tuple(int(v) for v in q.mean(0))
        cv2.putText(out, tag, ctr, cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 2, cv2.LINE_AA)
        cv2.putText(out, tag, ctr, cv2.FONT_HERSHEY_SIMPLEX, 0.35, col, 1, cv2.LINE_AA)
    counts = rec.get("counts", {})
    head = f"{rec['image']} {rec['kind']} " + " ".join(
        f"{_SHORT[d]}={n}" for d, n in counts.items() if n
    )  # type: ignore[attr-defined]
    cv2.putText(out, head, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(out, head, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def contact_sheet(
    data_dir: Path,
    out: Path | None = None,
    limit: int = 16,
    cols: int = 4,
    labels: bool = True,
    cell_px: int = 480,
) -> Path:
    """Write a grid of the first ``limit`` images of ``data_dir`` with labels drawn (PNG or
    JPEG by ``out``'s suffix; default ``data_dir/preview.jpg``). Returns the path written."""
    data_dir = Path(data_dir)
    truths = sorted((data_dir / "truth").glob("*.json"))[:limit]
    if not truths:
        raise FileNotFoundError(f"no truth/*.json under {data_dir}")
    cells = []
    for t in truths:
        rec = json.loads(t.read_text())
        img = cv2.imread(str(data_dir / "images" / rec["image"]))
        if img is None:
            raise FileNotFoundError(f"missing image {rec['image']}")
        if labels:
            img = annotate(img, rec)
        s = cell_px / max(img.shape[:2])
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        cell = np.full((cell_px, cell_px, 3), 40, np.uint8)
        cell[: img.shape[0], : img.shape[1]] = img
        cells.append(cell)
    while len(cells) % cols:
        cells.append(np.full_like(cells[0], 40))
    rows = [np.hstack(cells[i : i + cols]) for i in range(0, len(cells), cols)]
    sheet = np.vstack(rows)
    out = Path(out) if out is not None else data_dir / "preview.jpg"
    cv2.imwrite(str(out), sheet)
    return out
