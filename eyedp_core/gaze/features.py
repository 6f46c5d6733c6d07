"""Sliding-window eye-movement features (Steil et al. 2019 / Bulling et al. 2011 style), vectorised.

Input is raw samples (events are detected with `events.detect_events`), an event table, or a bare
fixation table. Windows of `window_s` seconds start every `step_s` seconds from the first sample of
each recording; only windows that fit completely are produced. An event belongs to the window its
start falls into. Per window, sums come from cumulative sums over events and two `searchsorted`
calls (one per window edge); minima and maxima come from a sparse table, so the cost is linear in
events plus windows with no loop over either. The feature list and public bounds live in
`feature_specs`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from eyedp_core.gaze.events import SAMPLE_SCREEN, angular_distance_deg, detect_events, group_positions, pix_to_deg
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gaze.feature_specs import (
    FEATURE_NAMES,
    FEATURE_SPECS,
    LARGE_SACCADE_DEG,
    WORDBOOK_LETTERS,
    WORDBOOK_N,
    feature_bounds,
)

__all__ = ["window_features", "input_kind", "FEATURE_SPECS", "FEATURE_NAMES", "feature_bounds",
           "DEFAULT_GROUPS", "saccade_letters"]

DEFAULT_GROUPS = ("participant", "observer", "task", "stimulus", "recording", "trial")
_WORDBOOK_BLOCK = 512  # windows per block: bounds the (windows x distinct n-grams) count matrix


def input_kind(data: pd.DataFrame) -> str:
    """Table -> "events" (has `type`), "fixations" (duration_ms) or "samples" (t_s, x, y); else ValueError."""
    cols = set(data.columns)
    if {"type", "start_s", "duration_ms"} <= cols:
        return "events"
    if {"x", "y", "duration_ms"} <= cols:
        return "fixations"
    if {"t_s", "x", "y"} <= cols:
        return "samples"
    raise ValueError("window_features needs raw samples (t_s, x, y[, pupil]), an event table (type, "
                     "start_s, duration_ms, ...) or a fixation table (x, y, duration_ms[, start_s]); "
                     f"got {sorted(cols)}")


def _default_geometry() -> Geometry:
    return SAMPLE_SCREEN


def _col(df: pd.DataFrame, name: str) -> np.ndarray:
    return df[name].to_numpy(float) if name in df.columns else np.full(len(df), np.nan)


def _events_from_fixations(g: pd.DataFrame, geometry: Geometry) -> tuple[pd.DataFrame, float, float]:
    """Fixation table of one recording -> (event table with saccades between fixations, t0, t_end)."""
    dur = g["duration_ms"].to_numpy(float)
    tcol = "start_s" if "start_s" in g.columns else ("t_s" if "t_s" in g.columns else None)
    timed = tcol is not None
    start = g[tcol].to_numpy(float) if timed else np.r_[0.0, np.cumsum(dur)[:-1] / 1000.0]
    order = np.argsort(start, kind="stable")
    start, dur = start[order], dur[order]
    x, y = _col(g, "x")[order], _col(g, "y")[order]
    pupil = _col(g, "mean_pupil" if "mean_pupil" in g.columns else "pupil")[order]
    end = start + dur / 1000.0
    fix = pd.DataFrame({"type": "fixation", "start_s": start, "end_s": end, "duration_ms": dur,
                        "x": x, "y": y, "mean_pupil": pupil})
    s_start = end[:-1]
    s_dur = (start[1:] - end[:-1]) * 1000.0 if timed else np.full(s_start.size, np.nan)
    sac = pd.DataFrame({"type": "saccade", "start_s": s_start, "duration_ms": s_dur, "x": x[:-1], "y": y[:-1],
                        "dx": np.diff(x), "dy": np.diff(y),
                        "amplitude_deg": angular_distance_deg(x[:-1], y[:-1], x[1:], y[1:], geometry)})
    ev = pd.concat([fix, sac], ignore_index=True)
    t_end = float(end.max()) if end.size else 0.0
    return ev, float(start.min()) if start.size else 0.0, t_end


class _Windows:
    """Sorted event start times + window edges -> per-window sums, moments and extrema of event values."""

    def __init__(self, times: np.ndarray, ws: np.ndarray, we: np.ndarray) -> None:
        self.lo = np.searchsorted(times, ws, side="left")
        self.hi = np.searchsorted(times, we, side="left")
        self.count = (self.hi - self.lo).astype(float)

    def _range_sum(self, v: np.ndarray) -> np.ndarray:
        c = np.r_[0.0, np.cumsum(v)]
        return c[self.hi] - c[self.lo]

    def moments(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Event values (NaN = missing) -> (n valid, mean, variance) per window; empty -> mean = var = 0."""
        ok = np.isfinite(v)
        # Centring on the overall mean keeps the sum-of-squares difference numerically stable.
        centre = float(np.mean(v[ok])) if ok.any() else 0.0
        d = np.where(ok, v - centre, 0.0)
        n = self._range_sum(ok.astype(float))
        s1, s2 = self._range_sum(d), self._range_sum(d * d)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = s1 / n
            var = np.maximum(s2 / n - m * m, 0.0)
        return n, np.where(n > 0, m + centre, 0.0), np.where(n > 0, var, 0.0)

    def extreme(self, v: np.ndarray, largest: bool) -> np.ndarray:
        """Event values -> per-window max (or min) over valid values via a sparse table; empty -> 0."""
        fill = -np.inf if largest else np.inf
        w = np.where(np.isfinite(v), v, fill)
        if w.size == 0:
            return np.zeros(self.lo.size)
        op = np.maximum if largest else np.minimum
        levels = [w]
        k = 1
        while 2 * k <= w.size:
            prev = levels[-1]
            levels.append(np.r_[op(prev[:-k], prev[k:]), np.full(k, fill)])
            k *= 2
        table = np.stack([np.r_[lv, np.full(w.size - lv.size, fill)] for lv in levels])
        length = self.hi - self.lo
        j = np.floor(np.log2(np.maximum(length, 1))).astype(int)
        a = table[j, np.minimum(self.lo, w.size - 1)]
        b = table[j, np.clip(self.hi - (1 << j), 0, w.size - 1)]
        out = op(a, b)
        return np.where((length > 0) & np.isfinite(out), out, 0.0)


