"""A profile's fan photos as crops to fit on: each enrolled deck's fans
(`vision.enroll.run.enroll_fans`) as a labelled set, every back found in them of its deck.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def fan_dataset(folder: Path, out: Path) -> Path | None:
    """The enrolled decks' fan photos (`vision.enroll.run.enroll_fans`) as a labelled set
    under ``out`` (``images/``, ``truth/``: every back found, of its deck), or None when the
    profile in ``folder`` has none."""
    data = json.loads((Path(folder) / "profile.json").read_text())
    wrote = 0
    for name, record in data.get("decks", {}).items():
        for k, fan in enumerate(record.get("fans", [])):
            if not wrote:
                (out / "images").mkdir(parents=True)
                (out / "truth").mkdir()
            image = f"{name}-{k}{Path(fan['photo']).suffix}"
            (out / "images" / image).symlink_to((Path(folder) / fan["photo"]).resolve())
            cards = [{"side": "back", "deck": name, "corners": c} for c in fan["cards"]]
            truth = {"image": image, "cards": cards}
            (out / "truth" / f"{name}-{k}.json").write_text(json.dumps(truth))
            wrote += 1
    return out if wrote else None


def join_crops(a: Any, b: Any) -> Any:
    """Two `vision.train.deck_net.CropSet` of the same classes as one."""
    from vision.train.deck_net import CropSet

    return CropSet(
        np.concatenate([a.images, b.images]),
        np.concatenate([a.labels, b.labels]),
        np.concatenate([a.visible, b.visible]),
        a.classes,
    )
