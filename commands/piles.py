"""Reading the Dutch piles off a photo of the middle of the table: ``tallero piles``, the
piles photo of ``score``, and the frames ``watch`` reads them from (key ``p``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from commands.app import JsonOpt, ProfileOpt, app, emit_json, make_counter

if TYPE_CHECKING:
    from scoring.evidence import Photo
    from vision.count.counter import Counter
    from vision.piles.read import Piles


@dataclass(frozen=True)
class PilesPhoto:
    """A round's photo of the Dutch piles before the sort, read (`score --piles-photo`, the
    phone page): its total settles the round and it is kept as evidence."""

    path: Path
    annotated: Path
    read: Piles

    @classmethod
    def of(cls, counter: Counter, photo: Path, annotated: Path) -> PilesPhoto:
        """``photo`` read, drawn into ``annotated`` (`read_piles_photo`)."""
        return cls(photo, annotated, read_piles_photo(counter, photo, annotated))

    def with_tops(self, tops: Mapping[int, str]) -> PilesPhoto:
        """The photo with the pile tops a person gives (`Piles.with_tops`), drawn again
        into its annotated copy."""
        if not tops:
            return self
        given = replace(self, read=self.read.with_tops(tops))
        given.draw()
        return given

    def draw(self) -> None:
        """Draw the piles as read (and given) into the annotated copy."""
        from vision.core.imageio import load_image

        draw_piles(load_image(self.path), self.read, self.annotated)

    def corrections(self) -> list[str]:
        """The tops given by hand, as a round lists its corrections."""
        return given_corrections(self.read)

    def to_json(self) -> dict[str, Any]:
        """The photo's entry in ``score --json``'s ``photos``."""
        return {**piles_photo_json(self.read), "annotated": str(self.annotated)}

    def evidence(self) -> Photo:
        """The photo as evidence kept with the round."""
        from scoring.evidence import Photo

        return Photo("piles", self.path, self.to_json(), self.read.model["name"])


def piles_photo_json(read: Piles) -> dict[str, Any]:
    """A piles photo's entry among a round's photos and in its evidence: ``piles --json``
    with its role (a photo or a frame of ``watch``)."""
    return {"role": "piles", **read.to_json()}


def read_piles_photo(counter: Counter, photo: Path, annotate: Path | None) -> Piles:
    """The piles of ``photo``, drawn into ``annotate`` (a file) when given. Raises
    ImageError for an unusable image and for a photo with no pile in it."""
    from vision.core.imageio import load_image
    from vision.piles.read import read_piles

    image = load_image(photo, counter.settings)
    piles = read_piles(counter.count(image, name=str(photo)))
    if annotate is not None:
        draw_piles(image, piles, annotate)
    return piles


def draw_piles(image: Any, piles: Piles, path: Path) -> None:
    """Write ``image`` with ``piles`` drawn on it (`annotate_piles`) to ``path``."""
    import cv2

    from scoring.errors import ImageError
    from vision.piles.annotate import annotate_piles

    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), annotate_piles(image, piles)):
        raise ImageError(f"cannot write {path}")


def pile_lines(piles: Piles) -> list[str]:
    """The piles as the table prints them, and the total."""
    lines = []
    for i, p in enumerate(piles.piles, 1):
        if p.down:
            what = "face down (10)"
        elif p.place_only:
            what = "? (a card may lie here, half covered, not taken for a card: look at it)"
        elif p.number_only:
            what = f"{p.top}? (not taken for a card, but its number reads {p.top}: look at it)"
        elif p.top is None:
            what = f"{p.color or '?'} ? (top not read: look at it)"
        else:
            what = f"{p.color} {p.top}" + (" (look at it)" if p.uncertain else "")
        lines.append(f"pile #{i}: {what}")
    total = f"total: {piles.total} Dutch cards on {len(piles.piles)} piles"
    if not piles.complete:
        total += " (not complete: look at " + ", ".join(f"#{i}" for i in piles.uncertain) + ")"
    lines.append(total)
    if piles.other_game:
        lines.append(
            f"set apart: {len(piles.other_game)} back(s) of another game's cards (no Dutch pile)"
        )
    small = piles.small_unread
    if small:
        from vision.piles.read import SMALL_TOP_PX

        lines.append(
            f"tip: the top of {', '.join(f'#{i}' for i in small)} lies under "
            f"{SMALL_TOP_PX:.0f} px long in the photo; a photo taken closer reads such tops "
            "far more often"
        )
    return lines


def small_tops_tip(read: Piles) -> str:
    """For ``watch``'s ``p``: where a face-up top left unread is small in the picture, how to
    read it (empty where none is)."""
    small = read.small_unread
    if not small:
        return ""
    from vision.piles.read import SMALL_TOP_PX

    return (
        f"; the top of {', '.join(f'#{i}' for i in small)} lies under {SMALL_TOP_PX:.0f} px: "
        "bring the camera closer or ask it for --size 1280x720"
    )


def given_corrections(read: Piles) -> list[str]:
    """The pile tops a person gave (`Piles.with_tops`), as a round lists its corrections."""
    return [
        f"Dutch pile #{g.id} top {'?' if g.read is None else g.read} -> {g.top}" for g in read.given
    ]


@dataclass(frozen=True)
class PilesTaken:
    """The Dutch piles read off a frame with ``p`` (before the sort): their total settles
    the round as ``score --piles-photo`` does."""

    read: Piles  # judged over every frame read (`vision.piles.frames`)
    image: Any  # the first BGR frame read
    more: tuple[tuple[Piles, Any], ...] = ()  # each other frame read, and its piles

    def detections(self) -> dict[str, Any]:
        """The evidence's detections: the piles as ``piles --json`` gives them."""
        return piles_photo_json(self.read)

    def evidence(self) -> list[tuple[Any, dict[str, Any]]]:
        """The frames read and what each keeps as evidence: the first frame the piles judged
        over every frame, each other frame the piles it read itself."""
        return [(self.image, self.detections())] + [
            (image, piles_photo_json(read)) for read, image in self.more
        ]

    @property
    def model(self) -> str:
        """The name of the models that read the piles."""
        return str(self.read.model.get("name", ""))

    def line(self) -> str:
        """The piles for the panel and the key's reply."""
        return self.read.summary()


class PilesReader:
    """Reads the Dutch piles off a frame as a photo is read (``p``): the photo counter,
    with every look a piles photo gets, is loaded on the first frame it reads."""

    def __init__(
        self, model: Path | None, profile: str | None, threads: int | None, decks: tuple[str, ...]
    ) -> None:
        self.model, self.profile, self.threads, self.decks = model, profile, threads, decks
        self._counter: Any = None

    def read(self, image: Any) -> Piles:
        from vision.piles.read import read_piles

        if self._counter is None:
            self._counter = make_counter(self.model, None, self.profile, self.threads)
        return read_piles(self._counter.count(image, name="piles", decks=self.decks))


@app.command("piles")
def piles(
    photo: Annotated[Path, typer.Argument(help="Photo of the Dutch piles, before the sort.")],
    as_json: JsonOpt = False,
    annotate: Annotated[
        Path | None, typer.Option("--annotate", help="Write the annotated photo here.")
    ] = None,
    profile: ProfileOpt = None,
) -> None:
    """Read each Dutch pile's top card (or 'down' for a finished pile) and the total."""
    counter = make_counter(None, None, profile)
    result = read_piles_photo(counter, photo, annotate)
    if as_json:
        emit_json(result.to_json())
        return
    for line in pile_lines(result):
        typer.echo(line)
