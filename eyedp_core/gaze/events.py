"""Fixation, saccade and blink detection from raw gaze samples (I-VT and I-DT), vectorised.

Positions are screen pixels (origin top-left); thresholds are in degrees of visual angle, converted
with the exact viewing geometry (a flat screen seen from `distance_cm` in front of its centre).
Per-sample labels: 0 none (loss, gap, too short), 1 fixation, 2 saccade, 3 blink.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.gaze.contributions import RECORDING_SPLITS
from eyedp_core.gaze.geometry import Geometry

NONE, FIXATION, SACCADE, BLINK = 0, 1, 2, 3
LABEL_NAMES = {FIXATION: "fixation", SACCADE: "saccade", BLINK: "blink"}
# Label -> name as an array (labels are 0..3; anything else is dropped with label 0's runs).
_LABEL_LOOKUP = np.array([LABEL_NAMES.get(i) for i in range(max(LABEL_NAMES) + 1)], dtype=object)
# Each recording is its own stream of samples: velocities and dispersions never bridge two recordings (two
# sessions of one task included), so events are detected within the recording groups contributions counts.
GROUP_COLUMNS: tuple[str, ...] = ("participant", *RECORDING_SPLITS)
EVENT_COLUMNS = ["type", "t_start_s", "t_end_s", "duration_ms", "x", "y", "x_end", "y_end", "dx", "dy",
                 "amplitude_deg", "peak_velocity_deg_s", "mean_pupil"]
# A step longer than this many typical sample intervals is a gap (dropped samples), not signal.
GAP_FACTOR = 2.5


@dataclass(frozen=True)
class IvtSettings:
    """I-VT thresholds: saccade velocity (deg/s), shortest fixation and saccade (ms), the velocity's smoothing
    ('savgol' or 'central') and its Savitzky-Golay window (ms)."""

    velocity_threshold_deg_s: float = 30.0
    min_fixation_ms: float = 60.0
    min_saccade_ms: float = 6.0
    smooth: str = "savgol"
    savgol_ms: float = 20.0


@dataclass(frozen=True)
class IdtSettings:
    """I-DT thresholds: the largest dispersion of a fixation (x range + y range, deg) and its shortest duration (ms)."""

    dispersion_threshold_deg: float = 1.0
    min_duration_ms: float = 100.0


# The simulated sample screen: a 22" 16:10 desktop monitor at 60 cm, about 43 x 28 deg, 28 px per degree.
SAMPLE_SCREEN = Geometry.from_cm(1280, 800, 47.5, 29.7, 60.0)


def _to_cm(x_px: Any, y_px: Any, geometry: Geometry) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions -> cm offsets from the screen centre (x right, y down)."""
    cx, cy = geometry.cm_per_px()
    x = (np.asarray(x_px, dtype=float) - geometry.width_px / 2) * cx
    y = (np.asarray(y_px, dtype=float) - geometry.height_px / 2) * cy
    return x, y


def pix_to_deg(x_px: Any, y_px: Any, geometry: Geometry) -> tuple[np.ndarray, np.ndarray]:
    """Pixel positions -> (x_deg, y_deg), exact atan angles relative to the screen centre (Geometry.px_to_deg)."""
    return geometry.px_to_deg(x_px, y_px)


def angular_distance_deg(x1: Any, y1: Any, x2: Any, y2: Any, geometry: Geometry) -> np.ndarray:
    """Two arrays of pixel gaze points -> exact visual angle between them in degrees (NaN in, NaN out)."""
    ax, ay = _to_cm(x1, y1, geometry)
    bx, by = _to_cm(x2, y2, geometry)
    d = geometry.distance_cm
    # atan2(|a x b|, a.b) stays accurate for tiny angles, where arccos of the dot product does not.
    cross_x = ay * d - d * by
    cross_y = d * bx - ax * d
    cross_z = ax * by - ay * bx
    cross = np.sqrt(cross_x**2 + cross_y**2 + cross_z**2)
    dot = ax * bx + ay * by + d * d
    return np.degrees(np.arctan2(cross, dot))


