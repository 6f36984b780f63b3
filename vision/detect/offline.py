"""Offline set-up for ultralytics: nothing fetched, nothing written to the user's home.

Import this module (and call :func:`import_ultralytics`) instead of importing
ultralytics directly: the environment must be set BEFORE ultralytics is imported,
or it will try the network (fonts, settings sync, pip auto-install).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import ModuleType

from scoring.home import tallero_home


def ultralytics_config_dir() -> Path:
    """Where ultralytics keeps its settings and fonts for Tallero (under Tallero's home)."""
    return tallero_home() / "ultralytics"


def _place_font(config_dir: Path) -> None:
    # Every train/val run asks for Arial.ttf; a local file under that name stops the download.
    target = config_dir / "Arial.ttf"
    if target.exists():
        return
    try:
        import matplotlib

        source = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    except ImportError:  # pragma: no cover - matplotlib ships with ultralytics
        return
    if source.exists():
        shutil.copyfile(source, target)


def configure_environment() -> Path:
    """Set the offline environment variables and place the font; returns the config dir."""
    config_dir = ultralytics_config_dir()
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir))
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ.setdefault("YOLO_VERBOSE", "false")
    # ultralytics keeps its files in an "Ultralytics" folder under YOLO_CONFIG_DIR.
    settings_dir = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    settings_dir.mkdir(parents=True, exist_ok=True)
    _place_font(settings_dir)
    return config_dir


def import_ultralytics(threads: int | None = None) -> ModuleType:
    """Import ultralytics offline, with settings sync off and ``threads`` torch threads.

    ``threads`` defaults to the number of CPU cores: ultralytics would use 1 thread on a
    2-core machine, which trains about 1.5x slower.
    """
    configure_environment()
    import ultralytics
    from ultralytics.utils import SETTINGS, torch_utils

    if SETTINGS.get("sync", False):
        SETTINGS.update({"sync": False})
    n = threads or os.cpu_count() or 1
    torch_utils.NUM_THREADS = n
    import torch

    torch.set_num_threads(n)
    module: ModuleType = ultralytics
    return module
