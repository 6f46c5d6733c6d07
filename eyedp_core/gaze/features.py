"""Sliding-window eye-movement features (Steil et al. 2019 / Bulling et al. 2011 style), vectorised.

Input is raw samples (events are detected with `events.detect_events`), an event table, or a bare
fixation table. Windows of `window_s` seconds start every `step_s` seconds from the first sample of
each recording; only windows that fit completely are produced. An event belongs to the window its
start falls into. All recordings are handled at once: events of every recording sit in one array,
sorted by (recording, start); a window's events are found by searching (recording, time) keys, so no
window reaches into another recording. Per window, sums are taken over the window's own events, found by two
searches (one per window edge); minima and maxima come from a sparse table, so the cost is linear in
events plus windows with no loop over recordings, events or windows. The feature list and public
bounds live in `feature_specs`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.gaze.contributions import RECORDING_SPLITS
from eyedp_core.gaze.events import SAMPLE_SCREEN, angular_distance_deg, detect_events, pix_to_deg
from eyedp_core.gaze.feature_specs import (
    FEATURE_NAMES,
    FEATURE_SPECS,
    LARGE_SACCADE_DEG,
    WORDBOOK_LETTERS,
    WORDBOOK_N,
    feature_bounds,
)
from eyedp_core.gaze.geometry import Geometry

__all__ = [
    "DEFAULT_GROUPS",
    "FEATURE_NAMES",
    "FEATURE_SPECS",
    "feature_bounds",
    "input_kind",
    "saccade_letters",
    "window_features",
]

# A window never spans two recordings. "observer" is the participant column's name in canonical fixation
# tables, so it groups like "participant" does.
DEFAULT_GROUPS: tuple[str, ...] = ("participant", "observer", *RECORDING_SPLITS)
_WORDBOOK_BLOCK = 512  # windows per block: bounds the (windows x distinct n-grams) count matrix
_WORDBOOK_SPAN = 4096  # n-grams per block (unless one window holds more): the same bound across recordings
_KINDS = ("fixation", "saccade", "blink")


def input_kind(data: pd.DataFrame) -> str:
    """Table -> "events" (has `type`), "fixations" (duration_ms) or "samples" (t_s, x, y); else ValueError."""
    cols = set(data.columns)
    if {"type", "t_start_s", "duration_ms"} <= cols:
        return "events"
    if {"x", "y", "duration_ms"} <= cols:
        return "fixations"
    if {"t_s", "x", "y"} <= cols:
        return "samples"
    raise ValueError("window_features needs raw samples (t_s, x, y[, pupil]), an event table (type, "
                     "t_start_s, duration_ms, ...) or a fixation table (x, y, duration_ms[, t_start_s]); "
                     f"got {sorted(cols)}")


def _col(df: pd.DataFrame, name: str) -> np.ndarray:
    return df[name].to_numpy(float) if name in df.columns else np.full(len(df), np.nan)


@dataclass(frozen=True)
class _Events:
    """Events of every recording: recording id, kind (index into _KINDS, -1 other) and value columns."""

    rec: np.ndarray
    kind: np.ndarray
    values: dict[str, np.ndarray]

    def part(self, kind: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Events of one kind -> (recording ids, columns), sorted by (recording, start), ties in table order."""
        sel = np.flatnonzero(self.kind == _KINDS.index(kind))
        order = sel[np.lexsort((self.values["t_start_s"][sel], self.rec[sel]))]
        return self.rec[order], {k: v[order] for k, v in self.values.items()}


def _segments(rec: np.ndarray, n_rec: int) -> tuple[np.ndarray, np.ndarray]:
    """Recording ids sorted ascending -> (first position, row count) of each recording id."""
    count = np.bincount(rec, minlength=n_rec)
    return np.r_[0, np.cumsum(count)[:-1]], count


