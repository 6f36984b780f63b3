"""Random "foreign" card art for domain randomization: cards that are cards, but of no deck.

These teach the detector what a card is (a rounded rectangle with printed art) rather than
only our drawings. Most are back-like: a border and a motif, a full-bleed pattern, or a
smooth colour field. None carries a big index number, so none can pass for a face.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.etching import Pen, bezier
from vision.synth.print_effects import ink_on_paper, low_freq_noise, paper_color, rounded_rect_pts


def _rand_color(rng: np.random.Generator) -> np.ndarray:
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(60, 255), rng.integers(40, 230)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _motif(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    cov = np.zeros((h, w), np.float32)
    ppm = w / 56.0
    inset = rng.uniform(2, 6) * ppm
    bp = Pen(cov, (0, 0, w, h), rng, rng.uniform(0.3, 0.8) * ppm)
    bp._m, bp._c = np.eye(2), np.zeros(2)
    if rng.random() < 0.8:
        bp.line(rounded_rect_pts(inset, inset, w - inset, h - inset, 2 * ppm), 1.0, closed=True)
    side = w - 2 * inset
    box = (inset + side * 0.1, h / 2 - side * 0.6, w - inset - side * 0.1, h / 2 + side * 0.6)
    pen = Pen(cov, box, rng, rng.uniform(0.3, 0.7) * ppm, tilt_deg=rng.normal(0, 10))
    for _ in range(int(rng.integers(2, 9))):
        kind = rng.integers(0, 5)
        if kind == 0:
            pen.ellipse(rng.uniform(0.2, 0.8, 2), rng.uniform(0.05, 0.35, 2), rng.uniform(0.6, 2))
        elif kind == 1:
            n = int(rng.integers(3, 9))
            pts = rng.uniform(0.05, 0.95, (n, 2))
            pen.line(pts, rng.uniform(0.6, 2), closed=bool(rng.random() < 0.5))
        elif kind == 2:
            pen.line(bezier(rng.uniform(0, 1, (4, 2)), 30), rng.uniform(0.6, 2))
        elif kind == 3:
            poly = rng.uniform(0.1, 0.9, (int(rng.integers(3, 7)), 2))
            pen.hatch(
                pen.mask(poly),
                rng.uniform(0, 180),
                rng.uniform(1.2, 3) * ppm,
                cross=bool(rng.random() < 0.5),
            )
        else:
            k = int(rng.integers(3, 9))
            t = np.linspace(0, 2 * np.pi, 2 * k, endpoint=False)
            rr = np.where(np.arange(2 * k) % 2 == 0, 0.4, rng.uniform(0.1, 0.3))
            c = rng.uniform(0.35, 0.65, 2)
            pen.fill(
                np.stack([c[0] + rr * np.cos(t), c[1] + rr * np.sin(t)], 1), rng.uniform(0.4, 1)
            )
    return cov


def _pattern(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    a, b = _rand_color(rng), _rand_color(rng) if rng.random() < 0.5 else paper_color(rng)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    f = rng.uniform(0.08, 0.4)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    v = -xx * np.sin(ang) + yy * np.cos(ang)
    kind = rng.integers(0, 4)
    if kind == 0:
        t = (np.sin(u * f) > 0).astype(np.float32)
    elif kind == 1:
        t = ((np.sin(u * f) > 0) ^ (np.sin(v * f) > 0)).astype(np.float32)
    elif kind == 2:
        t = ((np.sin(u * f) * np.sin(v * f)) > rng.uniform(0.2, 0.6)).astype(np.float32)
    else:
        t = (np.abs(np.sin(u * f)) + np.abs(np.sin(v * f)) > 1).astype(np.float32)
    t = cv2.GaussianBlur(t, (3, 3), 0)[..., None]
    img = a * t + b * (1 - t)
    if rng.random() < 0.7:  # the white margin of most printed backs
        ppm = w / 56.0
        m = int(rng.uniform(1.5, 5) * ppm)
        paper = paper_color(rng)
        img[:m] = paper
        img[-m:] = paper
        img[:, :m] = paper
        img[:, -m:] = paper
    return img


def _ornament(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A mirror-symmetric ornament in a frame, as on most printed card backs; some carry a
    line of made-up lettering."""
    qh, qw = h // 2, w // 2
    quarter = np.zeros((qh, qw), np.float32)
    pen = Pen(quarter, (0, 0, qw * 2, qh * 2), rng, rng.uniform(0.8, 2.5))
    pen._m, pen._c = np.diag([float(qw), float(qh)]), np.array([qw / 2, qh / 2], np.float64)
    for _ in range(int(rng.integers(4, 12))):
        pts = rng.uniform(0.1, 1.0, (int(rng.integers(2, 5)), 2))
        if rng.random() < 0.5:
            pen.line(bezier(pts, 20) if len(pts) > 2 else pts, rng.uniform(0.6, 2.0))
        else:
            c = rng.uniform(0.2, 1.0, 2)
            pen.ellipse(c, rng.uniform(0.03, 0.2, 2), rng.uniform(0.6, 1.5))
    top = np.hstack([quarter, quarter[:, ::-1]])
    cov = np.vstack([top, top[::-1]])
    cov = cv2.resize(cov, (w, h), interpolation=cv2.INTER_LINEAR)
    ppm = w / 56.0
    frame = Pen(cov, (0, 0, w, h), rng, rng.uniform(0.3, 0.8) * ppm)
    frame._m, frame._c = np.eye(2), np.zeros(2)
    inset = rng.uniform(2, 5) * ppm
    frame.line(rounded_rect_pts(inset, inset, w - inset, h - inset, 2 * ppm), 1.0, closed=True)
    if rng.random() < 0.4:
        letters = "".join(rng.choice(list("ABCDEFGHKLMNPRSTVWXZ"), int(rng.integers(3, 9))))
        layer = np.zeros((h, w), np.uint8)
        font = cv2.FONT_HERSHEY_COMPLEX if rng.random() < 0.5 else cv2.FONT_HERSHEY_TRIPLEX
        scale = cv2.getFontScaleFromHeight(font, max(6, int(h * rng.uniform(0.04, 0.07))), 1)
        (tw, _), _ = cv2.getTextSize(letters, font, scale, 1)
        scale *= min(1.0, (w - 2 * inset - 8) / max(tw, 1))
        (tw, th), _ = cv2.getTextSize(letters, font, scale, 1)
        cv2.putText(
            layer,
            letters,
            ((w - tw) // 2, int(h * rng.uniform(0.12, 0.88))),
            font,
            scale,
            255,
            max(1, int(ppm * 0.5)),
            cv2.LINE_AA,
        )
        cov = np.maximum(cov, layer.astype(np.float32) / 255)
    return cov


def draw_random_card(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A card of no known deck, ``h`` x ``w`` BGR uint8."""
    kind = rng.random()
    if kind < 0.3:
        return ink_on_paper(_motif(rng, w, h), _rand_color(rng), paper_color(rng), rng)
    if kind < 0.55:
        return ink_on_paper(_ornament(rng, w, h), _rand_color(rng), paper_color(rng), rng)
    if kind < 0.85:
        img = _pattern(rng, w, h)
    else:
        img = np.empty((h, w, 3), np.float32)
        c0, c1 = _rand_color(rng), _rand_color(rng)
        t = low_freq_noise(h, w, rng, int(rng.integers(2, 6)))[..., None]
        img[:] = c0 * t + c1 * (1 - t)
    img += rng.normal(0, 2.5, (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)
