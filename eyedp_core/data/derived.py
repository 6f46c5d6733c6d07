"""Data derived from an upload so every view can use it: fixations detected in raw gaze (I-VT / I-DT), and
blank canvases for stimuli whose images were not uploaded.

Pure functions: tables in, tables or arrays out, with the derivation described in words (method,
thresholds, counts) so a page can show what was derived from what.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.gaze.events import GROUP_COLUMNS, ScreenGeometry, detect_events
from eyedp_core.io.checks import fit_to_canvas
from eyedp_core.io.errors import DataError
from eyedp_core.io.geometry import PRESETS, Geometry

METHODS = {"ivt": "I-VT (velocity threshold)", "idt": "I-DT (dispersion threshold)"}
# The defaults of eyedp_core.gaze.events, named for the page's inputs.
DEFAULT_THRESHOLDS: dict[str, dict[str, float]] = {
    "ivt": {"velocity_threshold_deg_s": 30.0, "min_fixation_ms": 60.0},
    "idt": {"dispersion_threshold_deg": 1.0, "min_duration_ms": 100.0},
}
THRESHOLD_LABELS = {"velocity_threshold_deg_s": "velocity threshold (°/s)",
                    "min_fixation_ms": "shortest fixation (ms)",
                    "dispersion_threshold_deg": "dispersion threshold (°)",
                    "min_duration_ms": "shortest fixation (ms)"}
FIXATION_COLUMNS = ("observer", "stimulus", "x", "y", "duration_ms", "t_start_s", "t_end_s")
# A light grey, so the heatmap's colours and the page's white background both stay visible.
BLANK_RGB = (238, 238, 238)
MAX_CANVAS_SIDE = 20_000


def screen_geometry(geometry: Geometry | ScreenGeometry) -> ScreenGeometry:
    """io.Geometry (mm) or ScreenGeometry (cm) -> ScreenGeometry, the event detectors' form."""
    if isinstance(geometry, ScreenGeometry):
        return geometry
    return ScreenGeometry(int(geometry.width_px), int(geometry.height_px), geometry.width_mm / 10,
                          geometry.height_mm / 10, geometry.distance_mm / 10)


@dataclass(frozen=True)
class Derivation:
    """How a fixation table was derived from gaze samples: method, thresholds, geometry and counts."""

    source: str
    method: str
    thresholds: dict[str, float]
    geometry: ScreenGeometry
    samples: int
    recordings: int
    fixations: int
    people: int
    counts: dict[str, int] = field(default_factory=dict)
    fitted: str = ""  # what was clipped to the screen or left out beyond it (io.fit_to_canvas), or ""

    def describe(self) -> str:
        """-> one sentence: what was detected in what, with which thresholds and screen."""
        th = ", ".join(f"{THRESHOLD_LABELS.get(k, k)} {v:g}" for k, v in self.thresholds.items())
        g = self.geometry
        dx, _ = g.deg_per_px()
        text = (f"{self.fixations:,} fixations of {self.people} people detected by {METHODS[self.method]} in "
                f"{self.samples:,} gaze samples ({self.recordings:,} recordings) of {self.source}; {th}; screen "
                f"{g.width_px} × {g.height_px} px, {g.width_cm:.1f} × {g.height_cm:.1f} cm at {g.distance_cm:.0f} cm "
                f"({1 / dx:.1f} px per degree).")
        return text + (f" {self.fitted}" if self.fitted else "")


