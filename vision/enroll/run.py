"""What ``tallero enroll`` does, end to end, on a profile folder in ``$TALLERO_HOME``.

Everything is prepared in a staging copy of the profile and swapped in only when the
classifier is fitted, so a failed or interrupted enrollment leaves the profile as it was.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scoring.errors import UsageError
from scoring.home import file_sha256, tallero_home
from vision.core.cards import BACK, FACE
from vision.enroll.fit import FitRecipe
from vision.enroll.layout import EnrollError, find_layout
from vision.enroll.numbers import NUMBERS_RECIPE
from vision.enroll.profiles import (
    CLASSIFIER_FILE,
    NUMBERS_FILE,
    Profile,
    ProfileStore,
    check_name,
    profile_counter,
    profile_name,
)

MAX_DECKS = 8
# How enrolled classifiers are fitted (tests swap in a small recipe).
FIT_RECIPE = FitRecipe(scenes=120, epochs=4)
# Below this long side (photo pixels) an enrolled card is too small to show its drawing well.
SMALL_CARD_PX = 150
# Finds below this detector confidence are not taken as cards of a layout.
ENROLL_MIN_CONFIDENCE = 0.5
# A fan photo teaches a deck's slivers only when at least this many of its backs are found.
FAN_MIN_BACKS = 3


def enroll_layout(
    photos: Sequence[Path],
    names: Sequence[str],
    kind: str,
    profile: str | None,
    model: Path | None,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Enroll the cards of layout photos (``kind`` "decks" or "faces") and refit."""
    t0 = time.perf_counter()
    home = tallero_home()
    store = ProfileStore(home)
    current = store.load(profile_name(profile))
    pictures, sources = layout_pictures(photos, names, kind, model, home, log)
    log(f"enroll: found {len(names)} card(s) in each of {len(photos)} photo(s)")
    staged = _stage(current)
    for name in names:
        store.put_cards(staged, name, pictures[name], sources, kind)
    if len(staged.decks) > MAX_DECKS:
        shutil.rmtree(staged.folder)
        raise_too_many(staged)
    result = _refit_and_swap(store, current, staged, log)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def layout_pictures(
    photos: Sequence[Path],
    names: Sequence[str],
    kind: str,
    model: Path | None,
    home: Path,
    log: Callable[[str], None],
) -> tuple[dict[str, list[Any]], list[tuple[str, str]]]:
    """Each name's card pictures from layout photos (backs for ``kind`` "decks", faces
    otherwise), left to right, and the photos' (path, sha256)."""
    from vision.core.imageio import load_image
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter

    # The detector alone, as enrollment was measured with: a layout photo holds a few
    # well-spaced cards, nothing for the card check to settle.
    counter = Counter(model_path=model, settings=VisionSettings(card_check=False))
    pictures: dict[str, list[Any]] = {n: [] for n in names}
    sources = []
    for photo in photos:
        image = load_image(photo, counter.settings)
        cards = counter.locator.locate(image)
        # Backs are enrolled from backs, faces from faces: cards of the other side in
        # view (the face-up cards of a round still on the table) are left out.
        # A layout photo is taken with care: a find the detector is unsure of is no card.
        cards = cards[np.flatnonzero(cards.confidence >= ENROLL_MIN_CONFIDENCE)]
        wanted = BACK if kind == "decks" else FACE
        other = int((cards.side != wanted).sum())
        if other:
            side = "face-up" if kind == "decks" else "face-down"
            log(f"enroll: {photo}: left out {other} {side} card(s)")
            cards = cards[np.flatnonzero(cards.side == wanted)]
        for card in find_layout(image, cards, names, str(photo), home / "enroll"):
            pictures[card.name].append(card.picture)
        if float(np.median(cards.long_side_px)) < SMALL_CARD_PX:
            log(
                f"enroll: {photo}: the cards are small ({np.median(cards.long_side_px):.0f} px "
                f"long); a closer photo, with the row filling the frame, teaches Tallero more"
            )
        sources.append((str(Path(photo).resolve()), file_sha256(Path(photo))))
    return pictures, sources