def saccade_letters(dx: np.ndarray, dy: np.ndarray, amplitude_deg: np.ndarray) -> np.ndarray:
    """Saccade dx, dy (px, y down), amplitudes -> wordbook letters 0..7 (R, L, U, D) x (small, large)."""
    horiz = np.abs(dx) >= np.abs(dy)
    direction = np.where(horiz, np.where(dx >= 0, 0, 1), np.where(dy < 0, 2, 3))
    return direction * 2 + (amplitude_deg >= LARGE_SACCADE_DEG)


def _wordbook(letters: np.ndarray, t: np.ndarray, ws: np.ndarray, we: np.ndarray) -> dict[str, np.ndarray]:
    """Saccade letters and start times, window edges -> wordbook features for n in WORDBOOK_N."""
    out: dict[str, np.ndarray] = {}
    k = ws.size
    for n in WORDBOOK_N:
        m = letters.size - n + 1
        names = [f"wb{n}_{s}" for s in ("distinct", "max_count", "mean_count", "var_count")]
        res = {nm: np.zeros(k) for nm in names}
        if m > 0:
            codes = np.zeros(m, dtype=np.int64)
            for j in range(n):  # n <= 4 letters per word, not a loop over events
                codes = codes * WORDBOOK_LETTERS + letters[j:j + m]
            # An n-gram is in a window when its first and its last saccade start there.
            lo = np.searchsorted(t[:m], ws, side="left")
            hi = np.maximum(np.searchsorted(t[n - 1:], we, side="left"), lo)
            for b0 in range(0, k, _WORDBOOK_BLOCK):  # blocks of windows only bound memory
                sl = slice(b0, min(k, b0 + _WORDBOOK_BLOCK))
                a, z = int(lo[sl].min()), int(hi[sl].max())
                if z <= a:
                    continue
                uniq, inv = np.unique(codes[a:z], return_inverse=True)
                onehot = np.zeros((z - a + 1, uniq.size), dtype=np.int32)
                onehot[np.arange(1, z - a + 1), inv] = 1
                cum = np.cumsum(onehot, axis=0)
                counts = (cum[hi[sl] - a] - cum[lo[sl] - a]).astype(float)
                distinct = (counts > 0).sum(axis=1).astype(float)
                total = counts.sum(axis=1)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = np.where(distinct > 0, total / distinct, 0.0)
                    var = np.where(distinct > 0, (counts**2).sum(axis=1) / distinct - mean**2, 0.0)
                res[names[0]][sl], res[names[1]][sl] = distinct, counts.max(axis=1)
                res[names[2]][sl], res[names[3]][sl] = mean, np.maximum(var, 0.0)
        out.update(res)
    return out


