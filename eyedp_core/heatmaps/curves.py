"""Utility of private heatmaps over many noise draws: CC and MSE versus ε (Liu et al. Figure 3) and the
planning view "what if the study had N observers with maps like these".

Speed without approximation of the metric: smoothing is linear, so noisy heatmap = K·clean + std·K·Z.
K (scipy's reflect-mode Gaussian filter) is diagonal in the orthonormal 2-D DCT-II basis D with
eigenvalues Λ (see `heatmaps.kernel_spectrum`), hence ‖K Z‖² = Σ Λ²(DZ)² and <v, K Z> = <Λ·Dv, DZ>.
CC and MSE of a draw need only those few numbers. For Gaussian Z, DZ is again i.i.d. N(0, 1), so it is
drawn directly — and only on the low-frequency block that carries all but `tol` of Σ Λ² per axis (the
neglected coefficients change ‖KZ‖² by a relative ≤ 2·tol in expectation). Laplace Z is drawn per cell
(exactly Lap) and transformed with one DCT per draw. One draw serves every ε (the noise is the same
field scaled by std(ε): common random numbers across ε, independent draws within each ε). All noise is
drawn by the sampler of eyedp_core.dp.noise (`sample_noise`, through `maps.draw_noise`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy import fft

from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps.calibration import (
    DeltaLike,
    HeatmapSensitivity,
    HeatmapSetting,
    calibrate_heatmap,
    heatmap_sensitivity,
    noise_family,
)
from eyedp_core.heatmaps.maps import draw_noise, kernel_spectrum, smooth
from eyedp_core.heatmaps.targets import DrawSpec, Measure, utility_at_stds

__all__ = ["CurveSpec", "eps_curves", "expected_noise_mse", "plan_study", "summarize_curves"]

HOT_SPOT_CELLS = 200_000  # above this the hot spots (a partition of every noisy map) would slow the curves down

PLANNING_LABEL = ("PLANNING ONLY: noise and quality if N different observers had maps like these. "
                  "Replicating the real observers to reach N gives them no privacy: each would occupy N/n "
                  "records and group "
                  "privacy multiplies ε by N/n (docs/PRIVACY_MODEL.md §6.4).")


def _prefix(lam: np.ndarray, tol: float) -> int:
    """Smallest K such that Σ_{k>=K} λ_k² <= tol·Σ λ_k²."""
    e = lam * lam
    tail = np.cumsum(e[::-1])[::-1]  # tail[k] = Σ_{j>=k} e_j
    ok = np.flatnonzero(tail <= tol * e.sum())
    return int(ok[0]) if ok.size else lam.size


class _Engine:
    """Per-draw noise statistics for one clean map, reference map and smoothing kernel."""

    def __init__(self, clean: np.ndarray, reference: np.ndarray, sigma_cells: float, truncate: float,
                 tol: float):
        self.shape = clean.shape
        self.r = clean.size
        rows, cols = self.shape
        lr = kernel_spectrum(rows, sigma_cells, truncate)
        lc = kernel_spectrum(cols, sigma_cells, truncate)
        self.kr, self.kc = _prefix(lr, tol), _prefix(lc, tol)
        self.lam = np.multiply.outer(lr[:self.kr], lc[:self.kc])
        self.lam2_full = float((lr * lr).sum() * (lc * lc).sum())
        cs = smooth(clean, sigma_cells, 1, truncate)
        rs = smooth(reference, sigma_cells, 1, truncate)
        a, b0, d = rs - rs.mean(), cs - cs.mean(), cs - rs
        vecs = np.stack([np.ones(self.shape), a, b0, d])
        # Linear statistics <v, K Z> = <Λ·Dv, DZ> restricted to the retained block.
        dv = fft.dctn(vecs, type=2, norm="ortho", axes=(-2, -1))[:, :self.kr, :self.kc]
        self.w = (dv * self.lam).reshape(4, -1).T  # (block, 4)
        self.clean = {"mean": cs.mean(), "var_clean": b0.var(), "var_ref": a.var(),
                      "cov": float((a * b0).mean()),
                      "d2": float((d * d).sum()), "ref2": float((rs * rs).sum())}

    def stats(self, z_block: np.ndarray) -> np.ndarray:
        """DCT coefficients of unit-variance noise on the retained block, shape (draws, kr, kc) or
        (draws, kr·kc), in; (draws, 5) array of ‖KZ‖², <1,KZ>, <a,KZ>, <b0,KZ>, <d,KZ> out."""
        z = np.asarray(z_block, dtype=np.float64).reshape(len(z_block), -1)
        lam2 = (self.lam * self.lam).ravel()
        return np.column_stack([(z * z) @ lam2, z @ self.w])

    def draws(self, fam: Family, R: int, rng: np.random.Generator,
              progress: Callable[[float], None] | None, offset: float, weight: float) -> np.ndarray:
        """Noise family, number of draws, generator in, (R, 5) statistics of unit-variance noise out."""
        out = np.empty((R, 5))
        block = self.kr * self.kc
        if fam is Family.GAUSSIAN:
            step = max(1, 2_000_000 // block)
            for s in range(0, R, step):
                # DZ of i.i.d. N(0, 1) is again i.i.d. N(0, 1): draw the retained coefficients directly.
                z = draw_noise(rng, fam, 1.0, (min(step, R - s), block), np.float32)
                out[s:s + z.shape[0]] = self.stats(z)
                if progress:
                    progress(offset + weight * (s + z.shape[0]) / R)
        else:
            b = 1.0 / np.sqrt(2.0)  # unit variance
            for s in range(R):
                zp = draw_noise(rng, fam, b, self.shape)
                # Only the retained block is needed: transform columns, cut, then rows.
                z = fft.dct(zp, type=2, norm="ortho", axis=1, overwrite_x=True)[:, :self.kc]
                z = fft.dct(z, type=2, norm="ortho", axis=0, overwrite_x=True)[:self.kr]
                out[s] = self.stats(z[None])[0]
                if progress and (s % 5 == 4 or s == R - 1):
                    progress(offset + weight * (s + 1) / R)
        return out

    def metrics(self, stats: np.ndarray, stds: np.ndarray) -> dict[str, np.ndarray]:
        """Per-draw stats (R, 5) and noise stds (E,) in, cc, mse, nmse arrays (E, R) out."""
        r, c = self.r, self.clean
        s = np.asarray(stds, dtype=float)[:, None]
        q, l1, la, lb, ld = (stats[:, i][None, :] for i in range(5))
        mse = (c["d2"] + 2 * s * ld + s * s * q) / r
        cov = c["cov"] + s * la / r
        var_noisy = c["var_clean"] + 2 * s * lb / r + s * s * (q / r - (l1 / r) ** 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            cc = cov / np.sqrt(c["var_ref"] * var_noisy)
            nmse = mse * r / c["ref2"]
        return {"cc": cc, "mse": mse, "nmse": nmse}


@dataclass(frozen=True, kw_only=True)
class CurveSpec:
    """What the ε-curves compute: the ε values, R draws per ε, the noise families, the hot-spot share q (None: no
    hot spots kept), the kernel's truncation (in σ) and the share `tol` of Σ Λ² the retained DCT block may drop."""

    epsilons: tuple[float, ...]
    R: int = 100
    mechanisms: tuple[Family, ...] = (Family.GAUSSIAN, Family.LAPLACE)
    hot_spots_q: float | None = None
    truncate: float = 4.0
    tol: float = 1e-9