def enroll_numbers(
    photos: Sequence[Path],
    values: Sequence[int],
    profile: str | None,
    model: Path | None,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Enroll the numbers of the user's faces from layout photos of a row of faces (their
    numbers ``values``, left to right) and fit the profile's number reader on them."""
    from vision.enroll.numbers import fit_profile_numbers

    t0 = time.perf_counter()
    home = tallero_home()
    store = ProfileStore(home)
    current = store.load(profile_name(profile))
    names = [str(v) for v in values]
    pictures, sources = layout_pictures(photos, names, "numbers", model, home, log)
    log(f"enroll: found {len(names)} face(s) in each of {len(photos)} photo(s)")
    staged = _stage(current)
    try:
        for name in names:
            store.put_cards(staged, name, pictures[name], sources, "numbers")
        every = {
            int(n): [cv2_read(staged.folder / rel) for rel in rec["cards"]]
            for n, rec in staged.numbers.items()
        }
        log(f"enroll: fitting the number reader of profile {staged.name} on the faces "
            f"{', '.join(str(v) for v in sorted(every))}")  # fmt: skip
        staged.number_reader = fit_profile_numbers(
            every, staged.folder / NUMBERS_FILE, NUMBERS_RECIPE, log
        )
        store.save(staged)
    except BaseException:
        shutil.rmtree(staged.folder, ignore_errors=True)
        raise
    store.replace(Profile(current.name, current.folder), staged.folder)
    return {
        "profile": current.name,
        "decks": list(staged.decks),
        "faces": list(staged.faces),
        "numbers": sorted(int(n) for n in staged.numbers),
        "number_reader": staged.number_reader,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def enroll_fans(
    photos: Sequence[Path],
    names: Sequence[str],
    profile: str | None,
    model: Path | None,
    log: Callable[[str], None],
) -> dict[str, Any]:
    """Enroll fan photos, each of the backs of one enrolled deck (``names``, one per photo):
    every back the counter finds in a photo is kept as a card of that deck as the camera
    saw it (slivers, light, blur), and the deck classifier is fitted again with them. A
    deck's fans replace the ones it had; its enrolled picture stays."""
    from vision.core.imageio import load_image

    t0 = time.perf_counter()
    if len(photos) != len(names):
        raise EnrollError(
            f"{len(photos)} photo(s) and {len(names)} deck(s): name one deck per fan photo"
        )
    home = tallero_home()
    store = ProfileStore(home)
    current = store.load(profile_name(profile))
    missing = sorted({n for n in names if n not in current.decks})
    if missing:
        known = ", ".join(current.decks) or "none"
        raise UsageError(
            f"profile {current.name} has no deck {missing[0]!r} (enrolled: {known}); enroll "
            f"its back first (tallero enroll backs)"
        )
    counter = profile_counter(current.name, model=model)
    fans: dict[str, list[dict[str, Any]]] = {n: [] for n in names}
    staged = _stage(current)
    try:
        folder = staged.folder / "fans"
        for photo, name in zip(photos, names, strict=True):
            image = load_image(photo, counter.settings)
            count = counter.count(image, name=str(photo))
            backs = np.flatnonzero(count.cards.side == BACK)
            if len(backs) < FAN_MIN_BACKS:
                raise EnrollError(
                    f"{photo}: {len(backs)} back(s) found; fan out 10 or more cards of "
                    f"{name}, backs up, overlapping, and take the photo from above"
                )
            faces = len(count.cards) - len(backs)
            log(
                f"enroll: {photo}: {len(backs)} backs of {name}"
                + (f" (left out {faces} face-up card(s))" if faces else "")
            )
            folder.mkdir(parents=True, exist_ok=True)
            rel = f"fans/{name}-{len(fans[name]) + 1}{Path(photo).suffix.lower() or '.jpg'}"
            shutil.copyfile(photo, staged.folder / rel)
            fans[name].append(
                {
                    "photo": rel,
                    "source": {
                        "path": str(Path(photo).resolve()),
                        "sha256": file_sha256(Path(photo)),
                    },
                    "cards": np.round(count.cards.corners[backs], 1).tolist(),
                }
            )
        for name, records in fans.items():
            for old in staged.decks[name].get("fans", []):
                if old["photo"] not in {r["photo"] for r in records}:
                    (staged.folder / old["photo"]).unlink(missing_ok=True)
            staged.decks[name]["fans"] = records
    except BaseException:
        shutil.rmtree(staged.folder, ignore_errors=True)
        raise
    result = _refit_and_swap(store, current, staged, log)
    result["fans"] = {n: sum(len(r["cards"]) for r in recs) for n, recs in fans.items()}
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def cv2_read(path: Path) -> Any:
    """A stored card picture (BGR)."""
    import cv2

    from scoring.errors import ModelError

    picture = cv2.imread(str(path))
    if picture is None:
        raise ModelError(f"{path}: an enrolled picture is unreadable")
    return picture


def remove_deck(name: str, profile: str | None, log: Callable[[str], None]) -> dict[str, Any]:
    """Forget one enrolled deck; refit on the others (or fall back to the built-in decks)."""
    t0 = time.perf_counter()
    store = ProfileStore(tallero_home())
    current = store.load(profile_name(profile))
    staged = _stage(current)
    store.remove_deck(staged, check_name(name, "deck"))
    if not staged.decks:
        shutil.rmtree(staged.folder)
        store.delete(current)
        return {"profile": current.name, "decks": [], "faces": [], "seconds": None}
    result = _refit_and_swap(store, current, staged, log)
    result["seconds"] = round(time.perf_counter() - t0, 1)
    return result


def list_profiles(active: str | None) -> dict[str, Any]:
    store = ProfileStore(tallero_home())
    chosen = profile_name(active)
    out = []
    for n in store.names():
        p = store.load(n)
        out.append(
            {
                "name": n,
                "active": n == chosen,
                "decks": list(p.decks),
                "faces": list(p.faces),
                "classifier": p.classifier,
                "numbers": sorted(int(n) for n in p.numbers),
            }
        )
    return {"active": chosen, "profiles": out}


def raise_too_many(profile: Profile) -> None:
    from vision.enroll.layout import EnrollError

    raise EnrollError(
        f"a profile holds at most {MAX_DECKS} decks; {profile.name} would have "
        f"{len(profile.decks)}. Remove one first (tallero enroll remove NAME) or use --profile"
    )


def _stage(profile: Profile) -> Profile:
    """A copy of the profile in a sibling folder, to change freely."""
    staged = profile.folder.with_name(f".{profile.folder.name}.staging")
    if staged.exists():
        shutil.rmtree(staged)
    if profile.folder.exists():
        shutil.copytree(profile.folder, staged)
    else:
        staged.mkdir(parents=True)
    return Profile(
        profile.name,
        staged,
        dict(profile.decks),
        dict(profile.faces),
        profile.classifier,
        dict(profile.numbers),
        profile.number_reader,
    )


def _refit_and_swap(
    store: ProfileStore, current: Profile, staged: Profile, log: Callable[[str], None]
) -> dict[str, Any]:
    from vision.core.settings import VisionSettings
    from vision.enroll.fit import fit_profile_classifier

    settings = VisionSettings()
    try:
        store.save(staged)  # the scene generator reads the staged profile.json
        log(
            f"enroll: fitting the deck classifier of profile {staged.name} on "
            f"{', '.join(staged.decks)}"
        )
        info = fit_profile_classifier(
            staged.folder,
            staged.folder / CLASSIFIER_FILE,
            settings.crop_width_px,
            settings.crop_height_px,
            recipe=FIT_RECIPE,
            log=log,
        )
        staged.classifier = info
        store.save(staged)
    except BaseException:
        shutil.rmtree(staged.folder, ignore_errors=True)
        raise
    store.replace(Profile(current.name, current.folder), staged.folder)
    return {
        "profile": current.name,
        "decks": list(staged.decks),
        "faces": list(staged.faces),
        "classifier": info,
    }
