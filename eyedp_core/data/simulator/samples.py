"""Raw gaze synthesis: fixation sequence + person -> 120 Hz samples (x, y, pupil) with noise and blinks.

Between two fixations the eye makes a saccade whose duration follows the main sequence
(duration = d0 + 2.3 ms/deg * amplitude, scaled by the person's saccade speed) with a minimum-jerk
position profile, so peak velocity grows with amplitude as in real saccades. Fixations carry slow
drift; the tracker adds white plus low-frequency noise at the person's precision. Blinks come from
a time-varying Poisson process (rate drifts with arousal and fatigue) and blank gaze and pupil, with
the typical eyelid artefacts (gaze pulled down, pupil shrinking) on the samples next to them. Pupil
size combines the person's baseline, task brightness, latent arousal, fatigue, hippus and
foreshortening away from the camera axis.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import lfilter

from eyedp_core.data.simulator.people import Modulation

RATE_HZ = 120.0
MAIN_SEQ_MS_PER_DEG = 2.3


def _ar1(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    """Length, AR coefficient, stationary sd -> AR(1) noise (C-level recursion via lfilter)."""
    e = rng.standard_normal(n) * sd * np.sqrt(1 - phi**2)
    e[0] = rng.standard_normal() * sd
    return lfilter([1.0], [1.0, -phi], e)


def _blink_intervals(rng: np.random.Generator, duration_s: float, traits: dict, mod: Modulation,
                     log_rate_offset: float) -> tuple[np.ndarray, np.ndarray]:
    """Duration, traits, modulation, task offset -> (blink starts s, blink ends s) by Poisson thinning."""
    base = traits["blink_per_min"] / 60.0 * np.exp(log_rate_offset)
    peak = base * 4.0
    cand = np.sort(rng.uniform(0, duration_s, rng.poisson(peak * duration_s)))
    rate = base * np.exp(mod.log_factor("blink_per_min", cand))
    keep = rng.random(cand.size) < np.minimum(rate / peak, 1.0)
    start = cand[keep]
    length = traits["blink_ms"] * np.exp(rng.normal(0, 0.25, start.size)) / 1000.0
    length = np.clip(length, 0.06, 0.45)
    # Two blinks cannot overlap: a blink starting inside the previous one is dropped.
    ok = np.r_[True, start[1:] > (start + length)[:-1] + 0.1]
    return start[ok], (start + length)[ok]


@dataclass(frozen=True)
class Viewing:
    """How one recording was viewed: its length, the screen (deg per px, (W, H) px) and the task's offsets."""

    duration_s: float
    deg_per_px: float
    screen: tuple[int, int]
    blink_offset: float  # the task's shift of the log blink rate
    pupil_offset_mm: float  # the task's shift of the pupil size


