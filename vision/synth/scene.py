"""Render one table photo from a plan: table, distractors, cards, light and lens.

Cards are warped one by one into their bounding box with ``cv2.warpPerspective``; an int16
id map records which card (or distractor) owns every pixel, so each card's visible fraction
comes from the real occlusion, not from geometry.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth import distractors as dis
from vision.synth.art import ArtPool, Texture
from vision.synth.camera import Camera, frame_cards, project
from vision.synth.decks import (
    ART_PX_PER_MM,
    CARD_H_MM,
    CARD_H_PX,
    CARD_W_MM,
    CARD_W_PX,
    CORNER_RADIUS_MM,
)
from vision.synth.layouts import all_corners
from vision.synth.lighting import lens, light
from vision.synth.plans import CardSpec, Plan
from vision.synth.print_effects import rounded_rect_pts
from vision.synth.tables import render_table, table_edge

OCCLUDER = -2  # id-map value of distractors lying on top of cards
_OUTLINE = rounded_rect_pts(
    -CARD_W_MM / 2, -CARD_H_MM / 2, CARD_W_MM / 2, CARD_H_MM / 2, CORNER_RADIUS_MM, 6
)
# level-0 texel index -> card-local mm (texel centres at +0.5)
_A_CARD = np.array(
    [
        [1 / ART_PX_PER_MM, 0, 0.5 / ART_PX_PER_MM - CARD_W_MM / 2],
        [0, 1 / ART_PX_PER_MM, 0.5 / ART_PX_PER_MM - CARD_H_MM / 2],
        [0, 0, 1],
    ]
)


@dataclass
class Rendered:
    """A rendered scene before labelling: float image, camera and per-card occlusion."""

    image: np.ndarray  # H x W x 3 float32 BGR
    camera: Camera
    corners: np.ndarray  # (n, 4, 2) px, TL TR BR BL of the art
    visible_fraction: np.ndarray  # (n,)
    effects: dict[str, float]


def _pose_matrix(pose: np.ndarray) -> np.ndarray:
    x, y, a = pose
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, x], [s, c, y], [0, 0, 1]])


def _texture(
    pool: ArtPool,
    card: CardSpec,
    rng: np.random.Generator,
    prints: dict[tuple[object, ...], Texture],
) -> Texture:
    """The card's picture; all cards of one deck in a scene share one print, as in a box."""
    if card.random_art:
        return pool.random(card.art_key)
    key: tuple[object, ...] = (
        ("back", card.deck) if card.side == "back" else ("face", card.color, card.value)
    )
    if key not in prints:
        prints[key] = (
            pool.back(str(card.deck), rng)
            if card.side == "back"
            else pool.face(str(card.color), int(card.value or 0), rng)
        )
    return prints[key]


MIN_CARD_PX = 40.0  # cards are about 40 to 400 px long; smaller ones lose their deck


def sample_camera(
    plan: Plan,
    w: int,
    h: int,
    rng: np.random.Generator,
    card_scale: float = 1.0,
    largest_fit: bool = False,
) -> Camera:
    """A camera framing all of ``plan``'s cards (tilt 0-50 deg, rotation per the plan), the
    cards ``card_scale`` times the plan's length in pixels; ``largest_fit``: see
    `vision.synth.camera.frame_cards`."""
    n = len(plan.cards)
    if n:
        corners_mm = all_corners(np.array([c.pose for c in plan.cards]))
    else:
        corners_mm = np.array([[[-50.0, -50.0], [50.0, 50.0]]])
    lo, hi = plan.card_len_px
    card_len = card_scale * float(np.exp(rng.uniform(np.log(lo), np.log(hi))))
    tilt = float(50 * rng.beta(1.4, 1.6))
    yaw = float(rng.uniform(*plan.yaw_deg))
    pts = corners_mm.reshape(-1, 2)
    return frame_cards(pts, card_len, w, h, rng, tilt, yaw, largest_fit=largest_fit)


def _place_patch_mm(
    cam: Camera, rng: np.random.Generator, floor: np.ndarray | None = None
) -> np.ndarray:
    """A random table point seen in the frame (image point mapped back to the table), off
    the ``floor`` where part of the picture shows the floor."""
    for _ in range(8):
        uv = np.array([rng.uniform(0, cam.width), rng.uniform(0, cam.height)])
        if floor is None or not floor[int(uv[1]), int(uv[0])]:
            break
    return project(np.linalg.inv(cam.H), uv[None])[0]


