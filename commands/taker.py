"""The live window's keys: the counts taken from the steady table, the Dutch piles read over
several frames, and the round committed from them as ``score --commit`` commits one."""

from __future__ import annotations

import dataclasses
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commands.piles import PilesTaken, given_corrections
from scoring.errors import ImageError, NeedsForce, TalleroError, UsageError
from scoring.rules import BLITZ_PILE_SIZE, DECK_SIZE

if TYPE_CHECKING:
    from collections.abc import Callable

    from vision.count.result import Count
    from vision.live.tally import SortTally
    from vision.live.watch import Tick
    from vision.piles.read import Piles


# The window checks this often (s of the picture's clock) whether the piles are in view.
IN_VIEW_EVERY_S = 0.2
# ``t`` then one key gives a pile's top: 1 to 9, 0 for 10, x for a finished pile face down
TOP_KEYS = {**{str(k): str(k) for k in range(1, 10)}, "0": "10", "x": "down"}
# ``e`` then digits give a player's count; Enter sets it, Backspace takes a digit back
ENTER_KEYS = ("\r", "\n")
BACK_KEYS = ("\b", "\x7f")


@dataclass(frozen=True)
class Taken:
    """A steady count taken with a key: the count, the frame it was taken on."""

    count: Count
    image: Any  # BGR frame

    def detections(self) -> dict[str, Any]:
        """The evidence's detections: every card of the steady count."""
        return self.count.to_json()

    @property
    def model(self) -> str:
        """The name of the models that counted the frame."""
        return str(self.count.model.get("name", ""))


@dataclass(frozen=True)
class TallyTaken:
    """The tally taken as the Dutch counts (``d`` with ``--tally``), beside the still count
    of the finished spread on the frame it was taken on.

    Attributes:
        counts: the tally per deck.
        still: the still count of the frame.
        image: the frame (BGR).
        events: the tally's events so far (counted, moved, undone), as printed.
        differences: where the two disagree beyond the still count's range (flagged).
    """

    counts: dict[str, int]
    still: Count
    image: Any
    events: list[dict[str, Any]]
    differences: tuple[str, ...]

    def detections(self) -> dict[str, Any]:
        """The evidence's detections: the still count's cards, the tally and its events
        (every undo with the frame whose card it took back)."""
        return {**self.still.to_json(), "tally": {"counts": self.counts, "events": self.events}}

    @property
    def model(self) -> str:
        """The name of the models that counted the frame as a still photo."""
        return str(self.still.model.get("name", ""))


@dataclass(frozen=True)
class Reply:
    """What a key did: a line for the panel, whether it is a problem, whether to quit."""

    message: str
    error: bool = False
    quit: bool = False