def _check_time(t_s: Any, row_labels: Any = None) -> np.ndarray:
    """Timestamps -> float array; raises ValueError naming the first NaN, duplicated or backwards row."""
    t = np.asarray(t_s, dtype=float)

    def row(i: int) -> str:
        label = i if row_labels is None else row_labels[i]
        return repr(label.item() if isinstance(label, np.generic) else label)

    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise ValueError(f"timestamp t_s is missing or not finite at row {row(bad[0])}")
    step = np.diff(t)
    bad = np.flatnonzero(step <= 0)
    if bad.size:
        i = int(bad[0])
        kind = "duplicated" if step[i] == 0 else "goes backwards"
        raise ValueError(
            f"timestamps must strictly increase: t_s {kind} at row {row(i + 1)} "
            f"(t_s={float(t[i + 1])!r}, previous row {row(i)} has t_s={float(t[i])!r})")
    return t


Timing = tuple[np.ndarray, np.ndarray, float]


def _timing(t: np.ndarray) -> Timing:
    """Timestamps -> (gap after sample i, duration of sample i, typical interval)."""
    if t.size < 2:
        return np.zeros(t.size, bool), np.full(t.size, 0.0), 0.0
    step = np.diff(t)
    typical = float(np.median(step))
    gap = np.r_[step > GAP_FACTOR * typical, False]
    # Samples before a gap count as one typical interval so gaps never inflate event durations.
    dur = np.where(gap, typical, np.r_[step, typical])
    return gap, dur, typical


@functools.lru_cache(maxsize=64)
def _savgol_kernel(window: int) -> np.ndarray:
    """Odd window length -> the quadratic Savitzky-Golay smoothing kernel, computed once per length (its
    least-squares fit costs more than filtering a short recording, and every recording at one rate shares it)."""
    from scipy.signal import savgol_coeffs  # imported here: scipy.signal costs ~1 s of app start

    kernel = savgol_coeffs(window, 2)
    kernel.setflags(write=False)
    return kernel


def _savgol(a: np.ndarray, window: int) -> np.ndarray:
    """Positions -> smoothed as scipy's savgol_filter(a, window, 2, mode="nearest") does, with a cached kernel."""
    from scipy.ndimage import convolve1d

    return convolve1d(a, _savgol_kernel(window), mode="nearest")


def velocity_deg_s(t_s: Any, x_px: Any, y_px: Any, geometry: Geometry, smooth: str = "savgol",
                   savgol_ms: float = 20.0) -> np.ndarray:
    """Samples (s, px, px) -> angular velocity in deg/s per sample; NaN at missing gaze and across gaps.

    smooth="central": central difference (one-sided next to loss or edges); "savgol": positions are first
    smoothed with a quadratic Savitzky-Golay filter over about `savgol_ms`, then central difference.
    """
    t = _check_time(t_s)
    x = np.asarray(x_px, dtype=float)
    y = np.asarray(y_px, dtype=float)
    if t.size < 2:
        return np.full(t.size, np.nan)
    return _velocity(t, x, y, geometry, smooth, savgol_ms, _timing(t))


def _velocity(t: np.ndarray, x: np.ndarray, y: np.ndarray, geometry: Geometry, smooth: str, savgol_ms: float,
              timing: Timing) -> np.ndarray:
    """velocity_deg_s on checked float arrays and their timing (computed once per recording)."""
    n = t.size
    if n < 2:
        return np.full(n, np.nan)
    gap, _, typical = timing
    if smooth == "savgol":
        win = int(round(savgol_ms / 1000 / typical)) | 1
        if win >= 5 and n >= win:
            # mode="nearest" avoids the polynomial edge fit, which fails on NaN; NaN spreads one window.
            x = _savgol(x, win)
            y = _savgol(y, win)
    elif smooth != "central":
        raise ValueError(f"smooth must be 'central' or 'savgol', got {smooth!r}")
    # One-step speeds between i and i+1, invalid across gaps.
    d1 = angular_distance_deg(x[:-1], y[:-1], x[1:], y[1:], geometry) / np.diff(t)
    d1[gap[:-1]] = np.nan
    fwd = np.r_[d1, np.nan]
    bwd = np.r_[np.nan, d1]
    central = np.full(n, np.nan)
    central[1:-1] = angular_distance_deg(x[:-2], y[:-2], x[2:], y[2:], geometry) / (t[2:] - t[:-2])
    both = np.isfinite(fwd) & np.isfinite(bwd)
    v = np.where(both, central, np.where(np.isfinite(fwd), fwd, bwd))
    v[~(np.isfinite(x) & np.isfinite(y))] = np.nan
    return v


