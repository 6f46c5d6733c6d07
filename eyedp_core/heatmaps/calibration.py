"""Noise calibration for private heatmaps (docs/PRIVACY_MODEL.md §6.1-6.3): sensitivities, Liu's Theorem 3.4
"as in the paper" with its validity threshold r*, privacy presets and the noise calculator.

All numbers refer to the aggregate G = (1/n)·Σ_i min(G_i, m) on a grid of r cells, n observers (public),
neighbours = replace one observer's whole map. Every calibration comes from the mechanism objects of
`eyedp_core.dp.noise` (analytic Balle–Wang by default; Liu's Thm 3.4 and r* as in the paper); nothing
here re-implements them.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from eyedp_core.dp.calibration import Calibration, gaussian_sigma, tex_number
from eyedp_core.dp.noise import GaussianMechanism, LaplaceMechanism, LiuGaussianMechanism
from eyedp_core.dp.registry import Family, GaussianMethod

__all__ = [
    "HeatmapSensitivity",
    "HeatmapSetting",
    "PrivacyPreset",
    "calibrate_heatmap",
    "calibration_table",
    "heatmap_sensitivity",
    "liu_thm35_std",
    "noise_family",
    "noise_std",
    "noise_surface",
    "observers_needed",
    "privacy_level",
    "privacy_presets",
    "preset_delta",
    "privacy_warnings",
]

DeltaLike = float | Callable[[np.ndarray], np.ndarray]


# --------------------------------------------------------------------------------------------
# sensitivities


@dataclass(frozen=True)
class HeatmapSensitivity:
    """L1/L2 sensitivities of the capped mean map, with the formulas and plugged-in numbers (LaTeX)."""

    r: int
    n: int
    m: float
    cap_total: float | None
    l1: float
    l2: float
    l1_cell_only: float
    l2_cell_only: float
    l1_tex: str
    l2_tex: str
    l1_plugged: str
    l2_plugged: str
    binding: str  # which cap sets Δ2: "per-cell cap m" or "total cap C"


def _sens_values(r, n, m, cap_total):
    """Arrays r, n, m, C (C may be None or inf) in, (Δ1, Δ2) arrays out (§6.1)."""
    r = np.asarray(r, dtype=float)
    n = np.asarray(n, dtype=float)
    m = np.asarray(m, dtype=float)
    l1 = m * r
    l2 = m * np.sqrt(r)
    if cap_total is not None and np.isfinite(cap_total):
        # Non-negative maps with totals <= C: ||a-b||_1 <= 2C and ||a-b||_2^2 <= ||a||^2 + ||b||^2 <= 2mC.
        l1 = np.minimum(l1, 2.0 * cap_total)
        l2 = np.minimum(l2, np.sqrt(2.0 * m * cap_total))
    return l1 / n, l2 / n


def heatmap_sensitivity(r: int, n: int, m: float = 1.0, cap_total: float | None = None) -> HeatmapSensitivity:
    """Cells r, observers n, per-cell cap m and optional total cap C in, HeatmapSensitivity out (§6.1)."""
    if r < 1 or n < 1:
        raise ValueError(f"need r >= 1 cells and n >= 1 observers, got r={r}, n={n}")
    if not (m > 0 and math.isfinite(m)):
        raise ValueError(f"the per-cell cap m must be > 0 (a finite public number), got {m!r}")
    if cap_total is not None and not cap_total > 0:
        raise ValueError(f"the total cap C must be > 0, got {cap_total!r}")
    l1, l2 = (float(v) for v in _sens_values(r, n, m, cap_total))
    l1c, l2c = m * r / n, m * math.sqrt(r) / n
    t = tex_number
    if cap_total is None:
        l1_tex, l2_tex = r"\Delta_1 = m\,r/n", r"\Delta_2 = m\sqrt{r}/n"
        l1_pl = rf"\Delta_1 = {t(m)}\cdot {r} / {n} = {t(l1)}"
        l2_pl = rf"\Delta_2 = {t(m)}\cdot\sqrt{{{r}}} / {n} = {t(l2)}"
        binding = "per-cell cap m"
    else:
        C = cap_total
        l1_tex = r"\Delta_1 = \min(m\,r,\ 2C)/n"
        l2_tex = r"\Delta_2 = \min(m\sqrt{r},\ \sqrt{2mC})/n"
        l1_pl = rf"\Delta_1 = \min({t(m * r)},\ {t(2 * C)}) / {n} = {t(l1)}"
        l2_pl = rf"\Delta_2 = \min({t(m * math.sqrt(r))},\ {t(math.sqrt(2 * m * C))}) / {n} = {t(l2)}"
        binding = "total cap C" if math.sqrt(2 * m * C) < m * math.sqrt(r) else "per-cell cap m"
    return HeatmapSensitivity(r=int(r), n=int(n), m=float(m), cap_total=cap_total, l1=l1, l2=l2,
                              l1_cell_only=l1c, l2_cell_only=l2c, l1_tex=l1_tex, l2_tex=l2_tex,
                              l1_plugged=l1_pl, l2_plugged=l2_pl, binding=binding)


# --------------------------------------------------------------------------------------------
# Liu's theorems, r*


def liu_thm35_std(l1_sensitivity: float, epsilon: float) -> float:
    """Δ1 and ε in, Liu Thm 3.5 Laplace "noise level" σ_L = √2·Δ1/ε out (a std; the scale is σ_L/√2)."""
    return math.sqrt(2.0) * l1_sensitivity / epsilon


# --------------------------------------------------------------------------------------------
# calibrations


_HEATMAP_NOISE = (Family.GAUSSIAN, Family.LAPLACE)
_GAUSSIAN_METHODS = tuple(GaussianMethod)

_LIU_TEX = r"\sigma = \frac{\Delta_2}{\varepsilon}\sqrt{\frac{\varepsilon}{2} + \ln\frac{r}{\delta}}" \
           r" \;=\; \frac{m}{n\varepsilon}\sqrt{r\left(\frac{\varepsilon}{2} + \ln\frac{r}{\delta}\right)}"


def noise_family(mechanism: Family | str) -> Family:
    """A noise family, or its stored name where text comes in (settings, links, the command line), in, the
    Family out; families other than Gaussian and Laplace are refused."""
    try:
        fam = Family(mechanism)
    except ValueError:
        fam = None
    if fam not in _HEATMAP_NOISE:
        raise ValueError(f"unknown mechanism {mechanism!r}; private options are 'gaussian' and 'laplace'")
    return fam


@dataclass(frozen=True)
class HeatmapSetting:
    """One heatmap setting: privacy parameters, noise, caps, cell size and kernel (the public numbers that fix the
    noise and the map). Frozen and hashable, so cached calls can key on it."""

    epsilon: float = 1.0
    delta: float = 1e-6
    mechanism: Family = Family.GAUSSIAN
    method: GaussianMethod = GaussianMethod.ANALYTIC
    cap_m: float = 1.0
    cap_total: float | None = None
    cell_px: int = 1
    sigma_px: float = 0.0  # smoothing kernel σ in stimulus px (post-processing)

    def __post_init__(self) -> None:
        # Settings, links and tests hand in names: parse them once, refusing unknown ones.
        object.__setattr__(self, "mechanism", noise_family(self.mechanism))
        if self.mechanism is Family.GAUSSIAN:  # Laplace noise takes no Gaussian method
            object.__setattr__(self, "method", GaussianMethod(self.method))

    def with_epsilon(self, epsilon: float) -> HeatmapSetting:
        """ε in, the same setting at that ε out."""
        return replace(self, epsilon=float(epsilon))

    def calibration(self, n: int, r: int) -> Calibration:
        """Observers n and cells r in, the calibration of this setting out (Laplace noise takes no Gaussian method)."""
        sens = heatmap_sensitivity(r, n, self.cap_m, self.cap_total)
        meth = self.method if self.mechanism == Family.GAUSSIAN else Family.LAPLACE
        return calibrate_heatmap(sens, self.epsilon, self.delta, self.mechanism, meth)

    def std(self, n: int, r: int) -> float:
        """Observers n and cells r in, the per-cell noise std of this setting out."""
        return float(self.calibration(n, r).std)


def calibrate_heatmap(sensitivity: HeatmapSensitivity, epsilon: float, delta: float,
                      mechanism: Family = Family.GAUSSIAN,
                      method: GaussianMethod = GaussianMethod.ANALYTIC) -> Calibration:
    """Sensitivity, ε, δ, noise family (Gaussian | Laplace) and Gaussian method in, Calibration out, built by
    the mechanism objects of eyedp_core.dp.noise.

    Gaussian methods: analytic (default, exact), classical (ε < 1 only), Liu Thm 3.4 (as in the paper:
    `valid` is False and `note` gives the δ actually achieved whenever r < r*)."""
    if noise_family(mechanism) is Family.LAPLACE:
        cal = LaplaceMechanism(epsilon=epsilon, sensitivity=sensitivity.l1).calibration
        std = cal.std
        return replace(
            cal,
            plugged_tex=cal.plugged_tex + rf",\quad \text{{std}} = \sqrt{{2}}\,b = {tex_number(std)}",
            note=(f"scale b = {cal.scale:.6g}, standard deviation √2·b = {std:.6g}. Liu et al.'s "
                  f"'noise level' σ_L (Thm 3.5) is this standard deviation, not the scale."),
        )
    if method not in _GAUSSIAN_METHODS:
        raise ValueError(f"unknown Gaussian method {method!r}; use 'analytic', 'classical' or 'liu-thm-3.4'")
    if method != GaussianMethod.LIU_THM_34:
        return GaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity.l2, method=method).calibration
    cal = LiuGaussianMechanism(epsilon=epsilon, delta=delta, sensitivity=sensitivity.l2, r=sensitivity.r).calibration
    # The page shows the formula in the heatmap's own terms (m, n, r) and says loudly when it fails.
    note = cal.note if cal.valid else f"WARNING: {cal.note} Use the analytic calibration."
    return replace(cal, formula_tex=_LIU_TEX, note=note)


def calibration_table(sensitivity: HeatmapSensitivity, epsilon: float, delta: float) -> list[Calibration]:
    """Sensitivity, ε, δ in, the calibrations to show side by side out: analytic, classical (ε < 1 only),
    Liu Thm 3.4 (as in the paper, flagged when invalid) and Laplace."""
    gauss, lap = Family.GAUSSIAN, Family.LAPLACE
    out = [calibrate_heatmap(sensitivity, epsilon, delta, gauss, GaussianMethod.ANALYTIC)]
    if epsilon < 1:
        out.append(calibrate_heatmap(sensitivity, epsilon, delta, gauss, GaussianMethod.CLASSICAL))
    out.append(calibrate_heatmap(sensitivity, epsilon, delta, gauss, GaussianMethod.LIU_THM_34))
    out.append(calibrate_heatmap(sensitivity, epsilon, delta, lap))
    return out


# --------------------------------------------------------------------------------------------
# privacy levels of the paper


@dataclass(frozen=True)
class PrivacyPreset:
    """A privacy level of Liu et al. §3.2 for a given n: name, ε, δ and what it means."""

    name: str
    epsilon: float
    delta: float
    label: str
    note: str


def preset_delta(n: int) -> float:
    """Number of observers n in, the δ of EyeDP's presets out: 1/n², n times below 1/n (docs/PRIVACY_MODEL.md §6.6)."""
    return float(n) ** -2.0


