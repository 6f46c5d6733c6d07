"""Event parameters for the privacy methods of David-John et al. (docs/PRIVACY_MODEL.md §9.2, §9.3).

Events come from the foundation's detection (`eyedp_core.gaze.events`, I-VT by default). Per event:

* fixation: centre (μx, μy), spread (σx, σy) in px, duration in s, number of samples;
* saccade: amplitude (deg), duration (s), peak velocity (deg/s) and a parametric velocity profile
  v(τ) = a·exp(−(τ − b)²/(2c²)) fitted per saccade (τ = time since the saccade's first sample).

The profile fit is vectorised over all saccades: Guo's iteratively weighted least squares on ln v (a
Gaussian is a parabola in log space; weights ŷ² undo the log's noise amplification), with a moment fit
where the parabola opens upwards. Velocities are central differences over ±1 sample, i.e. the true
profile convolved with a box of width 2·Δt; that adds Δt²/3 to the variance, which the fit removes
(the area a·c·√(2π), which is the amplitude, is kept).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import ndtr

from eyedp_core.gaze.events import (
    SAMPLE_SCREEN,
    IdtSettings,
    IvtSettings,
    detect_idt,
    detect_ivt,
    label_runs,
    labels_to_events,
    velocity_deg_s,
)
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.streams import stream_columns

__all__ = ["EventParams", "event_params", "fit_velocity_profiles", "gaussian_profile", "saccade_progress",
           "FIXATION_PARAMS", "SACCADE_PARAMS"]

FIXATION_PARAMS = ("mu_x", "mu_y", "sd_x", "sd_y", "duration_s")
SACCADE_PARAMS = ("a", "b", "c", "duration_s")
_FIT_ITERATIONS = 4


@dataclass(frozen=True)
class EventParams:
    """Per-event parameters of every stream: one row per fixation and per saccade, in time order.

    Both tables start with the stream's grouping columns, then `index` (order of the event of that type in
    its stream), `t_start_s`, `t_end_s`, `duration_s`, `first`/`stop` (sample positions in the stream's rows,
    stop exclusive). Fixations add mu_x, mu_y, sd_x, sd_y, n; saccades add amplitude_deg,
    peak_velocity_deg_s, a (deg/s), b (s), c (s), x0, y0, x1, y1 and fit_ok.
    """

    fixations: pd.DataFrame
    saccades: pd.DataFrame
    rate_hz: float
    positions: dict[tuple, np.ndarray] = field(default_factory=dict)

    def rows(self, key: tuple, first: int, stop: int) -> np.ndarray:
        """Stream key (values of the grouping columns) and first/stop -> positional rows in the samples table."""
        return self.positions[key][first:stop]


def gaussian_profile(tau: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Times since saccade start and profile parameters -> velocity a·exp(−(τ−b)²/(2c²)) in deg/s."""
    return a * np.exp(-0.5 * ((tau - b) / c) ** 2)


def saccade_progress(tau: np.ndarray, b: np.ndarray, c: np.ndarray, duration: np.ndarray) -> np.ndarray:
    """Times in [0, duration] and profile (b, c) -> fraction of the saccade's path covered, 0 at τ=0, 1 at the end.

    The integral of the Gaussian profile (a normal CDF), rescaled so the movement starts and ends at the
    fixations it connects."""
    lo = ndtr(-b / c)
    hi = ndtr((duration - b) / c)
    span = np.where(hi - lo > 1e-12, hi - lo, 1.0)
    return np.clip((ndtr((tau - b) / c) - lo) / span, 0.0, 1.0)


