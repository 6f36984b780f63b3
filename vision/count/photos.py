"""Counting the photos of one round (Dutch cards, Blitz leftovers) with one model load."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.count.counter import Counter
from vision.count.result import Count


@dataclass(frozen=True)
class CountedPhoto:
    role: str  # "dutch" or "blitz"
    path: Path
    count: Count
    annotated: Path

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, **self.count.to_json(), "annotated": str(self.annotated)}


def count_photos(
    counter: Counter,
    dutch: Path,
    blitz: Path | None,
    annotate_dir: Path,
    decks: tuple[str, ...] | None = None,
) -> list[CountedPhoto]:
    """Count each photo and write its annotated copy into ``annotate_dir``.

    ``decks`` limits the decks that compete for a back (e.g. those of the game): a back of
    any other deck is then unknown, and flagged.
    """
    from vision.core.imageio import load_image

    out = []
    for role, path in (("dutch", dutch), ("blitz", blitz)):
        if path is None:
            continue
        image = load_image(path, counter.settings)
        count = counter.count(image, name=str(path), decks=decks)
        target = write_annotated(
            image, count, annotate_dir / f"{Path(path).stem}-{role}-counted.jpg"
        )
        out.append(CountedPhoto(role, Path(path), count, target))
    return out


def write_annotated(image_bgr: Any, count: Count, target: Path) -> Path:
    """Draw ``count`` on the image (numbered outlines, legend) and write it to ``target``."""
    import cv2

    from scoring.errors import ImageError
    from vision.count.annotate import CountAnnotator

    target.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(target), CountAnnotator().annotate(image_bgr, count)):
        raise ImageError(f"cannot write {target}")
    return target