def privacy_presets(n: int) -> dict[str, PrivacyPreset]:
    """Number of observers n in, the levels "poor", "okay", "good" (after Liu et al. §3.2) as PrivacyPresets out.

    "okay" and "good" use δ = 1/n² (preset_delta), far below 1/n; the paper's δ = n^-1.5 is only √n times
    below 1/n (6× at n = 40), which is not "much smaller than 1/n" for small studies."""
    if n < 2:
        raise ValueError(f"privacy levels need n >= 2 observers, got {n}")
    d = preset_delta(n)
    return {
        "poor": PrivacyPreset("poor", 1.0, 1.0 / n, "Poor: δ ≥ 1/n",
                              "Any δ ≥ 1/n is poor whatever ε is: the mechanism may reveal one observer "
                              "completely with probability δ, and with n observers that is expected "
                              "to happen."),
        "okay": PrivacyPreset("okay", 3.0, d, "Okay: ε = 3, δ = 1/n²", f"δ = 1/{n}² = {d:.3g}"),
        "good": PrivacyPreset("good", 1.0, d, "Good: ε = 1, δ = 1/n²", f"δ = 1/{n}² = {d:.3g}"),
    }


def privacy_warnings(epsilon: float, delta: float, n: int) -> list[str]:
    """ε, δ, n in, list of plain-language warnings out (empty when the level is acceptable)."""
    out = []
    if delta >= 1.0 / n:
        out.append(f"δ = {delta:.3g} ≥ 1/n = {1.0 / n:.3g}: poor privacy. A mechanism that publishes one "
                   f"randomly chosen observer's map in the clear satisfies this δ; choose δ ≤ 1/n² = "
                   f"{preset_delta(n):.3g}.")
    if epsilon > 10:
        out.append(f"ε = {epsilon:g} > 10: the guarantee is vacuous in practice "
                   f"(e^ε = {math.exp(epsilon):.3g}).")
    return out


