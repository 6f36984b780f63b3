"""Where the picture moved: a cheap per-frame sign that a hand passed over a place.

`MotionMeter` takes every frame of the watch loop (not only the counted ones), shrinks it to
a grey picture ``cell_px`` times smaller, and marks the cells whose grey level changed by
more than ``threshold`` since the frame before. At each counted frame `MotionMeter.take`
hands the tally a `Motion`: per cell, how long (s of the picture's clock) it moved since the
last counted frame. The tally reads it only through `Motion.share` and `Motion.dwell`, so
tests drive the tally with hand-made `Motion` values.

`Touches` keeps, for the steady table, when each place of the picture was last *touched*:
changed in a patch at least ``open_cells`` cells across (a hand, a card laid or taken away),
with a change of exposure taken off first; the thin lines a pixel of camera shake leaves
along the cards' edges are not a touch. A meter with ``drift`` first moves the frame before
by the shift of the whole picture (`picture_shift`), so a camera drifting over large faces
moves no cell: only what changed on the table does.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.core.types import Array

# sample points per side of a card's outline (a grid of SAMPLES x SAMPLES inside it)
SAMPLES = 6


def grid_points(outline: Array, n: int = SAMPLES) -> Array:
    """``(n * n, 2)`` points spread evenly inside a card's ``(4, 2)`` outline (px)."""
    q = np.asarray(outline, np.float64)
    u = (np.arange(n) + 0.5) / n
    left = q[0] + (q[3] - q[0]) * u[:, None]
    right = q[1] + (q[2] - q[1]) * u[:, None]
    out: Array = (left[:, None, :] + (right - left)[:, None, :] * u[None, :, None]).reshape(-1, 2)
    return out


def grid_points_many(outlines: Array, n: int = SAMPLES) -> Array:
    """`grid_points` of ``(k, 4, 2)`` outlines at once: ``(k, n * n, 2)``."""
    q = np.asarray(outlines, np.float64)
    u = (np.arange(n) + 0.5) / n
    left = q[:, None, 0] + (q[:, None, 3] - q[:, None, 0]) * u[None, :, None]
    right = q[:, None, 1] + (q[:, None, 2] - q[:, None, 1]) * u[None, :, None]
    out: Array = left[:, :, None, :] + (right - left)[:, :, None, :] * u[None, None, :, None]
    return out.reshape(len(q), -1, 2)


def sample_cells(grid: Array, outline: Array, cell_px: float) -> Array:
    """The values of ``grid`` (one per ``cell_px`` cell) at `grid_points` of ``outline``."""
    pts = grid_points(outline)
    h, w = grid.shape[:2]
    cells = np.floor(pts / cell_px).astype(int)
    cx = np.clip(cells[:, 0], 0, w - 1)
    cy = np.clip(cells[:, 1], 0, h - 1)
    out: Array = grid[cy, cx]
    return out


def share_within(outline: Array, others: list[Array]) -> float:
    """Share of ``outline`` (points inside it) that lies within any of ``others``."""
    pts = grid_points(outline, 5)
    inside = np.zeros(len(pts), bool)
    for other in others:
        c = np.asarray(other, np.float64)
        edges = np.roll(c, -1, axis=0) - c
        rel = pts[:, None, :] - c[None, :, :]
        cross = edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0]
        inside |= np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)
    return float(inside.mean())


@dataclass(frozen=True)
class Motion:
    """How long each cell of the picture moved since the last counted frame.

    Attributes:
        moved_s: ``(h, w)`` seconds each cell moved (0 where it lay still).
        cell_px: image pixels per cell side.
    """

    moved_s: Array
    cell_px: float

    def _samples(self, outline: Array) -> Array:
        """Seconds moved at a grid of points inside ``outline`` (``(4, 2)`` image px)."""
        return sample_cells(self.moved_s, outline, self.cell_px)

    def share(self, outline: Array) -> float:
        """Share of the outline that moved at all since the last counted frame, in [0, 1]."""
        return float(np.mean(self._samples(outline) > 0))

    def sides(self, outline: Array) -> Array:
        """Share moved of the four card-sized places beside ``outline`` (one card length
        away): past its first side, past the third, past the second, past the fourth."""
        q = np.asarray(outline, np.float64)
        along = [(q[1] - q[0] + q[2] - q[3]) / 2, (q[3] - q[0] + q[2] - q[1]) / 2]
        length = max(float(np.linalg.norm(a)) for a in along)
        out = []
        for a in along:
            step = a / max(float(np.linalg.norm(a)), 1e-6) * length
            out += [self.share(q - step), self.share(q + step)]
        return np.array(out)

    def dwell(self, outline: Array, share: float = 0.5) -> float:
        """How long (s) at least ``share`` of the outline moved since the last counted
        frame."""
        return float(np.quantile(self._samples(outline), 1.0 - share))


