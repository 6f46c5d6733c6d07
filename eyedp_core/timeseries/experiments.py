"""Utility-versus-ε sweeps for the Time-series view (LPA, FPA, CFPA-n, DCFPA-n; both accounting modes).

Why this is fast: the noise-free part of every FFT mechanism does not depend on ε and the noise is
λ(ε)·(standard noise), so per mechanism the standard noise is drawn ONCE per run and every ε and k
is evaluated from a few sums per series and chunk (exact for the draws used; see `ts_errors`). Runs
share draws across ε (common random numbers), which keeps the curves smooth and comparable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from eyedp_core import metrics
from eyedp_core.timeseries.accounting import epsilon_plan
from eyedp_core.timeseries.errors import dcfpa_errors, fft_errors, lpa_errors, standard_noise
from eyedp_core.timeseries.k import (
    dcfpa_reconstruction_errors,
    noise_unit_error,
    public_k,
    reconstruction_errors,
)
from eyedp_core.timeseries.sensitivity import (
    as_float_series,
    chunk_differences,
    clamp,
    clip_increments,
    diff_l2_public,
    empirical_chunk_sensitivity,
    empirical_sensitivity,
    l2_public,
    split_chunks,
)
from eyedp_core.timeseries.signals import DEFAULT_MECHANISMS, parse_mechanism

__all__ = ["utility_sweep"]

K_RULES = ("public", "fixed", "oracle")


# --------------------------------------------------------------------------------------------
# choice of k inside the sweep


def _choose_k(
    rule: str,
    rows: np.ndarray,
    d2: np.ndarray,
    rng_f: np.ndarray,
    eps: np.ndarray,
    *,
    difference: bool,
    fixed_k: int,
    signal_fraction: float,
    decay: float,
) -> np.ndarray:
    """Rule, chunks (Rec, F, C, n) (DCFPA: differences), Δ2 (F, C), ranges (F,), ε (E,) in, k (E, F, C)."""
    n = rows.shape[-1]
    nb = n // 2 + 1
    e_count, (f_count, c_count) = eps.size, d2.shape
    if rule == "fixed":
        return np.full((e_count, f_count, c_count), min(int(fixed_k), nb), dtype=int)
    if rule == "public":
        out = np.empty((e_count, f_count, c_count), dtype=int)
        rel = d2 / rng_f[:, None]  # the rule is scale-free: only Δ2/R matters
        for val in np.unique(np.round(rel, 12)):  # public bounds: one value per chunk length
            mask = np.isclose(rel, val, rtol=0, atol=1e-12)
            kk = public_k(
                n,
                epsilon=eps,
                value_range=1.0,
                sensitivity=float(val),
                signal_fraction=signal_fraction,
                decay=decay,
                difference=difference,
            )
            out[:, mask] = np.asarray(kk)[:, None]
        return out
    if rule != "oracle":
        raise ValueError(f"k_rule must be one of {K_RULES}, got {rule!r}")
    # Expected error per (feature, chunk position) from the private data: tuned on private data.
    re_all = dcfpa_reconstruction_errors(rows) if difference else reconstruction_errors(rows)
    re_sum = re_all.sum(axis=0)  # (F, C, nb)
    h = noise_unit_error(n, difference)  # (nb,)
    cost = re_sum[None] + rows.shape[0] * h * (d2[None, :, :, None] ** 2) / (eps[:, None, None, None] ** 2)
    return np.argmin(cost, axis=-1) + 1


# --------------------------------------------------------------------------------------------
# the sweep


def _utility_of(mse: np.ndarray, inv_norm: np.ndarray) -> np.ndarray:
    """Run-averaged MSE (..., Rec, F) in, the paper's utility (mean over features of 1/NMSE_f) (...) out."""
    nmse_feat = np.nanmean(mse * inv_norm, axis=-2)
    return np.mean(metrics.utility(nmse_feat), axis=-1)


