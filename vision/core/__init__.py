"""What every stage shares: the `Cards` it passes on, settings, images, geometry, ONNX.

Takes nothing from the other stages; each of them builds on it.
"""

from vision.core.cards import BACK, FACE, SIDE_NAMES, Cards
from vision.core.first_look import FirstLook
from vision.core.imageio import load_image
from vision.core.settings import VisionSettings

__all__ = ["BACK", "FACE", "SIDE_NAMES", "Cards", "FirstLook", "VisionSettings", "load_image"]
