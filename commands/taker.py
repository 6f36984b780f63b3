"""The live window's keys: the counts taken from the steady table, the Dutch piles read over
several frames, and the round committed from them as ``score --commit`` commits one."""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from commands.given import BACK_KEYS, ENTER_KEYS, GivenCounts, counts_text
from commands.piles import PilesTaken, given_corrections, small_tops_tip
from commands.taken import Reply, Taken, TallyTaken
from scoring.errors import ImageError, NeedsForce, TalleroError, UsageError

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
            judges the piles over them and their median picture
            (`vision.piles.frames.judged`).
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
        self._seats: tuple[tuple[str, str], ...] | None = None  # (player, deck) of the game
        self.given = GivenCounts(self.seats)  # players' counts typed by hand (``e``)
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
        out += self.given.lines()
        if self.chosen is not None:
            out.append(f"Dutch chosen: {counts_text(self.chosen)}")
        elif self.fits:
            out.append(f"the piles' total fits (keys 1-{len(self.fits)}):")
            out += [
                f"{k}: {counts_text(f)}" + (" (shown: a takes it)" if k - 1 == self.shown else "")
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
        if self.given.editing is not None:
            if key.isdigit() or key in ENTER_KEYS + BACK_KEYS:
                return self.type_count(key)
            if key != "e":
                self.given.stop()  # another key: no count is given
        if key == "e":
            return self.given.next(self.dutch is not None, self.counted)
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
        if key in ("d", "b"):
            label = "Dutch" if key == "d" else "Blitz"
            if not tick.view.steady:
                return Reply(f"wait for STEADY to take the {label} count", error=True)
            self.given.clear(label)  # the counts given corrected the count taken before
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

    def counted(self, label: str, deck: str) -> int:
        """What the camera counted for ``deck``'s ``label`` cards (0 where nothing taken)."""
        taken = self.dutch if label == "Dutch" else self.blitz
        if isinstance(taken, TallyTaken):
            return int(taken.counts.get(deck, 0))
        return int(taken.count.counts.get(deck, 0)) if taken is not None else 0

    def type_count(self, key: str) -> Reply:
        """A digit, Backspace or Enter while ``e`` gives a count; a count given drops the
        ways to the piles' total listed (they fitted the counts before)."""
        piles = self.piles.read if self.piles is not None else None
        total = piles.total if piles is not None and piles.complete else None
        reply = self.given.key(key, self.dutch is not None, self.counted, total)
        if self.given.editing is None:
            self.fits, self.chosen = (), None
        return reply

    def choose(self, k: int) -> Reply:
        """Key ``k``: take the ``k``-th of the Dutch counts that fit the piles' total, as a
        correction by hand (``c`` then commits it, without ``a``)."""
        if not 1 <= k <= len(self.fits):
            return Reply(f"choose 1 to {len(self.fits)}", error=True)
        self.chosen = dict(self.fits[k - 1])
        return Reply(f"Dutch counts chosen: {counts_text(self.chosen)}; c commits")

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
        from vision.piles.frames import judged

        if len(self.reading) < self.piles_frames:
            done, wanted = len(self.reading), self.piles_frames
            return Reply(f"reading the Dutch piles: frame {done} of {wanted}")
        reads = self.reading
        self.reading = []
        merged = judged([read for read, _ in reads], self.median_read([im for _, im in reads]))
        self.piles = PilesTaken(merged, reads[0][1], tuple(reads[1:]))
        return Reply(f"{self.piles.line()} taken" + small_tops_tip(merged))

    def median_read(self, images: list[Any]) -> Piles | None:
        """The piles read off the median picture of ``p``'s frames (None: one frame, or
        no pile found there)."""
        from vision.piles.frames import median_picture

        if len(images) < 2 or self.read_piles is None:
            return None
        try:
            return self.read_piles(median_picture(images))
        except ImageError:
            return None

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
            given = self.given.counts
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
        self.given.clear()
        return number
