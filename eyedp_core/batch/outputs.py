"""What a batch release writes: the released map (array CSV, one row per cell, and PNG), the manifest and the
settings file, first into a temporary folder beside the output and moved into place only when all are written."""
from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from typing import Any

import numpy as np
from PIL import Image

from eyedp_core.heatmaps.colour import paint
from eyedp_core.heatmaps.maps import smooth
from eyedp_core.heatmaps.release import colour_range, release_table

__all__ = ["FILES", "png_bytes", "write_release"]

FILES = ("heatmap.csv", "heatmap.png", "manifest.json", "settings.json")


def png_bytes(values: np.ndarray, cell_px: int, sigma_px: float, width: int, height: int) -> bytes:
    """Released map in, a PNG of it (smoothed after the release: post-processing) at canvas size out, in the app's
    heatmap colours (eyedp_core.heatmaps.colour) over white, each cell a block of its pixels."""
    sm = smooth(values, sigma_px, cell_px)
    # The colour range comes from the released map, never from the clean one.
    top = colour_range(sm)
    cells = np.repeat(np.repeat(sm, cell_px, axis=0), cell_px, axis=1)[:height, :width]
    white = Image.new("RGBA", (cells.shape[1], cells.shape[0]), (255, 255, 255, 255))
    buf = io.BytesIO()
    paint(white, cells, top).save(buf, format="PNG")
    return buf.getvalue()


def write_release(out_dir: str, values: np.ndarray, manifest: dict[str, Any], settings_json: str, *,
                  cell_px: int, sigma_px: float, width: int, height: int) -> list[str]:
    """Output folder, released map, manifest and settings text in, the written paths out (all or none)."""
    out = os.path.abspath(out_dir)
    parent = os.path.dirname(out.rstrip(os.sep)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out.rstrip(os.sep))}.partial-", dir=parent)
    try:
        release_table(values, cell_px).to_csv(os.path.join(tmp, "heatmap.csv"), index=False, lineterminator="\n")
        with open(os.path.join(tmp, "heatmap.png"), "wb") as f:
            f.write(png_bytes(values, cell_px, sigma_px, width, height))
        with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=2, default=str)
        with open(os.path.join(tmp, "settings.json"), "w", encoding="utf-8") as f:
            f.write(settings_json)
        if not os.path.exists(out):
            os.replace(tmp, out)
            tmp = ""
        else:
            for name in FILES:
                os.replace(os.path.join(tmp, name), os.path.join(out, name))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return [os.path.join(out, name) for name in FILES]