def fit_plan(
    plan: Plan, w: int, h: int, rng: np.random.Generator, card_scale: float = 1.0
) -> Camera:
    """Sample a camera; while the cards would come out too small, take a loose group off the
    table and try again (some players' cards out of the picture).

    Cards must be at least ``MIN_CARD_PX`` long; one scene in five with several groups is a
    closer shot (cards 60-200 px), as when a player photographs only their own cards. With a
    ``card_scale``, every length in pixels is that many times larger.
    """
    min_len = MIN_CARD_PX
    if len(plan.groups) > 1 and rng.random() < 0.2:
        min_len = float(np.exp(rng.uniform(np.log(60), np.log(200))))
    cam = sample_camera(plan, w, h, rng, card_scale)
    while cam.px_per_mm * 87.0 < min_len * card_scale and plan.drop_group(rng):
        cam = sample_camera(plan, w, h, rng, card_scale)
    return cam


def render(
    plan: Plan,
    pool: ArtPool,
    tile: np.ndarray,
    width: int,
    height: int,
    min_visible: float,
    rng: np.random.Generator,
    clean: bool = False,
    camera: Camera | None = None,
    hard: bool = False,
) -> Rendered:
    """Draw ``plan`` as a photo. Every card is drawn; labelling decides which are visible.

    ``clean`` leaves out distractors, shadows, light and lens effects (for tests); ``camera``
    replaces the sampled one; ``hard`` adds specular glare patches and takes the photo as
    a phone or webcam in trouble would (:mod:`vision.synth.photo_hard`).
    """
    n = len(plan.cards)
    cam = camera if camera is not None else sample_camera(plan, width, height, rng)
    img = render_table(tile, cam, rng).astype(np.float32)
    idmap = np.full((height, width), -1, np.int16)
    floor = None
    if n and not clean and rng.random() < 0.15:
        floor = table_edge(img, cam, all_corners(np.array([c.pose for c in plan.cards])), rng)

    # paper and phones lie under the cards
    for kind, p in (("paper", 0.25), ("phone", 0.15)):
        if not clean and rng.random() < p:
            maker = dis.paper if kind == "paper" else dis.phone
            maker(cam, _place_patch_mm(cam, rng, floor), rng).composite(img)

    light_dir = rng.uniform(0, 2 * np.pi)
    shadow_strength = 0.0 if clean else rng.uniform(0.15, 0.5)
    shadow_len = rng.uniform(0.004, 0.025)
    sdir = np.array([np.cos(light_dir), np.sin(light_dir)])
    card_px = cam.px_per_mm * 87.0
    prints: dict[tuple[object, ...], Texture] = {}
    # geometry of every card at once: corners, rounded outline, true area in pixels
    poses = np.array([c.pose for c in plan.cards], np.float64).reshape(-1, 3)
    corners_px = project(cam.H, all_corners(poses))
    cos, sin = np.cos(poses[:, 2:3]), np.sin(poses[:, 2:3])
    ox = _OUTLINE[None, :, 0] * cos - _OUTLINE[None, :, 1] * sin + poses[:, 0:1]
    oy = _OUTLINE[None, :, 0] * sin + _OUTLINE[None, :, 1] * cos + poses[:, 1:2]
    outlines = project(cam.H, np.stack([ox, oy], -1))
    ux, uy = outlines[..., 0], outlines[..., 1]
    shoelace = (ux * np.roll(uy, -1, 1) - np.roll(ux, -1, 1) * uy).sum(1)
    full_area = np.maximum(1.0, 0.5 * np.abs(shoelace))
    card_lens = np.linalg.norm(corners_px[:, 3] - corners_px[:, 0], axis=-1)
    out_lo = np.floor(outlines.min(1)).astype(int)
    out_hi = np.ceil(outlines.max(1)).astype(int)
    for k, card in enumerate(plan.cards):
        P = cam.H @ _pose_matrix(card.pose)
        card_len = float(card_lens[k])
        sh = sdir * card_len * shadow_len * card.elevation
        blur = max(3, int(card_len * 0.05) | 1)
        pad = int(np.ceil(np.abs(sh).max() + blur)) + 2
        x0, y0 = max(0, int(out_lo[k, 0]) - pad), max(0, int(out_lo[k, 1]) - pad)
        x1, y1 = min(width, int(out_hi[k, 0]) + pad), min(height, int(out_hi[k, 1]) + pad)
        if x1 <= x0 or y1 <= y0:
            continue
        tex = _texture(pool, card, rng, prints)
        px_per_texel = np.sqrt(full_area[k] / (CARD_W_PX * CARD_H_PX))
        level, f = tex.level_for(px_per_texel)
        A_lvl = np.array([[1 / f, 0, 0.5 / f - 0.5], [0, 1 / f, 0.5 / f - 0.5], [0, 0, 1]])
        T = np.array([[1, 0, -0.5 - x0], [0, 1, -0.5 - y0], [0, 0, 1]])
        M = T @ P @ _A_CARD @ A_lvl
        warped = cv2.warpPerspective(
            level,
            M,
            (x1 - x0, y1 - y0),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
        a = warped[..., 3].astype(np.float32) * (1 / 255)
        roi = img[y0:y1, x0:x1]
        # soft drop shadow on what lies below
        dx, dy = int(round(sh[0])), int(round(sh[1]))
        shadow = np.zeros_like(a)
        hh, ww = a.shape
        shadow[max(0, dy) : hh + min(0, dy), max(0, dx) : ww + min(0, dx)] = a[
            max(0, -dy) : hh - max(0, dy), max(0, -dx) : ww - max(0, dx)
        ]
        shadow = cv2.blur(shadow, (blur, blur))
        keep = (1 - shadow_strength * shadow) * (1 - a)  # what shows of the pixels below
        gain = rng.normal(1.0, 0.012, 3).astype(np.float32) * np.float32(rng.uniform(0.92, 1.03))
        if clean:
            gain[:] = 1.0
        roi *= keep[..., None]
        roi += warped[..., :3] * gain
        idmap[y0:y1, x0:x1][a > 0.5] = k

    # coins, pens, hands and phones on top - never hiding a card below the threshold
    vis_count = np.bincount((idmap.ravel() + 2), minlength=n + 2)[2:].astype(np.float64)
    keep_above = np.where(vis_count / full_area >= min_visible, min_visible + 0.03, 0.0)
    overlays: list[tuple[str, float]] = [
        ("coin", 0.35),
        ("pen", 0.25),
        ("hand", 0.2),
        ("phone", 0.08),
    ]
    for kind, p in overlays:
        if clean or rng.random() >= p:
            continue
        for _ in range(int(rng.integers(1, 5)) if kind == "coin" else 1):
            c = _place_patch_mm(cam, rng, floor)
            if kind == "coin":
                patch = dis.coin(cam, c, rng)
            elif kind == "pen":
                patch = dis.pen(cam, c, rng)
            elif kind == "phone":
                patch = dis.phone(cam, c, rng)
            else:
                ctr = project(np.linalg.inv(cam.H), np.array([[width / 2, height / 2]]))[0]
                patch = dis.hand(cam, c, rng, float(np.arctan2(*(ctr - c)[::-1])))
            ph, pw = patch.alpha.shape
            sub = idmap[patch.y0 : patch.y0 + ph, patch.x0 : patch.x0 + pw]
            hit = sub[patch.alpha > 0.5]
            lost = np.bincount(hit + 2, minlength=n + 2)[2:]
            if np.any((vis_count - lost) / full_area < keep_above):
                continue
            # things on top cast a shadow by their height: a hand most, a coin least
            lift = {"hand": 0.3, "phone": 0.03, "pen": 0.04, "coin": 0.015}[kind] * card_px
            patch.composite(img, (sdir[0] * lift, sdir[1] * lift), shadow_strength * 1.2)
            sub[patch.alpha > 0.5] = OCCLUDER
            vis_count -= lost

    vis = np.clip(vis_count / full_area, 0, 1)
    effects: dict[str, float] = {}
    if not clean:
        effects = light(img, idmap, rng)
        if hard:
            from vision.synth.photo_hard import hard_lens, specular_patches

            effects.update(specular_patches(img, idmap, rng))
            effects.update(hard_lens(img, rng))
        else:
            effects.update(lens(img, rng))
    return Rendered(img, cam, corners_px, vis, effects)