def _search(rec: np.ndarray, t: np.ndarray, rec_q: np.ndarray, t_q: np.ndarray) -> np.ndarray:
    """Events sorted by (recording, time), queries -> number of events before each query's (recording, time).

    Times are replaced by their ranks among all times, so the (recording, rank) key is an exact integer and one
    searchsorted answers every recording at once, with the same ties as a search inside one recording."""
    _, rank = np.unique(np.r_[t, t_q], return_inverse=True)
    rank = rank.reshape(-1).astype(np.int64)
    width = np.int64(rank.max() + 2 if rank.size else 1)
    key = rec.astype(np.int64) * width + rank[:t.size]
    return np.searchsorted(key, rec_q.astype(np.int64) * width + rank[t.size:], side="left")


class _Windows:
    """Events sorted by (recording, start) + window edges -> per-window sums, moments and extrema of event values."""

    def __init__(self, rec: np.ndarray, times: np.ndarray, rec_w: np.ndarray, ws: np.ndarray, we: np.ndarray,
                 n_rec: int) -> None:
        self.rec, self.rec_w, self.n_rec = rec, rec_w, n_rec
        edges = _search(rec, times, np.r_[rec_w, rec_w], np.r_[ws, we])
        self.lo, self.hi = edges[:ws.size], edges[ws.size:]
        self.count = (self.hi - self.lo).astype(float)
        # lo0, hi0, lo1, hi1, ...: reduceat's even results are the windows' sums (odd ones are not used).
        self._pairs = np.stack([self.lo, self.hi], axis=1).reshape(-1)

    def _range_sum(self, v: np.ndarray) -> np.ndarray:
        """Per-event values -> their sum over each window's events (0 for an empty window).

        Each window is summed on its own (reduceat over lo, hi pairs), not as a difference of running sums over
        all recordings: that difference carries the rounding of everything before the window, which a variance
        of a nearly constant window (one fixation: exactly 0) would show as noise."""
        if not self.lo.size:
            return np.zeros(0)
        padded = np.r_[np.asarray(v, float), 0.0]  # reduceat indices must lie inside the array
        sums = np.add.reduceat(padded, self._pairs)[::2]
        return np.where(self.hi > self.lo, sums, 0.0)

    def moments(self, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Event values (NaN = missing) -> (n valid, mean, variance) per window; empty -> mean = var = 0."""
        ok = np.isfinite(v)
        # Centring on each recording's mean keeps the sum-of-squares difference numerically stable.
        s = np.bincount(self.rec, weights=np.where(ok, v, 0.0), minlength=self.n_rec)
        c = np.bincount(self.rec, weights=ok.astype(float), minlength=self.n_rec)
        centre = np.divide(s, c, out=np.zeros(self.n_rec), where=c > 0)
        d = np.where(ok, v - centre[self.rec], 0.0)
        n = self._range_sum(ok.astype(float))
        s1, s2 = self._range_sum(d), self._range_sum(d * d)
        with np.errstate(invalid="ignore", divide="ignore"):
            m = s1 / n
            var = np.maximum(s2 / n - m * m, 0.0)
        return n, np.where(n > 0, m + centre[self.rec_w], 0.0), np.where(n > 0, var, 0.0)

    def extreme(self, v: np.ndarray, largest: bool) -> np.ndarray:
        """Event values -> per-window max (or min) over valid values via a sparse table; empty -> 0."""
        fill = -np.inf if largest else np.inf
        w = np.where(np.isfinite(v), v, fill)
        if w.size == 0:
            return np.zeros(self.lo.size)
        op = np.maximum if largest else np.minimum
        length = self.hi - self.lo
        longest = int(length.max()) if length.size else 0
        levels = [w]
        k = 1
        while 2 * k <= min(w.size, longest):  # levels beyond the longest window are never read
            prev = levels[-1]
            levels.append(np.r_[op(prev[:-k], prev[k:]), np.full(k, fill)])
            k *= 2
        table = np.stack([np.r_[lv, np.full(w.size - lv.size, fill)] for lv in levels])
        j = np.floor(np.log2(np.maximum(length, 1))).astype(int)
        a = table[j, np.minimum(self.lo, w.size - 1)]
        b = table[j, np.clip(self.hi - (1 << j), 0, w.size - 1)]
        out = op(a, b)
        return np.where((length > 0) & np.isfinite(out), out, 0.0)

    def any_per_recording(self, flag: np.ndarray) -> np.ndarray:
        """Per-event flags -> per window, whether any event of its whole recording has the flag."""
        return (np.bincount(self.rec, weights=flag.astype(float), minlength=self.n_rec) > 0)[self.rec_w]


def saccade_letters(dx: np.ndarray, dy: np.ndarray, amplitude_deg: np.ndarray) -> np.ndarray:
    """Saccade dx, dy (px, y down), amplitudes -> wordbook letters 0..7 (R, L, U, D) x (small, large)."""
    horiz = np.abs(dx) >= np.abs(dy)
    direction = np.where(horiz, np.where(dx >= 0, 0, 1), np.where(dy < 0, 2, 3))
    return direction * 2 + (amplitude_deg >= LARGE_SACCADE_DEG)


def _blocks(lo: np.ndarray, hi: np.ndarray) -> list[slice]:
    """Per-window n-gram ranges (both non-decreasing) -> blocks of consecutive windows, each at most
    _WORDBOOK_BLOCK windows and _WORDBOOK_SPAN n-grams (a single longer window is a block of its own)."""
    out, b0, k = [], 0, lo.size
    while b0 < k:
        b1 = min(k, b0 + _WORDBOOK_BLOCK)
        fit = int(np.searchsorted(hi[b0:b1], lo[b0] + _WORDBOOK_SPAN, side="right"))
        b1 = b0 + max(1, fit)
        out.append(slice(b0, b1))
        b0 = b1
    return out


def _wordbook(letters: np.ndarray, rec: np.ndarray, t: np.ndarray, rec_w: np.ndarray, ws: np.ndarray,
              we: np.ndarray) -> dict[str, np.ndarray]:
    """Saccade letters with their recordings and start times (sorted by both), window edges -> wordbook features
    for n in WORDBOOK_N."""
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
            # An n-gram is in a window when its first and its last saccade start there; one that spans two
            # recordings has its last saccade in the next recording, so it is in no window.
            lo = _search(rec[:m], t[:m], rec_w, ws)
            hi = np.maximum(_search(rec[n - 1:], t[n - 1:], rec_w, we), lo)
            for sl in _blocks(lo, hi):  # blocks of windows only bound memory
                a, z = int(lo[sl].min()), int(hi[sl].max())
                if z <= a:
                    continue
                uniq, inv = np.unique(codes[a:z], return_inverse=True)
                onehot = np.zeros((z - a + 1, uniq.size), dtype=np.int32)
                onehot[np.arange(1, z - a + 1), inv.reshape(-1)] = 1
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


def _window_edges(t0: np.ndarray, t_end: np.ndarray, window_s: float,
                  step_s: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each recording's time span -> (recording id, index within the recording, start) of every window."""
    with np.errstate(invalid="ignore"):
        k = np.floor((t_end - t0 - window_s) / step_s + 1e-9) + 1
    k = np.where(np.isfinite(k) & (k > 0), k, 0).astype(np.int64)
    rec_w = np.repeat(np.arange(k.size), k)
    index = np.arange(rec_w.size) - np.repeat(np.cumsum(k) - k, k)
    return rec_w, index, t0[rec_w] + index * step_s


_Columns = dict[str, np.ndarray]


@dataclass(frozen=True, eq=False)
class _Grid:
    """The windows of every recording: recording id, start and end of each window, number of recordings."""

    rec_w: np.ndarray
    ws: np.ndarray
    we: np.ndarray
    n_rec: int

    def part(self, ev: _Events, kind: str) -> tuple[_Columns, _Windows]:
        """Events and a kind -> (that kind's columns, sorted, and their windows)."""
        rec, e = ev.part(kind)
        return e, _Windows(rec, e["t_start_s"], self.rec_w, self.ws, self.we, self.n_rec)


def _fixation_features(fx: _Columns, wf: _Windows, window_s: float, geometry: Geometry) -> _Columns:
    """Fixations and their windows -> rate, duration moments and extremes, time ratio, dispersion in degrees."""
    f = {}
    fdur = fx["duration_ms"]
    f["fix_rate_hz"] = wf.count / window_s
    _, f["fix_dur_mean_ms"], f["fix_dur_var_ms2"] = wf.moments(fdur)
    f["fix_dur_max_ms"], f["fix_dur_min_ms"] = wf.extreme(fdur, True), wf.extreme(fdur, False)
    f["fix_time_ratio"] = np.minimum(wf._range_sum(np.nan_to_num(fdur)) / 1000.0 / window_s, 1.0)
    xd, yd = pix_to_deg(fx["x"], fx["y"], geometry)
    f["fix_disp_x_deg"] = np.sqrt(wf.moments(xd)[2])
    f["fix_disp_y_deg"] = np.sqrt(wf.moments(yd)[2])
    return f


def _saccade_directions(sc: _Columns) -> tuple[np.ndarray, np.ndarray]:
    """Saccades -> (whether each has a direction, its wordbook letter)."""
    dx, dy = sc["dx"], sc["dy"]
    valid_dir = np.isfinite(dx) & np.isfinite(dy)
    return valid_dir, saccade_letters(np.nan_to_num(dx), np.nan_to_num(dy), np.nan_to_num(sc["amplitude_deg"]))


def _peak_velocity_features(sc: _Columns, wsac: _Windows) -> _Columns:
    """Saccades and their windows -> peak-velocity mean, variance, maximum and velocity per degree."""
    amp, pv = sc["amplitude_deg"], sc["peak_velocity_deg_s"]
    has_pv = wsac.any_per_recording(np.isfinite(pv))
    _, pv_mean, pv_var = wsac.moments(pv)
    both = np.isfinite(pv) & np.isfinite(amp)
    s_pv = wsac._range_sum(np.where(both, pv, 0.0))
    s_amp = wsac._range_sum(np.where(both, amp, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_deg = np.where(s_amp > 0, s_pv / s_amp, 0.0)
    return {"sacc_peak_vel_mean_deg_s": np.where(has_pv, pv_mean, np.nan),
            "sacc_peak_vel_var": np.where(has_pv, pv_var, np.nan),
            "sacc_peak_vel_max_deg_s": np.where(has_pv, wsac.extreme(pv, True), np.nan),
            "sacc_vel_per_deg_hz": np.where(has_pv, per_deg, np.nan)}


def _saccade_features(sc: _Columns, wsac: _Windows, window_s: float, valid_dir: np.ndarray,
                      letters: np.ndarray) -> _Columns:
    """Saccades, their windows, directions and letters -> rate, amplitude, duration, velocity, direction ratios."""
    f = {}
    amp, sdur = sc["amplitude_deg"], sc["duration_ms"]
    f["sacc_rate_hz"] = wsac.count / window_s
    n_amp, f["sacc_amp_mean_deg"], f["sacc_amp_var_deg2"] = wsac.moments(amp)
    f["sacc_amp_max_deg"], f["sacc_amp_min_deg"] = wsac.extreme(amp, True), wsac.extreme(amp, False)
    _, dur_mean, _ = wsac.moments(sdur)
    # A recording whose saccades have no duration at all (untimed fixations) has none to average.
    f["sacc_dur_mean_ms"] = np.where(wsac.any_per_recording(np.isfinite(sdur)), dur_mean, np.nan)
    f.update(_peak_velocity_features(sc, wsac))
    n_dir = wsac._range_sum(valid_dir.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        n_large = wsac._range_sum((amp >= LARGE_SACCADE_DEG) * 1.0)
        f["sacc_large_ratio"] = np.where(n_amp > 0, n_large / n_amp, 0.0)
        for i, name in enumerate(("right", "left", "up", "down")):
            hit = valid_dir & (letters // 2 == i)
            f[f"sacc_{name}_ratio"] = np.where(n_dir > 0, wsac._range_sum(hit * 1.0) / n_dir, 0.0)
    return f


def _blink_features(ev: _Events, grid: _Grid, window_s: float, has_blinks: bool) -> _Columns:
    """Events and the windows -> blink rate and duration features (NaN when the input has no blinks)."""
    names = ("blink_rate_per_min", "blink_dur_mean_ms", "blink_dur_var_ms2", "blink_dur_max_ms")
    if not has_blinks:
        return {name: np.full(grid.ws.size, np.nan) for name in names}
    bl, wb = grid.part(ev, "blink")
    bdur = bl["duration_ms"]
    f = {"blink_rate_per_min": wb.count / window_s * 60.0}
    _, f["blink_dur_mean_ms"], f["blink_dur_var_ms2"] = wb.moments(bdur)
    f["blink_dur_max_ms"] = wb.extreme(bdur, True)
    return f


def _pupil_features(fx: _Columns, wf: _Windows, t0: np.ndarray) -> _Columns:
    """Fixations, their windows, each recording's start -> pupil mean, variance, extremes and slope per minute."""
    pupil = fx["mean_pupil"]
    n_p, pm, pvar = wf.moments(pupil)
    tm = (fx["t_start_s"] - t0[wf.rec]) / 60.0
    ok = np.isfinite(pupil)
    _, tmean, tvar = wf.moments(np.where(ok, tm, np.nan))
    _, ptmean, _ = wf.moments(np.where(ok, tm * pupil, np.nan))
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(tvar > 0, (ptmean - tmean * pm) / tvar, 0.0)
    has_p = n_p > 0
    return {"pupil_mean_mm": np.where(has_p, pm, np.nan), "pupil_var_mm2": np.where(has_p, pvar, np.nan),
            "pupil_min_mm": np.where(has_p, wf.extreme(pupil, False), np.nan),
            "pupil_max_mm": np.where(has_p, wf.extreme(pupil, True), np.nan),
            "pupil_slope_mm_min": np.where(has_p, slope, np.nan)}


def _features(ev: _Events, t0: np.ndarray, t_end: np.ndarray, window_s: float, step_s: float,
              geometry: Geometry, has_blinks: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                   dict[str, np.ndarray]]:
    """Events of all recordings, their spans, window settings -> (recording id, index and start of each window,
    {feature: values})."""
    rec_w, index, ws = _window_edges(t0, t_end, window_s, step_s)
    grid = _Grid(rec_w, ws, ws + window_s, t0.size)
    fx, wf = grid.part(ev, "fixation")
    sc, wsac = grid.part(ev, "saccade")
    valid_dir, letters = _saccade_directions(sc)
    f = _fixation_features(fx, wf, window_s, geometry)
    f.update(_saccade_features(sc, wsac, window_s, valid_dir, letters))
    f.update(_blink_features(ev, grid, window_s, has_blinks))
    f.update(_pupil_features(fx, wf, t0))
    ok_l = np.isfinite(sc["amplitude_deg"]) & valid_dir
    f.update(_wordbook(letters[ok_l], wsac.rec[ok_l], sc["t_start_s"][ok_l], rec_w, ws, grid.we))
    return rec_w, index, ws, f


_EVENT_VALUES = ("t_start_s", "duration_ms", "x", "y", "dx", "dy", "amplitude_deg", "peak_velocity_deg_s",
                 "mean_pupil")


def _kind_codes(types: np.ndarray) -> np.ndarray:
    """Event type names -> index into _KINDS (-1 for any other type)."""
    codes = np.full(types.size, -1, dtype=np.int8)
    for i, name in enumerate(_KINDS):
        codes[types == name] = i
    return codes


def _table_events(table: pd.DataFrame, rec: np.ndarray, n_rec: int) -> tuple[_Events, np.ndarray, np.ndarray]:
    """Event table with its recording ids -> (events, first start and last end of each recording)."""
    start = table["t_start_s"].to_numpy(float)
    end = _col(table, "t_end_s")
    end = np.where(np.isfinite(end), end, start + table["duration_ms"].to_numpy(float) / 1000.0)
    with np.errstate(invalid="ignore"):
        t0 = np.full(n_rec, np.inf)
        np.fmin.at(t0, rec, start)
        t1 = np.full(n_rec, -np.inf)
        np.fmax.at(t1, rec, end)
    values = {c: _col(table, c) for c in _EVENT_VALUES}
    return _Events(rec, _kind_codes(table["type"].to_numpy(dtype=object)), values), t0, t1


def _fixation_events(table: pd.DataFrame, rec: np.ndarray, n_rec: int,
                     geometry: Geometry) -> tuple[_Events, np.ndarray, np.ndarray]:
    """Fixation table with its recording ids -> (events with a saccade between consecutive fixations of a recording,
    first start and last end of each recording). Without start times, fixations follow each other in table order."""
    dur = table["duration_ms"].to_numpy(float)
    tcol = "t_start_s" if "t_start_s" in table.columns else ("t_s" if "t_s" in table.columns else None)
    timed = tcol is not None
    by_rec = np.argsort(rec, kind="stable")
    if timed:
        start = table[tcol].to_numpy(float)
    else:
        d = dur[by_rec]
        first, _ = _segments(rec[by_rec], n_rec)
        cum = np.cumsum(np.nan_to_num(d))
        lost = np.cumsum(~np.isfinite(d))  # a missing duration makes every later start of its recording unknown
        before = np.r_[0.0, cum[:-1]] - np.repeat(np.r_[0.0, cum][first], np.bincount(rec, minlength=n_rec))
        unknown = np.r_[0, lost[:-1]] - np.repeat(np.r_[0, lost][first], np.bincount(rec, minlength=n_rec))
        start = np.empty(dur.size)
        start[by_rec] = np.where(unknown > 0, np.nan, before / 1000.0)
    order = np.lexsort((start, rec))
    r, start, dur = rec[order], start[order], dur[order]
    x, y = _col(table, "x")[order], _col(table, "y")[order]
    pupil = _col(table, "mean_pupil" if "mean_pupil" in table.columns else "pupil")[order]
    end = start + dur / 1000.0
    pair = np.flatnonzero(r[:-1] == r[1:])  # consecutive fixations of one recording
    nxt = pair + 1
    nan_f, nan_s = np.full(dur.size, np.nan), np.full(pair.size, np.nan)
    sac_dur = (start[nxt] - end[pair]) * 1000.0 if timed else nan_s
    values = {
        "t_start_s": np.r_[start, end[pair]], "duration_ms": np.r_[dur, sac_dur],
        "x": np.r_[x, x[pair]], "y": np.r_[y, y[pair]],
        "dx": np.r_[nan_f, x[nxt] - x[pair]], "dy": np.r_[nan_f, y[nxt] - y[pair]],
        "amplitude_deg": np.r_[nan_f, angular_distance_deg(x[pair], y[pair], x[nxt], y[nxt], geometry)],
        "peak_velocity_deg_s": np.r_[nan_f, nan_s], "mean_pupil": np.r_[pupil, nan_s],
    }
    kinds = np.r_[np.zeros(dur.size, np.int8), np.ones(pair.size, np.int8)]
    first, count = _segments(r, n_rec)
    t0 = np.where(count > 0, start[np.minimum(first, max(start.size - 1, 0))], np.nan) if start.size else \
        np.full(n_rec, np.nan)
    t1 = np.maximum.reduceat(end, first) if end.size else np.full(n_rec, np.nan)
    return _Events(np.r_[r, r[pair]], kinds, values), t0, t1


def _sample_events(table: pd.DataFrame, rec: np.ndarray, n_rec: int, geometry: Geometry,
                   method: str) -> tuple[_Events, np.ndarray, np.ndarray]:
    """Gaze samples with their recording ids -> (detected events, first sample time and end of the last sample's
    interval of each recording)."""
    t = table["t_s"].to_numpy(float)
    order = np.lexsort((t, rec))
    r, t = rec[order], t[order]
    cols = {"recording": r, "t_s": t, "x": table["x"].to_numpy(float)[order],
            "y": table["y"].to_numpy(float)[order]}
    if "pupil" in table.columns:
        cols["pupil"] = table["pupil"].to_numpy(float)[order]
    # The recording id is detect_events' grouping column; the index keeps the rows' own labels for its messages.
    events = detect_events(pd.DataFrame(cols, index=table.index[order]), geometry, method=method)
    first, count = _segments(r, n_rec)
    # The typical interval of each recording: the median of its steps, as np.median takes it.
    same = r[:-1] == r[1:]
    steps, rec_s = np.diff(t)[same], r[:-1][same]
    steps = steps[np.lexsort((steps, rec_s))]
    s_first, s_count = _segments(np.sort(rec_s), n_rec)
    mid = s_first + s_count // 2
    hi = steps[np.minimum(mid, max(steps.size - 1, 0))] if steps.size else np.zeros(n_rec)
    lo = steps[np.clip(mid - 1, 0, max(steps.size - 1, 0))] if steps.size else np.zeros(n_rec)
    dt = np.where(s_count == 0, 0.0, np.where(s_count % 2 == 1, hi, (lo + hi) / 2))
    last = first + count - 1
    t0, t1 = t[first], t[last] + dt
    ev_rec = events["recording"].to_numpy(np.int64)
    values = {c: _col(events, c) for c in _EVENT_VALUES}
    return _Events(ev_rec, _kind_codes(events["type"].to_numpy(dtype=object)), values), t0, t1


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
    geometry = geometry or SAMPLE_SCREEN
    groups = list(group_cols) if group_cols is not None else [c for c in DEFAULT_GROUPS if c in data.columns]
    missing = [c for c in groups if c not in data.columns]
    if missing:
        raise ValueError(f"group column(s) {missing} not in the table")
    # One id per recording, numbered in order of first appearance (the order of the output).
    rec = (data.groupby(groups, sort=False, dropna=False).ngroup().to_numpy(np.int64) if groups
           else np.zeros(len(data), np.int64))
    n_rec = int(rec.max()) + 1 if rec.size else 0
    frames: list[pd.DataFrame] = []
    if n_rec:
        if kind == "samples":
            ev, t0, t1 = _sample_events(data, rec, n_rec, geometry, method)
        elif kind == "events":
            ev, t0, t1 = _table_events(data, rec, n_rec)
        else:
            ev, t0, t1 = _fixation_events(data, rec, n_rec, geometry)
        rec_w, index, ws, feats = _features(ev, t0, t1, window_s, step_s, geometry, kind != "fixations")
        if ws.size:
            first_row = np.full(n_rec, -1, np.int64)
            first_row[rec[::-1]] = np.arange(rec.size - 1, -1, -1)
            rows = first_row[rec_w]
            head = {c: data[c].take(rows).reset_index(drop=True) for c in groups}
            head.update({"window": index, "t_start_s": ws})
            frames.append(pd.DataFrame({**head, **{n: feats[n].astype(float) for n in FEATURE_NAMES}}))
    if not frames:
        empty = {c: pd.Series(dtype=data[c].dtype) for c in groups}
        empty.update({"window": pd.Series(dtype=int), "t_start_s": pd.Series(dtype=float)})
        return pd.DataFrame({**empty, **{n: pd.Series(dtype=float) for n in FEATURE_NAMES}})
    return frames[0]
