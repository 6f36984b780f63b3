"""The looks at one card that naming averages (`naming_views` in `VisionSettings`)."""

from __future__ import annotations

import numpy as np

from vision.core.rectify import CardRectifier

# As found, turned half round, 6% closer and 6% wider about its centre. The classifier learned from
# crops turned half round and with corners jittered by 3% of the short side, so each is a
# fair look; their mean is steadier than any one.
VIEWS = ("as_found", "turned", "closer", "wider")
_VIEW_SCALE = {"as_found": 1.0, "turned": 1.0, "closer": 0.94, "wider": 1.06}


def view_crops(rectifier: CardRectifier, corners: np.ndarray, view: str) -> np.ndarray:
    """``(n, h, w, 3)`` crops of ``(n, 4, 2)`` quads as seen in ``view`` (one of `VIEWS`)."""
    if view not in _VIEW_SCALE:
        raise ValueError(f"unknown view {view!r}; known: {', '.join(VIEWS)}")
    corners = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    if _VIEW_SCALE[view] != 1.0:
        centre = corners.mean(axis=1, keepdims=True)
        corners = centre + (corners - centre) * np.float32(_VIEW_SCALE[view])
    crops = rectifier.crops(corners)
    return np.ascontiguousarray(crops[:, ::-1, ::-1]) if view == "turned" else crops