def _fixation_times(fix: dict[str, np.ndarray], traits: dict,
                    v: Viewing) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fixations {x, y, dur_ms} -> those starting within the recording: x, y, duration (s), the saccade after
    each (main sequence, s) and start times (s)."""
    fx, fy, fd = fix["x"], fix["y"], fix["dur_ms"] / 1000.0
    amp_deg = np.hypot(np.diff(fx), np.diff(fy)) * v.deg_per_px
    sacc = (traits["sacc_dur0_ms"] + MAIN_SEQ_MS_PER_DEG * amp_deg) / traits["sacc_speed"] / 1000.0
    sacc = np.r_[sacc, 0.03]
    starts = np.cumsum(np.r_[0.0, (fd + sacc)[:-1]])
    keep = starts < v.duration_s
    return fx[keep], fy[keep], fd[keep], sacc[keep], starts[keep]


def _gaze(rng: np.random.Generator, fix: dict[str, np.ndarray], traits: dict, t: np.ndarray,
          v: Viewing) -> tuple[np.ndarray, np.ndarray]:
    """Fixations and sample times -> gaze x, y (px): drift within fixations, minimum-jerk saccades, noise."""
    fx, fy, fd, sacc, starts = _fixation_times(fix, traits, v)
    n_fix, n = fx.size, t.size
    # Event boundaries interleave fixation i and saccade i; every sample finds its event by bisection.
    bounds = np.empty(2 * n_fix)
    bounds[0::2], bounds[1::2] = starts, starts + fd
    ev = np.searchsorted(bounds, t, side="right") - 1
    i = ev // 2
    in_sacc = (ev % 2) == 1
    nxt = np.minimum(i + 1, n_fix - 1)
    tau = np.clip((t - bounds[ev]) / sacc[i], 0.0, 1.0)
    mj = tau**3 * (10 - 15 * tau + 6 * tau**2)  # minimum-jerk profile: bell-shaped velocity
    # Slow fixational drift (about 0.2 deg/s) and a small saccade-landing error.
    drift_px = rng.normal(0, 0.2 / v.deg_per_px, (n_fix, 2))
    land_px = rng.normal(0, 0.15 / v.deg_per_px, (n_fix, 2))
    px, py = fx + land_px[:, 0], fy + land_px[:, 1]
    dt_fix = t - bounds[2 * i]
    x = np.where(in_sacc, px[i] + (px[nxt] - px[i]) * mj, px[i] + drift_px[i, 0] * dt_fix)
    y = np.where(in_sacc, py[i] + (py[nxt] - py[i]) * mj, py[i] + drift_px[i, 1] * dt_fix)
    noise_px = traits["noise_deg"] / v.deg_per_px
    x = x + rng.normal(0, noise_px, n) + _ar1(rng, n, 0.97, 0.6 * noise_px)
    y = y + rng.normal(0, noise_px, n) + _ar1(rng, n, 0.97, 0.6 * noise_px)
    return x, y


def _blinks(rng: np.random.Generator, t: np.ndarray, traits: dict, mod: Modulation,
            v: Viewing) -> tuple[np.ndarray, np.ndarray]:
    """Sample times -> (in a blink, within two samples of one) per sample."""
    n = t.size
    b0, b1 = _blink_intervals(rng, v.duration_s, traits, mod, v.blink_offset)
    k0 = np.searchsorted(t, b0)
    k1 = np.searchsorted(t, b1)
    run = np.zeros(n + 1, int)
    np.add.at(run, k0, 1)
    np.add.at(run, k1, -1)
    blink = np.cumsum(run[:-1]) > 0
    edge = np.zeros(n + 3, int)
    for lo, hi in ((k0 - 2, k0), (k1, k1 + 2)):
        np.add.at(edge, np.clip(lo, 0, n), 1)
        np.add.at(edge, np.clip(hi, 0, n), -1)
    return blink, (np.cumsum(edge[:n]) > 0) & ~blink


def synthesize(rng: np.random.Generator, fix: dict[str, np.ndarray], traits: dict, mod: Modulation,
               v: Viewing) -> dict[str, np.ndarray]:
    """Fixations {x, y, dur_ms}, traits, modulation, how the recording was viewed
    -> samples {t_s, x, y, pupil} at 120 Hz (NaN gaze/pupil during blinks and tracker loss)."""
    n = int(np.floor(v.duration_s * RATE_HZ))
    t = np.arange(n) / RATE_HZ
    x, y = _gaze(rng, fix, traits, t, v)

    w, h = v.screen
    ecc = np.hypot(x - w / 2, y - h / 2) * np.radians(v.deg_per_px)
    pupil = (traits["pupil_mm"] + v.pupil_offset_mm + mod.log_factor("pupil_mm", t)
             + _ar1(rng, n, np.exp(-1 / (0.8 * RATE_HZ)), traits["pupil_hippus_mm"]))
    # Foreshortening: the camera sees the pupil as an ellipse when the eye turns away from it.
    pupil = pupil * (0.6 + 0.4 * np.cos(ecc)) + rng.normal(0, 0.01, n)

    blink, near = _blinks(rng, t, traits, mod, v)
    # Eyelid artefacts: two samples either side of a blink read low and with a smaller pupil.
    y = np.where(near, y + 0.8 / v.deg_per_px, y)
    pupil = np.where(near, pupil * 0.85, pupil)
    # Occasional tracker loss of one to three samples (reflections, glasses).
    loss_start = rng.integers(0, n, rng.poisson(0.04 * v.duration_s))
    loss = np.zeros(n + 4, int)
    np.add.at(loss, loss_start, 1)
    np.add.at(loss, loss_start + rng.integers(1, 4, loss_start.size), -1)
    lost = blink | (np.cumsum(loss[:n]) > 0)
    x[lost], y[lost], pupil[lost] = np.nan, np.nan, np.nan
    # float32 precision is what gets stored; computing features from the same values keeps them exact.
    return {"t_s": t, "x": x.astype(np.float32).astype(float), "y": y.astype(np.float32).astype(float),
            "pupil": pupil.astype(np.float32).astype(float)}