def privacy_level(epsilon: float, delta: float, n: int) -> str:
    """ε, δ, n in, the level out: "poor" (δ ≥ 1/n), "good" (ε ≤ 1) or "okay" (ε ≤ 3) when δ ≤ 1/n², else "custom"."""
    if delta >= 1.0 / n:
        return "poor"
    if delta <= preset_delta(n) * (1 + 1e-12):
        if epsilon <= 1.0:
            return "good"
        if epsilon <= 3.0:
            return "okay"
    return "custom"


# --------------------------------------------------------------------------------------------
# noise calculator


def _delta_of(delta: DeltaLike, n: np.ndarray) -> np.ndarray:
    if callable(delta):
        return np.asarray(delta(n), dtype=float)
    return np.broadcast_to(float(delta), np.shape(n)).astype(float)


def noise_std(n, r, epsilon: float, delta: DeltaLike, m: float = 1.0, cap_total: float | None = None,
              mechanism: Family = Family.GAUSSIAN, method: GaussianMethod = GaussianMethod.ANALYTIC) -> np.ndarray:
    """Observers n and cells r (broadcastable arrays), ε, δ (number or function of n), caps, mechanism and
    method in, per-cell noise standard deviation array out (Laplace: √2·b)."""
    n_arr, r_arr = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(r, dtype=float))
    l1, l2 = _sens_values(r_arr, n_arr, m, cap_total)
    if noise_family(mechanism) is Family.LAPLACE:
        return math.sqrt(2.0) * l1 / epsilon
    d = _delta_of(delta, n_arr)
    if method == GaussianMethod.LIU_THM_34:
        return l2 * np.sqrt(epsilon / 2.0 + np.log(r_arr / d)) / epsilon
    # σ = Δ2 · s(ε, δ): one root-find per distinct δ, the rest is broadcasting.
    uniq, inv = np.unique(d, return_inverse=True)
    unit = np.array([gaussian_sigma(1.0, epsilon, float(v), method=method) for v in uniq])
    return l2 * unit[inv.reshape(d.shape)]


