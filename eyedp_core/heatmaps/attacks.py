"""Why the noise-free aggregate and random selection of observers are not private (Liu et al. §3.3-3.4,
docs/PRIVACY_MODEL.md §6.4): the non-private mechanisms, for the attack demonstration ONLY — never offer them as
privacy options — and the difference attack that recovers one observer's map from a released map plus
everybody else's maps (the adversary of the DP definition).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import scipy.sparse as sp

from eyedp_core.dp.registry import Family
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap, heatmap_sensitivity
from eyedp_core.heatmaps.maps import GazeMaps, aggregate, cap_matrix, privatize

__all__ = [
    "AttackResult",
    "NonPrivateRelease",
    "attack_demo",
    "difference_attack",
    "noise_free",
    "random_selection",
]

NOT_DP_LABEL = "NOT differentially private: shown only to demonstrate the attack (docs/PRIVACY_MODEL.md §6.4)"


@dataclass(frozen=True, eq=False)
class NonPrivateRelease:
    """A map released by a non-private mechanism; `selected` is the secret sample (for evaluation only)."""

    map: np.ndarray
    mechanism: str  # "noise-free" | "rs1" (without replacement) | "rs2" (with replacement)
    k: int  # number of maps averaged (public)
    selected: np.ndarray  # row indices drawn (rs1, rs2); all rows for noise-free
    label: str = NOT_DP_LABEL


def noise_free(maps: GazeMaps, cap_m: float | None, cap_total: float | None = None) -> NonPrivateRelease:
    """GazeMaps and caps in, the exact capped mean map (Liu's M_noise-free) out — not DP (δ ≥ 1)."""
    return NonPrivateRelease(aggregate(maps, cap_m, cap_total), "noise-free", maps.n_observers,
                             np.arange(maps.n_observers))


def random_selection(maps: GazeMaps, fraction: float, replace: bool, rng: np.random.Generator,
                     cap_m: float | None, cap_total: float | None = None) -> NonPrivateRelease:
    """GazeMaps, sampling fraction c, with/without replacement, generator and caps in, the mean of
    k = round(c·n) sampled capped maps out (Liu's M_rs1 / M_rs2) — not DP (δ ≥ c)."""
    n = maps.n_observers
    k = max(1, int(round(fraction * n)))
    if not replace and k > n:
        raise ValueError("cannot draw more observers than there are without replacement")
    sel = rng.choice(n, size=k, replace=replace)
    counts = np.bincount(sel, minlength=n).astype(float)
    summed = np.asarray(cap_matrix(maps, cap_m, cap_total).T @ counts).ravel()
    name = "rs2" if replace else "rs1"
    return NonPrivateRelease((summed / k).reshape(maps.grid_shape), name, k, np.sort(sel))


@dataclass(frozen=True, eq=False)
class AttackResult:
    """Outcome of the difference attack on one observer: recovered vs true (capped) map and errors."""

    mechanism: str
    target: int
    recovered: np.ndarray
    truth: np.ndarray
    exact: bool
    mse: float
    max_abs_error: float
    included_guess: bool | None = None  # random selection: does the attacker think the target was drawn?


def _recover_rs(y: np.ndarray, others: sp.csr_matrix, replace: bool, tol: float) -> tuple[np.ndarray, bool]:
    """Sum of sampled maps y and the other observers' maps in, (target contribution, drawn?) out.

    Covering attack: an observer can have been drawn c times only if c·G_j <= y on its support; with
    sparse, distinct maps (fine grids) only the drawn ones pass, and the residual is the target's map."""
    coo = others.tocoo()
    ratio = y[coo.col] / coo.data
    mult = np.full(others.shape[0], np.inf)
    np.minimum.at(mult, coo.row, np.floor(ratio + tol))
    mult[~np.isfinite(mult)] = 0.0  # empty maps: any multiplicity fits, none is needed
    if not replace:
        mult = np.minimum(mult, 1.0)
    residual = y - np.asarray(others.T @ mult).ravel()
    residual[np.abs(residual) < tol] = 0.0
    if not np.any(residual > 0):
        return np.zeros_like(y), False
    pos = residual[residual > 0]
    if replace and np.allclose(pos, np.round(pos), atol=tol):
        # Drawn c_i times: residual = c_i·G_i; for integer maps c_i divides every entry.
        residual = residual / max(1, int(np.gcd.reduce(np.round(pos).astype(np.int64))))
    return residual, True


def difference_attack(released_map: np.ndarray, maps: GazeMaps, target: int, cap_m: float | None,
                      cap_total: float | None = None, mechanism: str = "noise-free",
                      k: int | None = None) -> AttackResult:
    """Released map, all observers' maps (the adversary knows every map but the target's), target row,
    public caps, mechanism and sample size k (random selection) in, AttackResult out.

    Noise-free / Gaussian / Laplace: Ĝ_i = n·released − Σ_{j≠i} G_j (exact without noise, n× the noise
    otherwise). Random selection: the covering attack (see `_recover_rs`)."""
    capped = cap_matrix(maps, cap_m, cap_total)
    n = maps.n_observers
    truth = capped.getrow(target).toarray().ravel()
    keep = np.ones(n, dtype=bool)
    keep[target] = False
    others = capped[keep]
    released = np.asarray(released_map, dtype=float).ravel()
    included = None
    if mechanism in ("rs1", "rs2"):
        if k is None:
            raise ValueError("random selection needs the public sample size k")
        y = released * k
        scale = max(float(np.abs(y).max()), 1.0)
        recovered, included = _recover_rs(y, others, mechanism == "rs2", 1e-9 * scale)
    else:
        recovered = released * n - np.asarray(others.sum(axis=0)).ravel()
    err = recovered - truth
    scale = max(float(np.abs(truth).max()), 1.0)
    exact = bool(np.max(np.abs(err), initial=0.0) <= 1e-9 * scale * max(n, k or 1))
    shape = maps.grid_shape
    return AttackResult(mechanism, int(target), recovered.reshape(shape), truth.reshape(shape),
                        exact, float(np.mean(err * err)), float(np.max(np.abs(err), initial=0.0)), included)


def attack_demo(maps: GazeMaps, target: int, setting: HeatmapSetting, rng: np.random.Generator, *,
                fraction: float = 0.5) -> pd.DataFrame:
    """GazeMaps, target row, the setting (caps, ε, δ, Gaussian method; both noise families are run), generator
    and sampling fraction in, one row per mechanism out: privacy status, whether the attack recovered the target
    exactly, its errors."""
    cap_m, cap_total, epsilon, delta = setting.cap_m, setting.cap_total, setting.epsilon, setting.delta
    sens = heatmap_sensitivity(maps.n_cells, maps.n_observers, cap_m, cap_total)
    truth_total = float(cap_matrix(maps, cap_m, cap_total).getrow(target).sum())
    rows = []
    nf = noise_free(maps, cap_m, cap_total)
    releases = [("noise-free", nf.map, None, "not DP: δ ≥ 1", None)]
    for rep, name in ((False, "rs1"), (True, "rs2")):
        rel = random_selection(maps, fraction, rep, rng, cap_m, cap_total)
        drawn = bool(np.isin(target, rel.selected))
        releases.append((name, rel.map, rel.k, f"not DP: δ ≥ c = {fraction:g}", drawn))
    agg = nf.map
    for fam in (Family.GAUSSIAN, Family.LAPLACE):
        cal = calibrate_heatmap(sens, epsilon, delta, fam,
                                setting.method if fam is Family.GAUSSIAN else Family.LAPLACE)
        pm = privatize(agg, replace(setting, mechanism=fam), sens, rng, calibration=cal, dtype=np.float64)
        releases.append((fam.value, pm.map, None, cal.guarantee, None))
    labels = {"noise-free": "Noise-free aggregate", "rs1": "Random selection, without replacement",
              "rs2": "Random selection, with replacement", Family.GAUSSIAN.value: "Gaussian noise",
              Family.LAPLACE.value: "Laplace noise"}
    for name, released, k, privacy, drawn in releases:
        res = difference_attack(released, maps, target, cap_m, cap_total, name, k)
        rows.append({
            "mechanism": name, "label": labels[name], "private": name in (Family.GAUSSIAN, Family.LAPLACE),
            "privacy": privacy, "exact_recovery": res.exact, "mse": res.mse,
            "max_abs_error": res.max_abs_error, "target_total": truth_total,
            "target_drawn": drawn, "attacker_says_drawn": res.included_guess,
        })
    return pd.DataFrame(rows)
