"""Card localizers: an oriented-box detector with classes {0: back, 1: face}.

`OnnxDetector` is the run-time path (onnxruntime, no torch); `UltralyticsDetector` runs
the same weights through ultralytics for training checks and the benchmark baseline.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from scoring.errors import ModelError
from scoring.home import file_sha256
from vision.core.cards import Cards
from vision.core.geometry import rotated_nms
from vision.core.models import ModelPart
from vision.core.onnx import cpu_session
from vision.core.settings import VisionSettings
from vision.core.types import Array
from vision.detect.views import MIRRORINGS, fuse, mirrored

LETTERBOX_FILL = 114


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the square detector input: ``input = image*scale + pad``."""

    scale: float
    pad_x: float
    pad_y: float


def letterbox(
    image: np.ndarray, size_px: int, stride_px: int | None = None
) -> tuple[np.ndarray, Letterbox]:
    """Resize ``image`` so its long side is ``size_px``, keeping its aspect, padding with grey.

    The result is a ``size_px`` square, or with ``stride_px`` the smallest rectangle of
    multiples of ``stride_px`` that holds the image (less padding, less work).
    """
    h, w = image.shape[:2]
    scale = min(size_px / w, size_px / h)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else image
    if stride_px:
        ow = -(-nw // stride_px) * stride_px
        oh = -(-nh // stride_px) * stride_px
    else:
        ow = oh = size_px
    out = np.full((oh, ow, 3), LETTERBOX_FILL, np.uint8)
    px, py = (ow - nw) // 2, (oh - nh) // 2
    out[py : py + nh, px : px + nw] = resized
    return out, Letterbox(scale, px, py)


class CardDetector(ModelPart, Protocol):
    """What counting needs of a card detector: a model file and cards in a whole image."""

    @property
    def settings(self) -> VisionSettings: ...

    def detect(self, image_bgr: Array) -> Cards:
        """Cards in a whole image, in that image's pixels."""
        ...


class OnnxDetector:
    """The exported detector run with onnxruntime on the CPU."""

    def __init__(
        self, path: Path, settings: VisionSettings | None = None, threads: int | None = None
    ) -> None:
        self.path = Path(path)
        self.settings = settings or VisionSettings()
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such detector model")
        try:
            self.session = cpu_session(self.path, threads)
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError(f"{self.path}: not a usable ONNX detector ({exc})") from None
        meta = self.session.get_modelmeta().custom_metadata_map
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        shape = inp.shape
        # A model exported with dynamic axes takes any multiple of the stride.
        self.dynamic = not (isinstance(shape[2], int) and isinstance(shape[3], int))
        try:
            imgsz = ast.literal_eval(meta.get("imgsz", "[640, 640]"))
            self.stride_px = int(meta.get("stride", "32"))
        except (ValueError, SyntaxError):
            raise ModelError(f"{self.path}: unreadable input size in the model") from None
        self.input_px = int(max(imgsz)) if self.dynamic else int(shape[2])
        try:
            self.names = ast.literal_eval(meta.get("names", "{0: 'back', 1: 'face'}"))
        except (ValueError, SyntaxError):
            raise ModelError(f"{self.path}: unreadable class names in the model") from None
        if meta.get("task", "obb") != "obb" or len(self.names) != 2:
            raise ModelError(f"{self.path}: not an oriented back/face card detector")
        self.sha256 = file_sha256(self.path)
        self.name = self.path.stem

    def infer(self, square_bgr: np.ndarray, views: int = 1) -> Cards:
        """Cards in a letterboxed input (``input_px`` square unless dynamic), in its pixels.

        ``views`` > 1: the input is also seen mirrored (`vision.detect.views`), up to 4 looks, and
        their outputs are averaged anchor by anchor before decoding.
        """
        blob = cv2.dnn.blobFromImage(square_bgr, 1 / 255.0, swapRB=True)
        raws = [self.session.run(None, {self.input_name: blob})[0][0]]  # (4 + nc + 1, anchors)
        for lr, ud in MIRRORINGS[: max(0, views - 1)]:
            raws.append(self.session.run(None, {self.input_name: mirrored(blob, lr, ud)})[0][0])
        h, w = square_bgr.shape[:2]
        try:
            raw = fuse(raws, h, w, len(self.names))
        except ValueError as exc:
            raise ModelError(f"{self.path}: cannot fuse mirrored looks ({exc})") from None
        return self.decode(raw)

    def decode(self, raw: np.ndarray) -> Cards:
        """Decode the raw head output ``(4 + nc + 1, anchors)`` into NMS-filtered cards."""
        nc = len(self.names)
        class_scores = raw[4 : 4 + nc]
        best = class_scores.argmax(axis=0)
        score = class_scores.max(axis=0)
        keep = score >= self.settings.min_detection_confidence
        if not keep.any():
            return Cards.empty()
        boxes = np.concatenate([raw[:4, keep], raw[4 + nc : 5 + nc, keep]]).T  # xywhr
        score, best = score[keep], best[keep]
        order = np.argsort(-score)[: 4 * self.settings.max_cards]
        boxes, score, best = boxes[order], score[order], best[order]
        idx = rotated_nms(boxes, score, self.settings.nms_iou, self.settings.max_cards)
        return Cards.from_xywhr(boxes[idx], best[idx].astype(np.int8), score[idx])

    def detect(self, image_bgr: np.ndarray, input_px: int | None = None, views: int = 1) -> Cards:
        """Cards in a whole image, in that image's pixels.

        ``input_px`` (dynamic models only) sets the long side the image is resized to;
        ``views``: looks at the image and its mirror images (`infer`).
        """
        if input_px is not None and not self.dynamic and input_px != self.input_px:
            raise ModelError(f"{self.path}: fixed-size detector cannot run at {input_px} px")
        size = input_px or self.input_px
        square, box = letterbox(image_bgr, size, self.stride_px if self.dynamic else None)
        cards = self.infer(square, views)
        return cards.transformed(1.0 / box.scale, (-box.pad_x / box.scale, -box.pad_y / box.scale))


class UltralyticsDetector:
    """The same detector through ``ultralytics.YOLO`` (imports torch; slow to start)."""

    def __init__(
        self,
        path: Path,
        settings: VisionSettings | None = None,
        threads: int | None = None,
        input_px: int | None = None,
    ) -> None:
        from vision.detect.offline import import_ultralytics

        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such detector model")
        import_ultralytics(threads)
        from ultralytics import YOLO

        self.settings = settings or VisionSettings()
        self.model = YOLO(str(self.path), task="obb")
        self.input_px = input_px or int(self.model.overrides.get("imgsz", 320) or 320)
        self.sha256 = file_sha256(self.path)
        self.name = self.path.stem

    def detect(self, image_bgr: np.ndarray) -> Cards:
        """Cards in a whole image, in that image's pixels."""
        result = self.model.predict(
            image_bgr,
            imgsz=self.input_px,
            conf=self.settings.min_detection_confidence,
            iou=self.settings.nms_iou,
            max_det=self.settings.max_cards,
            device="cpu",
            verbose=False,
        )[0]
        return Cards.from_ultralytics(result)
