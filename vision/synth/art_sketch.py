"""Objects as geometry: the parts of a drawing, before any line work decides how to ink them.

A :class:`Sketch` collects :class:`Part` s in drawing order (later parts in front) in a
normalised art box: x right and y down, 0..1 across the box. Regions are closed outlines with
a tone (how dark the object is there, 0 light to 1 dark); strokes are open lines. The same
sketch can then be etched, hatched, stippled or cut as a solid silhouette
(:mod:`vision.synth.art_linework`), which is what lets one object library serve many decks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.synth.etching import bezier, ring

Points = Sequence[Sequence[float]] | np.ndarray


@dataclass(frozen=True)
class Part:
    """One piece of a drawing, in normalised art-box coordinates."""

    pts: np.ndarray  # (n, 2)
    closed: bool = True  # a region (outline and shading) or an open stroke
    tone: float = 0.5  # 0 light .. 1 dark: how much shading the region takes
    weight: float = 1.0  # line weight relative to the family's pen
    hole: bool = False  # a window or gap: paper inside, outlined


@dataclass
class Sketch:
    """Parts in drawing order; the helpers below are the primitives objects are built from."""

    parts: list[Part] = field(default_factory=list)

    def region(self, pts: Points, tone: float = 0.5, weight: float = 1.0) -> None:
        self.parts.append(Part(np.asarray(pts, np.float64), True, float(tone), weight))

    def hole(self, pts: Points, weight: float = 0.8) -> None:
        self.parts.append(Part(np.asarray(pts, np.float64), True, 0.0, weight, hole=True))

    def stroke(self, pts: Points, weight: float = 1.0) -> None:
        self.parts.append(Part(np.asarray(pts, np.float64), False, 1.0, weight))

    def curve(self, ctrl: Points, weight: float = 1.0, n: int = 24) -> None:
        """An open Bezier stroke through 2 to 4 control points."""
        self.stroke(bezier(ctrl, n), weight)

    def ellipse(
        self, c: Sequence[float], r: Sequence[float], tone: float = 0.5, weight: float = 1.0
    ) -> None:
        self.region(ring(c, r, 40), tone, weight)

    def rect(
        self, x0: float, y0: float, x1: float, y1: float, tone: float = 0.5, weight: float = 1.0
    ) -> None:
        self.region([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], tone, weight)

    def arc(
        self,
        c: Sequence[float],
        r: Sequence[float],
        a0: float,
        a1: float,
        weight: float = 1.0,
    ) -> None:
        """An open elliptical arc from ``a0`` to ``a1`` degrees (0 = right, 90 = down)."""
        t = np.deg2rad(np.linspace(a0, a1, max(6, int(abs(a1 - a0) / 8))))
        self.stroke(np.stack([c[0] + r[0] * np.cos(t), c[1] + r[1] * np.sin(t)], 1), weight)

    def lathe(
        self,
        profile: Points,
        cx: float = 0.5,
        tone: float = 0.5,
        weight: float = 1.0,
        n: int = 48,
    ) -> None:
        """A body of revolution seen from the side: ``profile`` lists (half width, y) from
        top to bottom; the outline is smoothed through those points and mirrored about x
        = ``cx``. Bottles, bells, vases, pails, lamps and acorns are all one lathe call."""
        p = np.asarray(profile, np.float64)
        y = np.linspace(p[0, 1], p[-1, 1], n)
        w = np.interp(y, p[:, 1], p[:, 0])
        # a light moving average rounds the shoulders without moving the ends
        k = np.ones(5) / 5
        w[2:-2] = np.convolve(w, k, "valid")
        right = np.stack([cx + w, y], 1)
        left = np.stack([cx - w[::-1], y[::-1]], 1)
        self.region(np.vstack([right, left]), tone, weight)

    def wheel(self, c: Sequence[float], r: float, spokes: int, aspect: float = 1.0) -> None:
        """A spoked wheel: rim (dark), hub and spokes."""
        self.ellipse(c, (r, r * aspect), 0.7, 1.3)
        self.hole(ring(c, (r * 0.82, r * 0.82 * aspect), 36), 0.7)
        for k in range(spokes):
            a = np.pi * k / spokes
            d = (np.cos(a) * r * 0.82, np.sin(a) * r * 0.82 * aspect)
            self.stroke([(c[0] - d[0], c[1] - d[1]), (c[0] + d[0], c[1] + d[1])], 0.7)
        self.ellipse(c, (r * 0.14, r * 0.14 * aspect), 0.8, 0.9)

    def star(
        self,
        c: Sequence[float],
        r_out: float,
        r_in: float,
        points: int,
        tone: float = 0.7,
        rot_deg: float = -90.0,
    ) -> None:
        t = np.deg2rad(rot_deg) + np.pi * np.arange(2 * points) / points
        rr = np.where(np.arange(2 * points) % 2 == 0, r_out, r_in)
        self.region(np.stack([c[0] + rr * np.cos(t), c[1] + rr * np.sin(t)], 1), tone)

    def blob(
        self,
        c: Sequence[float],
        r: Sequence[float],
        rng: np.random.Generator,
        wobble: float = 0.15,
        tone: float = 0.5,
    ) -> None:
        """A lumpy closed shape (a bush, a cloud, a cow's patch)."""
        t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        k = rng.normal(0, 1, 5)
        f = 1 + wobble * sum(k[j] * np.sin((j + 2) * t + k[-1]) for j in range(3)) / 2
        self.region(np.stack([c[0] + r[0] * f * np.cos(t), c[1] + r[1] * f * np.sin(t)], 1), tone)

    def ground(self, y: float, x0: float = 0.08, x1: float = 0.92) -> None:
        self.stroke([(x0, y), (x1, y)], 0.7)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper corner of everything drawn (normalised coordinates)."""
        allp = np.vstack([p.pts for p in self.parts])
        return allp.min(0), allp.max(0)

    def fitted(self, margin: float = 0.04) -> Sketch:
        """The same drawing moved and scaled (keeping its proportions) to fill the box, so
        objects drawn small or off-centre still print at the family's size."""
        lo, hi = self.bounds()
        size = float(max(hi - lo)) or 1.0
        s = (1 - 2 * margin) / size
        off = 0.5 - (lo + hi) / 2 * s
        return Sketch(
            [Part(p.pts * s + off, p.closed, p.tone, p.weight, p.hole) for p in self.parts]
        )