def noise_surface(n_values, sqrt_r_values, epsilon: float, delta: DeltaLike, m: float = 1.0,
                  cap_total: float | None = None, mechanism: Family = Family.GAUSSIAN,
                  method: GaussianMethod = GaussianMethod.ANALYTIC) -> pd.DataFrame:
    """Observer counts, √r values (grid side), ε, δ (number or function of n) and caps in, tidy DataFrame
    (n, sqrt_r, r, delta, std) out — Liu et al. Figure 2(a) with a proven calibration."""
    n_grid, s_grid = np.meshgrid(np.asarray(n_values, dtype=float), np.asarray(sqrt_r_values, dtype=float),
                                 indexing="ij")
    r_grid = np.round(s_grid ** 2)
    std = noise_std(n_grid, r_grid, epsilon, delta, m, cap_total, mechanism, method)
    return pd.DataFrame({"n": n_grid.ravel().astype(int), "sqrt_r": s_grid.ravel(), "r": r_grid.ravel(),
                         "delta": _delta_of(delta, n_grid).ravel() if noise_family(mechanism) is Family.GAUSSIAN
                         else 0.0,
                         "std": np.asarray(std).ravel()})


def observers_needed(target_std: float, r: int, setting: HeatmapSetting, *, delta_of_n: DeltaLike | None = None,
                     n_max: int = 10**12) -> int | None:
    """Target noise std, cells r, the setting (ε, δ, caps, noise) and optionally δ as a function of n in, the
    smallest n with noise_std(n) <= target out (None if not reached by n_max)."""
    s = setting
    delta = s.delta if delta_of_n is None else delta_of_n
    mechanism = s.mechanism

    def f(n: int) -> float:
        if noise_family(mechanism) is Family.GAUSSIAN and not 0 < float(_delta_of(delta, np.asarray(n))) < 1:
            return math.inf  # e.g. δ = n^-1.5 at n = 1: no Gaussian calibration exists
        return float(noise_std(n, r, s.epsilon, delta, s.cap_m, s.cap_total, mechanism, s.method))

    if f(1) <= target_std:
        return 1
    hi = 2
    while f(hi) > target_std:
        hi *= 2
        if hi > n_max:
            return None
    lo = hi // 2  # f(lo) > target >= f(hi); σ(n) decreases in n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(mid) <= target_std:
            hi = mid
        else:
            lo = mid
    return hi
