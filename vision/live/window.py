"""The live window: the frame with each card outlined, and a panel with the steady counts.

Nothing here opens a window by itself: `has_display` says whether one can be opened (an
OpenCV ``imshow`` without a display aborts the whole process), `draw_window` draws a frame
into pixels, and `HighguiWindow` shows them and reads keys.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from vision.core.cards import BACK
from vision.core.types import Array
from vision.count.annotate import FACE_BGR, CountAnnotator, count_text
from vision.live.steady import HOLDING, NEW, STARTING, TOUCHED, UNDECIDED, UNSEEN
from vision.live.watch import Tick

PANEL_W_PX = 330
# The window is shown at most this wide (a 1280x720 frame and its panel fit a 1366 px
# laptop screen); snapshots keep the whole picture.
SHOW_MAX_W_PX = 1360
STEADY_BGR = (60, 160, 40)
SETTLING_BGR = (0, 140, 255)
ERROR_BGR = (0, 0, 210)
KEYS_HELP = (
    "d: Dutch count  b: Blitz count",
    "p: Dutch piles  t: give a pile's top",
    "e: give a player's count  a: accept",
    "c: commit  s: snapshot  q: quit",
)
TALLY_KEYS_HELP = ("u: undo the last card counted",)
# Under SETTLING, what the view waits for (`vision.live.steady.WAITING`), the first of them.
WAITING_TEXT = {
    STARTING: "first counts coming",
    TOUCHED: "a hand over the cards",
    UNSEEN: "a card out of sight",
    NEW: "a new card being seen",
    UNDECIDED: "a card's deck not yet sure",
    HOLDING: "a new count holding",
}
FLASH_BGR = (0, 200, 255)
MESSAGE_CHARS = 48  # a reply's line on the panel (font 0.42 in its 330 px)
TAKEN_CHARS = 44  # a line of the counts taken (font 0.45)
WINDOW_TITLE = "Tallero watch"


def has_display() -> bool:
    """Whether a window can be opened: a display to draw on and an OpenCV built with a GUI."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False
    gui = [ln for ln in cv2.getBuildInformation().splitlines() if ln.strip().startswith("GUI:")]
    return bool(gui) and gui[0].split(":", 1)[1].strip().upper() not in ("", "NONE")


@dataclass
class Panel:
    """What the panel says besides the counts.

    Attributes:
        rows: ``(deck id, label)`` per row: a player's name with their deck, or a deck.
        taken: lines about the counts taken so far (``Dutch: Ann 12, ...``).
        message: the last thing that happened (an error in red when ``error``).
        error: whether ``message`` is a fault.
        tally: with ``watch --tally``, one line per player: the cards counted while sorting.
        flash: cards just counted, to flash: ``(text, outline (4, 2) px)``.
        overlay: draws more on the frame, over the cards (the Dutch piles read with ``p``,
            while the picture still shows them); returns the frame drawn on.
    """

    rows: Sequence[tuple[str, str]]
    taken: list[str] = field(default_factory=list)
    message: str = ""
    error: bool = False
    tally: list[str] | None = None
    flash: list[tuple[str, Array]] = field(default_factory=list)
    overlay: Callable[[Array], Array] | None = None