def eps_curves(clean_map: np.ndarray, sensitivity: HeatmapSensitivity, setting: HeatmapSetting, spec: CurveSpec,
               rng: np.random.Generator, *, reference_map: np.ndarray | None = None,
               progress: Callable[[float], None] | None = None) -> pd.DataFrame:
    """Clean (capped) aggregate, its sensitivity, the setting (δ, Gaussian method, cell size, kernel σ in px; its ε
    and noise family are those of `spec`), the curve spec (ε values, draws R, mechanisms, hot-spot share) and a
    generator in, tidy DataFrame (mechanism, method, eps, delta, draw, std, scale, cc, mse, nmse) out: metrics of
    smoothed noisy map vs smoothed reference (default: the clean map).

    The classical calibration is skipped for ε >= 1 (not proven there); see df.attrs["notes"]. With
    `spec.hot_spots_q` a column hot_spots holds hot spots kept (targets.hot_spots_kept, top share q) over R further
    draws per mechanism, on grids of at most HOT_SPOT_CELLS cells (nan and a note above)."""
    epsilons, R, mechanisms, hot_spots_q = spec.epsilons, spec.R, spec.mechanisms, spec.hot_spots_q
    delta, method, sigma_px, cell = setting.delta, setting.method, setting.sigma_px, setting.cell_px
    clean = np.asarray(clean_map, dtype=float)
    ref = clean if reference_map is None else np.asarray(reference_map, dtype=float)
    eng = _Engine(clean, ref, float(sigma_px) / cell, spec.truncate, spec.tol)
    frames, notes = [], []
    for i, name in enumerate(mechanisms):
        fam = noise_family(name)
        meth = method if fam is Family.GAUSSIAN else Family.LAPLACE
        eps_ok = [e for e in epsilons if not (meth == GaussianMethod.CLASSICAL and e >= 1)]
        if len(eps_ok) < len(epsilons):
            notes.append("classical Gaussian calibration omitted for ε ≥ 1 (only proven for ε < 1)")
        cals = [calibrate_heatmap(sensitivity, e, delta, fam, meth) for e in eps_ok]
        stats = eng.draws(fam, R, rng, progress, i / len(mechanisms), 1 / len(mechanisms))
        if not cals:
            continue
        met = eng.metrics(stats, np.array([c.std for c in cals]))
        E = len(cals)
        kept = np.full((E, R), np.nan)
        if hot_spots_q is not None and clean.size <= HOT_SPOT_CELLS:
            kept = utility_at_stds(clean, [c.std for c in cals], rng, replace(setting, mechanism=fam),
                                   DrawSpec(R=R, q=hot_spots_q), reference=ref, measures=(Measure.HOT_SPOTS,)).kept
        elif hot_spots_q is not None:
            notes.append(f"hot spots kept left out: the grid has more than {HOT_SPOT_CELLS:,} cells")
        frames.append(pd.DataFrame({
            "mechanism": fam.value, "method": str(meth),
            "eps": np.repeat([c.epsilon for c in cals], R), "delta": np.repeat([c.delta for c in cals], R),
            "draw": np.tile(np.arange(R), E), "std": np.repeat([c.std for c in cals], R),
            "scale": np.repeat([c.scale for c in cals], R), "valid": np.repeat([c.valid for c in cals], R),
            "cc": met["cc"].ravel(), "mse": met["mse"].ravel(), "nmse": met["nmse"].ravel(),
            "hot_spots": kept.ravel(),
        }))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    df.attrs["notes"] = sorted(set(notes))
    df.attrs["retained_block"] = (eng.kr, eng.kc)
    if progress:
        progress(1.0)
    return df