def fixations_from_gaze(samples: pd.DataFrame, geometry: Geometry | ScreenGeometry, method: str = "ivt", *,
                        source: str = "the gaze table", **thresholds: float) -> tuple[pd.DataFrame, Derivation]:
    """Canonical gaze table (participant, t_s, x, y[, pupil, stimulus, trial]) -> (fixation table, Derivation).

    The fixation table has the fixations kind's canonical columns (observer, [stimulus], x, y, duration_ms,
    t_start_s, t_end_s), one row per fixation. Raises DataError for an unknown method or threshold, a
    table without the gaze columns, or timestamps that do not increase within a recording.
    """
    if method not in METHODS:
        raise DataError(f"unknown event detection method {method!r}; choose one of {', '.join(METHODS)}.",
                        file=source, expected="ivt or idt")
    unknown = set(thresholds) - set(DEFAULT_THRESHOLDS[method])
    if unknown:
        raise DataError(f"unknown threshold(s) {sorted(unknown)} for {METHODS[method]}.", file=source,
                        expected=", ".join(DEFAULT_THRESHOLDS[method]))
    bad = {k: v for k, v in thresholds.items() if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0)}
    if bad:
        raise DataError(f"thresholds must be positive numbers, got {bad}.", file=source,
                        expected="positive thresholds")
    missing = [c for c in ("participant", "t_s", "x", "y") if c not in samples.columns]
    if missing:
        raise DataError(f"the gaze table lacks the column(s) {', '.join(missing)}.", file=source,
                        column=missing[0], expected="a canonical gaze table (participant, t_s, x, y)")
    used = {**DEFAULT_THRESHOLDS[method], **{k: float(v) for k, v in thresholds.items()}}
    geo = screen_geometry(geometry)
    keep = [c for c in ("participant", "t_s", "x", "y", "pupil", *GROUP_COLUMNS) if c in samples.columns]
    try:
        ev = detect_events(samples[list(dict.fromkeys(keep))], geo, method, **used)
    except ValueError as err:  # timestamps that do not increase inside one recording
        raise DataError(f"fixations cannot be detected: {err}", file=source,
                        expected="strictly increasing timestamps within each recording") from None
    groups = [c for c in GROUP_COLUMNS if c in samples.columns]
    fix = ev[ev["type"] == "fixation"]
    finite = np.isfinite(fix["x"].to_numpy(float)) & np.isfinite(fix["y"].to_numpy(float))
    fix = fix[finite]
    out = pd.DataFrame({"observer": fix["participant"].astype(str).to_numpy()})
    if "stimulus" in fix.columns:
        out["stimulus"] = fix["stimulus"].astype(str).to_numpy()
    out["x"] = fix["x"].to_numpy(float)
    out["y"] = fix["y"].to_numpy(float)
    out["duration_ms"] = fix["duration_ms"].to_numpy(float)
    out["t_start_s"] = fix["start_s"].to_numpy(float)
    out["t_end_s"] = fix["end_s"].to_numpy(float)
    made_by = f"fixations detected by {METHODS[method]} in the gaze samples of {source}"
    n_found = len(out)
    if n_found:
        # Samples up to the app's tolerance off the screen are kept, so fixations there are too: every view
        # draws on the screen, so they go to its edge, and any further out are left out (both counted).
        out, fitted = fit_to_canvas(out, geo.width_px, geo.height_px, source, made_by)
        out = out.reset_index(drop=True)
    else:
        fitted = ""
    n_rec = int(samples.groupby(groups, sort=False, dropna=False).ngroups) if groups else 1
    deriv = Derivation(source=source, method=method, thresholds=used, geometry=geo, samples=len(samples),
                       recordings=n_rec, fixations=len(out), people=int(out["observer"].nunique()),
                       counts={"saccades": int((ev["type"] == "saccade").sum()),
                               "blinks": int((ev["type"] == "blink").sum()),
                               "fixations_without_position": int((~finite).sum()),
                               "fixations_off_screen_left_out": n_found - len(out)},
                       fitted=fitted)
    out.attrs["counts"] = {"fixations": len(out), **deriv.counts}
    out.attrs["derivation"] = deriv.describe()
    out.attrs["made_by"] = made_by
    return out, deriv


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


def fixations_from_recording(recording: Any, method: str = "ivt", **thresholds: float
                             ) -> tuple[pd.DataFrame, Derivation]:
    """io.read_recording result (gaze kind) -> (detected fixation table, Derivation), on its geometry (or a
    24" 1920 x 1080 screen at 60 cm when it has none)."""
    if getattr(recording, "kind", None) != "gaze":
        raise DataError("fixations are detected in gaze samples; this recording holds "
                        f"{getattr(recording, 'kind', 'no samples')}.", file=getattr(recording, "source", None),
                        expected="a gaze recording")
    geometry = recording.geometry or PRESETS["desktop_24"]
    return fixations_from_gaze(recording.samples, geometry, method, source=recording.source or "the recording",
                               **thresholds)