class RoundTaker:
    """The window's keys: take the steady count as Dutch (``d``) or Blitz (``b``), read the
    Dutch piles before the sort (``p``: their total settles the round as a piles photo's
    does), give a pile's top by hand (``t``, then ``1``-``9``, ``0`` for 10, ``x`` face
    down), accept the flagged cards (``a``), commit the round (``c``, as ``score
    --commit``; where several Dutch counts reach the piles' total it lists them, and ``1``
    to ``6`` choose one), save a snapshot (``s``), quit (``q``). Nothing is committed
    without ``c``.

    With a ``tally`` (``watch --tally``), ``d`` takes the tally as the Dutch counts and
    counts the frame as a still photo with ``count_still``: where the two disagree beyond
    the still count's range the round needs ``a`` before ``c``; ``u`` undoes the last card
    counted.

    Args:
        home: Tallero's home (ledger, evidence).
        game_id: the game the round belongs to (``None``: no game, ``c`` says so).
        snapshots: folder for ``s``.
        tally: the tally while sorting, if any.
        count_still: counts one frame as a still photo (needed with ``tally``).
        labels: deck -> how the panel names it (``Ann (pump)``).
        read_piles: reads the Dutch piles off one frame (for ``p``; raises ImageError
            where it finds none).
        piles_frames: ``p`` reads this many STEADY frames, ``piles_every_s`` apart, and
            judges each pile over them (`vision.piles.frames.merge_frames`).
        same_table: whether two frames show the same table; a frame ``p`` would read
            that does not show the first one's (a hand over the piles, the camera moved)
            starts the reading again from it, so only a calm table's frames are judged
            together (a pile under a hand in most of them would be dropped).
    """

    def __init__(
        self,
        home: Path,
        game_id: int | None,
        snapshots: Path,
        tally: SortTally | None = None,
        count_still: Callable[[Any], Count] | None = None,
        labels: dict[str, str] | None = None,
        read_piles: Callable[[Any], Piles] | None = None,
        piles_frames: int = 1,
        piles_every_s: float = 0.0,
        same_table: Callable[[Any, Any], bool] | None = None,
    ) -> None:
        self.home = home
        self.game_id = game_id
        self.snapshots = snapshots
        self.dutch: Taken | TallyTaken | None = None
        self.blitz: Taken | None = None
        self.accept = False
        self.tally = tally
        self.count_still = count_still
        self.labels = labels or {}
        self.read_piles = read_piles
        self.piles: PilesTaken | None = None
        self.piles_frames, self.piles_every_s = piles_frames, piles_every_s
        self.same_table = same_table
        self.reading: list[tuple[Piles, Any]] = []  # the frames ``p`` has read so far
        # several Dutch counts fit the piles' total (``c`` said so): the fits offered on
        # the panel, keys 1 to N, and the one chosen (a correction by hand)
        self.fits: tuple[dict[str, int], ...] = ()
        self.shown: int | None = None  # which of them the counts shown are (``a`` takes it)
        self.chosen: dict[str, int] | None = None
        self.giving: int | None = None  # the pile whose top the next key gives (``t``)
        # counts given by hand (``e``): "Dutch"/"Blitz" -> player -> count; the count being
        # given (its place in `edit_targets`) and the digits typed so far
        self.given: dict[str, dict[str, int]] = {"Dutch": {}, "Blitz": {}}
        self.editing: int | None = None
        self.typed = ""
        self._seats: tuple[tuple[str, str], ...] | None = None  # (player, deck) of the game
        # whether the picture still showed the piles' table: (their frame, when, answer)
        self._in_view: tuple[Any, float, bool] | None = None
        self.read_t = 0.0

    def taken_lines(self) -> list[str]:
        """The counts taken so far, for the panel."""
        out = []
        if isinstance(self.dutch, TallyTaken):
            counts = ", ".join(f"{d} {n}" for d, n in self.dutch.counts.items() if n)
            out.append(f"Dutch (tally): {counts or 'no cards'}")
            still = self.dutch.still
            seen = ", ".join(
                f"{d} {n}" if still.ranges.get(d, (n, n)) == (n, n) else f"{d} {n}?"
                for d, n in still.counts.items()
                if n or d in self.dutch.counts
            )
            out.append(f"still photo: {seen or 'no cards'}")
            out += [f"FLAG {line}" for line in self.dutch.differences]
        for label, taken in (("Dutch", self.dutch), ("Blitz", self.blitz)):
            if isinstance(taken, Taken):
                counts = ", ".join(f"{d} {n}" for d, n in taken.count.counts.items() if n)
                out.append(f"{label}: {counts or 'no cards'}")
        if self.piles is not None:
            out.append(self.piles.line())
        for label, given in self.given.items():
            if given:
                out.append(f"{label} given: {_counts_text(given)}")
        if self.chosen is not None:
            out.append(f"Dutch chosen: {_counts_text(self.chosen)}")
        elif self.fits:
            out.append(f"the piles' total fits (keys 1-{len(self.fits)}):")
            out += [
                f"{k}: {_counts_text(f)}" + (" (shown: a takes it)" if k - 1 == self.shown else "")
                for k, f in enumerate(self.fits, 1)
            ]
        if self.accept:
            out.append("flagged cards accepted")
        return out

    def press(self, key: str, tick: Tick, picture: Any = None) -> Reply | None:
        """Do what ``key`` asks with the table of ``tick``; ``None`` for other keys."""
        if key == "q":
            return Reply("bye", quit=True)
        if key == "u" and self.tally is not None:
            undone = self.tally.undo(tick.t, tick.frame)
            if undone is None:
                return Reply("no card to undo", error=True)
            self.dutch = None if isinstance(self.dutch, TallyTaken) else self.dutch
            return Reply(f"undone: card {undone.card} ({undone.deck})")
        if self.editing is not None:
            if key.isdigit() or key in ENTER_KEYS + BACK_KEYS:
                return self.type_count(key)
            if key != "e":
                self.editing, self.typed = None, ""  # another key: no count is given
        if key == "e":
            return self.next_count()
        if self.giving is not None:
            if key in TOP_KEYS:
                return self.give_top(TOP_KEYS[key])
            if key != "t":
                self.giving = None  # another key: no top is given
        if key == "t":
            return self.next_pile()
        if key.isdigit() and self.fits:
            return self.choose(int(key))
        if key in ("d", "b", "p", "u"):
            self.fits, self.chosen = (), None  # the counts they fitted are being replaced
        if key in ("d", "u"):
            self.given["Dutch"] = {}  # the counts given replaced what is being taken again
        if key == "b":
            self.given["Blitz"] = {}
        if key in ("d", "b"):
            label = "Dutch" if key == "d" else "Blitz"
            if not tick.view.steady:
                return Reply(f"wait for STEADY to take the {label} count", error=True)
            if key == "d" and self.tally is not None:
                self.dutch = self.take_tally(tick)
                flagged = len(self.dutch.differences)
                if flagged:
                    return Reply(f"Dutch tally taken; {flagged} difference(s) to look at (a)", True)
                return Reply("Dutch tally taken; the still photo agrees")
            taken = Taken(tick.view.count, tick.image)
            if key == "d":
                self.dutch = taken
            else:
                self.blitz = taken
            return Reply(f"{label} count taken")
        if key == "p" and self.read_piles is not None:
            if not tick.view.steady:
                return Reply("wait for STEADY to read the Dutch piles", error=True)
            return self.start_piles(tick)
        if key == "a":
            self.accept = not self.accept
            return Reply("flagged cards accepted" if self.accept else "accept withdrawn")
        if key == "c":
            if self.reading:
                return Reply("wait: the Dutch piles are still being read", error=True)
            try:
                number = self.commit()
            except TalleroError as exc:
                return Reply(str(exc), error=True)
            return Reply(f"round {number} committed with its evidence")
        if key == "s":
            return Reply(f"snapshot {self.snapshot(tick, picture)}")
        return None

    def piles_in_view(self, tick: Tick) -> Piles | None:
        """The Dutch piles taken, while ``tick``'s frame still shows the table they were
        read on (so the window outlines each with its id and top: ``look at #3`` finds
        it); None otherwise."""
        if self.piles is None or self.reading:
            return None
        if self.same_table is not None:
            first = self.piles.image
            last = self._in_view
            if last is None or last[0] is not first or tick.t - last[1] >= IN_VIEW_EVERY_S - 1e-6:
                # two thumbnails (a few ms at 1280x720): not every frame
                last = self._in_view = (first, tick.t, self.same_table(first, tick.image))
            if not last[2]:
                return None
        return self.piles.read

    def next_pile(self) -> Reply:
        """Key ``t``: the next pile whose top a key will give, the piles to look at first."""
        piles = self.piles.read if self.piles is not None else None
        if piles is None or not piles.piles:
            return Reply("read the Dutch piles first (p when STEADY)", error=True)
        unsure = piles.uncertain
        order = unsure + [i for i in range(1, len(piles.piles) + 1) if i not in unsure]
        k = order.index(self.giving) + 1 if self.giving in order else 0
        self.giving = order[k % len(order)]
        pile = piles.piles[self.giving - 1]
        read = "down" if pile.down else "not read" if pile.top is None else str(pile.top)
        unsure_text = ", unsure" if pile.uncertain and pile.top is not None else ""
        return Reply(
            f"pile #{self.giving} ({read}{unsure_text}): its top? 1-9, 0 for 10, x face down; "
            "t: the next pile"
        )

    def give_top(self, top: str) -> Reply:
        """The top of the pile ``t`` chose, given by hand (`Piles.with_tops`): kept with
        the piles' evidence and listed with the round's corrections."""
        assert self.piles is not None and self.giving is not None
        pile, self.giving = self.giving, None
        self.piles = dataclasses.replace(self.piles, read=self.piles.read.with_tops({pile: top}))
        self.fits, self.chosen = (), None  # the total the fits reached has changed
        return Reply(f"pile #{pile}: top {top} given; {self.piles.line()}")

    def seats(self) -> tuple[tuple[str, str], ...]:
        """The game's (player, deck) pairs in seat order (read from the ledger once)."""
        from scoring.ledger import Ledger

        if self._seats is None:
            if self.game_id is None:
                raise UsageError("no game: start one with `tallero game new`")
            with Ledger.open(self.home) as ledger:
                setup = ledger.game(self.game_id).setup
            self._seats = tuple((seat.player, seat.deck.id) for seat in setup.seats)
        return self._seats

    def edit_targets(self) -> list[tuple[str, str, str]]:
        """The counts ``e`` steps through: (Dutch or Blitz, player, deck); the Dutch ones
        once the Dutch count is taken, the Blitz ones always (no Blitz photo: 0 each)."""
        seats = self.seats()
        dutch = [("Dutch", p, d) for p, d in seats] if self.dutch is not None else []
        return dutch + [("Blitz", p, d) for p, d in seats]

    def counted(self, label: str, deck: str) -> int:
        """What the camera counted for ``deck``'s ``label`` cards (0 where nothing taken)."""
        taken = self.dutch if label == "Dutch" else self.blitz
        if isinstance(taken, TallyTaken):
            return int(taken.counts.get(deck, 0))
        return int(taken.count.counts.get(deck, 0)) if taken is not None else 0

    def next_count(self) -> Reply:
        """Key ``e``: the next player's count that digits and Enter will give."""
        try:
            targets = self.edit_targets()
        except TalleroError as exc:
            return Reply(str(exc), error=True)
        self.editing = 0 if self.editing is None else (self.editing + 1) % len(targets)
        self.typed = ""
        return self.editing_reply()

    def editing_reply(self) -> Reply:
        """The panel's line while a count is being given."""
        assert self.editing is not None
        label, player, deck = self.edit_targets()[self.editing]
        now = self.given[label].get(player)
        was = f"counted {self.counted(label, deck)}" + (f", given {now}" if now is not None else "")
        typed = self.typed or "_"
        return Reply(f"{player} {label} ({was}): {typed}; Enter sets it, e: the next count")

    def type_count(self, key: str) -> Reply:
        """A digit, Backspace or Enter while ``e`` gives a count."""
        assert self.editing is not None
        if key in BACK_KEYS:
            self.typed = self.typed[:-1]
            return self.editing_reply()
        if key.isdigit():
            self.typed = (self.typed + key)[-2:]  # at most 40 cards: two digits
            return self.editing_reply()
        label, player, _ = self.edit_targets()[self.editing]
        if not self.typed:
            return Reply(f"type {player}'s {label} count first (digits, then Enter)", True)
        n, most = int(self.typed), DECK_SIZE if label == "Dutch" else BLITZ_PILE_SIZE
        if n > most:
            self.typed = ""
            return Reply(f"{player}'s {label} count is 0 to {most}, not {n}: type it again", True)
        self.given[label][player] = n
        self.editing, self.typed = None, ""
        self.fits, self.chosen = (), None  # the counts they fitted have changed
        piles = self.piles.read if self.piles is not None else None
        if label == "Dutch" and piles is not None and piles.complete:
            # a count given by hand answers the round's questions: say where it leaves
            # the Dutch counts against the piles' exact total before ``c`` commits them
            dutch = {
                p: self.given["Dutch"].get(p, self.counted("Dutch", d)) for p, d in self.seats()
            }
            if sum(dutch.values()) != piles.total:
                return Reply(
                    f"{player} Dutch {n} given; the Dutch counts make {sum(dutch.values())}, "
                    f"the piles {piles.total}: c commits them so",
                    error=True,
                )
        return Reply(f"{player} {label} {n} given; c commits it")

    def choose(self, k: int) -> Reply:
        """Key ``k``: take the ``k``-th of the Dutch counts that fit the piles' total, as a
        correction by hand (``c`` then commits it, without ``a``)."""
        if not 1 <= k <= len(self.fits):
            return Reply(f"choose 1 to {len(self.fits)}", error=True)
        self.chosen = dict(self.fits[k - 1])
        return Reply(f"Dutch counts chosen: {_counts_text(self.chosen)}; c commits")

    def follow(self, tick: Tick) -> Reply | None:
        """Read one more frame for ``p`` where the piles are being read and ``tick``'s view
        is STEADY, ``piles_every_s`` after the last; what it did, or None."""
        if not self.reading or self.read_piles is None or not tick.view.steady:
            return None
        if tick.t - self.read_t < self.piles_every_s - 1e-6:  # frame times in float
            return None
        if self.same_table is not None and not self.same_table(self.reading[0][1], tick.image):
            return self.start_piles(tick, "the picture changed; ")
        try:
            read = self.read_piles(tick.image)
        except ImageError:  # a frame where no pile is found sees none of them
            read = dataclasses.replace(self.reading[0][0], piles=())
        self.reading.append((read, tick.image))
        self.read_t = tick.t
        return self.piles_read()

    def start_piles(self, tick: Tick, why: str = "") -> Reply:
        """Read ``tick``'s frame as the first for ``p`` (``why`` begins the reply)."""
        self.piles, self.reading = None, []
        try:
            first = self.read_piles(tick.image) if self.read_piles is not None else None
        except ImageError:
            first = None
        if first is None:
            return Reply(f"{why}no Dutch piles found in this frame", error=True)
        self.reading, self.read_t = [(first, tick.image)], tick.t
        return Reply(why + self.piles_read().message)

    def piles_read(self) -> Reply:
        """Once ``piles_frames`` frames are read, the piles judged over them are taken."""
        from vision.piles.frames import merge_frames

        if len(self.reading) < self.piles_frames:
            done, wanted = len(self.reading), self.piles_frames
            return Reply(f"reading the Dutch piles: frame {done} of {wanted}")
        reads = self.reading
        self.reading = []
        merged = merge_frames([read for read, _ in reads])
        self.piles = PilesTaken(merged, reads[0][1], tuple(reads[1:]))
        return Reply(f"{self.piles.line()} taken")

    def take_tally(self, tick: Tick) -> TallyTaken:
        """The tally as the Dutch counts, beside the still count of ``tick``'s frame."""
        from vision.live.tally import tally_differences

        if self.tally is None or self.count_still is None:
            raise UsageError("no tally to take")
        counts = self.tally.counts()
        still = self.count_still(tick.image)
        differences = tally_differences(counts, still.counts, still.ranges, self.labels)
        events = [e.to_json() for e in self.tally.events]
        return TallyTaken(counts, still, tick.image, events, tuple(differences))

    def snapshot(self, tick: Tick, picture: Any = None) -> Path:
        """Write the window's picture (or the frame) to the snapshots folder."""
        import cv2

        self.snapshots.mkdir(parents=True, exist_ok=True)
        path = self.snapshots / f"watch-{time.strftime('%Y%m%d-%H%M%S')}-{tick.frame:06d}.png"
        if not cv2.imwrite(str(path), tick.image if picture is None else picture):
            raise UsageError(f"cannot write {path}")
        return path

    def commit(self) -> int:
        """Commit the round from the counts taken, with the same checks and evidence as
        ``tallero score --commit``; returns its number."""
        import cv2

        from scoring.evidence import Photo, commit_photo_round, needs_look
        from scoring.ledger import Ledger
        from scoring.rules import build_round, round_warnings
        from scoring.tally import Tally, round_from_tallies
        from vision.count.tally import tally_of

        if self.game_id is None:
            raise UsageError("no game to commit to: start one with `tallero game new`")
        if self.dutch is None:
            raise UsageError("take the Dutch count first (d when STEADY)")
        piles = self.piles.read if self.piles is not None else None
        total = piles.total if piles is not None else None
        unread = tuple(piles.uncertain) if piles is not None else ()
        with Ledger.open(self.home) as ledger, tempfile.TemporaryDirectory() as tmp:
            g = ledger.game(self.game_id)
            blitz = tally_of(self.blitz.count) if self.blitz is not None else None
            differences: tuple[str, ...] = ()
            if isinstance(self.dutch, TallyTaken):
                # the tally is one number a deck; where the still photo disagrees beyond its
                # range, a person looks (a) before the round is committed
                dutch = Tally(self.dutch.counts)
                differences = tuple(f"{d}: look at the spread" for d in self.dutch.differences)
            else:
                dutch = tally_of(self.dutch.count)
            chosen = self.chosen
            given = self.given
            fix_dutch = {**(chosen or {}), **given["Dutch"]} or None
            result = round_from_tallies(
                g.setup,
                dutch,
                blitz,
                fix_dutch=fix_dutch,
                fix_blitz=given["Blitz"] or None,
                pile_total=total,
                unread_piles=unread,
            )
            self.fits = () if fix_dutch is not None else result.fits
            self.shown = result.shown_way()
            if differences:
                result = dataclasses.replace(result, problems=result.problems + differences)
            if piles is not None and piles.given:
                tops = given_corrections(piles)
                result = dataclasses.replace(result, corrections=(*result.corrections, *tops))
            if needs_look(result, self.accept):
                # as `score --commit` refuses it, with this window's keys first: the
                # panel may have no room for the end of a long list of problems
                keys = "a accepts" + (f", 1-{len(self.fits)} choose" if self.fits else "")
                raise NeedsForce(f"not committed ({keys}): " + "; ".join(result.problems))
            counts = build_round(g.setup.players, result.dutch, result.blitz)
            warnings = round_warnings(counts)
            if warnings:  # `score` takes --force; here the counts are taken again
                raise NeedsForce(
                    "nothing written: " + "; ".join(warnings) + ". Take the counts again "
                    "(d, b), or enter this round with `tallero round ... --force`"
                )
            frames: list[tuple[str, Any, Any, str]] = [
                (role, taken.image, taken.detections(), taken.model)
                for role, taken in (("dutch", self.dutch), ("blitz", self.blitz))
                if taken is not None
            ]
            if self.piles is not None:
                model = self.piles.model
                frames += [("piles", image, d, model) for image, d in self.piles.evidence()]
            photos = []
            for k, (role, image, detections, model) in enumerate(frames):
                path = Path(tmp) / f"watch-{k}-{role}.png"  # lossless: the frame as counted
                if not cv2.imwrite(str(path), image):
                    raise UsageError(f"cannot write {path}")
                photos.append(Photo(role, path, detections, model))
            reasons = []
            if chosen is not None and total is not None:
                reasons.append(
                    f"chosen in the window among the counts that reach the piles' total {total}"
                )
            if given["Dutch"] or given["Blitz"]:
                reasons.append("counts given in the window")
            if piles is not None and piles.given:
                reasons.append("pile tops given in the window")
            reason = "; ".join(reasons) or None
            number = commit_photo_round(
                ledger,
                self.home,
                g.id,
                counts,
                result,
                photos,
                self.accept,
                False,
                reason,
            )
        self.dutch = self.blitz = self.piles = None
        self.accept = False
        self.fits, self.chosen = (), None
        self.given = {"Dutch": {}, "Blitz": {}}
        return number


def _counts_text(counts: dict[str, int]) -> str:
    """``Ann 5, Ben 3``."""
    return ", ".join(f"{player} {n}" for player, n in counts.items())
