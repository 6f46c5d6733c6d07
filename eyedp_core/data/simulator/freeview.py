"""Free viewing of the stimulus pictures: fixations of many observers, each with a personal habit.

Fixation targets are drawn from the picture's salient regions (weighted, with per-observer taste),
a central bias, some free exploration and, with the observer's own probability, a personal
idiosyncratic spot (same relative place on every picture, e.g. always checking the lower-left corner).
That spot is what a difference attack on aggregated heatmaps can single out. Observers start at the
screen centre (fixation cross) and often refixate the region they are on.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from eyedp_core.data.simulator.stimuli import Region
from eyedp_core.gaze.geometry import Geometry

VIEW_S = 8.0
_STREAM, _IDIO = 4, 5
TARGET_REGION, TARGET_IDIO, TARGET_CENTRE, TARGET_EXPLORE = 0, 1, 2, 3


def idiosyncratic_spots(seed: int, n_observers: int) -> np.ndarray:
    """Master seed, observer count -> (n, 2) personal spots as fractions of picture width and height."""
    rng = np.random.default_rng([seed, _IDIO])
    return rng.uniform(0.08, 0.92, (n_observers, 2))


def _one_viewing(rng: np.random.Generator, obs: pd.Series, spot: np.ndarray, regions: list[Region],
                 w: int, h: int, deg_per_px: float) -> dict[str, np.ndarray]:
    """Observer traits, spot, regions, picture size -> one viewing: {x, y, duration_ms, t_start_s}."""
    n = int(VIEW_S / 0.12) + 10
    dur = 70.0 + (obs["fix_median_ms"] * 1.12 - 70.0) * np.exp(rng.normal(0, obs["fix_log_sd"], n))
    p_idio = min(float(obs["idio_p"]), 0.5)
    p_centre = 0.12 * float(obs["center_bias"])
    p_explore = 0.08
    target = rng.choice(4, size=n, p=[1 - p_idio - p_centre - p_explore, p_idio, p_centre, p_explore])
    weights = np.array([r.weight for r in regions]) * np.exp(rng.normal(0, 0.5, len(regions)))
    reg = rng.choice(len(regions), size=n, p=weights / weights.sum())
    # Refixations: keep the previous target (carry it forward) with probability 0.3.
    stay = rng.random(n) < 0.3
    stay[0] = False
    src = np.maximum.accumulate(np.where(stay, 0, np.arange(n)))
    target, reg = target[src], reg[src]
    cx, cy = np.array([r.x for r in regions])[reg], np.array([r.y for r in regions])[reg]
    sx, sy = np.array([r.sx for r in regions])[reg], np.array([r.sy for r in regions])[reg]
    z = rng.standard_normal((n, 2))
    x = np.select([target == TARGET_REGION, target == TARGET_IDIO, target == TARGET_CENTRE],
                  [cx + z[:, 0] * sx * 0.8, spot[0] * w + z[:, 0] * 18, w / 2 + z[:, 0] * 0.16 * w],
                  rng.uniform(0, w, n))
    y = np.select([target == TARGET_REGION, target == TARGET_IDIO, target == TARGET_CENTRE],
                  [cy + z[:, 1] * sy * 0.8, spot[1] * h + z[:, 1] * 18, h / 2 + z[:, 1] * 0.16 * h],
                  rng.uniform(0, h, n))
    x[0], y[0] = w / 2 + rng.normal(0, 10), h / 2 + rng.normal(0, 10)
    x, y = np.clip(x, 0, w - 1), np.clip(y, 0, h - 1)
    amp = np.r_[0.0, np.hypot(np.diff(x), np.diff(y))] * deg_per_px
    sacc_s = (obs["sacc_dur0_ms"] + 2.3 * amp) / obs["sacc_speed"] / 1000.0
    start = np.cumsum(sacc_s) + np.r_[0.0, np.cumsum(dur)[:-1] / 1000.0]
    keep = start + dur / 1000.0 <= VIEW_S
    keep[0] = True
    return {"x": x[keep], "y": y[keep], "duration_ms": dur[keep], "t_start_s": start[keep]}


def freeview_fixations(seed: int, observers: pd.DataFrame, regions: dict[str, list[Region]],
                       screen: Geometry) -> pd.DataFrame:
    """Master seed, observers (traits), {stimulus: regions}, screen -> fixation table:
    observer, stimulus, x, y, duration_ms, t_start_s (one VIEW_S viewing per observer and picture)."""
    spots = idiosyncratic_spots(seed, len(observers))
    deg_per_px = screen.deg_per_px()[0]
    frames = []
    for o in range(len(observers)):  # observers x stimuli, each viewing vectorised
        for s, (name, regs) in enumerate(regions.items()):
            rng = np.random.default_rng([seed, _STREAM, o, s])
            fx = _one_viewing(rng, observers.iloc[o], spots[o], regs, screen.width_px, screen.height_px,
                              deg_per_px)
            df = pd.DataFrame(fx)
            df.insert(0, "stimulus", name)
            df.insert(0, "observer", observers.iloc[o]["id"])
            frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out[["x", "y"]] = out[["x", "y"]].round(1)
    out["duration_ms"] = out["duration_ms"].round(0)
    out["t_start_s"] = out["t_start_s"].round(3)
    return out
