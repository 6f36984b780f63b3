"""Enroll: photos of a user's own cards in, a profile that counts their decks out.

A layout photo (one card of each deck in a row) gives each deck's picture
(`find_layout`); `enroll_layout` stores them in a `Profile` and fits the profile's deck
classifier on scenes drawn with them (`vision.enroll.fit`, which uses the scene generator
and torch, so it is loaded only when a profile is fitted). A fan photo of one enrolled deck
(`enroll_fans`) adds every back found in it, as the camera saw it, to that fit. Counting
reads a profile through `classifier_for`.
"""

from typing import Any

from vision.enroll.layout import EnrollError, find_layout, parse_names
from vision.enroll.profiles import Profile, ProfileStore, classifier_for, load_profile

__all__ = [
    "EnrollError",
    "Profile",
    "ProfileStore",
    "classifier_for",
    "enroll_fans",
    "enroll_layout",
    "find_layout",
    "list_profiles",
    "load_profile",
    "parse_names",
    "remove_deck",
]

_RUN = ("enroll_fans", "enroll_layout", "list_profiles", "remove_deck")


def __getattr__(name: str) -> Any:
    # Fitting a profile needs torch and the scene generator: load them only when asked.
    if name in _RUN:
        from vision.enroll import run

        return getattr(run, name)
    raise AttributeError(f"module 'vision.enroll' has no attribute {name!r}")