def _group_features(ev: pd.DataFrame, t0: float, t_end: float, window_s: float, step_s: float,
                    geometry: Geometry,
                    has_blinks: bool) -> tuple[np.ndarray, dict[str, np.ndarray]] | None:
    """Events of one recording, its time span, window settings -> (window starts, {feature: values})."""
    k = int(np.floor((t_end - t0 - window_s) / step_s + 1e-9)) + 1
    if k <= 0:
        return None
    ws = t0 + np.arange(k) * step_s
    we = ws + window_s
    kinds = ev["type"].to_numpy(dtype=object)
    f = {}

    def part(kind: str) -> tuple[pd.DataFrame, _Windows]:
        e = ev[kinds == kind].sort_values("start_s", kind="stable")
        return e, _Windows(e["start_s"].to_numpy(float), ws, we)

    fx, wf = part("fixation")
    fdur = _col(fx, "duration_ms")
    f["fix_rate_hz"] = wf.count / window_s
    _, f["fix_dur_mean_ms"], f["fix_dur_var_ms2"] = wf.moments(fdur)
    f["fix_dur_max_ms"], f["fix_dur_min_ms"] = wf.extreme(fdur, True), wf.extreme(fdur, False)
    f["fix_time_ratio"] = np.minimum(wf._range_sum(np.nan_to_num(fdur)) / 1000.0 / window_s, 1.0)
    xd, yd = pix_to_deg(_col(fx, "x"), _col(fx, "y"), geometry)
    f["fix_disp_x_deg"] = np.sqrt(wf.moments(xd)[2])
    f["fix_disp_y_deg"] = np.sqrt(wf.moments(yd)[2])

    sc, wsac = part("saccade")
    amp, pv = _col(sc, "amplitude_deg"), _col(sc, "peak_velocity_deg_s")
    dx, dy = _col(sc, "dx"), _col(sc, "dy")
    f["sacc_rate_hz"] = wsac.count / window_s
    n_amp, f["sacc_amp_mean_deg"], f["sacc_amp_var_deg2"] = wsac.moments(amp)
    f["sacc_amp_max_deg"], f["sacc_amp_min_deg"] = wsac.extreme(amp, True), wsac.extreme(amp, False)
    n_dur, f["sacc_dur_mean_ms"], _ = wsac.moments(_col(sc, "duration_ms"))
    if not np.isfinite(_col(sc, "duration_ms")).any():
        f["sacc_dur_mean_ms"] = np.full(k, np.nan)
    if np.isfinite(pv).any():
        _, f["sacc_peak_vel_mean_deg_s"], f["sacc_peak_vel_var"] = wsac.moments(pv)
        f["sacc_peak_vel_max_deg_s"] = wsac.extreme(pv, True)
        both = np.isfinite(pv) & np.isfinite(amp)
        s_pv = wsac._range_sum(np.where(both, pv, 0.0))
        s_amp = wsac._range_sum(np.where(both, amp, 0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            f["sacc_vel_per_deg_hz"] = np.where(s_amp > 0, s_pv / s_amp, 0.0)
    else:
        for name in ("sacc_peak_vel_mean_deg_s", "sacc_peak_vel_var", "sacc_peak_vel_max_deg_s",
                     "sacc_vel_per_deg_hz"):
            f[name] = np.full(k, np.nan)
    valid_dir = np.isfinite(dx) & np.isfinite(dy)
    n_dir = wsac._range_sum(valid_dir.astype(float))
    letters = saccade_letters(np.nan_to_num(dx), np.nan_to_num(dy), np.nan_to_num(amp))
    with np.errstate(invalid="ignore", divide="ignore"):
        n_large = wsac._range_sum((amp >= LARGE_SACCADE_DEG) * 1.0)
        f["sacc_large_ratio"] = np.where(n_amp > 0, n_large / n_amp, 0.0)
        for i, name in enumerate(("right", "left", "up", "down")):
            hit = valid_dir & (letters // 2 == i)
            f[f"sacc_{name}_ratio"] = np.where(n_dir > 0, wsac._range_sum(hit * 1.0) / n_dir, 0.0)

    if has_blinks:
        bl, wb = part("blink")
        bdur = _col(bl, "duration_ms")
        f["blink_rate_per_min"] = wb.count / window_s * 60.0
        _, f["blink_dur_mean_ms"], f["blink_dur_var_ms2"] = wb.moments(bdur)
        f["blink_dur_max_ms"] = wb.extreme(bdur, True)
    else:
        for name in ("blink_rate_per_min", "blink_dur_mean_ms", "blink_dur_var_ms2", "blink_dur_max_ms"):
            f[name] = np.full(k, np.nan)

    pupil = _col(fx, "mean_pupil")
    n_p, pm, pvar = wf.moments(pupil)
    tm = (fx["start_s"].to_numpy(float) - t0) / 60.0
    ok = np.isfinite(pupil)
    _, tmean, tvar = wf.moments(np.where(ok, tm, np.nan))
    _, ptmean, _ = wf.moments(np.where(ok, tm * pupil, np.nan))
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(tvar > 0, (ptmean - tmean * pm) / tvar, 0.0)
    has_p = n_p > 0
    f["pupil_mean_mm"], f["pupil_var_mm2"] = np.where(has_p, pm, np.nan), np.where(has_p, pvar, np.nan)
    f["pupil_min_mm"] = np.where(has_p, wf.extreme(pupil, False), np.nan)
    f["pupil_max_mm"] = np.where(has_p, wf.extreme(pupil, True), np.nan)
    f["pupil_slope_mm_min"] = np.where(has_p, slope, np.nan)

    ok_l = np.isfinite(amp) & valid_dir
    f.update(_wordbook(letters[ok_l], sc["start_s"].to_numpy(float)[ok_l], ws, we))
    return ws, f


def _recording_events(g: pd.DataFrame, kind: str, geometry: Geometry,
                      method: str) -> tuple[pd.DataFrame, float, float, bool]:
    """Rows of one recording -> (event table, first time, end time, whether blinks were observable)."""
    if kind == "samples":
        g = g.sort_values("t_s", kind="stable")
        cols = ["t_s", "x", "y"] + (["pupil"] if "pupil" in g.columns else [])
        ev = detect_events(g[cols].reset_index(drop=True), geometry, method=method)
        t = g["t_s"].to_numpy(float)
        dt = float(np.median(np.diff(t))) if t.size > 1 else 0.0
        return ev, float(t[0]), float(t[-1] + dt), True
    if kind == "events":
        start = g["start_s"].to_numpy(float)
        end = _col(g, "end_s")
        end = np.where(np.isfinite(end), end, start + g["duration_ms"].to_numpy(float) / 1000.0)
        return g, float(np.nanmin(start)), float(np.nanmax(end)), True
    ev, t0, t1 = _events_from_fixations(g, geometry)
    return ev, t0, t1, False


def window_features(data: pd.DataFrame, window_s: float = 30.0, step_s: float = 0.5,
                    geometry: Geometry | None = None, group_cols: Sequence[str] | None = None,
                    method: str = "ivt") -> pd.DataFrame:
    """Samples, event table or fixation table (+ grouping columns) -> wide table: grouping columns,
    `window` (0-based), `t_start_s`, one float column per feature in FEATURE_NAMES.

    geometry None means the simulated sample screen; group_cols None means every column of
    DEFAULT_GROUPS present. Features a fixation table cannot give (blinks, peak velocity, pupil without
    a pupil column) are NaN. Recordings shorter than one window give no rows.
    """
    if window_s <= 0 or step_s <= 0:
        raise ValueError(f"window_s and step_s must be positive, got {window_s!r} and {step_s!r}")
    kind = input_kind(data)
    geometry = geometry or _default_geometry()
    groups = list(group_cols) if group_cols is not None else [c for c in DEFAULT_GROUPS if c in data.columns]
    missing = [c for c in groups if c not in data.columns]
    if missing:
        raise ValueError(f"group column(s) {missing} not in the table")
    frames = []
    for key, pos in group_positions(data, groups):  # one recording at a time; inside is vectorised
        ev, t0, t1, has_blinks = _recording_events(data.iloc[pos], kind, geometry, method)
        res = _group_features(ev, t0, t1, window_s, step_s, geometry, has_blinks)
        if res is None:
            continue
        ws, feats = res
        key = key if isinstance(key, tuple) else (key,)
        head = {c: np.repeat(np.asarray([v], dtype=object), ws.size)
                for c, v in zip(groups, key, strict=True)}
        head.update({"window": np.arange(ws.size), "t_start_s": ws})
        frames.append(pd.DataFrame({**head, **{n: feats[n].astype(float) for n in FEATURE_NAMES}}))
    if not frames:
        empty = {c: pd.Series(dtype=data[c].dtype) for c in groups}
        empty.update({"window": pd.Series(dtype=int), "t_start_s": pd.Series(dtype=float)})
        return pd.DataFrame({**empty, **{n: pd.Series(dtype=float) for n in FEATURE_NAMES}})
    out = pd.concat(frames, ignore_index=True)
    for c in groups:  # restore the input dtype of grouping columns (object arrays lose it)
        out[c] = out[c].astype(data[c].dtype)
    return out
