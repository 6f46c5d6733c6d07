"""Bundled sample data (written by `python -m eyedp_core.simulate`) and the stimulus images.

All tables are parquet files in sample_data/; stimuli are PNGs in assets/stimuli/. Reads are cached
with functools.lru_cache and every public call returns a fresh copy, so callers may modify results.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image

from eyedp_core.gaze.events import SAMPLE_SCREEN, ScreenGeometry  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = ROOT / "sample_data"
STIMULUS_DIR = ROOT / "assets" / "stimuli"


SAMPLE_NAMES: dict[str, str] = {
    "reading_features": "20 readers (P01-P20, 10 female) x textbook/newspaper/comic, 30-s window features "
                        "every 0.5 s (Steil et al. style)",
    "fixations": "40 observers (O01-O40) free-viewing 3 pictures: fixations (x, y, duration) per observer",
    "gaze_streams": "raw 120 Hz gaze (x, y, pupil) of 10 readers, first 2 minutes of their textbook reading",
    "demographics": "age and gender of the 20 readers P01-P20",
}


@lru_cache(maxsize=None)
def _read(name: str) -> pd.DataFrame:
    """Sample name -> the parquet table as stored (cached; never handed out directly)."""
    path = SAMPLE_DIR / f"{name}.parquet"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; regenerate it with `python -m eyedp_core.simulate`")
    df = pd.read_parquet(path)
    # Stored as float32 to keep the bundle small; computations everywhere use float64.
    f32 = [c for c in df.columns if df[c].dtype == np.float32]
    if f32:
        df[f32] = df[f32].astype(np.float64)
    return df


def load_sample(name: str) -> pd.DataFrame:
    """Sample name (a key of SAMPLE_NAMES) -> a fresh copy of that bundled table."""
    if name not in SAMPLE_NAMES:
        raise KeyError(f"unknown sample {name!r}; choose one of {sorted(SAMPLE_NAMES)}")
    return _read(name).copy()


def stimulus_names() -> list[str]:
    """() -> names of the bundled stimulus images (file stems in assets/stimuli), sorted."""
    return sorted(p.stem for p in STIMULUS_DIR.glob("*.png"))


@lru_cache(maxsize=None)
def _image(name: str) -> np.ndarray:
    with Image.open(STIMULUS_DIR / f"{name}.png") as im:
        arr = np.asarray(im.convert("RGB"), dtype=np.uint8)
    arr.setflags(write=False)
    return arr


def stimulus_image(name: str) -> np.ndarray:
    """Stimulus name -> its picture as an H x W x 3 uint8 array (a writable copy)."""
    if name not in stimulus_names():
        raise KeyError(f"unknown stimulus {name!r}; choose one of {stimulus_names()}")
    return _image(name).copy()