def _summarise(err: np.ndarray, length: int, inv_norm: np.ndarray, band: tuple[float, float]) -> dict:
    """Σ err² (R, Rec, F), T, 1/normaliser (Rec, F) in, utility summary (paper's averaging) out.

    Centre: MSE averaged over runs, normalised once per series, NMSE averaged over recordings per
    feature, 1/NMSE averaged over features. `_lo/_hi`: ±2 jackknife standard errors of the centre
    over runs (Monte Carlo uncertainty; always contains the centre). `_run_*`: quantiles of the
    utility of a SINGLE run (what one release looks like; Jensen puts it above the centre).
    """
    mse_runs = err / length
    runs = mse_runs.shape[0]
    mean_mse = mse_runs.mean(axis=0)
    nmse_feat = np.nanmean(mean_mse * inv_norm, axis=0)
    util = float(np.mean(metrics.utility(nmse_feat)))
    db = float(metrics.utility_db(1.0 / util))
    if runs > 1:
        loo = (mean_mse[None] * runs - mse_runs) / (runs - 1)  # leave-one-run-out means
        loo_u = _utility_of(loo, inv_norm)
        loo_db = metrics.utility_db(1.0 / loo_u)
        se_u = float(np.sqrt((runs - 1) / runs * np.sum((loo_u - loo_u.mean()) ** 2)))
        se_db = float(np.sqrt((runs - 1) / runs * np.sum((loo_db - loo_db.mean()) ** 2)))
    else:
        se_db = se_u = float("nan")
    util_runs = _utility_of(mse_runs, inv_norm)  # (R,)
    r_lo, r_med, r_hi = np.quantile(util_runs, [band[0], 0.5, band[1]])
    q25, med, q75 = np.quantile(nmse_feat, [0.25, 0.5, 0.75])
    return {
        "nmse": float(np.mean(nmse_feat)),
        "utility": util,
        "utility_db": db,
        "utility_se": se_u,
        "utility_db_se": se_db,
        "utility_lo": util - 2.0 * se_u,
        "utility_hi": util + 2.0 * se_u,
        "utility_db_lo": db - 2.0 * se_db,
        "utility_db_hi": db + 2.0 * se_db,
        "utility_run_median": float(r_med),
        "utility_run_lo": float(r_lo),
        "utility_run_hi": float(r_hi),
        "utility_db_run_median": float(metrics.utility_db(1.0 / r_med)),
        "utility_db_run_lo": float(metrics.utility_db(1.0 / r_lo)),
        "utility_db_run_hi": float(metrics.utility_db(1.0 / r_hi)),
        "nmse_feature_median": float(med),
        "nmse_feature_q25": float(q25),
        "nmse_feature_q75": float(q75),
        "_nmse_feat": nmse_feat,
    }


