"""Stand-ins for the live view's tests: a counter that finds what a script says, cards at
fixed spots, and a window that shows nothing and presses scripted keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from vision.core.cards import BACK, Cards
from vision.count.result import Count

# Where each stub card lies: (x, y) of its top-left corner, px, and its deck.
SPOTS = {
    "a": ((10, 10), "pump"),
    "b": ((70, 10), "pump"),
    "c": ((130, 10), "carriage"),
    "d": ((10, 90), "pail"),
    "e": ((70, 90), "pail"),
    "f": ((130, 90), "pail"),
}


def stub_cards(names: str, unsure: str = "") -> Cards:
    """Back-up cards 40x60 px at the named spots, sure of their deck but for ``unsure``."""
    if not names:
        return Cards.empty()
    corners = []
    for n in names:
        (x, y), _ = SPOTS[n]
        corners.append([[x, y], [x + 40, y], [x + 40, y + 60], [x, y + 60]])
    k = len(names)
    return Cards(
        np.array(corners, np.float32),
        np.full(k, BACK),
        np.full(k, 0.95, np.float32),
        deck=[SPOTS[n][1] for n in names],
        deck_confidence=np.array([0.6 if n in unsure else 0.97 for n in names], np.float32),
    )


class StubCounter:
    """Counts whatever ``script(frame)`` says lies in view at that frame."""

    def __init__(self, script: Callable[[int], str], unsure: str = "") -> None:
        self.script = script
        self.unsure = unsure
        self.frame = 0
        self.calls = 0
        self.settings = None

    def forget_looks(self) -> None:
        """A new scene: nothing to forget."""

    def count(self, image: Any, name: str | None = None, decks: Any = None) -> Count:
        cards = stub_cards(self.script(self.frame), self.unsure)
        self.calls += 1
        self.frame += 1
        return Count(name or "frame", (200, 160), cards, tuple(decks), {"name": "stub"})


class StubScreen:
    """Shows nothing; presses ``keys[i]`` after the i-th picture."""

    def __init__(self, keys: dict[int, str]) -> None:
        self.keys = keys
        self.pictures: list[Any] = []

    def show(self, picture: Any) -> None:
        self.pictures.append(picture)

    def key(self) -> str | None:
        return self.keys.get(len(self.pictures) - 1)


def keyed_window(
    ticks: list[Any],
    keys: dict[int, str],
    taker: Any,
    panel: Any,
    taken: list[list[str]] | None = None,
    before: Callable[[int], None] | None = None,
) -> tuple[list[str], StubScreen]:
    """Runs the window over ``ticks`` with ``keys`` pressed; the panel's message at each
    picture, and the screen. ``taken`` gathers the panel's taken lines at each picture;
    ``before(i)`` runs before the i-th picture is shown."""
    from commands.live import run_window

    messages: list[str] = []
    screen = StubScreen(keys)
    original = screen.show

    def show(picture: Any) -> None:
        messages.append(panel.message)
        if taken is not None:
            taken.append(list(panel.taken))
        if before is not None:
            before(len(screen.pictures))
        original(picture)

    screen.show = show  # type: ignore[method-assign]
    run_window(ticks, screen, taker, panel)
    return messages, screen