def _runs(values: np.ndarray, breaks: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Label array (+ optional break-after-sample mask) -> (run starts, run ends exclusive, run values)."""
    n = values.size
    change = values[1:] != values[:-1]
    if breaks is not None:
        change = change | breaks[:-1]
    cut = np.flatnonzero(change) + 1
    starts = np.r_[0, cut].astype(np.intp)
    ends = np.r_[cut, n].astype(np.intp)
    return starts, ends, values[starts]


def _relabel_short(labels: np.ndarray, dur: np.ndarray, gap: np.ndarray, value: int, min_s: float,
                   new_value: int) -> np.ndarray:
    """Labels -> labels with runs of `value` shorter than `min_s` seconds replaced by `new_value`."""
    if labels.size == 0 or min_s <= 0:
        return labels
    starts, ends, vals = _runs(labels, gap)
    run_dur = np.add.reduceat(dur, starts)
    # Tolerance: a run of exactly the minimum length must survive float round-off in the durations.
    short = (vals == value) & (run_dur < min_s - 1e-9)
    return np.repeat(np.where(short, new_value, vals), ends - starts).astype(labels.dtype)


def detect_blinks(t_s: Any, x_px: Any, y_px: Any, pupil: Any = None, min_ms: float = 50,
                  max_ms: float = 500) -> np.ndarray:
    """Samples -> per-sample bool: True inside runs of missing gaze lasting min_ms..max_ms (blink-like).

    A sample is missing when x or y is NaN, or the pupil is NaN or <= 0; longer runs are signal loss.
    """
    t = _check_time(t_s)
    return _blink_mask(t, x_px, y_px, pupil, min_ms, max_ms, None)


def _blink_mask(t: np.ndarray, x_px: Any, y_px: Any, pupil: Any, min_ms: float, max_ms: float,
                timing: Timing | None) -> np.ndarray:
    """detect_blinks on checked timestamps [and their timing]."""
    missing = ~(np.isfinite(np.asarray(x_px, float)) & np.isfinite(np.asarray(y_px, float)))
    if pupil is not None:
        p = np.asarray(pupil, dtype=float)
        missing |= ~(p > 0)
    if t.size == 0:
        return missing
    gap, dur, _ = _timing(t) if timing is None else timing
    starts, ends, vals = _runs(missing, gap)
    run_dur = np.add.reduceat(dur, starts) * 1000
    blink = vals & (run_dur >= min_ms - 1e-9) & (run_dur <= max_ms + 1e-9)
    return np.repeat(blink, ends - starts)


_BLINK_DEFAULTS = {k: p.default for k, p in inspect.signature(detect_blinks).parameters.items()
                   if k in ("min_ms", "max_ms")}


def _finish_labels(t: np.ndarray, x: Any, y: Any, labels: np.ndarray, pupil: Any,
                   blinks: bool, timing: Timing | None = None) -> np.ndarray:
    """Labels (of checked timestamps [with their timing]) -> labels with blink-like runs of missing gaze marked
    BLINK (when `blinks`)."""
    if blinks:
        labels[_blink_mask(t, x, y, pupil, _BLINK_DEFAULTS["min_ms"], _BLINK_DEFAULTS["max_ms"], timing)] = BLINK
    return labels


def _ivt_labels(t: np.ndarray, v: np.ndarray, threshold: float, min_fixation_ms: float,
                min_saccade_ms: float, timing: Timing | None = None) -> np.ndarray:
    """Timestamps + velocity [+ their timing] -> I-VT labels 0/1/2 after the minimum-duration clean-up."""
    labels = np.where(v >= threshold, SACCADE, FIXATION).astype(np.int8)
    labels[~np.isfinite(v)] = NONE
    if t.size:
        gap, dur, _ = _timing(t) if timing is None else timing
        labels = _relabel_short(labels, dur, gap, SACCADE, min_saccade_ms / 1000, FIXATION)
        labels = _relabel_short(labels, dur, gap, FIXATION, min_fixation_ms / 1000, NONE)
    return labels


def detect_ivt(t_s: Any, x_px: Any, y_px: Any, geometry: Geometry, settings: IvtSettings = IvtSettings(), *,
               pupil: Any = None, blinks: bool = True) -> np.ndarray:
    """Samples -> per-sample labels (0 none, 1 fixation, 2 saccade, 3 blink) by velocity threshold.

    Saccade runs shorter than `settings.min_saccade_ms` become fixation (noise spikes); fixation runs shorter
    than `settings.min_fixation_ms` become 0. Velocity as in `velocity_deg_s(smooth, savgol_ms)`.
    """
    t = _check_time(t_s)
    v = velocity_deg_s(t, x_px, y_px, geometry, smooth=settings.smooth, savgol_ms=settings.savgol_ms)
    labels = _ivt_labels(t, v, settings.velocity_threshold_deg_s, settings.min_fixation_ms, settings.min_saccade_ms)
    return _finish_labels(t, x_px, y_px, labels, pupil, blinks)


def detect_idt(t_s: Any, x_px: Any, y_px: Any, geometry: Geometry, settings: IdtSettings = IdtSettings(), *,
               pupil: Any = None, blinks: bool = True) -> np.ndarray:
    """Samples -> per-sample labels (0 none, 1 fixation, 2 saccade, 3 blink) by dispersion threshold.

    Every window of `settings.min_duration_ms` whose dispersion (x range + y range, degrees) is within the
    threshold marks its samples as fixation; overlapping windows merge into one fixation. Valid
    samples covered by no such window are saccade samples (as in Salvucci & Goldberg 2000).
    """
    t = _check_time(t_s)
    return _idt_labels(t, x_px, y_px, geometry, settings, pupil, blinks, _timing(t))


def _idt_labels(t: np.ndarray, x_px: Any, y_px: Any, geometry: Geometry, settings: IdtSettings, pupil: Any,
                blinks: bool, timing: Timing) -> np.ndarray:
    """detect_idt on checked timestamps and their timing (computed once per recording)."""
    dispersion_threshold_deg, min_duration_ms = settings.dispersion_threshold_deg, settings.min_duration_ms
    n = t.size
    xd, yd = pix_to_deg(x_px, y_px, geometry)
    valid = np.isfinite(xd) & np.isfinite(yd)
    gap, _, typical = timing
    w = max(2, int(np.ceil(min_duration_ms / 1000 / typical - 1e-9))) if n >= 2 else 2
    if n < w:  # shorter than one window: nothing can be decided
        return _finish_labels(t, x_px, y_px, np.zeros(n, np.int8), pupil, blinks, timing)
    labels = np.where(valid, SACCADE, NONE).astype(np.int8)
    xf, yf = np.where(valid, xd, 0.0), np.where(valid, yd, 0.0)
    # Forward windows [i, i+w): origin shifts scipy's centred filter so output i starts at i.
    org = -(w // 2)
    from scipy.ndimage import maximum_filter1d, minimum_filter1d  # imported here: keeps app start light

    disp = (maximum_filter1d(xf, w, origin=org) - minimum_filter1d(xf, w, origin=org)
            + maximum_filter1d(yf, w, origin=org) - minimum_filter1d(yf, w, origin=org))
    bad = np.r_[0, np.cumsum(~valid)]
    gaps = np.r_[0, np.cumsum(gap)]
    starts = np.arange(n - w + 1)
    clean = (bad[starts + w] == bad[starts]) & (gaps[starts + w - 1] == gaps[starts])
    ok = np.zeros(n, bool)
    ok[: n - w + 1] = clean & (disp[: n - w + 1] <= dispersion_threshold_deg)
    cs = np.r_[0, np.cumsum(ok)]
    k = np.arange(n)
    covered = (cs[k + 1] - cs[np.maximum(0, k - w + 1)]) > 0
    labels[covered] = FIXATION
    # Two covered neighbours that share no window are two fixations with an instant jump between
    # them (fast saccade at a low rate): mark the first sample after the jump as saccade.
    joint = (cs[k[:-1] + 1] - cs[np.maximum(0, k[:-1] - w + 2)]) > 0
    jump = np.flatnonzero(covered[:-1] & covered[1:] & ~joint & ~gap[:-1]) + 1
    labels[jump] = SACCADE
    return _finish_labels(t, x_px, y_px, labels, pupil, blinks, timing)


def labels_to_events(t_s: Any, x_px: Any, y_px: Any, labels: Any, geometry: Geometry,
                     pupil: Any = None, *, velocity: np.ndarray | None = None) -> pd.DataFrame:
    """Samples + per-sample labels -> event table, one row per run of label 1, 2 or 3 (EVENT_COLUMNS).

    Fixations: x, y = centroid and x_end, y_end the same (dx = dy = 0), amplitude NaN. Saccades: the
    valid samples just before and after the run (else its own first/last), amplitude = exact angle
    between them. Blinks: positions NaN. `velocity` (deg/s per sample) defaults to velocity_deg_s.
    """
    t = _check_time(t_s)
    lab = np.asarray(labels)
    x = np.asarray(x_px, dtype=float)
    y = np.asarray(y_px, dtype=float)
    if t.size == 0:
        return pd.DataFrame({c: pd.Series(dtype=object if c == "type" else float) for c in EVENT_COLUMNS})
    timing = _timing(t)
    v = _velocity(t, x, y, geometry, "savgol", 20.0, timing) if velocity is None else np.asarray(velocity, float)
    return pd.DataFrame(_event_columns(t, x, y, lab, geometry, pupil, v, timing))


def _event_columns(t: np.ndarray, x: np.ndarray, y: np.ndarray, lab: np.ndarray, geometry: Geometry, pupil: Any,
                   v: np.ndarray, timing: Timing) -> dict[str, np.ndarray]:
    """labels_to_events on checked, non-empty float arrays, their velocity and timing -> its columns (EVENT_COLUMNS)
    as arrays, label-0 runs left out: recordings are joined as arrays and made a frame once."""
    gap, dur, _ = timing
    p = np.full(t.size, np.nan) if pupil is None else np.asarray(pupil, dtype=float)
    p = np.where(p > 0, p, np.nan)

    starts, ends, vals = _runs(lab, gap)
    # Aggregates run over every run (reduceat needs contiguous runs); label-0 runs are dropped at the end.
    keep = np.isin(vals, (FIXATION, SACCADE, BLINK))

    def run_nanmean(a: np.ndarray) -> np.ndarray:
        """Per-sample values -> NaN-ignoring mean of each run (NaN for all-NaN runs)."""
        fin = np.isfinite(a)
        s = np.add.reduceat(np.where(fin, a, 0.0), starts)
        c = np.add.reduceat(fin.astype(float), starts)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(c > 0, s / np.maximum(c, 1), np.nan)

    mx, my, mp = run_nanmean(x), run_nanmean(y), run_nanmean(p)
    vmax = np.maximum.reduceat(np.where(np.isfinite(v), v, -np.inf), starts)
    vmax = np.where(np.isfinite(vmax), vmax, np.nan)
    start_s = t[starts]
    end_s = t[ends - 1] + dur[ends - 1]
    # Saccades run from the last sample before the run to the first after it (when those are valid):
    # at low rates the labelled samples alone can miss part of a 2-3 sample movement.
    ok = np.isfinite(x) & np.isfinite(y)
    before = np.maximum(starts - 1, 0)
    use_b = (starts > 0) & ok[before] & ~gap[before]
    after = np.minimum(ends, t.size - 1)
    use_a = (ends < t.size) & ok[after] & ~gap[ends - 1]
    i0 = np.where((vals == SACCADE) & use_b, before, starts)
    i1 = np.where((vals == SACCADE) & use_a, after, ends - 1)
    x0, y0, x1, y1 = x[i0], y[i0], x[i1], y[i1]

    fix, sac, blk = vals == FIXATION, vals == SACCADE, vals == BLINK
    ex = np.where(fix, mx, np.where(sac, x0, np.nan))
    ey = np.where(fix, my, np.where(sac, y0, np.nan))
    ex_end = np.where(fix, mx, np.where(sac, x1, np.nan))
    ey_end = np.where(fix, my, np.where(sac, y1, np.nan))
    amp = np.where(sac, angular_distance_deg(x0, y0, x1, y1, geometry), np.nan)
    columns = {
        "type": _LABEL_LOOKUP[np.clip(vals.astype(np.intp), 0, len(_LABEL_LOOKUP) - 1)],
        "t_start_s": start_s, "t_end_s": end_s, "duration_ms": (end_s - start_s) * 1000,
        "x": ex, "y": ey, "x_end": ex_end, "y_end": ey_end, "dx": ex_end - ex, "dy": ey_end - ey,
        "amplitude_deg": amp, "peak_velocity_deg_s": np.where(blk, np.nan, vmax),
        "mean_pupil": np.where(blk, np.nan, mp),
    }
    return {c: a[keep] for c, a in columns.items()}


def group_positions(frame: pd.DataFrame, groups: list[str]) -> list[tuple[Any, np.ndarray]]:
    """Table and grouping columns -> (group key, sorted row positions) per group, in order of appearance."""
    if not groups:
        return [((), np.arange(len(frame)))]
    return [(key, np.sort(pos)) for key, pos in frame.groupby(groups, sort=False, dropna=False).indices.items()]


@dataclass(frozen=True, eq=False)
class _Detection:
    """How events are detected in every recording: method, its settings (with `blinks`), screen geometry."""

    method: str
    settings: IvtSettings | IdtSettings
    opts: dict[str, Any]
    geometry: Geometry


def _detection(samples: pd.DataFrame, geometry: Geometry, method: str, thresholds: dict[str, Any]) -> _Detection:
    """Samples, method and options -> _Detection; ValueError / TypeError naming a bad method, column or option."""
    settings_of = {"ivt": IvtSettings, "idt": IdtSettings}
    if method not in settings_of:
        raise ValueError(f"method must be one of {sorted(settings_of)}, got {method!r}")
    missing = [c for c in ("t_s", "x", "y") if c not in samples.columns]
    if missing:
        raise ValueError(f"samples lack required column(s) {missing}; have {list(samples.columns)}")
    allowed = {f.name for f in fields(settings_of[method])} | {"blinks"}
    unknown = set(thresholds) - allowed
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)} for method {method!r}; "
                        f"allowed: {sorted(allowed)}")
    settings = settings_of[method](**{k: v for k, v in thresholds.items() if k != "blinks"})
    opts = asdict(settings) | {"blinks": thresholds.get("blinks", True)}
    return _Detection(method, settings, opts, geometry)


def _recording_events(t: np.ndarray, x: np.ndarray, y: np.ndarray, pupil: np.ndarray | None,
                      det: _Detection) -> dict[str, np.ndarray]:
    """One recording's samples (time checked, non-empty) -> its event columns."""
    geometry, opts = det.geometry, det.opts
    timing = _timing(t)  # once per recording, shared by every step below
    if det.method == "ivt":
        # Velocity is computed once and reused for the peak velocities of the events.
        v = _velocity(t, x, y, geometry, opts["smooth"], opts["savgol_ms"], timing)
        labels = _ivt_labels(t, v, opts["velocity_threshold_deg_s"], opts["min_fixation_ms"],
                             opts["min_saccade_ms"], timing)
        labels = _finish_labels(t, x, y, labels, pupil, opts["blinks"], timing)
    else:
        labels = _idt_labels(t, x, y, geometry, det.settings, pupil, opts["blinks"], timing)
        v = _velocity(t, x, y, geometry, "savgol", 20.0, timing)
    return _event_columns(t, x, y, np.asarray(labels), geometry, pupil, v, timing)


def _group_events(samples: pd.DataFrame, groups: list[str],
                  det: _Detection) -> tuple[list[dict[str, np.ndarray]], list[tuple]]:
    """Samples and their grouping columns -> (event columns of each recording, {} when empty; its key)."""
    has_pupil = "pupil" in samples.columns
    parts: list[dict[str, np.ndarray]] = []
    keys = []
    # Columns are taken out once: slicing arrays per recording is cheap, taking rows of the frame is not.
    t_all, x_all, y_all = (samples[c].to_numpy(float) for c in ("t_s", "x", "y"))
    p_all = samples["pupil"].to_numpy(float) if has_pupil else None
    for key, pos in group_positions(samples, groups):  # one recording at a time; inside is vectorised
        try:
            t = _check_time(t_all[pos])
        except ValueError:  # again with the rows' own labels, for the message (not paid by good recordings)
            _check_time(t_all[pos], samples.index[pos])
            raise
        keys.append(key if isinstance(key, tuple) else (key,))
        if t.size == 0:
            parts.append({})
            continue
        parts.append(_recording_events(t, x_all[pos], y_all[pos], p_all[pos] if has_pupil else None, det))
    return parts, keys


def _joined_events(parts: list[dict[str, np.ndarray]], keys: list[tuple], groups: list[str],
                   geometry: Geometry) -> pd.DataFrame:
    """Event columns and key of each recording -> one event table, grouping columns first."""
    if not parts:
        return pd.DataFrame(columns=groups + EVENT_COLUMNS)
    filled = [p for p in parts if p]
    if not filled:
        out = labels_to_events(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, np.int8), geometry)
    else:
        joined: dict[str, Any] = {c: np.concatenate([p[c] for p in filled]) for c in EVENT_COLUMNS}
        if any(len(p.get("type", ())) == 0 for p in parts):
            # The dtype pd.concat of per-recording tables gives when one of them is empty (object, not str).
            joined["type"] = pd.Series(joined["type"], dtype=object)
        out = pd.DataFrame(joined)
    # The grouping columns, one value per event, put in front in one step (not once per recording).
    counts = [len(p["type"]) if p else 0 for p in parts]
    for i, col in enumerate(groups):
        out.insert(i, col, pd.Series([k[i] for k in keys]).repeat(counts).to_numpy())
    return out


