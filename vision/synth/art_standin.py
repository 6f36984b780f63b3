"""The "standin" art style: Tallero's own etched backs, simple figure faces, random cards."""

from vision.synth.art_backs import draw_back
from vision.synth.art_faces import draw_face
from vision.synth.art_random import draw_random_card

__all__ = ["draw_back", "draw_face", "draw_random_card"]
