"""Reading photos the way phones write them: EXIF orientation, grayscale, alpha, 16 bit,
and HEIC/HEIF (an iPhone's own format, through pillow-heif).

Memory is bounded before any pixel is decoded: the header's size and mode tell what a
decode costs. An image over `VisionSettings.max_counted_megapixels` is counted reduced
(a JPEG decoded at 1/2, 1/4 or 1/8 scale by libjpeg itself, another format decoded whole
and reduced by an integer factor); one whose whole decode would take more than
`VisionSettings.max_decode_mib` is refused. Library warnings (Pillow on a corrupt EXIF
block, say) go to the ``tallero.image`` log, shown with ``--verbose``, never on the terminal.

Every failure becomes one :class:`scoring.errors.ImageError` with a clear message.
"""

from __future__ import annotations

import functools
import logging
import math
import struct
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
# Bytes a pixel takes in Pillow's memory, by mode: every multi-band mode is 4 (RGB is
# stored as RGBX), grey 1, 16-bit grey 2; unknown modes are taken as 4.
_BYTES_PER_PIXEL = {"1": 1, "L": 1, "P": 4, "I;16": 2, "I;16B": 2, "I;16L": 2, "I;16N": 2}
_REDUCIBLE = ("JPEG", "MPO")  # formats Pillow's draft() decodes at a reduced scale

log = logging.getLogger("tallero.image")


def load_image(path: str | Path, settings: VisionSettings | None = None) -> np.ndarray:
    """Decode ``path`` to an upright ``(h, w, 3)`` uint8 BGR array of at most
    ``settings.max_counted_megapixels`` (a larger image comes back reduced).

    Raises:
        ImageError: missing, empty, not an image, truncated, absurd dimensions, or too
        large to decode within ``settings.max_decode_mib``.
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

    _register_heif()
    # Our own size check (below) is the limit; PIL's bomb guard must not fire before it.
    limit = int(settings.max_image_megapixels * 1e6)
    if Image.MAX_IMAGE_PIXELS is not None and Image.MAX_IMAGE_PIXELS < limit:
        Image.MAX_IMAGE_PIXELS = limit
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with _pil_open(Image)(path) as img:
                check_dimensions(path, img.width, img.height, settings)
                img = _decode_bounded(path, img, settings)
                img = ImageOps.exif_transpose(img)
                return _to_bgr(img)
        except (UnidentifiedImageError, ImportError):
            # ImportError: a wrapper of PIL's open that reaches for a missing plug-in.
            raise ImageError(f"{path}: not an image (unrecognised format)") from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning):
            raise ImageError(f"{path}: image dimensions too large to decode") from None
        except ImageError:
            raise
        except MemoryError:
            raise ImageError(f"{path}: not enough memory to decode this image") from None
        except (OSError, SyntaxError, ValueError, EOFError, struct.error) as exc:
            raise ImageError(f"{path}: cannot decode image ({exc})") from None
        finally:
            for warning in caught:
                log.info("%s: %s: %s", path, warning.category.__name__, warning.message)


def _decode_bounded(path: Path, img: Any, settings: VisionSettings) -> Any:
    """``img`` decoded within the memory budget, reduced to the counted size if larger."""
    pixels = img.width * img.height
    wanted = settings.max_counted_megapixels * 1e6
    factor = max(1, math.ceil(math.sqrt(pixels / wanted))) if pixels > wanted else 1
    if img.format in _REDUCIBLE and factor > 1:
        scale = 1 << min(3, math.ceil(math.log2(factor)))  # libjpeg reduces by 2, 4 or 8
        img.draft("RGB" if img.mode != "L" else "L", (img.width // scale, img.height // scale))
        pixels = img.width * img.height  # the size draft() will decode to
        factor = max(1, math.ceil(math.sqrt(pixels / wanted))) if pixels > wanted else 1
    need_mib = pixels * _BYTES_PER_PIXEL.get(img.mode, 4) / 2**20
    if need_mib > settings.max_decode_mib:
        raise ImageError(
            f"{path}: image is {img.width}x{img.height} px ({img.mode}); decoding it needs "
            f"{need_mib:.0f} MiB, over Tallero's {settings.max_decode_mib} MiB. Save it "
            f"smaller (at most {settings.max_counted_megapixels:.0f} MP) or as JPEG"
        )
    img.load()
    if factor > 1:
        if img.mode not in ("L", "LA", "RGB", "RGBA", "I", "F"):  # what reduce() takes
            alpha = "A" in img.getbands() or "transparency" in img.info
            img = img.convert("RGBA" if alpha else "I" if img.mode.startswith("I") else "RGB")
        img = img.reduce(factor)
    return img


@functools.cache
def _register_heif() -> None:
    """Lets Pillow open HEIC/HEIF photos (decoded upright: libheif applies the file's turn
    and mirror, and the EXIF orientation left behind says so)."""
    try:
        from pillow_heif import register_heif_opener
    except ImportError:  # an install without it reads every other format
        return
    register_heif_opener()


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
    if max(width, height) > settings.max_image_aspect * min(width, height):
        raise ImageError(
            f"{path}: image is {width}x{height} px, a sliver (sides more than "
            f"{settings.max_image_aspect:.0f} to 1); photograph the table whole"
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
        # Composited in 8 bits by Pillow: a float copy of a large image took 16 bytes a pixel.
        background = Image.new("RGBA", img.size, (*ALPHA_BACKGROUND_BGR[::-1], 255))
        background.alpha_composite(img.convert("RGBA"))
        img = background
    rgb = np.asarray(img.convert("RGB"))
    return np.ascontiguousarray(rgb[..., ::-1])
