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


def _tile(img: np.ndarray, caption: str, pad: int = 6) -> np.ndarray:
    """A card picture on a dark ground with a caption under it."""
    h, w = img.shape[:2]
    cell = np.full((h + 2 * pad + 14, w + 2 * pad, 3), 40, np.uint8)
    cell[pad : pad + h, pad : pad + w] = img
    cv2.putText(
        cell, caption[:22], (pad, h + pad + 11), cv2.FONT_HERSHEY_PLAIN, 0.75, (230, 230, 230), 1
    )
    return cell


def family_sheet(families: list[int], out: Path, seed: int = 0) -> Path:
    """Write the eight backs of each family (one row per family, in deck order, captioned
    with deck id and object) as PNG/JPEG ``out``. Returns ``out``."""
    from vision.synth.art_family_style import FamilyStyle
    from vision.synth.decks import ALL_DECKS, CARD_H_PX, CARD_W_PX

    rows = []
    for f in families:
        style = FamilyStyle(f)
        rng = np.random.default_rng([seed, f])
        cells = [
            _tile(style.draw_back(d, rng, CARD_W_PX, CARD_H_PX), f"{d}: {style.spec.objects[d]}")
            for d in ALL_DECKS
        ]
        row = np.hstack(cells)
        head = np.full((22, row.shape[1], 3), 25, np.uint8)
        s = style.spec
        text = f"family {f}: {s.linework.kind}, frame {s.frame.kind}, {s.structure}"
        text += f", inks {s.ink_policy}"
        cv2.putText(head, text, (6, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
        rows.append(np.vstack([head, row]))
    cv2.imwrite(str(out), np.vstack(rows))
    return Path(out)


def face_sheet(family: int, out: Path, seed: int = 0) -> Path:
    """Write all 40 faces of ``family`` (a row per colour, values 1-10) to ``out``."""
    from vision.synth.art_family_style import FamilyStyle
    from vision.synth.decks import CARD_H_PX, CARD_W_PX, FACE_COLORS, FACE_VALUES

    style = FamilyStyle(family)
    rng = np.random.default_rng([seed, family])
    rows = [
        np.hstack(
            [
                _tile(style.draw_face(c, v, rng, CARD_W_PX, CARD_H_PX), f"{c} {v}")
                for v in FACE_VALUES
            ]
        )
        for c in FACE_COLORS
    ]
    cv2.imwrite(str(out), np.vstack(rows))
    return Path(out)


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(
        description="Contact sheets: a dataset with labels (DATA), or art families' backs "
        "(--families 3,7) or one family's faces (--faces 3)."
    )
    ap.add_argument("data", type=Path, nargs="?")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=16)
    ap.add_argument("--families", default="")
    ap.add_argument("--faces", type=int, default=None)
    args = ap.parse_args()
    if args.families:
        print(family_sheet([int(f) for f in args.families.split(",")], args.out))
    elif args.faces is not None:
        print(face_sheet(args.faces, args.out))
    elif args.data is not None:
        print(contact_sheet(args.data, args.out, limit=args.limit))
    else:
        ap.error("give DATA, --families or --faces")


if __name__ == "__main__":
    main()
