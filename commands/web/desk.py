"""Rounds being scored from the page: counted once, corrected by hand, committed once.

A round's photos are counted when they are uploaded (one counter, loaded once, used by one
photo at a time); corrections re-read the same counts; a commit lands at most once however
many phones press the button.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring.errors import ImageError, LedgerError, UsageError

if TYPE_CHECKING:
    from commands.piles import PilesPhoto
    from scoring.evidence import Photo
    from scoring.ledger import Game
    from scoring.rules import RoundCounts
    from scoring.tally import PhotoRound
    from vision.count.counter import Counter
    from vision.count.photos import CountedPhoto

UPLOADS_DIR = "uploads"  # in TALLERO_HOME: photos as received, under generated names
ANNOTATED_DIR = "annotated"
PAGE_PHOTO_SIDE_PX = 2048  # the annotated photo on the page: its card numbers stay legible
PILE_CROP_PX = 320  # a pile to look at, cut out of the piles photo: its longer side
# What an upload's first bytes say it is; the decoder decides whether it really is one.
MAGIC_SUFFIX = (
    (b"\xff\xd8\xff", ".jpg"),
    (b"\x89PNG\r\n\x1a\n", ".png"),
    (b"RIFF", ".webp"),
    (b"GIF8", ".gif"),
    (b"BM", ".bmp"),
)
# An ISO box file whose first box names one of these brands is a HEIC/HEIF photo (iPhone).
HEIF_BRANDS = (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1")


class RoundTaken(LedgerError):
    """The round was committed already (by another phone, or a second press)."""


@dataclass
class Pending:
    """A counted round not yet on the sheet."""

    id: str
    game_id: int
    photos: list[CountedPhoto]
    tops: list[str] | None = None  # the Dutch piles' top cards as typed (None: not given)
    piles: PilesPhoto | None = None  # the photo of the Dutch piles, read
    fixes: dict[str, dict[str, int]] = field(default_factory=lambda: {"Dutch": {}, "Blitz": {}})
    reasons: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str | None:
        return "; ".join(self.reasons) or None

    def photos_json(self) -> list[dict[str, Any]]:
        """``score --json``'s ``photos``: the counted photos, then the piles photo."""
        piles = [self.piles.to_json()] if self.piles is not None else []
        return [p.to_json() for p in self.photos] + piles

    def piles_evidence(self) -> list[Photo]:
        """The piles photo as evidence kept with the round (none without one)."""
        return [self.piles.evidence()] if self.piles is not None else []


def upload_suffix(head: bytes) -> str:
    """A file suffix for an upload from its first bytes (never from the name it was sent
    with); ``.img`` where they say nothing known."""
    for magic, suffix in MAGIC_SUFFIX:
        if head.startswith(magic):
            return suffix
    if head[4:8] == b"ftyp" and head[8:12] in HEIF_BRANDS:
        return ".heic"
    return ".img"


