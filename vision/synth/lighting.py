"""Light and lens: gradients, colour temperature, glare, shadows, blur, sensor noise.

All functions work on float32 BGR images in 0..255 and draw from the given rng only.
"""

from __future__ import annotations

import cv2
import numpy as np


def _smooth_field(h: int, w: int, rng: np.random.Generator, cells: int) -> np.ndarray:
    g = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def light(img: np.ndarray, idmap: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """Room light in place: brightness gradient, vignette, colour cast, glare and a cast
    shadow. ``idmap`` >= 0 marks card pixels, which are glossy: glare is strongest there."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    xx /= w
    yy /= h
    a = rng.uniform(0, 2 * np.pi)
    slope = rng.uniform(0, 0.5)
    gain = 1 + slope * ((xx - 0.5) * np.cos(a) + (yy - 0.5) * np.sin(a))
    vig = rng.uniform(0, 0.5)
    gain -= vig * ((xx - 0.5) ** 2 + (yy - 0.5) ** 2)
    gain *= rng.uniform(0.65, 1.15) if rng.random() < 0.9 else rng.uniform(1.15, 1.35)
    if rng.random() < 0.3:  # a soft shadow of a person or a lamp arm across the table
        c = rng.uniform(0, 1, 2)
        r = rng.uniform(0.15, 0.5)
        d = np.hypot(xx - c[0], (yy - c[1]) * h / w) / r
        gain *= 1 - rng.uniform(0.2, 0.45) * np.clip(1.5 - d, 0, 1)
    # colour temperature: warm bulbs push red, daylight and screens push blue
    temp = rng.normal(0, 0.12)
    cast = np.array([1 - temp, 1 + rng.normal(0, 0.03), 1 + temp], np.float32)
    img *= cv2.resize(gain[..., None] * cast, (w, h), interpolation=cv2.INTER_LINEAR)
    glare = 0.0
    if rng.random() < 0.45:
        glare = float(rng.uniform(30, 140))
        c = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
        sx, sy = rng.uniform(0.05, 0.3) * w, rng.uniform(0.03, 0.2) * h
        th = rng.uniform(0, np.pi)
        yy2, xx2 = np.mgrid[0:h:4, 0:w:4].astype(np.float32)
        dx, dy = xx2 - c[0], yy2 - c[1]
        u = dx * np.cos(th) + dy * np.sin(th)
        v = -dx * np.sin(th) + dy * np.cos(th)
        blob = np.exp(-0.5 * ((u / sx) ** 2 + (v / sy) ** 2)).astype(np.float32)
        blob = cv2.resize(blob, (w, h), interpolation=cv2.INTER_LINEAR)
        gloss = cv2.blur((idmap >= 0).astype(np.float32), (5, 5))
        blob *= glare * (0.25 + 0.75 * gloss)
        img += blob[..., None]
    return {"temperature": float(temp), "glare": glare, "gradient": float(slope)}


def lens(img: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    """Defocus or motion blur, sometimes phone sharpening, then sensor noise. In place."""
    sigma = float(rng.uniform(0, 1.3)) if rng.random() < 0.7 else 0.0
    if sigma > 0.2:
        cv2.GaussianBlur(img, (0, 0), sigma, dst=img)
    depth = 0.0
    if rng.random() < 0.25:
        # shallow depth of field on a tilted view: sharp band, softer towards one side
        depth = float(rng.uniform(0.8, 2.2))
        h, w = img.shape[:2]
        a = rng.uniform(0, 2 * np.pi)
        ramp = (np.arange(w, dtype=np.float32)[None, :] / w - 0.5) * np.float32(np.cos(a)) + (
            np.arange(h, dtype=np.float32)[:, None] / h - 0.5
        ) * np.float32(np.sin(a))
        m = np.clip((ramp - rng.uniform(-0.2, 0.3)) * 2.5, 0, 1)[..., None]
        soft = cv2.GaussianBlur(img, (0, 0), depth)
        soft -= img
        soft *= m
        img += soft
    motion = 0
    if rng.random() < 0.12:
        motion = int(rng.integers(3, 8))
        k = np.zeros((motion, motion), np.float32)
        k[motion // 2] = 1 / motion
        rot = cv2.getRotationMatrix2D(((motion - 1) / 2, (motion - 1) / 2), rng.uniform(0, 180), 1)
        k = cv2.warpAffine(k, rot, (motion, motion))
        k /= max(float(k.sum()), 1e-6)
        cv2.filter2D(img, -1, k, dst=img)
    if rng.random() < 0.3:
        amount = rng.uniform(0.3, 0.9)
        soft = cv2.GaussianBlur(img, (0, 0), 1.2)
        cv2.addWeighted(img, 1 + amount, soft, -amount, 0.0, dst=img)
    noise = float(rng.uniform(1, 6)) if rng.random() < 0.9 else float(rng.uniform(6, 12))
    h, w = img.shape[:2]
    # cv2's generator is much faster than numpy's for a full frame; seeding it from ``rng``
    # keeps the scene deterministic (each worker process renders one scene at a time)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    lum = np.empty((h, w), np.float32)
    cv2.randn(lum, 0.0, noise)
    chroma = np.empty((h // 2, w // 2, 3), np.float32)
    cv2.randn(chroma, (0.0, 0.0, 0.0), (noise * 0.5,) * 3)
    img += lum[..., None]
    img += cv2.resize(chroma, (w, h), interpolation=cv2.INTER_NEAREST)
    return {"blur_sigma": sigma, "depth_blur": depth, "motion_px": float(motion), "noise": noise}
