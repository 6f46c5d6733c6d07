"""Eye-movement window features: names, units, meaning and public clamp bounds for DP.

Bounds come from the feature definitions and device/physiology limits, never from data, so they can be
published and used as clamp bounds (sensitivity = upper - lower) by the DP mechanisms:
* rates: at most MAX_FIX_RATE_HZ fixations per second (a fixation lasts about 200 ms or more on
  average in any viewing task) and MAX_SACC_RATE_HZ saccades (one more per second for the
  saccade-like artefacts I-VT finds at blink edges and tracker glitches); blinks at most 60/min;
* positions and amplitudes: the simulated desktop screen spans 43 x 28 deg, so no on-screen saccade
  exceeds its 50 deg diagonal and no spread (sd) exceeds half the screen;
* durations: the detector's limits (fixations >= 60 ms, blinks 50-500 ms), long fixations clamped at
  `MAX_FIX_MS`; saccade peak velocity is physiologically below 1000 deg/s;
* pupil diameter is physiologically 1.5-9 mm;
* wordbook counts: a window holds at most MAX_SACC_RATE_HZ * window_s saccade n-grams.
Count-type bounds scale with the window length: use `feature_bounds(names, window_s)`.
Statistics over an empty set of events (e.g. blink duration in a window without blinks) are 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_FIX_RATE_HZ = 5.0
MAX_SACC_RATE_HZ = 6.0
MAX_FIX_MS = 2000.0
SCREEN_DIAG_DEG = 50.0
HALF_WIDTH_DEG, HALF_HEIGHT_DEG = 22.0, 14.0
LARGE_SACCADE_DEG = 4.0           # "large" saccade threshold: beyond a reading saccade (~2-3 deg)
WORDBOOK_LETTERS = 8              # 4 directions (R, L, U, D) x small/large
WORDBOOK_N = (1, 2, 3, 4)
DEFAULT_WINDOW_S = 30.0


@dataclass(frozen=True)
class FeatureSpec:
    """One feature: name, group, unit, description and public clamp bounds [lower, upper]."""

    name: str
    group: str
    unit: str
    description: str
    lower: float
    upper: float
    counts: bool = False  # True: a count whose bound scales with the window length


def _spec(name: str, group: str, unit: str, description: str, lower: float, upper: float,
          counts: bool = False) -> tuple[str, FeatureSpec]:
    return name, FeatureSpec(name, group, unit, description, float(lower), float(upper), counts)


_NGRAMS = MAX_SACC_RATE_HZ * DEFAULT_WINDOW_S
_D2 = SCREEN_DIAG_DEG**2 / 4

FEATURE_SPECS: dict[str, FeatureSpec] = dict([
    _spec("fix_rate_hz", "fixation", "1/s", "fixations starting in the window per second",
          0, MAX_FIX_RATE_HZ),
    _spec("fix_dur_mean_ms", "fixation", "ms", "mean fixation duration", 0, MAX_FIX_MS),
    _spec("fix_dur_var_ms2", "fixation", "ms^2", "variance of fixation durations", 0, MAX_FIX_MS**2 / 4),
    _spec("fix_dur_max_ms", "fixation", "ms", "longest fixation", 0, MAX_FIX_MS),
    _spec("fix_dur_min_ms", "fixation", "ms", "shortest fixation", 0, MAX_FIX_MS),
    _spec("fix_time_ratio", "fixation", "1", "share of the window spent fixating", 0, 1),
    _spec("fix_disp_x_deg", "fixation", "deg", "sd of horizontal fixation positions", 0, HALF_WIDTH_DEG),
    _spec("fix_disp_y_deg", "fixation", "deg", "sd of vertical fixation positions", 0, HALF_HEIGHT_DEG),
    _spec("sacc_rate_hz", "saccade", "1/s", "saccades starting in the window per second",
          0, MAX_SACC_RATE_HZ),
    _spec("sacc_amp_mean_deg", "saccade", "deg", "mean saccade amplitude", 0, SCREEN_DIAG_DEG),
    _spec("sacc_amp_var_deg2", "saccade", "deg^2", "variance of saccade amplitudes", 0, _D2),
    _spec("sacc_amp_max_deg", "saccade", "deg", "largest saccade amplitude", 0, SCREEN_DIAG_DEG),
    _spec("sacc_amp_min_deg", "saccade", "deg", "smallest saccade amplitude", 0, SCREEN_DIAG_DEG),
    _spec("sacc_dur_mean_ms", "saccade", "ms", "mean saccade duration", 0, 200),
    _spec("sacc_peak_vel_mean_deg_s", "saccade", "deg/s", "mean saccade peak velocity", 0, 1000),
    _spec("sacc_peak_vel_max_deg_s", "saccade", "deg/s", "highest saccade peak velocity", 0, 1000),
    _spec("sacc_peak_vel_var", "saccade", "(deg/s)^2", "variance of saccade peak velocities", 0, 250000),
    _spec("sacc_vel_per_deg_hz", "saccade", "1/s", "summed peak velocity / summed amplitude (main-sequence "
          "steepness)", 0, 500),
    _spec("sacc_large_ratio", "saccade", "1", f"share of saccades >= {LARGE_SACCADE_DEG:g} deg", 0, 1),
    _spec("sacc_right_ratio", "saccade", "1", "share of mainly rightward saccades", 0, 1),
    _spec("sacc_left_ratio", "saccade", "1", "share of mainly leftward saccades", 0, 1),
    _spec("sacc_up_ratio", "saccade", "1", "share of mainly upward saccades", 0, 1),
    _spec("sacc_down_ratio", "saccade", "1", "share of mainly downward saccades", 0, 1),
    _spec("blink_rate_per_min", "blink", "1/min", "blinks starting in the window per minute", 0, 60),
    _spec("blink_dur_mean_ms", "blink", "ms", "mean blink duration", 0, 500),
    _spec("blink_dur_var_ms2", "blink", "ms^2", "variance of blink durations", 0, 62500),
    _spec("blink_dur_max_ms", "blink", "ms", "longest blink", 0, 500),
    _spec("pupil_mean_mm", "pupil", "mm", "mean pupil diameter over fixations", 1.5, 9),
    _spec("pupil_var_mm2", "pupil", "mm^2", "variance of per-fixation pupil diameters", 0, 3.75**2),
    _spec("pupil_min_mm", "pupil", "mm", "smallest per-fixation pupil diameter", 1.5, 9),
    _spec("pupil_max_mm", "pupil", "mm", "largest per-fixation pupil diameter", 1.5, 9),
    _spec("pupil_slope_mm_min", "pupil", "mm/min", "least-squares trend of pupil diameter in the window",
          -10, 10),
] + [
    item for n in WORDBOOK_N for item in (
        _spec(f"wb{n}_distinct", "wordbook", "count", f"distinct saccade {n}-grams in the window",
              0, min(WORDBOOK_LETTERS**n, _NGRAMS), counts=WORDBOOK_LETTERS**n > _NGRAMS),
        _spec(f"wb{n}_max_count", "wordbook", "count", f"occurrences of the most frequent {n}-gram",
              0, _NGRAMS, counts=True),
        _spec(f"wb{n}_mean_count", "wordbook", "count", f"mean occurrences per distinct {n}-gram",
              0, _NGRAMS, counts=True),
        _spec(f"wb{n}_var_count", "wordbook", "count^2", f"variance of occurrences over distinct {n}-grams",
              0, _NGRAMS**2 / 4, counts=True),
    )
])

FEATURE_NAMES: list[str] = list(FEATURE_SPECS)
FEATURE_GROUPS: tuple[str, ...] = ("fixation", "saccade", "blink", "pupil", "wordbook")


def feature_bounds(names: list[str] | tuple[str, ...],
                   window_s: float = DEFAULT_WINDOW_S) -> tuple[np.ndarray, np.ndarray]:
    """Feature names [, window length s] -> (lower bounds, upper bounds) float arrays; KeyError if unknown."""
    lo = np.empty(len(names))
    hi = np.empty(len(names))
    scale = window_s / DEFAULT_WINDOW_S
    for i, name in enumerate(names):
        spec = FEATURE_SPECS[name]
        lo[i] = spec.lower
        # Counts grow linearly with the window, their variances quadratically.
        hi[i] = spec.upper * (scale ** (2 if spec.unit == "count^2" else 1) if spec.counts else 1.0)
        if name.endswith("_distinct"):
            hi[i] = min(WORDBOOK_LETTERS ** int(name[2]), _NGRAMS * scale)
    return lo, hi