class RoundDesk:
    """The rounds of one ``tallero serve``: pending rounds, one counter, one commit lock."""

    def __init__(
        self, home: Path, counter_for: Callable[[], Counter], profile: str | None = None
    ) -> None:
        self.home = home
        self.profile = profile  # whose enrolled decks a new game may use
        self._counter_for = counter_for
        self._counter: Counter | None = None
        self.count_lock = threading.Lock()  # one photo counted at a time, one model load
        self._commit_lock = threading.Lock()
        self._pending: dict[str, Pending] = {}
        self._committed: dict[str, tuple[int, int]] = {}  # pending id -> (game, round)

    def counter(self) -> Counter:
        """The counter, loaded on first use (in the calling worker thread)."""
        with self.count_lock:
            if self._counter is None:
                self._counter = self._counter_for()
            return self._counter

    def new_upload_path(self, head: bytes) -> Path:
        """A fresh path in the uploads folder, named by the server."""
        folder = self.home / UPLOADS_DIR
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{secrets.token_hex(12)}{upload_suffix(head)}"

    def count(
        self,
        game: Game,
        dutch: Path,
        blitz: Path | None,
        tops: list[str] | None = None,
        piles: Path | None = None,
    ) -> Pending:
        """Count the photos of a new round (blocking: call it from a worker thread); the
        Dutch piles' total, typed (``tops``) or photographed (``piles``), settles it."""
        from commands.photos import count_round_photos, require_game_decks
        from commands.piles import PilesPhoto

        if tops is not None and piles is not None:
            raise UsageError("give the Dutch piles either typed or as a photo, not both")
        counter = self.counter()
        require_game_decks(counter, game)
        pid = secrets.token_urlsafe(9)
        out = self.home / ANNOTATED_DIR / pid
        read = None
        with self.count_lock:
            try:
                photos = count_round_photos(counter, game, dutch, blitz, out)
                if piles is not None:
                    read = PilesPhoto.of(counter, piles, out / "piles-read.jpg")
            except ImageError as exc:
                raise ImageError(_name_photos(str(exc), dutch, blitz, piles)) from None
        pending = Pending(pid, game.id, photos, tops, read)
        self._pending[pid] = pending
        return pending

    def page_photo(self, pid: str, role: str) -> bytes:
        """The annotated ``role`` photo of a pending round as a JPEG for a phone's screen:
        decoded at full, 1/2, 1/4 or 1/8 scale (cheap for a JPEG) so that its long side is
        at most PAGE_PHOTO_SIDE_PX (px)."""
        import cv2
        from PIL import Image

        pending = self.get(pid)
        drawn = {p.role: p.annotated for p in pending.photos}
        if pending.piles is not None:
            drawn["piles"] = pending.piles.annotated
        if role not in drawn:
            raise UsageError(f"no {role} photo in this round")
        annotated = drawn[role]
        with Image.open(annotated) as img:  # reads the header only
            side = max(img.size)
        scale = next((f for f in (1, 2, 4) if side / f <= PAGE_PHOTO_SIDE_PX), 8)
        flag = {
            1: cv2.IMREAD_COLOR,
            2: cv2.IMREAD_REDUCED_COLOR_2,
            4: cv2.IMREAD_REDUCED_COLOR_4,
            8: cv2.IMREAD_REDUCED_COLOR_8,
        }[scale]
        image = cv2.imread(str(annotated), flag)
        if image is None:
            raise ImageError(f"cannot read the annotated {role} photo")
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if not ok:
            raise ImageError(f"cannot encode the annotated {role} photo")
        return bytes(buf.tobytes())

    def pile_crop(self, pid: str, pile: int) -> bytes:
        """A JPEG of pile ``pile`` of the round's piles photo, cut from its annotated copy
        (the pile outlined) with half a card's length around its top and shown at
        `PILE_CROP_PX`: a phone's screen shows the top large enough to read."""
        import cv2

        pending = self.get(pid)
        if pending.piles is None:
            raise UsageError("this round has no piles photo")
        piles = pending.piles.read.piles
        if not 1 <= pile <= len(piles):
            raise UsageError(f"the piles photo has no pile #{pile}")
        image = cv2.imread(str(pending.piles.annotated), cv2.IMREAD_COLOR)
        if image is None:
            raise ImageError("cannot read the annotated piles photo")
        corners = piles[pile - 1].corners
        margin = piles[pile - 1].long_side_px * 0.5
        (x0, y0), (x1, y1) = corners.min(axis=0) - margin, corners.max(axis=0) + margin
        h, w = image.shape[:2]
        crop = image[max(0, int(y0)) : min(h, int(y1)), max(0, int(x0)) : min(w, int(x1))]
        scale = PILE_CROP_PX / max(crop.shape[:2])
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            raise ImageError("cannot encode the pile's picture")
        return bytes(buf.tobytes())

    def get(self, pid: str) -> Pending:
        """The pending round ``pid``; a committed one says which round it became."""
        if pid in self._committed:
            game_id, number = self._committed[pid]
            raise RoundTaken(
                f"this round was already committed as round {number} of game {game_id}"
            )
        try:
            return self._pending[pid]
        except KeyError:
            raise LedgerError("no such round being scored (was the server restarted?)") from None

    def read(self, pid: str) -> tuple[Game, Pending, PhotoRound, RoundCounts]:
        """The pending round as it stands with its corrections, in its game."""
        from commands.photos import read_round
        from scoring.ledger import Ledger

        pending = self.get(pid)
        with Ledger.open(self.home) as ledger:
            game = ledger.game(pending.game_id)
        result, counts = read_round(
            game,
            pending.photos,
            pending.fixes["Dutch"],
            pending.fixes["Blitz"],
            pending.tops,
            pending.piles,
        )
        return game, pending, result, counts

    def correct(self, pid: str, label: str, player: str, value: str, reason: str) -> None:
        """Replace one player's Dutch or Blitz count; a reason is required."""
        from scoring.parse import parse_counts

        game, pending, _, _ = self.read(pid)
        if label not in ("Dutch", "Blitz"):
            raise UsageError(f"a count is Dutch or Blitz, not {label!r}")
        if not reason.strip():
            raise UsageError("a hand correction needs a reason")
        name = game.setup.player_named(player)
        (n,) = parse_counts([f"{name}={value}"], label).values()
        pending.fixes[label][name] = n
        pending.reasons.append(reason.strip())

    def choose(self, pid: str, fit: str) -> None:
        """Take one of the Dutch counts that reach the piles' total (``Ann=2,Dee=2``, as
        the page lists them) as corrections by hand; counts that are no longer among the
        round's fits (it changed since the page was drawn) are refused."""
        from scoring.parse import parse_counts

        game, pending, result, _ = self.read(pid)
        chosen = parse_counts([p for p in fit.split(",") if p.strip()], "Dutch")
        named = {game.setup.player_named(p): n for p, n in chosen.items()}
        if named not in result.fits:
            raise UsageError(
                "these Dutch counts are not among those that reach the piles' total now: "
                "reload the page"
            )
        pending.fixes["Dutch"].update(named)
        pending.reasons.append("chosen among the Dutch counts that reach the piles' total")

    def give_top(self, pid: str, pile: str, top: str, reason: str) -> None:
        """Give one Dutch pile of the round's piles photo its top (1..10 or ``down``), by the
        id the photo shows; a reason is required."""
        from scoring.parse import parse_pile_tops

        pending = self.get(pid)
        if pending.piles is None:
            raise UsageError("this round has no piles photo")
        if not reason.strip():
            raise UsageError("a hand correction needs a reason")
        given = parse_pile_tops([f"{pile.strip()}={top.strip()}"])
        pending.piles = pending.piles.with_tops(given)
        pending.reasons.append(reason.strip())

    def commit(self, pid: str, accept: bool, force: bool) -> tuple[int, dict[str, Any]]:
        """Append the round to its game's sheet with its evidence: (round number, the
        ``score --json`` payload). Exactly one of several concurrent commits lands; the
        others get `RoundTaken`."""
        from commands.photos import commit_counted_round
        from scoring.evidence import photo_round_json
        from scoring.ledger import Ledger

        with self._commit_lock:
            game, pending, result, counts = self.read(pid)
            with Ledger.open(self.home) as ledger:
                number = commit_counted_round(
                    ledger,
                    self.home,
                    game.id,
                    pending.photos,
                    result,
                    counts,
                    accept,
                    force,
                    pending.reason,
                    extra=pending.piles_evidence(),
                )
                after = ledger.game(game.id)
            self._committed[pid] = (game.id, number)
            del self._pending[pid]
        return number, photo_round_json(after, counts, result, pending.photos_json(), number)


def typed_tops(text: str | None) -> list[str] | None:
    """The Dutch piles' top cards as typed on the page (``10, down, 7``; None when left
    empty); a top that is neither 1..10 nor ``down`` is refused with one line."""
    from scoring.parse import split_tops

    return split_tops(text or "") or None


def _name_photos(message: str, dutch: Path, blitz: Path | None, piles: Path | None) -> str:
    """An image error about a server-named upload, told with the photo's role instead."""
    message = message.replace(str(dutch), "the Dutch photo")
    for path, role in ((blitz, "Blitz"), (piles, "piles")):
        if path is not None:
            message = message.replace(str(path), f"the {role} photo")
    return message
