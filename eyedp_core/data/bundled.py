"""Bundled sample data (written by `python -m eyedp_core.data.simulator`) and the stimulus images.

All tables are parquet files in sample_data/; stimuli are PNGs in assets/stimuli/. Reads are cached
with functools.lru_cache and every public call returns a fresh copy, so callers may modify results.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DIR = ROOT / "sample_data"
STIMULUS_DIR = ROOT / "assets" / "stimuli"
SUMMARY_FILE = SAMPLE_DIR / "summary.json"
PEOPLE_COLUMNS = ("participant", "observer")  # the column that names a person, in order of preference


def __getattr__(name: str) -> Any:
    """SAMPLE_SCREEN and Geometry, re-exported from eyedp_core.gaze.events on first use (pandas stays out
    of app start: the Home page reads only `summary`)."""
    if name in ("SAMPLE_SCREEN", "Geometry"):
        from eyedp_core.gaze import events

        return getattr(events, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    import pandas as pd  # imported here: app start reads the summary, not the tables

    path = SAMPLE_DIR / f"{name}.parquet"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; regenerate it with `python -m eyedp_core.data.simulator`")
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


def summarise(df: pd.DataFrame) -> dict[str, Any]:
    """A table -> what the Home page lists about it: rows, people (None without a person column), column names."""
    who = next((c for c in PEOPLE_COLUMNS if c in df.columns), None)
    return {"rows": int(len(df)), "people": None if who is None else int(df[who].nunique()),
            "columns": [str(c) for c in df.columns]}


def write_summary(sample_dir: Path = SAMPLE_DIR) -> Path:
    """Sample folder -> summary.json beside its tables (`summarise` of each), written by the simulator."""
    import pandas as pd

    out = {name: summarise(pd.read_parquet(sample_dir / f"{name}.parquet")) for name in SAMPLE_NAMES}
    path = sample_dir / SUMMARY_FILE.name
    path.write_text(json.dumps(out, indent=1) + "\n")
    return path


@lru_cache(maxsize=None)
def _summaries() -> dict[str, dict[str, Any]]:
    return json.loads(SUMMARY_FILE.read_text())


def summary(name: str) -> dict[str, Any]:
    """Sample name -> `summarise` of its table, read from sample_data/summary.json (no table is loaded)."""
    if name not in SAMPLE_NAMES:
        raise KeyError(f"unknown sample {name!r}; choose one of {sorted(SAMPLE_NAMES)}")
    return dict(_summaries()[name])


def stimulus_names() -> list[str]:
    """() -> names of the bundled stimulus images (file stems in assets/stimuli), sorted."""
    return sorted(p.stem for p in STIMULUS_DIR.glob("*.png"))


@lru_cache(maxsize=None)
def _image(name: str) -> np.ndarray:
    from PIL import Image

    with Image.open(STIMULUS_DIR / f"{name}.png") as im:
        arr = np.asarray(im.convert("RGB"), dtype=np.uint8)
    arr.setflags(write=False)
    return arr


def stimulus_image(name: str) -> np.ndarray:
    """Stimulus name -> its picture as an H x W x 3 uint8 array (a writable copy)."""
    if name not in stimulus_names():
        raise KeyError(f"unknown stimulus {name!r}; choose one of {stimulus_names()}")
    return _image(name).copy()
