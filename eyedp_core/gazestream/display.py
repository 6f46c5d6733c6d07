"""The Gaze-samples page's computations on one participant's stream (the page only draws them).

Event detection for the raw-stream view, its summary numbers, the time-slider ranges (safe for any
stream length, including the degenerate ones a slider cannot show), and the pieces of a scanpath up to a
time point for the original-vs-protected animation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.gaze.events import detect_events
from eyedp_core.gaze.geometry import Geometry

__all__ = ["SliderSpec", "detect_for_display", "summary", "time_slider", "trail", "visible", "window_summary",
           "DETECTORS"]

DETECTORS = {"ivt": "I-VT (velocity)", "idt": "I-DT (dispersion)"}


def detect_for_display(one: pd.DataFrame, geometry: Geometry, method: str, threshold: float) -> pd.DataFrame:
    """One participant's samples, detector and threshold -> event table (ValueError with a plain message)."""
    if method not in DETECTORS:
        raise ValueError(f"event detection must be one of {sorted(DETECTORS)}, got {method!r}")
    opts = {"velocity_threshold_deg_s": threshold} if method == "ivt" else {"dispersion_threshold_deg": threshold}
    cols = ["t_s", "x", "y", *(["pupil"] if "pupil" in one.columns else [])]
    return detect_events(one[cols], geometry, method=method, **opts)


def summary(events: pd.DataFrame, t0: float, t1: float) -> dict[str, str]:
    """Event table and the stream's time span -> the four headline numbers, formatted ("–" when undefined)."""
    dur = t1 - t0
    fix = events[events["type"] == "fixation"]
    sac = events[events["type"] == "saccade"]
    blinks = int((events["type"] == "blink").sum())

    def fmt(v: float, spec: str, unit: str = "") -> str:
        return f"{v:{spec}}{unit}" if np.isfinite(v) else "–"

    rate = len(fix) / dur if dur > 0 else float("nan")
    return {
        "Fixations / s": fmt(rate, ".2f"),
        "Median fixation": fmt(float(fix["duration_ms"].median()) if len(fix) else float("nan"), ".0f", " ms"),
        "Median saccade amplitude": fmt(float(sac["amplitude_deg"].median()) if len(sac) else float("nan"), ".1f", "°"),
        "Blinks / min": fmt(blinks / dur * 60 if dur > 0 else float("nan"), ".1f"),
    }


@dataclass(frozen=True)
class SliderSpec:
    """A time slider that Streamlit can draw: lo < hi, a step that fits, and a default value/range."""

    lo: float
    hi: float
    step: float
    value: tuple[float, float]


def time_slider(t0: float, t1: float, default_span: float = 10.0) -> SliderSpec | None:
    """Stream start and end (s) -> slider settings, or None when the stream has no time span to slide over."""
    if not (np.isfinite(t0) and np.isfinite(t1)) or t1 - t0 <= 1e-6:
        return None
    span = t1 - t0
    step = 0.5 if span >= 5.0 else float(f"{span / 50:.2g}")
    step = max(step, 1e-3)
    hi = t0 + step * np.ceil(span / step - 1e-9)  # keep hi on the step grid so the range is exact
    return SliderSpec(float(t0), float(hi), float(step), (float(t0), float(min(t0 + default_span, hi))))


def visible(frame: pd.DataFrame, events: pd.DataFrame, span: tuple[float, float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Samples, events and a time range -> the samples and events that fall in it."""
    lo, hi = span
    part = frame[(frame["t_s"] >= lo) & (frame["t_s"] <= hi)]
    evw = events[(events["t_end_s"] >= lo) & (events["t_start_s"] <= hi)]
    return part, evw


def samples_in(frame: pd.DataFrame, span: tuple[float, float]) -> int:
    """Samples and a time range -> how many samples `visible` would keep (0: the window is empty)."""
    t = frame["t_s"].to_numpy(float)
    return int(np.count_nonzero((t >= span[0]) & (t <= span[1])))


def window_summary(events: pd.DataFrame, span: tuple[float, float]) -> dict[str, str]:
    """Event table and a time window of positive length -> the four headline numbers of the events that start in
    it (rates per second of the window); ValueError for an empty window (start at or after its end)."""
    lo, hi = float(span[0]), float(span[1])
    if not hi > lo:
        raise ValueError(f"the time window {lo:g}–{hi:g} s has no length: its start must come before its end")
    start = events["t_start_s"].to_numpy(float)
    return summary(events[(start >= lo) & (start <= hi)], lo, hi)


def trail(frame: pd.DataFrame, t_end: float, length_s: float) -> pd.DataFrame:
    """Samples and a time point -> the samples of the last `length_s` seconds up to t_end (the scanpath "so far")."""
    t = frame["t_s"].to_numpy(float)
    return frame[(t <= t_end) & (t > t_end - length_s)]