def detect_events(samples: pd.DataFrame, geometry: Geometry, method: str = "ivt",
                  **thresholds: Any) -> pd.DataFrame:
    """Samples (t_s, x, y, [pupil], [grouping columns]) -> event table per group, grouping columns first.

    method "ivt" or "idt"; `thresholds`: the fields of IvtSettings / IdtSettings, and `blinks`. Samples are processed in the
    given order within each group; timestamps must strictly increase there (ValueError names the row).
    """
    det = _detection(samples, geometry, method, thresholds)
    groups = [c for c in GROUP_COLUMNS if c in samples.columns]
    parts, keys = _group_events(samples, groups, det)
    return _joined_events(parts, keys, groups, geometry)


def label_runs(t_s: Any, labels: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Timestamps + per-sample labels -> (run starts, run ends exclusive, run labels); runs break at gaps.

    The same runs `labels_to_events` turns into events, so row j of its table (before label-0 runs are
    dropped) is run j here; callers use the sample positions (e.g. to fit a saccade's velocity profile).
    """
    t = _check_time(t_s)
    lab = np.asarray(labels)
    if t.size == 0:
        empty = np.zeros(0, np.intp)
        return empty, empty, lab[:0]
    gap, _, _ = _timing(t)
    return _runs(lab, gap)