def _log_parabolas(s_use: np.ndarray, u: np.ndarray, v_u: np.ndarray, count: np.ndarray,
                   n_seg: int) -> tuple[np.ndarray, np.ndarray]:
    """Saccade of each sample, time (sample units), speed > 0, samples per saccade -> coefficients of
    log v = c0 + c1·u + c2·u² per saccade (iteratively re-weighted least squares) and where they are concave."""
    lv = np.log(v_u)

    def moments(w: np.ndarray) -> np.ndarray:
        cols = [np.bincount(s_use, weights=w * u ** p, minlength=n_seg) for p in range(5)]
        return np.stack(cols, axis=1)  # (n_seg, 5): Σw, Σwu, Σwu², Σwu³, Σwu⁴

    w = v_u ** 2
    ok = np.zeros(n_seg, bool)
    coef = np.zeros((n_seg, 3))
    for _ in range(_FIT_ITERATIONS):
        m = moments(w)
        rhs = np.stack([np.bincount(s_use, weights=w * lv * u ** p, minlength=n_seg) for p in range(3)], axis=1)
        mat = np.stack([m[:, 0:3], m[:, 1:4], m[:, 2:5]], axis=1)
        det = np.linalg.det(mat)
        good = (count >= 3) & (np.abs(det) > 1e-12 * np.maximum(m[:, 0], 1e-300) ** 3)
        coef = np.zeros((n_seg, 3))
        if good.any():
            coef[good] = np.linalg.solve(mat[good], rhs[good][:, :, None])[:, :, 0]
        ok = good & (coef[:, 2] < 0)
        # Guo (2011): re-weight by the fitted curve squared; diverging fits fall back to the data weights.
        fitted = np.exp(np.clip(coef[s_use, 0] + coef[s_use, 1] * u + coef[s_use, 2] * u ** 2, -50, 50))
        w = np.where(ok[s_use], fitted ** 2, v_u ** 2)
    return coef, ok


