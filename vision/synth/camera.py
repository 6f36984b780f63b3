"""A perspective camera looking down at the table: tilt, any rotation, framing the cards.

Image coordinates are continuous: pixel (i, j) covers [i, i+1) x [j, j+1), so the centre of
the top-left pixel is (0.5, 0.5). Every homography here maps table millimetres to them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    """Table-plane (mm) to image (px) homography plus the frame it was made for."""

    H: np.ndarray
    width: int
    height: int
    tilt_deg: float
    yaw_deg: float
    px_per_mm: float  # at the middle of the cards

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Table mm (..., 2) to image px."""
        return project(self.H, pts_mm)


def project(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply homography ``H`` to points (..., 2)."""
    p = np.asarray(pts, np.float64)
    x, y = p[..., 0], p[..., 1]
    w = H[2, 0] * x + H[2, 1] * y + H[2, 2]
    u = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / w
    v = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / w
    return np.stack([u, v], -1)


def _rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def frame_cards(
    content_mm: np.ndarray,
    card_len_px: float,
    width: int,
    height: int,
    rng: np.random.Generator,
    tilt_deg: float,
    yaw_deg: float,
    margin: float = 0.04,
    centre_jitter: float = 0.12,
    k_dist: float | None = None,
    largest_fit: bool = False,
) -> Camera:
    """A camera that sees every point of ``content_mm`` (N x 2), with cards about
    ``card_len_px`` long (less if the content would not fit), tilted and rotated as given.

    The camera distance is a few times the frame's footprint on the table, as for a phone or
    webcam, so the horizon always stays well outside the picture. ``k_dist`` (camera
    distance / half the frame's diagonal footprint; default 1.9-3.2, a webcam or a zoomed
    phone) sets the lens: 1.15 is a phone's wide main camera, whose close views converge
    strongly.
    """
    pts = np.asarray(content_mm, np.float64).reshape(-1, 2)
    ctr = (pts.min(0) + pts.max(0)) / 2
    s_px_mm = card_len_px / 87.0
    if k_dist is None:
        k_dist = rng.uniform(1.9, 3.2)
    R = _rot_x(np.deg2rad(tilt_deg)) @ _rot_z(np.deg2rad(yaw_deg))
    T = np.array([[1, 0, -ctr[0]], [0, 1, -ctr[1]], [0, 0, 1]], np.float64)
    avail = np.array([width, height]) * (1 - 2 * margin)

    def homography(scale: float) -> np.ndarray:
        # the frame's footprint on the table sets the distance, as for a phone or webcam
        footprint_mm = 0.5 * np.hypot(width, height) / scale
        dist = footprint_mm * k_dist
        # table (x, y, 0) -> camera: X = R [x - cx, y - cy, 0] + [0, 0, dist]
        H0 = np.c_[R[:, 0], R[:, 1], [0, 0, dist]] @ T
        f = scale * dist
        return np.diag([f, f, 1.0]) @ H0

    def span(H: np.ndarray) -> np.ndarray:
        # the content's width and height in the picture, px
        proj = project(H, pts)
        return np.maximum(proj.max(0) - proj.min(0), 1e-6)

    def fill(H: np.ndarray) -> float:
        # how much of the available frame the content spans (inf: partly behind the camera)
        if np.min(H[2, 0] * pts[:, 0] + H[2, 1] * pts[:, 1] + H[2, 2]) <= 0:
            return float("inf")
        return float(np.max(span(H) / avail))

    wanted = s_px_mm
    unfit = s_px_mm
    for _ in range(4):
        H = homography(s_px_mm)
        shrink = float(np.min(avail / span(H)))
        if shrink >= 0.999:
            break
        unfit = s_px_mm
        s_px_mm *= shrink * 0.995
    if largest_fit and s_px_mm < wanted and fill(H) < 0.5:
        # overshot: the largest scale that fits, between the last that fit and the last
        # that did not
        lo, hi = s_px_mm, unfit
        for _ in range(40):
            mid = float(np.sqrt(lo * hi))
            lo, hi = (mid, hi) if fill(homography(mid)) <= 0.995 else (lo, mid)
        s_px_mm = lo
        H = homography(s_px_mm)
    proj = project(H, pts)
    lo, hi = proj.min(0), proj.max(0)
    size = hi - lo
    slack = np.maximum(avail - size, 0)
    want = np.array([width, height]) / 2 - (lo + hi) / 2
    want += rng.uniform(-1, 1, 2) * np.minimum(slack / 2, np.array([width, height]) * centre_jitter)
    H = np.array([[1, 0, want[0]], [0, 1, want[1]], [0, 0, 1]]) @ H
    return Camera(H, width, height, tilt_deg, yaw_deg, s_px_mm)