def draw_window(tick: Tick, panel: Panel) -> Array:
    """The window's picture: the frame with the cards seen, beside the panel (BGR)."""
    view = tick.view
    frame = tick.image.copy()
    annotator = CountAnnotator()
    decks = view.count.decks
    h, w = frame.shape[:2]
    unit = max(h, w) / 1000.0
    thick = max(1, round(2 * unit))
    seen = view.seen
    for i in range(len(seen)):
        back = seen.side[i] == BACK
        colour = annotator.colour(decks, seen.deck[i]) if back else FACE_BGR
        quad = np.round(seen.corners[i]).astype(np.int32)
        cv2.polylines(frame, [quad], True, colour, thick, cv2.LINE_AA)
        label = str(i + 1)
        cx, cy = seen.corners[i].mean(axis=0)
        scale = max(0.4, 0.5 * unit)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        org = (int(cx - tw / 2), int(cy + th / 2))
        cv2.rectangle(
            frame, (org[0] - 2, org[1] - th - 2), (org[0] + tw + 2, org[1] + 3), (255, 255, 255), -1
        )
        cv2.putText(frame, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
    for text, outline in panel.flash:
        quad = np.round(outline).astype(np.int32)
        cv2.polylines(frame, [quad], True, FLASH_BGR, 3 * thick, cv2.LINE_AA)
        x, y = np.round(outline.min(axis=0)).astype(int)
        scale = max(0.5, 0.7 * unit)
        org = (max(0, int(x)), max(16, int(y) - 6))
        cv2.putText(frame, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(frame, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, FLASH_BGR, 2, cv2.LINE_AA)
    if panel.overlay is not None:
        frame = panel.overlay(frame)
    return np.hstack([frame, _panel(tick, panel, h, annotator)])


def _panel(tick: Tick, panel: Panel, height: int, annotator: CountAnnotator) -> Array:
    out = np.full((height, PANEL_W_PX, 3), 250, np.uint8)
    view = tick.view
    font = cv2.FONT_HERSHEY_SIMPLEX
    mark, colour = ("STEADY", STEADY_BGR) if view.steady else ("SETTLING", SETTLING_BGR)
    cv2.putText(out, mark, (12, 40), font, 1.0, colour, 2, cv2.LINE_AA)
    cv2.putText(out, f"{tick.fps:.1f} fps", (220, 40), font, 0.5, (60, 60, 60), 1, cv2.LINE_AA)
    if view.waiting:  # the first thing the view waits for
        why = WAITING_TEXT.get(view.waiting[0], view.waiting[0])
        cv2.putText(out, why, (12, 58), font, 0.42, SETTLING_BGR, 1, cv2.LINE_AA)
    if tick.count_delay_s > 0:  # how late the counts come (a slow machine: later)
        late = f"count {tick.count_delay_s:.2f} s"
        cv2.putText(out, late, (220, 58), font, 0.38, (90, 90, 90), 1, cv2.LINE_AA)
    y = 76
    counts, ranges = view.count.counts, view.count.ranges
    for deck, label in panel.rows:
        n = counts.get(deck, 0)
        text = f"{label}: {count_text(n, ranges.get(deck, (n, n)))}"
        cv2.rectangle(out, (12, y - 12), (24, y), annotator.colour(view.count.decks, deck), -1)
        cv2.putText(out, text, (32, y), font, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
        y += 22
    cv2.putText(out, f"unknown backs: {view.count.unknown}", (12, y), font, 0.5, (0, 0, 0), 1)
    y += 30
    if panel.tally is not None:
        cv2.putText(out, "Tally while sorting", (12, y), font, 0.55, (0, 0, 0), 1, cv2.LINE_AA)
        y += 22
        for line in panel.tally:
            cv2.putText(out, line[:44], (12, y), font, 0.5, (120, 60, 0), 1, cv2.LINE_AA)
            y += 20
        y += 10
    for line in panel.taken:  # a long one (the piles to look at) on two lines
        for part in message_lines(line, TAKEN_CHARS, 2):
            cv2.putText(out, part, (12, y), font, 0.45, (90, 40, 0), 1, cv2.LINE_AA)
            y += 20
    keys = KEYS_HELP + (TALLY_KEYS_HELP if panel.tally is not None else ())
    base = out.shape[0] - 14 - 20 * (len(keys) - 1)
    if panel.message:
        tint = ERROR_BGR if panel.error else (40, 40, 40)
        room = max(1, (base - 20 - y) // 18 + 1)  # lines that fit above the keys
        for k, line in enumerate(message_lines(panel.message, MESSAGE_CHARS, room)):
            org = (12, y + 6 + 18 * k)
            cv2.putText(out, line, org, font, 0.42, tint, 1, cv2.LINE_AA)
    for k, line in enumerate(keys):
        cv2.putText(out, line, (12, base + 20 * k), font, 0.45, (70, 70, 70), 1, cv2.LINE_AA)
    return out


def message_lines(message: str, width: int, most: int) -> list[str]:
    """``message`` wrapped to lines of at most ``width`` characters, at most ``most`` of
    them (the last ending in ``...`` where the message is longer): a key's reply, such as
    why a round was not committed, is read whole on the panel."""
    lines = textwrap.wrap(message, width) or [""]
    if len(lines) <= most:
        return lines
    kept = lines[:most]
    kept[-1] = kept[-1][: max(0, width - 3)].rstrip() + "..."
    return kept


class KeySource(Protocol):
    """Where key presses come from: the window, or a list in a test."""

    def key(self) -> str | None:
        """The key pressed since the last call (one character), or ``None``."""


def shown_picture(picture: Array) -> Array:
    """``picture`` as the window shows it: no wider than `SHOW_MAX_W_PX`."""
    h, w = picture.shape[:2]
    if w <= SHOW_MAX_W_PX:
        return picture
    size = (SHOW_MAX_W_PX, max(1, round(h * SHOW_MAX_W_PX / w)))
    out: Array = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
    return out


class HighguiWindow:
    """An OpenCV highgui window; its keys are read while it draws. Check `has_display` first."""

    def __init__(self, title: str = WINDOW_TITLE) -> None:
        self.title = title
        cv2.namedWindow(title, cv2.WINDOW_AUTOSIZE | cv2.WINDOW_GUI_NORMAL)

    def show(self, picture: Array) -> None:
        """Show one picture, shrunk to `SHOW_MAX_W_PX` wide where it is wider."""
        cv2.imshow(self.title, shown_picture(picture))

    def key(self) -> str | None:
        code = cv2.waitKey(1)
        return chr(code & 0xFF) if code >= 0 else None

    def close(self) -> None:
        """Close the window."""
        cv2.destroyWindow(self.title)