def _moment_profiles(s_use: np.ndarray, u: np.ndarray, v_u: np.ndarray,
                     n_seg: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fallback profile per saccade (a, b, c in sample units): centre of mass and spread of the speed curve,
    area = amplitude."""
    sw = np.bincount(s_use, weights=v_u, minlength=n_seg)
    with np.errstate(invalid="ignore", divide="ignore"):
        mb = np.bincount(s_use, weights=v_u * u, minlength=n_seg) / sw
        mvar = np.bincount(s_use, weights=v_u * u ** 2, minlength=n_seg) / sw - mb ** 2
    mc = np.sqrt(np.maximum(mvar, 0.25))
    return sw / (mc * np.sqrt(2 * np.pi)), mb, mc  # a: Σ v·Δt / (c·Δt·√(2π)), both in sample units


def fit_velocity_profiles(tau: np.ndarray, v: np.ndarray, seg: np.ndarray, n_seg: int,
                          dt: float | np.ndarray, box_corrected: bool = True) -> tuple[np.ndarray, ...]:
    """Flat samples of many saccades -> per-saccade Gaussian profile (a, b, c, ok), vectorised.

    tau: time of each sample since its saccade's start (s); v: speed (deg/s, NaN allowed); seg: saccade
    number of each sample (0..n_seg-1); dt: sample interval (s, scalar or per saccade). ok is False where
    the log-parabola was not concave and the moment fit was used instead."""
    tau = np.asarray(tau, float)
    v = np.asarray(v, float)
    seg = np.asarray(seg, np.intp)
    dts = np.broadcast_to(np.asarray(dt, float), (n_seg,)).astype(float)
    use = np.isfinite(v) & (v > 1e-6) & np.isfinite(tau)
    s_use, tau_u, v_u = seg[use], tau[use], v[use]
    # Work in units of the sample interval so the normal equations stay well conditioned.
    u = tau_u / dts[s_use]
    count = np.bincount(s_use, minlength=n_seg)
    coef, ok = _log_parabolas(s_use, u, v_u, count, n_seg)
    g = np.where(ok, coef[:, 2], -1.0)
    b_u = np.where(ok, -coef[:, 1] / (2 * g), 0.0)
    c_u = np.where(ok, np.sqrt(-1.0 / (2 * g)), 1.0)
    a = np.where(ok, np.exp(np.clip(coef[:, 0] - coef[:, 1] ** 2 / (4 * g), -50, 50)), 0.0)
    ma, mb, mc = _moment_profiles(s_use, u, v_u, n_seg)
    # Keep a concave fit only where its centre lies near the samples (a flat run can give a far vertex).
    lo = np.full(n_seg, np.inf)
    hi = np.full(n_seg, -np.inf)
    np.minimum.at(lo, s_use, u)
    np.maximum.at(hi, s_use, u)
    ok &= (b_u >= lo - 1) & (b_u <= hi + 1) & (c_u < 4 * (hi - lo + 1))
    b_u = np.where(ok, b_u, mb)
    c_u = np.where(ok, c_u, mc)
    a = np.where(ok, a, ma)
    b = b_u * dts
    c = c_u * dts
    if box_corrected:
        c_true = np.sqrt(np.maximum(c ** 2 - dts ** 2 / 3.0, (0.25 * dts) ** 2))
        a = a * c / c_true
        c = c_true
    none = count == 0
    a, b, c = (np.where(none, np.nan, arr) for arr in (a, b, c))
    return a, b, c, ok


def _stream_events(t: np.ndarray, x: np.ndarray, y: np.ndarray, geometry: Geometry, method: str,
                   threshold: float) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    """One stream -> (event table, run starts, run stops, central-difference speed) for fixations/saccades."""
    if method == "ivt":
        labels = detect_ivt(t, x, y, geometry, IvtSettings(velocity_threshold_deg_s=threshold))
    elif method == "idt":
        labels = detect_idt(t, x, y, geometry, IdtSettings(dispersion_threshold_deg=threshold))
    else:
        raise ValueError(f"method must be 'ivt' or 'idt', got {method!r}")
    starts, ends, vals = label_runs(t, labels)
    ev = labels_to_events(t, x, y, labels, geometry)
    keep = np.isin(vals, (1, 2, 3))
    speed = velocity_deg_s(t, x, y, geometry, smooth="central")
    return ev, starts[keep], ends[keep], speed


# The columns of EventParams' tables after the stream's key columns.
_FIXATION_COLUMNS = ("index", "t_start_s", "t_end_s", "duration_s", "first", "stop", "mu_x", "mu_y", "sd_x", "sd_y", "n")
_SACCADE_COLUMNS = ("index", "t_start_s", "t_end_s", "duration_s", "first", "stop", "amplitude_deg", "peak_velocity_deg_s",
                    "x0", "y0", "x1", "y1", "a", "b", "c", "fit_ok")


def _moments(x: np.ndarray, y: np.ndarray, f0: np.ndarray,
             f1: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gaze of one stream and sample runs [f0, f1) -> mean and variance of x and y over each run's samples with
    gaze (cumulative sums: one pass for all runs)."""
    ok = np.isfinite(x) & np.isfinite(y)
    c_ok = np.r_[0, np.cumsum(ok)]
    cnt = np.maximum(c_ok[f1] - c_ok[f0], 1)
    xs, ys = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    cx, cy = np.r_[0.0, np.cumsum(xs)], np.r_[0.0, np.cumsum(ys)]
    cxx, cyy = np.r_[0.0, np.cumsum(xs * xs)], np.r_[0.0, np.cumsum(ys * ys)]
    mx, my = (cx[f1] - cx[f0]) / cnt, (cy[f1] - cy[f0]) / cnt
    vx = np.maximum((cxx[f1] - cxx[f0]) / cnt - mx ** 2, 0.0)
    vy = np.maximum((cyy[f1] - cyy[f0]) / cnt - my ** 2, 0.0)
    return mx, my, vx, vy


def _speed_curves(t: np.ndarray, speed: np.ndarray, s0: np.ndarray,
                  s1: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Times, speed and saccade runs [s0, s1) -> (time since the run's start, speed, run number) of the samples
    of each run plus one on each side, where the speed curve rises and falls."""
    lo = np.maximum(s0 - 1, 0)
    hi = np.minimum(s1 + 1, t.size)
    lens = hi - lo
    idx = np.repeat(lo - np.r_[0, np.cumsum(lens)[:-1]], lens) + np.arange(lens.sum())
    seg = np.repeat(np.arange(s0.size), lens)
    return t[idx] - t[np.repeat(s0, lens)], speed[idx], seg


def _event_columns(ev: pd.DataFrame, mask: np.ndarray, first: np.ndarray, stop: np.ndarray,
                   ident: dict) -> dict[str, np.ndarray]:
    """One stream's events of one kind (mask) -> the columns every event has: the stream's keys, index, start,
    end, duration (s) and the sample run [first, stop)."""
    n = int(mask.sum())
    return {**{k: np.repeat(np.asarray([v], dtype=object), n) for k, v in ident.items()},
            "index": np.arange(n), "t_start_s": ev["t_start_s"].to_numpy()[mask], "t_end_s": ev["t_end_s"].to_numpy()[mask],
            "duration_s": (ev["duration_ms"].to_numpy() / 1000.0)[mask], "first": first, "stop": stop}


def _stack(parts: list[dict], cols: list[str], samples: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per-stream column dicts -> one table (key columns keep the samples' dtype)."""
    if not parts:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame({c: np.concatenate([p[c] for p in parts]) for c in parts[0]})
    for k in keys:
        out[k] = out[k].astype(samples[k].dtype) if samples[k].dtype != object else out[k]
    return out


def event_params(samples: pd.DataFrame, geometry: Geometry = SAMPLE_SCREEN, *, method: str = "ivt",
                 threshold: float | None = None, min_spread_px: float = 0.5) -> EventParams:
    """Samples (participant, [stimulus|task], t_s, x, y) -> EventParams (fixations and saccades per stream).

    Timestamps must strictly increase within each stream (use `streams.prepare_streams` first);
    `threshold` is deg/s for I-VT (default 30) or deg for I-DT (default 1). Spreads are floored at
    `min_spread_px` so a fixation's 2-D normal model never degenerates."""
    thr = float(threshold if threshold is not None else (30.0 if method == "ivt" else 1.0))
    keys = stream_columns(samples)
    fix_parts, sac_parts = [], []
    tau_all, v_all, seg_all, dt_all = [], [], [], []
    n_sac = 0
    rates = []
    positions: dict[tuple, np.ndarray] = {}
    groups = samples.groupby(keys, sort=True, dropna=False).indices if keys else {(): np.arange(len(samples))}
    for key, pos in groups.items():  # one stream at a time; everything inside is vectorised
        pos = np.sort(pos)
        g = samples.iloc[pos]
        t, x, y = (g[c].to_numpy(float) for c in ("t_s", "x", "y"))
        if t.size < 3:
            continue
        dt = float(np.median(np.diff(t)))
        rates.append(1.0 / dt)
        ev, first, stop, speed = _stream_events(t, x, y, geometry, method, thr)
        key = key if isinstance(key, tuple) else (key,)
        positions[key] = pos
        ident = dict(zip(keys, key))
        kind = ev["type"].to_numpy()
        is_fix = kind == "fixation"
        is_sac = kind == "saccade"
        if is_fix.any():
            f0, f1 = first[is_fix], stop[is_fix]
            mx, my, vx, vy = _moments(x, y, f0, f1)
            fix_parts.append({**_event_columns(ev, is_fix, f0, f1, ident), "mu_x": mx, "mu_y": my,
                              "sd_x": np.maximum(np.sqrt(vx), min_spread_px),
                              "sd_y": np.maximum(np.sqrt(vy), min_spread_px), "n": f1 - f0})
        if is_sac.any():
            s0, s1 = first[is_sac], stop[is_sac]
            tau, v, seg = _speed_curves(t, speed, s0, s1)
            tau_all.append(tau)
            v_all.append(v)
            seg_all.append(seg + n_sac)
            dt_all.append(np.full(s0.size, dt))
            sac_parts.append({
                **_event_columns(ev, is_sac, s0, s1, ident),
                "amplitude_deg": ev["amplitude_deg"].to_numpy()[is_sac],
                "peak_velocity_deg_s": ev["peak_velocity_deg_s"].to_numpy()[is_sac],
                "x0": ev["x"].to_numpy()[is_sac], "y0": ev["y"].to_numpy()[is_sac],
                "x1": ev["x_end"].to_numpy()[is_sac], "y1": ev["y_end"].to_numpy()[is_sac]})
            n_sac += s0.size
    fix_cols, sac_cols = [*keys, *_FIXATION_COLUMNS], [*keys, *_SACCADE_COLUMNS]
    fixations = _stack(fix_parts, fix_cols, samples, keys)
    saccades = pd.DataFrame(columns=sac_cols)
    if sac_parts:
        saccades = _stack(sac_parts, sac_cols, samples, keys)
        curves = (np.concatenate(tau_all), np.concatenate(v_all), np.concatenate(seg_all))
        a, b, c, ok = fit_velocity_profiles(*curves, n_sac, np.concatenate(dt_all))
        saccades["a"], saccades["b"], saccades["c"], saccades["fit_ok"] = a, b, c, ok
    rate = float(np.median(rates)) if rates else float("nan")
    return EventParams(fixations[fix_cols], saccades[sac_cols], rate, positions)
