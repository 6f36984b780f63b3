"""Detect: an image in, every candidate card's outline and side out; then the card check.

`Locator` runs the oriented-box detector (`OnnxDetector`, four mirrored looks averaged,
enlarged or tiled where cards are small) and gives candidate `Cards`. `CardChecker` takes
those candidates with the namer's `FirstLook` at each and gives `Checked`: the cards kept,
each with its chance of being a real card, and the possible cards left out.
"""

from vision.detect.checker import CardChecker, Checked
from vision.detect.detector import CardDetector, OnnxDetector, UltralyticsDetector
from vision.detect.locate import Locator

__all__ = [
    "CardChecker",
    "CardDetector",
    "Checked",
    "Locator",
    "OnnxDetector",
    "UltralyticsDetector",
]
