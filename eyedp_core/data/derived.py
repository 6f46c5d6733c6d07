"""Blank canvases for stimuli whose images were not uploaded, and the size a fixation table reaches.

(Fixations detected in raw gaze are derived by the upload pipeline: eyedp_core.io.derive.)
"""
from __future__ import annotations

import math
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError

# A light grey, so the heatmap's colours and the page's white background both stay visible.
BLANK_RGB = (238, 238, 238)
MAX_CANVAS_SIDE = 20_000


def data_extent(fixations: pd.DataFrame) -> tuple[int, int]:
    """Fixation table -> (width, height) in px of the smallest canvas from (0, 0) holding every fixation."""
    x = pd.to_numeric(fixations.get("x"), errors="coerce") if "x" in fixations else pd.Series(dtype=float)
    y = pd.to_numeric(fixations.get("y"), errors="coerce") if "y" in fixations else pd.Series(dtype=float)
    x, y = x[np.isfinite(x)], y[np.isfinite(y)]
    w = int(math.floor(float(x.max()))) + 1 if len(x) else 1
    h = int(math.floor(float(y.max()))) + 1 if len(y) else 1
    return max(1, min(w, MAX_CANVAS_SIDE)), max(1, min(h, MAX_CANVAS_SIDE))


def blank_canvas(width: int, height: int) -> np.ndarray:
    """Size in px -> a read-only H x W x 3 uint8 image of one light grey (a view: no memory per pixel)."""
    if not (1 <= int(width) <= MAX_CANVAS_SIDE and 1 <= int(height) <= MAX_CANVAS_SIDE):
        raise DataError(f"a blank canvas must be 1-{MAX_CANVAS_SIDE:,} px per side, got {width} × {height}.",
                        expected=f"1-{MAX_CANVAS_SIDE} px per side")
    pixel = np.array(BLANK_RGB, dtype=np.uint8)
    return np.broadcast_to(pixel, (int(height), int(width), 3))


def _names(name: str) -> set[str]:
    """Image or stimulus name -> the names a stimulus column may use for it (with and without extension)."""
    return {name, PurePath(name).stem}


def stimuli_without_images(fixations: pd.DataFrame | None, image_names: Any) -> list[str]:
    """Fixation table and the names of the images on offer -> its stimuli that have no image, in order."""
    if fixations is None or "stimulus" not in fixations.columns:
        return []
    have: set[str] = set()
    for n in image_names:
        have |= _names(str(n))
    stims = pd.unique(fixations["stimulus"].dropna().astype(str))
    return [s for s in stims if not (_names(s) & have)]