def grey_cells(image: Array, cell_px: int) -> Array:
    """``image`` (BGR or grey) in grey, one value per ``cell_px`` cell, as int16."""
    h, w = image.shape[:2]
    size = (max(1, w // cell_px), max(1, h // cell_px))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    out: Array = cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.int16)
    return out


# a shift of the whole picture under this many cells is noise (no move); over the most
# one frame can drift, it is a cut, not a drift
SHIFT_MIN_CELLS = 0.1
SHIFT_MAX_CELLS = 8.0


def picture_shift(before: Array, after: Array, window: Array) -> tuple[float, float]:
    """How far (cells, x and y) the whole picture moved from ``before`` to ``after`` (grey
    cells, same shape; phase correlation under ``window``, a Hann window of that shape).
    A hand over part of the picture hardly moves it: the still rest of the table leads."""
    (dx, dy), _ = cv2.phaseCorrelate(before.astype(np.float32), after.astype(np.float32), window)
    return float(dx), float(dy)


def shifted(cells: Array, dx: float, dy: float) -> Array:
    """``cells`` moved by ``(dx, dy)`` cells (edges repeated), as int16."""
    h, w = cells.shape[:2]
    m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
    moved = cv2.warpAffine(
        cells.astype(np.float32), m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    out: Array = np.rint(moved).astype(np.int16)
    return out


class MotionMeter:
    """Marks where each frame differs from the one before (``cell_px`` px cells).

    Args:
        cell_px: shrink factor of the grey picture compared (image px per cell).
        threshold: grey levels (0-255) a cell must change by to count as moved.
        exposure: take the frame's median change off first (a change of exposure moves
            every cell alike and is no motion).
        drift: move the frame before by the whole picture's shift first (`picture_shift`:
            the camera drifting or shaken is no motion).
    """

    def __init__(
        self, cell_px: int = 4, threshold: float = 20.0, exposure: bool = False, drift: bool = False
    ) -> None:
        self.cell_px = cell_px
        self.threshold = threshold
        self.exposure = exposure
        self.drift = drift
        self._window: Array | None = None
        self._last: Array | None = None
        self._last_t: float | None = None
        self._moved: Array | None = None

    def add(self, image: Array, t: float) -> None:
        """One frame (BGR) at ``t`` (s)."""
        self.add_cells(grey_cells(image, self.cell_px), t)

    def add_cells(self, small: Array, t: float) -> None:
        """One frame at ``t`` (s), already shrunk to this meter's cells (`grey_cells`)."""
        if self._moved is None or self._moved.shape != small.shape:
            self._moved = np.zeros(small.shape, np.float32)
        if self._last is not None and self._last.shape == small.shape and self._last_t is not None:
            dt = max(t - self._last_t, 0.0)
            change = small - self._before(small)
            if self.exposure:
                change -= np.int16(np.median(change))
            self._moved += (np.abs(change) > self.threshold) * np.float32(dt)
        self._last, self._last_t = small, t

    def _before(self, small: Array) -> Array:
        """The frame before, moved by the picture's shift where this meter takes drift off."""
        before = self._last
        assert before is not None
        if not self.drift or min(small.shape[:2]) < 8:
            return before
        if self._window is None or self._window.shape != small.shape:
            self._window = cv2.createHanningWindow(small.shape[::-1], cv2.CV_32F)
        dx, dy = picture_shift(before, small, self._window)
        if SHIFT_MIN_CELLS < max(abs(dx), abs(dy)) < SHIFT_MAX_CELLS:
            return shifted(before, dx, dy)
        return before

    def take(self) -> Motion | None:
        """The motion since the last take (``None`` before the first frame)."""
        if self._moved is None:
            return None
        out = Motion(self._moved, float(self.cell_px))
        self._moved = np.zeros_like(self._moved)
        return out


class Touches:
    """When each place of the picture was last touched (s of the picture's clock).

    Args:
        open_cells: a cell that moved is a touch only inside a moved patch at least this
            many cells across (a morphological opening): a hand or a card, not the thin line
            of an edge shaken by a pixel. 1 keeps every moved cell.
    """

    def __init__(self, open_cells: int = 3) -> None:
        self.open_cells = open_cells
        self._last: Array | None = None
        self._cell_px = 1.0

    def stamp(self, motion: Motion, t: float) -> None:
        """The motion since the last counted frame, stamped at ``t`` (s)."""
        moved: Array = (motion.moved_s > 0).astype(np.uint8)
        if self.open_cells > 1:
            kernel = np.ones((self.open_cells, self.open_cells), np.uint8)
            moved = cv2.morphologyEx(moved, cv2.MORPH_OPEN, kernel)
        if self._last is None or self._last.shape != moved.shape:
            self._last = np.full(moved.shape, -np.inf, np.float32)
        self._last[moved > 0] = t
        self._cell_px = motion.cell_px

    def touched_at(self, outlines: Array, share: float) -> Array:
        """When each of ``outlines`` ((k, 4, 2) image px) was last touched over at least
        ``share`` of it: the latest time (s) such that that share was touched then or later
        (``-inf``: never)."""
        q = np.asarray(outlines, np.float64).reshape(-1, 4, 2)
        if self._last is None or not len(q):
            return np.full(len(q), -np.inf)
        h, w = self._last.shape
        cells = np.floor(grid_points_many(q) / self._cell_px).astype(int)
        seen = self._last[np.clip(cells[..., 1], 0, h - 1), np.clip(cells[..., 0], 0, w - 1)]
        # the k-th latest touch over the samples, k the share's number of samples
        k = max(1, int(np.ceil(share * seen.shape[1] - 1e-9)))
        out: Array = -np.sort(-seen, axis=1)[:, k - 1]
        return out

    def touched_since(self, since: float) -> Array | None:
        """The corners (``(4, 2)`` image px) of the bounding box of the cells touched at
        ``since`` (s) or later, ``None`` when none was."""
        if self._last is None:
            return None
        ys, xs = np.nonzero(self._last >= since)
        if not len(xs):
            return None
        c = self._cell_px
        x0, y0 = float(xs.min()) * c, float(ys.min()) * c
        x1, y1 = float(xs.max() + 1) * c, float(ys.max() + 1) * c
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)

    def share_since(self, outline: Array, since: float) -> float:
        """Share of ``outline`` ((4, 2) image px) touched at ``since`` (s) or later."""
        if self._last is None:
            return 0.0
        seen = sample_cells(self._last, outline, self._cell_px)
        return float(np.mean(seen >= since))
