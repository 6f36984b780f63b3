"""Loading photos: orientation, grayscale, alpha, 16 bit, and every way a file can be bad."""

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from scoring.errors import ImageError
from vision.core.imageio import load_image
from vision.core.settings import VisionSettings


def _write(path: Path, arr: np.ndarray, mode: str | None = None, **kw: object) -> Path:
    Image.fromarray(arr, mode=mode).save(path, **kw)
    return path


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    arr = np.zeros((40, 80, 3), np.uint8)
    arr[:, :40] = (255, 0, 0)  # red left half
    img = Image.fromarray(arr)
    exif = img.getexif()
    exif[0x0112] = 6  # rotate 90 CW to display
    path = tmp_path / "phone.jpg"
    img.save(path, exif=exif.tobytes())
    out = load_image(path)
    assert out.shape == (80, 40, 3)
    assert out[5, 20, 2] > 200  # red (BGR) now on top


def test_grayscale_alpha_and_16_bit(tmp_path: Path) -> None:
    gray = load_image(_write(tmp_path / "g.png", np.full((30, 30), 200, np.uint8)))
    assert gray.shape == (30, 30, 3) and gray[0, 0, 0] == 200
    rgba = np.zeros((30, 30, 4), np.uint8)
    rgba[..., 3] = 0
    out = load_image(_write(tmp_path / "a.png", rgba))
    assert out.shape == (30, 30, 3)
    assert abs(int(out[0, 0, 0]) - 128) <= 1  # transparent shows as neutral grey
    deep = np.full((30, 30), 40000, np.uint16)
    out16 = load_image(_write(tmp_path / "d.png", deep))
    assert out16.shape == (30, 30, 3) and out16.dtype == np.uint8


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p, "no such file"),
        (lambda p: (p.write_bytes(b""), p)[1], "empty"),
        (lambda p: (p.write_text("hello, not a picture"), p)[1], "not an image"),
        (lambda p: p.parent, "directory"),
    ],
)
def test_bad_files_raise_one_clear_error(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path / "x.jpg")
    with pytest.raises(ImageError, match=message):
        load_image(path)


def test_a_file_pil_cannot_read_is_refused_clearly_once_ultralytics_is_loaded(
    tmp_path: Path,
) -> None:
    # Training and the benchmark load ultralytics, which wraps PIL's open to fetch a HEIF
    # plug-in for unreadable files; offline that must still be one clear error.
    from vision.detect.offline import import_ultralytics

    import_ultralytics(1)
    import ultralytics.utils.patches  # noqa: F401

    path = tmp_path / "x.jpg"
    path.write_bytes(b"this is not an image at all")
    with pytest.raises(ImageError, match="not an image"):
        load_image(path)


def test_truncated_jpeg(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    full = _write(tmp_path / "full.jpg", rng.integers(0, 255, (200, 200, 3), dtype=np.uint8))
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    with pytest.raises(ImageError, match="cannot decode"):
        load_image(cut)


def test_absurd_dimensions_refused_before_decoding(tmp_path: Path) -> None:
    path = _write(tmp_path / "wide.png", np.zeros((20, 3000), np.uint8))
    with pytest.raises(ImageError, match="larger than"):
        load_image(path, VisionSettings(max_image_side_px=2000))
    tiny = _write(tmp_path / "tiny.png", np.zeros((4, 4), np.uint8))
    with pytest.raises(ImageError, match="too small"):
        load_image(tiny)


def test_settings_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        VisionSettings(nms_iou=1.5)
    with pytest.raises(ValueError):
        VisionSettings(crop_width_px=0)
    with pytest.raises(ValueError):
        VisionSettings(uncertain_other_probability=1.5)
    assert VisionSettings(uncertain_other_probability=None).uncertain_other_probability is None
