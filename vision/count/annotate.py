"""Drawing a count: numbered card outlines coloured per deck and a legend with counts."""

from __future__ import annotations

import cv2
import numpy as np

from vision.core.cards import BACK

# Outline colours (BGR), one per deck of a profile, in profile order; distinct even when
# two decks share an ink, so a reader can tell a pump from a blue pump.
DECK_PALETTE_BGR: tuple[tuple[int, int, int], ...] = (
    (60, 170, 40),
    (40, 40, 220),
    (200, 110, 30),
    (0, 200, 240),
    (230, 60, 150),
    (20, 120, 255),
    (200, 200, 0),
    (130, 0, 130),
    (90, 90, 200),
    (150, 220, 120),
)
UNKNOWN_BGR = (255, 0, 255)
OTHER_GAME_BGR = (120, 120, 120)
FACE_BGR = (170, 170, 170)
POSSIBLE_BGR = (0, 0, 0)
SPREAD_BGR = (0, 0, 230)


def dashed_quad(
    image: np.ndarray, quad: np.ndarray, colour: tuple[int, int, int], thick: int, dash_px: float
) -> None:
    """Draw a closed quad in dashes of about ``dash_px`` (gaps as long) onto ``image``."""
    pts = np.asarray(quad, np.float64)
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        length = float(np.linalg.norm(b - a))
        steps = max(1, int(length // (2 * dash_px)))
        for k in range(steps):
            p0 = a + (b - a) * (2 * k) / (2 * steps)
            p1 = a + (b - a) * (2 * k + 1) / (2 * steps)
            cv2.line(
                image,
                (round(p0[0]), round(p0[1])),
                (round(p1[0]), round(p1[1])),
                colour,
                thick,
                cv2.LINE_AA,
            )


class CountAnnotator:
    """Draws a :class:`vision.count.counter.Count` onto a copy of its image.

    Args:
        line_px: outline thickness at a 1000 px image (scaled with the image).
        show_faces: outline face-up cards too (in grey).
    """

    def __init__(self, line_px: float = 2.0, show_faces: bool = True) -> None:
        if line_px <= 0:
            raise ValueError("line_px must be positive")
        self.line_px = line_px
        self.show_faces = show_faces

    def colour(self, decks: tuple[str, ...], deck: str | None) -> tuple[int, int, int]:
        if deck is None:
            return UNKNOWN_BGR
        return DECK_PALETTE_BGR[decks.index(deck) % len(DECK_PALETTE_BGR)]

    def annotate(self, scene: np.ndarray, count: object) -> np.ndarray:
        """A copy of ``scene`` (BGR) with ``count``'s cards and legend drawn on it."""
        from vision.count.result import Count

        assert isinstance(count, Count)
        out = scene.copy()
        h, w = out.shape[:2]
        unit = max(h, w) / 1000.0
        thick = max(1, round(self.line_px * unit))
        font_scale = max(0.35, 0.45 * unit)
        cards = count.cards
        uncertain = set(count.uncertain)
        elsewhere = set(count.other_game)
        possible = count.possible.corners if count.possible is not None else np.zeros((0, 4, 2))
        for corners in possible:
            # Black dashes on a white outline: seen on light and dark cards alike.
            quad = np.round(corners).astype(np.int32)
            cv2.polylines(out, [quad], True, (255, 255, 255), thick, cv2.LINE_AA)
            dashed_quad(out, corners, POSSIBLE_BGR, thick, 6 * unit)
            self._label(out, "+?", corners.mean(axis=0), POSSIBLE_BGR, font_scale)
        for heap in count.spread_json():
            box = np.asarray(heap["corners"], np.float32)
            centre = box.mean(axis=0)
            grown = centre + (box - centre) * 1.08
            dashed_quad(out, grown, SPREAD_BGR, thick * 2, 10 * unit)
            top = np.array([centre[0], grown[:, 1].min() - 12 * unit])
            self._label(out, "spread these cards out", top, SPREAD_BGR, font_scale)
        for i in range(len(cards)):
            is_back = cards.side[i] == BACK
            if not is_back and not self.show_faces:
                continue
            colour = self.colour(count.decks, cards.deck[i]) if is_back else FACE_BGR
            if (i + 1) in elsewhere:
                # another game's card: grey dashes, so the eye passes over it
                colour = OTHER_GAME_BGR
                dashed_quad(out, cards.corners[i], colour, thick, 8 * unit)
                self._label(out, str(i + 1), cards.corners[i].mean(axis=0), colour, font_scale)
                continue
            quad = np.round(cards.corners[i]).astype(np.int32)
            cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
            label = str(i + 1) + ("?" if (i + 1) in uncertain else "")
            self._label(out, label, cards.corners[i].mean(axis=0), colour, font_scale)
        return self._legend(out, count, unit)

    @staticmethod
    def _label(
        out: np.ndarray,
        label: str,
        centre: np.ndarray,
        colour: tuple[int, int, int],
        font_scale: float,
    ) -> None:
        """``label`` on a white box centred on ``centre``, moved within the image where
        it would run off it (a heap reaching the top of the photo)."""
        cx, cy = centre
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, 1)
        h, w = out.shape[:2]
        x = min(max(int(cx - tw / 2), 2), max(2, w - tw - 3))
        y = min(max(int(cy + th / 2), th + 2), max(th + 2, h - 4))
        org = (x, y)
        cv2.rectangle(
            out, (org[0] - 2, org[1] - th - 2), (org[0] + tw + 2, org[1] + 3), (255, 255, 255), -1
        )
        cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, 1, cv2.LINE_AA)

    def _legend(self, out: np.ndarray, count: object, unit: float) -> np.ndarray:
        from vision.count.result import Count

        assert isinstance(count, Count)
        ranges = count.ranges
        rows = [
            (f"{deck}: {count_text(n, ranges[deck])}", self.colour(count.decks, deck))
            for deck, n in count.counts.items()
        ]
        rows.append((f"unknown: {count.unknown}", UNKNOWN_BGR))
        if count.other_game:
            rows.append((f"other games' cards: {len(count.other_game)}", OTHER_GAME_BGR))
        if count.uncertain:
            rows.append((f"uncertain: {len(count.uncertain)} (marked ?)", (0, 0, 0)))
        if count.spread:
            rows.append((f"too tight to count: {len(count.spread)} heap(s)", SPREAD_BGR))
        if count.possible is not None and len(count.possible):
            rows.append((f"possible, not counted: {len(count.possible)} (+?)", POSSIBLE_BGR))
        scale = max(0.4, 0.5 * unit)
        line_h = int(22 * max(unit, 0.8))
        width = max(cv2.getTextSize(t, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)[0][0] for t, _ in rows)
        box_w, box_h = width + line_h + 16, line_h * len(rows) + 10
        overlay = out.copy()
        cv2.rectangle(overlay, (4, 4), (4 + box_w, 4 + box_h), (255, 255, 255), -1)
        out = cv2.addWeighted(overlay, 0.8, out, 0.2, 0)
        for k, (text, colour) in enumerate(rows):
            y = 4 + 5 + line_h * k
            cv2.rectangle(out, (10, y + 4), (10 + line_h - 8, y + line_h - 4), colour, -1)
            cv2.putText(
                out,
                text,
                (10 + line_h, y + line_h - 6),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (0, 0, 0),
                1,
                cv2.LINE_AA,
            )
        return out


def count_text(n: int, span: tuple[int, int]) -> str:
    """A count with its range when it has one: ``6`` or ``6 (5-7)``."""
    lo, hi = span
    return str(n) if lo == hi else f"{n} ({lo}-{hi})"