def utility_sweep(
    x: np.ndarray,
    bounds: tuple,
    *,
    epsilons: Sequence[float],
    rng: np.random.Generator,
    mechanisms: Sequence[str] = DEFAULT_MECHANISMS,
    modes: Sequence[str] = ("paper", "participant"),
    runs: int = 20,
    n_recordings: int = 1,
    k_rule: str = "public",
    k: int = 4,
    sensitivity: str = "public",
    nmse_kind: str = "var",
    increment_bound: float | np.ndarray | None = None,
    signal_fraction: float = 0.1,
    decay: float = 2.0,
    band: tuple[float, float] = (0.1, 0.9),
    features: Sequence[str] | None = None,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Series (recordings, F, T), public bounds (L, U) per feature, ε grid, rng in, tidy utility table out.

    One row per (mechanism, mode, ε): mode "paper" reads ε as the paper does (per chunk / per
    feature series); mode "participant" reads it as the participant total, split over features ×
    chunks × `n_recordings` (recordings per participant). Utility is the paper's: MSE averaged over
    runs, normalised once per series (`nmse_kind` "var" or "range" via metrics), averaged over
    recordings per feature, utility 1/NMSE per feature averaged over features. Bands: `*_lo/_hi`
    ±2 jackknife SE over runs; `*_run_lo/_run_hi` the `band` quantiles of single-run utility.
    With `features` given, a per-feature table is returned as well.
    """
    if nmse_kind not in ("var", "range"):
        raise ValueError(
            "the sweep averages over runs; use nmse_kind 'var' or 'range' (the paper's NMSE "
            "has no expectation, docs/PRIVACY_MODEL.md §5 — evaluate it per run with metrics.nmse)"
        )
    if sensitivity not in ("public", "data-derived"):
        raise ValueError("sensitivity must be 'public' or 'data-derived'")
    arr = as_float_series(x)
    if arr.ndim != 3:
        raise ValueError(f"x must be (recordings, features, T), got shape {arr.shape}")
    n_rec, n_feat, length = arr.shape
    lo = np.broadcast_to(np.asarray(bounds[0], dtype=float), (n_feat,))
    hi = np.broadcast_to(np.asarray(bounds[1], dtype=float), (n_feat,))
    arr = clamp(arr, (lo, hi))
    rng_f = hi - lo
    inv_norm = metrics.nmse(arr, arr + 1.0, kind=nmse_kind, bounds=(lo, hi))  # 1/normaliser per series
    b_f = None if increment_bound is None else np.broadcast_to(np.asarray(increment_bound, float), (n_feat,))
    rows, per_feature = [], []
    labels = list(mechanisms)
    for m_i, label in enumerate(labels):
        family, size = parse_mechanism(label)
        if family not in ("lpa", "fpa", "cfpa", "dcfpa"):
            raise ValueError(f"the sweep covers LPA, FPA, CFPA and DCFPA, not {label!r}")
        plans = [
            epsilon_plan(mode, e, family, size, length, n_feat, n_recordings)
            for mode in modes
            for e in epsilons
        ]
        eps_inv = np.array([p.per_invocation for p in plans])
        chunk = length if family in ("lpa", "fpa") else int(size)
        k_desc = np.zeros(eps_inv.size)
        if family == "lpa":
            if sensitivity == "public":
                d1 = length * rng_f
            else:
                d1 = empirical_sensitivity(arr, order=1)
            err = lpa_errors(arr, d1, eps_inv, runs, rng)
            k_desc[:] = np.nan
        else:
            src = chunk_differences(arr, chunk) if family == "dcfpa" else arr
            if family == "dcfpa" and b_f is not None:
                src = clip_increments(src, chunk, b_f)
            if sensitivity == "data-derived":
                d2_all = empirical_chunk_sensitivity(arr, chunk, order=2, difference=family == "dcfpa")
            err = np.zeros((eps_inv.size, runs, n_rec, n_feat))
            ks_used = []
            for (part, pos), (xpart, _) in zip(
                split_chunks(src, chunk), split_chunks(arr, chunk), strict=True
            ):
                n = part.shape[-1]
                if sensitivity == "data-derived":
                    d2 = d2_all[:, pos]
                elif family == "dcfpa":
                    bb = None if b_f is None else b_f[:, None]
                    d2 = np.broadcast_to(diff_l2_public(n, rng_f[:, None], bb), (n_feat, pos.size))
                else:
                    d2 = np.broadcast_to(l2_public(n, rng_f[:, None]), (n_feat, pos.size))
                kk = _choose_k(
                    k_rule,
                    part,
                    d2,
                    rng_f,
                    eps_inv,
                    difference=family == "dcfpa",
                    fixed_k=k,
                    signal_fraction=signal_fraction,
                    decay=decay,
                )
                ks_used.append(kk.reshape(eps_inv.size, -1))
                z_re, z_im = standard_noise(
                    rng, (runs,) + part.shape[:-1] + (int(kk.max()),), n, signed=family == "dcfpa"
                )
                if family == "dcfpa":
                    err += dcfpa_errors(xpart, part, d2, kk, eps_inv, z_re, z_im)
                else:
                    err += fft_errors(part, d2, kk, eps_inv, z_re, z_im)
            k_desc = np.median(np.concatenate(ks_used, axis=1), axis=1)
        for i, plan in enumerate(plans):
            summary = _summarise(err[i], length, inv_norm, band)
            nmse_feat = summary.pop("_nmse_feat")
            rows.append(
                {
                    "mechanism": label.upper(),
                    "family": family,
                    "chunk": size if family in ("cfpa", "dcfpa") else None,
                    "mode": plan.mode,
                    "epsilon": plan.epsilon_input,
                    "eps_invocation": plan.per_invocation,
                    "eps_per_series": plan.per_series,
                    "eps_paper_total": plan.paper_total,
                    "eps_participant": plan.participant_total,
                    "k_median": float(k_desc[i]),
                    **summary,
                    "runs": runs,
                    "k_rule": k_rule if family != "lpa" else "-",
                    "sensitivity_type": sensitivity,
                    "tuned_on_private_data": k_rule == "oracle" and family != "lpa",
                }
            )
            if features is not None:
                per_feature.append(
                    pd.DataFrame(
                        {
                            "mechanism": label.upper(),
                            "mode": plan.mode,
                            "epsilon": plan.epsilon_input,
                            "feature": list(features),
                            "nmse": nmse_feat,
                            "utility": metrics.utility(nmse_feat),
                            "utility_db": metrics.utility_db(nmse_feat),
                        }
                    )
                )
        if progress is not None:
            progress((m_i + 1) / len(labels))
    table = pd.DataFrame(rows)
    if features is not None:
        return table, pd.concat(per_feature, ignore_index=True)
    return table
