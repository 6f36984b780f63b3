"""Reading photos the way phones write them: EXIF orientation, grayscale, alpha, 16 bit.

Every failure becomes one :class:`scoring.errors.ImageError` with a clear message.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from scoring.errors import ImageError
from vision.core.settings import VisionSettings

# Transparent pixels are shown on this neutral grey (BGR) rather than on black.
ALPHA_BACKGROUND_BGR = (128, 128, 128)


def load_image(path: str | Path, settings: VisionSettings | None = None) -> np.ndarray:
    """Decode ``path`` to an upright ``(h, w, 3)`` uint8 BGR array.

    Raises:
        ImageError: missing, empty, not an image, truncated, or absurd dimensions.
    """
    settings = settings or VisionSettings()
    path = Path(path)
    if not path.exists():
        raise ImageError(f"{path}: no such file")
    if path.is_dir():
        raise ImageError(f"{path}: is a directory, not an image")
    if path.stat().st_size == 0:
        raise ImageError(f"{path}: empty file")

    from PIL import Image, ImageOps, UnidentifiedImageError

    # Our own size check (below) is the limit; PIL's bomb guard must not fire before it.
    limit = int(settings.max_image_megapixels * 1e6)
    if Image.MAX_IMAGE_PIXELS is not None and Image.MAX_IMAGE_PIXELS < limit:
        Image.MAX_IMAGE_PIXELS = limit
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with _pil_open(Image)(path) as img:
                check_dimensions(path, img.width, img.height, settings)
                img.load()
                img = ImageOps.exif_transpose(img)
                return _to_bgr(img)
        except (UnidentifiedImageError, ImportError):
            # ImportError: a wrapper of PIL's open that reaches for a missing plug-in.
            raise ImageError(f"{path}: not an image (unrecognised format)") from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageError(f"{path}: image dimensions too large to decode") from None
        except ImageError:
            raise
        except (OSError, SyntaxError, ValueError) as exc:
            raise ImageError(f"{path}: cannot decode image ({exc})") from None


def _pil_open(image_module: ModuleType) -> Callable[..., Any]:
    """PIL's own ``Image.open``: once ultralytics is imported (training, the benchmark's
    baseline) it wraps it to install a HEIF plug-in on a file PIL cannot read, which
    offline only fails another way."""
    import sys

    patches = sys.modules.get("ultralytics.utils.patches")
    original = getattr(patches, "_image_open", None)
    opener: Callable[..., Any] = original if callable(original) else image_module.open
    return opener


def check_dimensions(path: Path | str, width: int, height: int, settings: VisionSettings) -> None:
    """Refuse sizes no camera makes, before any pixel is decoded."""
    if min(width, height) < settings.min_image_side_px:
        raise ImageError(f"{path}: image is {width}x{height} px, too small to hold cards")
    if max(width, height) > settings.max_image_side_px:
        raise ImageError(
            f"{path}: image is {width}x{height} px, larger than {settings.max_image_side_px} px"
        )
    if width * height > settings.max_image_megapixels * 1e6:
        raise ImageError(
            f"{path}: image is {width * height / 1e6:.0f} MP, over "
            f"{settings.max_image_megapixels:.0f} MP"
        )


def _to_bgr(img: object) -> np.ndarray:
    from PIL import Image

    assert isinstance(img, Image.Image)
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        arr = np.asarray(img, dtype=np.float32)
        peak = float(arr.max()) or 1.0
        gray = np.clip(arr * (255.0 / max(peak, 255.0)), 0, 255).astype(np.uint8)
        return np.repeat(gray[..., None], 3, axis=2)
    if img.mode == "P" and "transparency" in img.info:
        img = img.convert("RGBA")
    if img.mode in ("RGBA", "LA", "PA"):
        rgba = np.asarray(img.convert("RGBA"), dtype=np.float32)
        alpha = rgba[..., 3:4] / 255.0
        background = np.array(ALPHA_BACKGROUND_BGR[::-1], np.float32)
        rgb = rgba[..., :3] * alpha + background * (1.0 - alpha)
        return np.ascontiguousarray(rgb[..., ::-1].round().astype(np.uint8))
    rgb = np.asarray(img.convert("RGB"))
    return np.ascontiguousarray(rgb[..., ::-1])
