"""Deck profiles: the decks a user enrolled from their own photos, kept in ``$TALLERO_HOME``.

A profile is a folder ``profiles/<name>/`` holding ``profile.json``, one rectified picture
per enrolled deck (``cards/<deck>.png``, the evidence the classifier was fitted on) and
the fitted deck classifier ``decks.onnx``; once the faces' numbers are enrolled, also one
picture per number (``cards/number-<n>-1.png``) and the profile's number reader
``numbers.onnx``. A deck may also keep fan photos of its backs (``fans/<deck>-<k>.jpg``,
the backs found in each listed in its record), whose cards the classifier learns too.
With no enrolled deck, Tallero uses its built-in stand-in decks; with no
enrolled numbers, its built-in number reader.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np  # noqa: F401 - used in annotations

from scoring.errors import ModelError, UsageError
from scoring.home import tallero_home

if TYPE_CHECKING:
    from vision.core.settings import VisionSettings
    from vision.count.counter import Counter

DEFAULT_PROFILE = "default"
PROFILE_FILE = "profile.json"
CLASSIFIER_FILE = "decks.onnx"
NUMBERS_FILE = "numbers.onnx"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def check_name(name: str, what: str) -> str:
    """Deck and profile names: lower-case letters, digits, '-' and '_' (max 40)."""
    clean = name.strip().lower().replace(" ", "-")
    if not _NAME.match(clean):
        raise UsageError(
            f"{what} name {name!r} is not usable: use letters, digits, '-' or '_' (max 40)"
        )
    return clean


def profile_name(name: str | None) -> str:
    """The profile asked for, else ``$TALLERO_PROFILE``, else ``default``."""
    return check_name(name or os.environ.get("TALLERO_PROFILE") or DEFAULT_PROFILE, "profile")


def profiles_root(home: Path) -> Path:
    return home / "profiles"


@dataclass
class Profile:
    """One set of enrolled decks and its fitted classifier."""

    name: str
    folder: Path
    decks: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> record
    faces: dict[str, dict[str, Any]] = field(default_factory=dict)  # colour -> record
    classifier: dict[str, Any] | None = None
    numbers: dict[str, dict[str, Any]] = field(default_factory=dict)  # "1".."10" -> record
    number_reader: dict[str, Any] | None = None

    @property
    def deck_names(self) -> tuple[str, ...]:
        return tuple(self.decks)

    @property
    def classifier_path(self) -> Path | None:
        if not self.classifier:
            return None
        path = self.folder / CLASSIFIER_FILE
        return path if path.is_file() else None

    @property
    def numbers_path(self) -> Path | None:
        """The profile's number reader, once the faces' numbers are enrolled."""
        if not self.number_reader:
            return None
        path = self.folder / NUMBERS_FILE
        return path if path.is_file() else None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "decks": self.decks,
            "faces": self.faces,
            "classifier": self.classifier,
            "numbers": self.numbers,
            "number_reader": self.number_reader,
        }


class ProfileStore:
    """The profiles under ``home``; writes are atomic (temp file, then rename)."""

    def __init__(self, home: Path) -> None:
        self.root = profiles_root(home)

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / PROFILE_FILE).is_file())

    def load(self, name: str) -> Profile:
        """The profile ``name``; an empty one when nothing was enrolled under it yet."""
        name = check_name(name, "profile")
        folder = self.root / name
        path = folder / PROFILE_FILE
        if not path.is_file():
            return Profile(name, folder)
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ModelError(f"profile {name} is unreadable ({path}): {exc}") from None
        return Profile(
            name,
            folder,
            dict(data.get("decks", {})),
            dict(data.get("faces", {})),
            data.get("classifier"),
            dict(data.get("numbers", {})),
            data.get("number_reader"),
        )

    def save(self, profile: Profile) -> None:
        profile.folder.mkdir(parents=True, exist_ok=True)
        path = profile.folder / PROFILE_FILE
        tmp = path.with_suffix(".json.part")
        tmp.write_text(json.dumps(profile.to_json(), indent=2))
        os.replace(tmp, path)

    def put_cards(
        self,
        profile: Profile,
        name: str,
        pictures: list[np.ndarray],
        photos: list[tuple[str, str]],
        kind: str = "decks",
    ) -> None:
        """Store (replacing any earlier ones) the rectified pictures of a deck, a face colour
        (``kind`` "faces") or a face number (``kind`` "numbers").

        ``photos`` holds (path, sha256) of the photos the pictures were taken from.
        """
        import cv2

        records = {"faces": profile.faces, "numbers": profile.numbers}.get(kind, profile.decks)
        for old in records.get(name, {}).get("cards", []):
            (profile.folder / old).unlink(missing_ok=True)
        folder = profile.folder / "cards"
        folder.mkdir(parents=True, exist_ok=True)
        prefix = {"faces": "face-", "numbers": "number-"}.get(kind, "")
        rels = []
        for k, picture in enumerate(pictures):
            rel = f"cards/{prefix}{name}-{k + 1}.png"
            if not cv2.imwrite(str(profile.folder / rel), picture):
                raise ModelError(f"cannot write {profile.folder / rel}")
            rels.append(rel)
        fans = records.get(name, {}).get("fans")
        records[name] = {
            "cards": rels,
            "photos": [{"path": p, "sha256": h} for p, h in photos],
            "enrolled_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        if fans:  # a deck's fan photos (`tallero enroll fan`) outlive a new picture of it
            records[name]["fans"] = fans

    def replace(self, profile: Profile, staged: Path) -> None:
        """Swap in a profile folder prepared in ``staged`` (a sibling of the profile's)."""
        old = profile.folder.with_name(profile.folder.name + ".old")
        if old.exists():
            shutil.rmtree(old)
        if profile.folder.exists():
            os.replace(profile.folder, old)
        os.replace(staged, profile.folder)
        if old.exists():
            shutil.rmtree(old)

    def remove_deck(self, profile: Profile, deck: str) -> None:
        if deck not in profile.decks:
            known = ", ".join(profile.decks) or "none"
            raise UsageError(f"profile {profile.name} has no deck {deck!r} (enrolled: {known})")
        record = profile.decks.pop(deck)
        for rel in record.get("cards", []) + [f["photo"] for f in record.get("fans", [])]:
            (profile.folder / rel).unlink(missing_ok=True)

    def delete(self, profile: Profile) -> None:
        if profile.folder.is_dir():
            shutil.rmtree(profile.folder)


def load_profile(name: str | None) -> Profile:
    """The profile asked for (`profile_name`) in ``$TALLERO_HOME``."""
    return ProfileStore(tallero_home()).load(profile_name(name))


def check_enrolled(name: str | None) -> None:
    """Refuse to count with a profile named (``--profile`` or ``$TALLERO_PROFILE``) that was
    never enrolled: a mistyped name would otherwise count with the built-in decks. The
    default profile may be empty (Tallero then uses its built-in decks)."""
    wanted = profile_name(name)
    store = ProfileStore(tallero_home())
    enrolled = store.names()
    if wanted == DEFAULT_PROFILE or wanted in enrolled:
        return
    have = ", ".join(enrolled) or "none"
    raise UsageError(
        f"no profile {wanted!r} in {store.root} (enrolled: {have}); enroll its decks first "
        f"with `tallero enroll backs PHOTO --decks ... --profile {wanted}`"
    )


def classifier_for(name: str | None) -> tuple[Path | None, tuple[str, ...] | None]:
    """The deck classifier and decks counting should use: the profile's, once enrolled."""
    profile = load_profile(name)
    path = profile.classifier_path
    if path is None or not profile.decks:
        return None, None
    return path, profile.deck_names


def numbers_for(name: str | None) -> Path | None:
    """The number reader counting should use: the profile's, once its numbers are enrolled."""
    return load_profile(name).numbers_path


def profile_counter(
    name: str | None,
    model: Path | None = None,
    decks: tuple[str, ...] | None = None,
    threads: int | None = None,
    live: bool = False,
    settings: VisionSettings | None = None,
) -> Counter:
    """A counter with the profile's enrolled deck classifier, number reader and decks (the
    built-in ones where nothing is enrolled); ``decks`` given replaces the profile's
    (``live``: the quick settings for webcam frames; ``settings``: other than the default
    `VisionSettings`)."""
    from vision.count.counter import Counter

    classifier, enrolled = classifier_for(name)
    return Counter(
        model_path=model,
        classifier_path=classifier,
        numbers_path=numbers_for(name),
        decks=decks or enrolled,
        threads=threads,
        live=live,
        settings=settings,
    )
