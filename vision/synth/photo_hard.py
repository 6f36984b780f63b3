"""Hard photos: the frames, lenses and troubles of real phones and webcams.

Used by the ``hard`` scene kind. A :class:`HardFrame` picks the picture's shape (16:9 video
frames or 4:3 photos, up to 4032 x 3024), the card size in pixels and the JPEG quality; the
camera may be a wide phone lens tilted up to 35 degrees; the photo may be dim and noisy,
shaken, or hit by specular glare. None of this moves a card: labels stay exact.

All image functions work in place on float32 BGR in 0..255 and draw only from ``rng``.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.camera import Camera, frame_cards
from vision.synth.layouts import all_corners
from vision.synth.plans import Plan

MIN_CARD_PX = 40.0
MAX_TILT_DEG = 35.0


@dataclass(frozen=True)
class HardFrame:
    """The picture a hard scene is taken as."""

    width: int
    height: int
    card_len_px: tuple[float, float]  # long side of a card at the middle of the table, px
    jpeg_quality: int


def hard_frame(imgsz: int, rng: np.random.Generator) -> HardFrame:
    """A 16:9 webcam or video frame (half the scenes) or a 4:3 phone photo, ``imgsz`` px on
    the long side, one in seven upright. Cards are small (60-150 px, the table seen from a
    distance) in two scenes of three, else about 1/16 to 1/5 of the long side. JPEG quality
    55-65 in half the scenes (a messaging app's recompression), else 65-90."""
    wide = rng.random() < 0.5
    short = int(round(imgsz * (9 / 16 if wide else 3 / 4)))
    w, h = (short, imgsz) if rng.random() < 0.15 else (imgsz, short)
    if rng.random() < 0.65:
        card = (60.0, 150.0)
    else:
        card = (max(60.0, imgsz / 16), max(120.0, imgsz / 5))
    q = int(rng.integers(55, 66)) if rng.random() < 0.5 else int(rng.integers(65, 91))
    return HardFrame(w, h, card, q)


def hard_camera(plan: Plan, frame: HardFrame, rng: np.random.Generator) -> Camera:
    """A camera for ``plan`` in ``frame``: tilt 0-35 degrees (mostly 20-35), any rotation, a
    wide phone lens in three scenes of five. While cards would come out under 40 px, a loose
    group is taken off the table, as in the other kinds."""

    def sample() -> Camera:
        if plan.cards:
            pts = all_corners(np.array([c.pose for c in plan.cards])).reshape(-1, 2)
        else:
            pts = np.array([[-50.0, -50.0], [50.0, 50.0]])
        lo, hi = frame.card_len_px
        card_len = float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
        tilt = float(MAX_TILT_DEG * rng.beta(1.6, 1.1))
        yaw = float(rng.uniform(0, 360))
        k = float(rng.uniform(1.15, 2.0) if rng.random() < 0.6 else rng.uniform(1.9, 3.2))
        return frame_cards(pts, card_len, frame.width, frame.height, rng, tilt, yaw, k_dist=k)

    cam = sample()
    while cam.px_per_mm * 87.0 < MIN_CARD_PX and plan.drop_group(rng):
        cam = sample()
    return cam


def specular_patches(
    img: np.ndarray, idmap: np.ndarray, rng: np.random.Generator
) -> dict[str, float]:
    """In half the scenes, 1-3 sharp reflections of a window or lamp: bright, often
    clipping to white, strongest on the glossy cards (``idmap`` >= 0), softer on the table."""
    if rng.random() >= 0.5:
        return {"glare_patches": 0.0, "glare_peak": 0.0}
    h, w = img.shape[:2]
    n = int(rng.integers(1, 4))
    on_cards = np.flatnonzero(idmap.ravel() >= 0)
    table_gloss = float(rng.uniform(0.1, 0.5))
    tint = np.array([1.0, 1.0, 1.0], np.float32) + rng.normal(0, 0.04, 3).astype(np.float32)
    peak = 0.0
    for _ in range(n):
        if len(on_cards) and rng.random() < 0.8:  # reflections are seen on the cards
            cy, cx = divmod(int(on_cards[int(rng.integers(len(on_cards)))]), w)
        else:
            cx, cy = int(rng.integers(w)), int(rng.integers(h))
        a = min(h, w) * rng.uniform(0.02, 0.12)
        b = a * rng.uniform(0.3, 1.0)
        p = rng.uniform(2.0, 6.0)  # 2: a round lamp; 6: a window's rounded rectangle
        th = rng.uniform(0, np.pi)
        feather = rng.uniform(0.15, 0.5)
        level = float(rng.uniform(120, 320))
        peak = max(peak, level)
        r = int(np.ceil(max(a, b) * 1.05)) + 1
        x0, x1, y0, y1 = max(0, cx - r), min(w, cx + r), max(0, cy - r), min(h, cy + r)
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        dx, dy = xx - cx, yy - cy
        u = (dx * np.cos(th) + dy * np.sin(th)) / a
        v = (-dx * np.sin(th) + dy * np.cos(th)) / b
        d = (np.abs(u) ** p + np.abs(v) ** p) ** (1 / p)
        t = np.clip((1 - d) / feather, 0, 1)
        glow = t * t * (3 - 2 * t)  # smoothstep: a sharp but not aliased edge
        gloss = np.where(idmap[y0:y1, x0:x1] >= 0, 1.0, table_gloss).astype(np.float32)
        img[y0:y1, x0:x1] += (glow * gloss * level)[..., None] * tint
    return {"glare_patches": float(n), "glare_peak": peak}


def _shake_kernel(length: int, rng: np.random.Generator) -> np.ndarray:
    """A motion-blur kernel: a straight streak, or a bent one (a hand that shook twice)."""
    size = length | 1
    k = np.zeros((size, size), np.float32)
    c = (size - 1) / 2
    a = rng.uniform(0, np.pi)
    pts = [np.array([c, c]) - np.array([np.cos(a), np.sin(a)]) * length / 2]
    bends = 2 if rng.random() < 0.4 else 1
    for _ in range(bends):
        a += rng.normal(0, 0.6) if bends == 2 else 0.0
        pts.append(pts[-1] + np.array([np.cos(a), np.sin(a)]) * length / bends)
    p = np.round(np.asarray(pts) * 16).astype(np.int32)
    cv2.polylines(k, [p.reshape(-1, 1, 2)], False, 1.0, 1, cv2.LINE_AA, 4)
    return k / max(float(k.sum()), 1e-6)


def hard_lens(img: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """Optics, sensor and phone processing of a hard photo, in place: defocus, hand shake
    (0.3-1.2 % of the long side), low light (exposure 0.1-0.35 with shot and read noise,
    then the phone's gain and chroma denoising) or ordinary sensor noise, sharpening."""
    h, w = img.shape[:2]
    scale = max(1.0, max(h, w) / 1280)  # blur radii grow with the sensor's pixel count
    sigma = float(rng.uniform(0, 1.2) * scale) if rng.random() < 0.6 else 0.0
    if sigma > 0.2:
        cv2.GaussianBlur(img, (0, 0), sigma, dst=img)
    motion = 0
    if rng.random() < 0.35:
        motion = max(3, int(max(h, w) * rng.uniform(0.003, 0.012)))
        cv2.filter2D(img, -1, _shake_kernel(motion, rng), dst=img)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))  # cv2's generator, seeded from rng: fast
    exposure, denoise = 1.0, 0.0
    if rng.random() < 0.4:
        exposure = float(rng.uniform(0.1, 0.35))
        img *= np.float32(exposure)
        if rng.random() < 0.6:  # a tungsten bulb
            img *= np.array([0.8, 0.97, 1.15], np.float32)
        shot, read = float(rng.uniform(0.4, 1.5)), float(rng.uniform(1.0, 3.0))
        sd = cv2.sqrt(np.maximum(img, 0) * np.float32(shot) + np.float32(read**2))
        noise = np.empty_like(img)
        cv2.randn(noise, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
        img += noise * sd
        del noise, sd
        gain = float(rng.uniform(0.55, 0.95) / exposure)
        img *= np.float32(gain)
        level = float(np.sqrt(shot * 128 * exposure + read**2) * gain)
        if rng.random() < 0.6:  # the phone smooths colour noise into blotches
            denoise = float(rng.uniform(1.5, 3.5) * scale)
            ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
            for ch in (1, 2):
                ycc[..., ch] = cv2.GaussianBlur(ycc[..., ch], (0, 0), denoise)
            ycc[..., 0] = cv2.GaussianBlur(ycc[..., 0], (0, 0), 0.6)
            cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR, dst=img)
    else:
        level = float(rng.uniform(1, 8))
        lum = np.empty((h, w), np.float32)
        cv2.randn(lum, 0.0, level)
        img += lum[..., None]
    if rng.random() < 0.4:
        amount = rng.uniform(0.3, 1.0)
        soft = cv2.GaussianBlur(img, (0, 0), 1.2 * scale)
        cv2.addWeighted(img, 1 + amount, soft, -amount, 0.0, dst=img)
    return {
        "blur_sigma": sigma,
        "motion_px": float(motion),
        "exposure": exposure,
        "noise": level,
        "denoise": denoise,
    }