def summarize_curves(df: pd.DataFrame) -> pd.DataFrame:
    """Tidy curve DataFrame in, mean and standard deviation of cc, mse, nmse per (mechanism, eps) out."""
    g = df.groupby(["mechanism", "method", "eps"], as_index=False)
    extra = {"kept_mean": ("hot_spots", "mean"), "kept_sd": ("hot_spots", "std")} if "hot_spots" in df else {}
    return g.agg(std=("std", "first"), cc_mean=("cc", "mean"), cc_sd=("cc", "std"), mse_mean=("mse", "mean"),
                 mse_sd=("mse", "std"), nmse_mean=("nmse", "mean"), nmse_sd=("nmse", "std"), **extra)


def expected_noise_mse(std: float, shape: tuple[int, int], sigma_px: float, cell: int = 1,
                       truncate: float = 4.0) -> float:
    """Per-cell noise std, grid shape, kernel σ in px and cell size in, E[MSE] that the smoothed noise adds
    to the heatmap out: std²·ΣΛ²/r (any i.i.d. zero-mean noise)."""
    s = float(sigma_px) / cell
    lr, lc = kernel_spectrum(shape[0], s, truncate), kernel_spectrum(shape[1], s, truncate)
    return std * std * float((lr * lr).sum() * (lc * lc).sum()) / (shape[0] * shape[1])


def plan_study(clean_map: np.ndarray, n_values: Sequence[int], setting: HeatmapSetting, rng: np.random.Generator, *,
               delta_of_n: DeltaLike | None = None, R: int = 50, reference_map: np.ndarray | None = None,
               truncate: float = 4.0) -> pd.DataFrame:
    """Clean aggregate (mean map of the observers at hand), hypothetical study sizes N, the setting (ε, δ, caps,
    noise, cell size, kernel), generator and optionally δ as a function of N in, one row per N out: noise std,
    exact expected MSE, Monte-Carlo CC mean/sd over R draws and the planning-only label."""
    epsilon, m, cap_total = setting.epsilon, setting.cap_m, setting.cap_total
    sigma_px, cell, mechanism, method = setting.sigma_px, setting.cell_px, setting.mechanism, setting.method
    delta = setting.delta if delta_of_n is None else delta_of_n
    clean = np.asarray(clean_map, dtype=float)
    ref = clean if reference_map is None else np.asarray(reference_map, dtype=float)
    eng = _Engine(clean, ref, float(sigma_px) / cell, truncate, 1e-9)
    ns = np.asarray(n_values, dtype=int)
    fam = noise_family(mechanism)
    meth = method if fam is Family.GAUSSIAN else Family.LAPLACE
    cals = []
    for N in ns:
        d = float(delta(N)) if callable(delta) else float(delta)
        sens = heatmap_sensitivity(clean.size, int(N), m, cap_total)
        cals.append(calibrate_heatmap(sens, epsilon, d, fam, meth))
    stds = np.array([c.std for c in cals])
    stats = eng.draws(fam, R, rng, None, 0.0, 1.0)
    met = eng.metrics(stats, stds)
    exp_mse = eng.clean["d2"] / eng.r + stds ** 2 * eng.lam2_full / eng.r
    return pd.DataFrame({
        "N": ns, "epsilon": epsilon, "delta": [c.delta for c in cals], "std": stds,
        "scale": [c.scale for c in cals], "valid": [c.valid for c in cals], "expected_mse": exp_mse,
        "cc_mean": met["cc"].mean(axis=1), "cc_sd": met["cc"].std(axis=1, ddof=1) if R > 1 else np.nan,
        "mse_mean": met["mse"].mean(axis=1), "label": PLANNING_LABEL,
    })
