"""Utility-versus-ε sweeps for the Time-series view (LPA, FPA, CFPA-n, DCFPA-n; both accounting modes).

Why this is fast: the noise-free part of every FFT mechanism does not depend on ε and the noise is
λ(ε)·(standard noise), so per mechanism the standard noise is drawn ONCE per run and every ε and k
is evaluated from a few sums per series and chunk (exact for the draws used; see `timeseries.error_curves`). Runs
share draws across ε (common random numbers), which keeps the curves smooth and comparable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core import metrics
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.accounting import EpsilonPlan, epsilon_plan
from eyedp_core.timeseries.blocks import row_blocks
from eyedp_core.timeseries.calibration import lpa_scale
from eyedp_core.timeseries.error_curves import dcfpa_errors, fft_errors, lpa_unit_squares, standard_noise
from eyedp_core.timeseries.k import (
    KPrior,
    dcfpa_reconstruction_errors,
    noise_unit_error,
    public_k,
    reconstruction_errors,
)
from eyedp_core.timeseries.labels import SWEEP_LABELS, parse_label
from eyedp_core.timeseries.sensitivity import (
    as_float_series,
    chunk_differences,
    clamp,
    clip_increments,
    dcfpa_kept_ratio,
    diff_l2_public,
    empirical_chunk_sensitivity,
    empirical_sensitivity,
    l1_public,
    l2_public,
    split_chunks,
)

__all__ = ["K_RULES", "SweepData", "SweepResult", "SweepSpec", "feature_sums", "mechanism_errors", "prepare",
           "sweep_utility"]

K_RULES = ("public", "fixed", "oracle")


@dataclass(frozen=True, kw_only=True)
class SweepSpec:
    """How a sweep runs: the ε grid, accounting modes, draws, the rule for k and the utility normaliser."""

    epsilons: tuple[float, ...]
    modes: tuple[str, ...] = ("paper", "participant")
    runs: int = 20
    n_recordings: int = 1  # recordings per participant (the "participant" mode splits ε over them)
    k_rule: str = "public"  # "public" (data-free), "fixed" (k below) or "oracle" (tuned on private data)
    k: int = 4
    sensitivity: str = "public"  # or "data-derived" (Bozkir Eq. 7, not DP)
    nmse_kind: str = "var"
    increment_bound: float | np.ndarray | None = None  # DCFPA's public bound B on increments
    signal_fraction: float = 0.1  # prior of the public k rule
    decay: float = 2.0
    band: tuple[float, float] = (0.1, 0.9)  # quantiles of single-run utility

    def __post_init__(self) -> None:
        if self.nmse_kind not in ("var", "range"):
            raise ValueError(
                "the sweep averages over runs; use nmse_kind 'var' or 'range' (the paper's NMSE "
                "has no expectation, docs/PRIVACY_MODEL.md §5 — evaluate it per run with metrics.nmse)"
            )
        if self.sensitivity not in ("public", "data-derived"):
            raise ValueError("sensitivity must be 'public' or 'data-derived'")
        if self.k_rule not in K_RULES:
            raise ValueError(f"k_rule must be one of {K_RULES}, got {self.k_rule!r}")


@dataclass(frozen=True)
class SweepData:
    """The series clamped to their public bounds, with what every mechanism's utility needs."""

    x: np.ndarray  # (recordings, F, T), clamped
    ranges: np.ndarray  # (F,) public ranges U − L
    inv_norm: np.ndarray  # (recordings, F) 1/normaliser of each series' NMSE

    @property
    def length(self) -> int:
        """The public length T."""
        return int(self.x.shape[-1])


@dataclass(frozen=True)
class SweepResult:
    """A sweep's tables: one row per (mechanism, mode, ε), and the same per feature."""

    table: pd.DataFrame
    per_feature: pd.DataFrame


# Seconds per mechanism label on the bundled sample's size (60 recordings × 48 features × T = 600 = 1.728e6
# values) on the reference two-core machine: (fixed, per draw). Measured with bench/ts_panels.py's core sweep
# at 1 and 20 draws; the larger of repeated measurements, so the estimate errs on the long side.
_SWEEP_SECONDS = {"LPA": (0.16, 0.05), "FPA": (0.15, 0.01), "CFPA-32": (0.35, 0.10), "CFPA-64": (0.32, 0.07),
                  "CFPA-128": (0.24, 0.05), "DCFPA-32": (0.63, 0.20), "DCFPA-64": (0.48, 0.09),
                  "DCFPA-128": (0.40, 0.04)}
_SWEEP_VALUES = 60 * 48 * 600


def estimated_sweep_seconds(shape: tuple[int, ...], labels: Sequence[str], spec: SweepSpec) -> float:
    """Series shape (recordings, F, T), mechanism labels and the sweep spec in, an estimate of the sweep's wall
    time on the reference machine out (linear in values and draws; the oracle rule's extra pass included)."""
    size = float(np.prod(shape)) / _SWEEP_VALUES
    total = 0.0
    for label in labels:
        mech, chunk = parse_label(label)
        key = label if label in _SWEEP_SECONDS else (f"{mech.value}-32" if chunk else mech.value)
        fixed, per_run = _SWEEP_SECONDS.get(key, (0.6, 0.2))
        total += (fixed + per_run * spec.runs) * (2.0 if spec.k_rule == "oracle" else 1.0)
    return total * size * max(1, len(spec.epsilons)) / 10.0


# --------------------------------------------------------------------------------------------
# choice of k inside the sweep


@dataclass(frozen=True)
class _ChunkNoise:
    """What sets the noise of one kind of chunk: its length n, Δ2 (F, C), DCFPA's B/R (F, C) under public
    bounds (else None), and whether the mechanism works on differences (DCFPA)."""

    n: int
    d2: np.ndarray
    increment_ratio: np.ndarray | None
    difference: bool


def _public_ks(spec: SweepSpec, c: _ChunkNoise, rng_f: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """The data-free rule: k (E, F, C) from Δ2/R (and DCFPA's B/R) only, computed once per distinct ratio."""
    d2, increment_ratio = c.d2, c.increment_ratio
    out = np.empty((eps.size, *d2.shape), dtype=int)
    rel = d2 / rng_f[:, None]  # the rule is scale-free: only Δ2/R (and DCFPA's B/R) matters
    beta = np.ones_like(rel) if increment_ratio is None else np.asarray(increment_ratio, dtype=float)
    for val, b in set(zip(np.round(rel, 12).ravel().tolist(), np.round(beta, 12).ravel().tolist())):
        mask = np.isclose(rel, val, rtol=0, atol=1e-12) & np.isclose(beta, b, rtol=0, atol=1e-12)
        kk = public_k(
            c.n,
            epsilon=eps,
            value_range=1.0,
            sensitivity=float(val),
            prior=KPrior(spec.signal_fraction, spec.decay),
            difference=c.difference,
            increment_ratio=None if increment_ratio is None else float(b),
        )
        out[:, mask] = np.asarray(kk)[:, None]
    return out


def _oracle_ks(c: _ChunkNoise, n_rec: int, re_sum: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """The minimum of the expected error per (feature, chunk position), read off the private data: k (E, F, C)."""
    n = c.n
    h = noise_unit_error(n, c.difference)  # (nb,)
    d2k = c.d2[None, :, :, None] ** 2
    if c.increment_ratio is not None:  # DCFPA under public bounds: λ from the smaller L1 bound, per k
        d2k = d2k * dcfpa_kept_ratio(n, np.arange(1, n // 2 + 2)[None, None, :],
                                     c.increment_ratio[:, :, None])[None] ** 2
    cost = re_sum[None] + n_rec * h * d2k / (eps[:, None, None, None] ** 2)
    return np.argmin(cost, axis=-1) + 1


def _choose_k(spec: SweepSpec, c: _ChunkNoise, n_rec: int, re_sum: np.ndarray | None, rng_f: np.ndarray,
              eps: np.ndarray) -> np.ndarray:
    """The spec's k rule, one kind of chunk, recordings, the oracle's Σ_rec RE (F, C, nb) (None for the other
    rules), ranges (F,), ε (E,) in, k (E, F, C)."""
    rule = spec.k_rule
    if rule == "fixed":
        return np.full((eps.size, *c.d2.shape), min(int(spec.k), c.n // 2 + 1), dtype=int)
    if rule == "public":
        return _public_ks(spec, c, rng_f, eps)
    if rule != "oracle":
        raise ValueError(f"k_rule must be one of {K_RULES}, got {rule!r}")
    return _oracle_ks(c, n_rec, re_sum, eps)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# the sweep


def _utility_of(nmse_feat: np.ndarray) -> np.ndarray:
    """NMSE per feature (..., F) in, the paper's utility (mean over features of 1/NMSE_f) (...) out."""
    return np.mean(metrics.utility(nmse_feat), axis=-1)


def _summarise(sums: np.ndarray, count: np.ndarray, band: tuple[float, float]) -> dict:
    """Σ over recordings of each run's NMSE (R, F), recordings counted per feature (F,) in, utility summary
    (paper's averaging) out.

    Centre: MSE averaged over runs, normalised once per series, NMSE averaged over recordings per
    feature, 1/NMSE averaged over features (all linear up to the last step, so the sums over recordings
    are enough). `_lo/_hi`: ±2 jackknife standard errors of the centre over runs (Monte Carlo
    uncertainty; always contains the centre). `_run_*`: quantiles of the utility of a SINGLE run (what
    one release looks like; Jensen puts it above the centre).
    """
    runs = sums.shape[0]
    nmse_runs = sums / count  # (R, F)
    nmse_feat = nmse_runs.mean(axis=0)
    util = float(_utility_of(nmse_feat))
    db = float(metrics.utility_db(1.0 / util))
    if runs > 1:
        loo_u = _utility_of((nmse_feat[None] * runs - nmse_runs) / (runs - 1))  # leave-one-run-out means
        loo_db = metrics.utility_db(1.0 / loo_u)
        se_u = float(np.sqrt((runs - 1) / runs * np.sum((loo_u - loo_u.mean()) ** 2)))
        se_db = float(np.sqrt((runs - 1) / runs * np.sum((loo_db - loo_db.mean()) ** 2)))
    else:
        se_db = se_u = float("nan")
    util_runs = _utility_of(nmse_runs)  # (R,)
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


def prepare(x: np.ndarray, bounds: tuple, nmse_kind: str) -> SweepData:
    """Series (recordings, F, T), public bounds (L, U) per feature, NMSE kind in, SweepData out."""
    arr = as_float_series(x)
    if arr.ndim != 3:
        raise ValueError(f"x must be (recordings, features, T), got shape {arr.shape}")
    n_feat = arr.shape[1]
    lo = np.broadcast_to(np.asarray(bounds[0], dtype=float), (n_feat,))
    hi = np.broadcast_to(np.asarray(bounds[1], dtype=float), (n_feat,))
    arr = clamp(arr, (lo, hi))
    inv_norm = np.empty(arr.shape[:2])
    for rec in row_blocks(arr.shape[0], 8 * 3 * n_feat * arr.shape[2], 1):  # blocks bound the temporaries
        # metrics.nmse of a unit error gives 1/normaliser per series, whatever the kind's rule.
        inv_norm[rec] = metrics.nmse(arr[rec], arr[rec] + 1.0, kind=nmse_kind, bounds=(lo, hi))
    return SweepData(x=arr, ranges=hi - lo, inv_norm=inv_norm)


@dataclass(frozen=True)
class _Part:
    """One kind of chunk of an FFT mechanism: the full chunks or the shorter tail (positions `pos`)."""

    index: int  # which entry of split_chunks
    n: int
    d2: np.ndarray  # (F, Cp)
    k: np.ndarray  # (E, F, Cp)
    increment_ratio: np.ndarray | None = None  # (F, Cp) B/R for DCFPA under public bounds


def _sources(data: SweepData, rec: slice, chunk: int, difference: bool,
             b_f: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """A block of recordings in, (the mechanism's input: the series or their clipped differences, the series)."""
    arr = data.x[rec]
    if not difference:
        return arr, arr
    src = chunk_differences(arr, chunk)
    return (clip_increments(src, chunk, b_f) if b_f is not None else src), arr


def _fft_parts(data: SweepData, mech: Mech, chunk: int, eps_inv: np.ndarray, spec: SweepSpec,
               b_f: np.ndarray | None) -> list[_Part]:
    """Sweep data, FFT mechanism, chunk in, per kind of chunk its n, Δ2 and k for every ε (oracle: one pass)."""
    arr, rng_f = data.x, data.ranges
    n_rec, n_feat, t = arr.shape
    difference = mech is Mech.DCFPA
    if spec.sensitivity == "data-derived":
        d2_all = empirical_chunk_sensitivity(arr, chunk, order=2, difference=difference)
    shapes = [(p.shape[-1], pos) for p, pos in split_chunks(np.empty((1, t)), chunk)]
    re_sum = None
    if spec.k_rule == "oracle":  # Σ over recordings of the truncation error, block by block
        re_sum = [np.zeros((n_feat, pos.size, n // 2 + 1)) for n, pos in shapes]
        for rec in _rec_blocks(data, 4 * t):
            src, _ = _sources(data, rec, chunk, difference, b_f)
            for i, (part, _) in enumerate(split_chunks(src, chunk)):
                re = dcfpa_reconstruction_errors(part) if difference else reconstruction_errors(part)
                re_sum[i] += re.sum(axis=0)
    parts = []
    for i, (n, pos) in enumerate(shapes):
        if spec.sensitivity == "data-derived":
            d2 = d2_all[:, pos]
        elif difference:
            bb = None if b_f is None else b_f[:, None]
            d2 = np.broadcast_to(diff_l2_public(n, rng_f[:, None], bb), (n_feat, pos.size))
        else:
            d2 = np.broadcast_to(l2_public(n, rng_f[:, None]), (n_feat, pos.size))
        beta = None
        if difference and spec.sensitivity != "data-derived":
            beta = np.ones((n_feat, pos.size)) if b_f is None else np.broadcast_to(
                np.minimum(b_f / rng_f, 1.0)[:, None], (n_feat, pos.size))
        kk = _choose_k(spec, _ChunkNoise(n, d2, beta, difference), n_rec, None if re_sum is None else re_sum[i],
                       rng_f, eps_inv)
        parts.append(_Part(i, n, d2, kk, beta))
    return parts


def _rec_blocks(data: SweepData, per_rec_values: int) -> Iterator[slice]:
    """Blocks of whole recordings whose working set (floats per recording given) is about BLOCK_BYTES."""
    return row_blocks(data.x.shape[0], 8 * per_rec_values, 1)


def _fft_error_blocks(data: SweepData, mech: Mech, chunk: int, eps_inv: np.ndarray, spec: SweepSpec,
                      rng: np.random.Generator, parts: list[_Part],
                      b_f: np.ndarray | None) -> Iterator[tuple[slice, np.ndarray]]:
    """FPA/CFPA/DCFPA Σ err² summed over chunks, block by block: (recordings, (E, R, b, F)) pairs.

    Noise is drawn one recording at a time (R, 1, F, Cp, kmax) for every kind of chunk in turn, so the
    numbers do not depend on the block size (timeseries.blocks)."""
    n_feat, t = data.x.shape[1], data.x.shape[2]
    difference = mech is Mech.DCFPA
    kmax = [int(p.k.max()) for p in parts]
    cols = sum(p.d2.shape[1] * (km * (4 * spec.runs + 2 * len(np.unique(p.k)) + 2) + spec.runs * 2)
               for p, km in zip(parts, kmax))
    for rec in _rec_blocks(data, n_feat * (4 * t + cols)):
        b = rec.stop - rec.start
        z = [(np.empty((spec.runs, b, n_feat, p.d2.shape[1], km)), np.empty((spec.runs, b, n_feat, p.d2.shape[1], km)))
             for p, km in zip(parts, kmax)]
        for i in range(b):  # the granule: one recording, every kind of chunk
            for (z_re, z_im), p, km in zip(z, parts, kmax):
                z_re[:, i : i + 1], z_im[:, i : i + 1] = standard_noise(
                    rng, (spec.runs, 1, n_feat, p.d2.shape[1], km), p.n, signed=difference)
        src, arr = _sources(data, rec, chunk, difference, b_f)
        err = np.zeros((eps_inv.size, spec.runs, b, n_feat))
        chunks = list(zip(split_chunks(src, chunk), split_chunks(arr, chunk), strict=True))
        for p, (z_re, z_im) in zip(parts, z):
            (part, _), (xpart, _) = chunks[p.index]
            if difference:
                err += dcfpa_errors(xpart, part, p.d2, p.k, eps_inv, z_re, z_im, p.increment_ratio)
            else:
                err += fft_errors(part, p.d2, p.k, eps_inv, z_re, z_im)
        yield rec, err


def _error_blocks(data: SweepData, mech: Mech, chunk: int | None, eps_inv: np.ndarray, spec: SweepSpec,
                  rng: np.random.Generator) -> tuple[Iterator[tuple[slice, np.ndarray]], np.ndarray]:
    """Any swept mechanism in, (its Σ_t err² block by block as (recordings, (E, R, b, F)), median k (E,)) out."""
    if mech is Mech.LPA:
        d1 = l1_public(data.length, data.ranges) if spec.sensitivity == "public" else \
            empirical_sensitivity(data.x, order=1)
        b2 = lpa_scale(d1[None, :], eps_inv[:, None]) ** 2  # (E, F)

        def lpa_blocks() -> Iterator[tuple[slice, np.ndarray]]:
            for rec in _rec_blocks(data, data.x.shape[1] * data.length * (spec.runs + 1)):
                yield rec, b2[:, None, None, :] * lpa_unit_squares(data.x[rec], spec.runs, rng)[None]

        return lpa_blocks(), np.full(eps_inv.size, np.nan)
    size = data.length if mech is Mech.FPA else int(chunk)
    n_feat = data.x.shape[1]
    b_f = None if spec.increment_bound is None else np.broadcast_to(np.asarray(spec.increment_bound, float),
                                                                    (n_feat,))
    parts = _fft_parts(data, mech, size, eps_inv, spec, b_f)
    k_median = np.median(np.concatenate([p.k.reshape(eps_inv.size, -1) for p in parts], axis=1), axis=1)
    return _fft_error_blocks(data, mech, size, eps_inv, spec, rng, parts, b_f), k_median


def mechanism_errors(data: SweepData, mech: Mech, chunk: int | None, eps_inv: np.ndarray, spec: SweepSpec,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """SweepData, mechanism, chunk, per-invocation ε (E,) in, (Σ_t err² (E, R, Rec, F), median k (E,)) out;
    LPA's k is NaN. The sweep itself never holds this array: it reduces block by block (`sweep_utility`)."""
    blocks, k_median = _error_blocks(data, mech, chunk, eps_inv, spec, rng)
    err = np.empty((eps_inv.size, spec.runs) + data.x.shape[:2])
    for rec, part in blocks:
        err[:, :, rec] = part
    return err, k_median


def feature_sums(err: np.ndarray, length: int, inv_norm: np.ndarray) -> np.ndarray:
    """Σ err² (..., Rec, F), T, 1/normaliser (Rec, F) in, Σ over recordings of NMSE (..., F) out
    (series without a normaliser, NaN, left out as nanmean leaves them out)."""
    w = np.where(np.isnan(inv_norm), 0.0, inv_norm) / length
    return np.einsum("...sf,sf->...f", err, w)


def _rows(mech: Mech, chunk: int | None, plans: list[EpsilonPlan], sums: np.ndarray, k_median: np.ndarray,
          data: SweepData, spec: SweepSpec, features: Sequence[str]) -> tuple[list[dict], list[pd.DataFrame]]:
    """One mechanism's NMSE sums over recordings (E, R, F) in, its table rows and per-feature frames (one per
    ε setting) out."""
    rows, per_feature = [], []
    label = mech.label(chunk)
    count = np.sum(~np.isnan(data.inv_norm), axis=0)  # recordings with a normaliser, per feature
    for i, plan in enumerate(plans):
        summary = _summarise(sums[i], count, spec.band)
        nmse_feat = summary.pop("_nmse_feat")
        rows.append({
            "mechanism": label,
            "family": mech.name.lower(),
            "chunk": chunk if mech.info.chunked else None,
            "mode": plan.mode,
            "epsilon": plan.epsilon_input,
            "eps_invocation": plan.per_invocation,
            "eps_per_series": plan.per_series,
            "eps_paper_total": plan.paper_total,
            "eps_participant": plan.participant_total,
            "k_median": float(k_median[i]),
            **summary,
            "runs": spec.runs,
            "k_rule": spec.k_rule if mech is not Mech.LPA else "-",
            "sensitivity_type": spec.sensitivity,
            "tuned_on_private_data": spec.k_rule == "oracle" and mech is not Mech.LPA,
        })
        per_feature.append(pd.DataFrame({
            "mechanism": label,
            "mode": plan.mode,
            "epsilon": plan.epsilon_input,
            "feature": list(features),
            "nmse": nmse_feat,
            "utility": metrics.utility(nmse_feat),
            "utility_db": metrics.utility_db(nmse_feat),
        }))
    return rows, per_feature


def sweep_utility(
    x: np.ndarray,
    bounds: tuple,
    spec: SweepSpec,
    *,
    rng: np.random.Generator,
    mechanisms: Sequence[str] = SWEEP_LABELS,
    features: Sequence[str] | None = None,
    progress: Callable[[float], None] | None = None,
) -> SweepResult:
    """Series (recordings, F, T), public bounds (L, U), SweepSpec, rng, labels in, SweepResult out.

    One row per (mechanism, mode, ε): mode "paper" reads ε as the paper does (per chunk / per
    feature series); mode "participant" reads it as the participant total, split over features ×
    chunks × `n_recordings` (recordings per participant). Utility is the paper's: MSE averaged over
    runs, normalised once per series (`nmse_kind` "var" or "range" via metrics), averaged over
    recordings per feature, utility 1/NMSE per feature averaged over features. Bands: `*_lo/_hi`
    ±2 jackknife SE over runs; `*_run_lo/_run_hi` the `band` quantiles of single-run utility.
    """
    data = prepare(x, bounds, spec.nmse_kind)
    n_feat = data.x.shape[1]
    names = list(features) if features is not None else [f"feature {i}" for i in range(n_feat)]
    rows, per_feature = [], []
    labels = list(mechanisms)
    for m_i, text in enumerate(labels):
        mech, size = parse_label(text)
        if not mech.info.chunked and mech not in (Mech.LPA, Mech.FPA):
            raise ValueError(f"the sweep covers LPA, FPA, CFPA and DCFPA, not {text!r}")
        plans = [epsilon_plan(mode, e, mech, size, data.length, n_feat, spec.n_recordings)
                 for mode in spec.modes for e in spec.epsilons]
        eps_inv = np.array([p.per_invocation for p in plans])
        blocks, k_median = _error_blocks(data, mech, size, eps_inv, spec, rng)
        sums = np.zeros((eps_inv.size, spec.runs, n_feat))
        for rec, err in blocks:  # reduced block by block: the (E, R, Rec, F) errors are never held at once
            sums += feature_sums(err, data.length, data.inv_norm[rec])
        more_rows, more_frames = _rows(mech, size, plans, sums, k_median, data, spec, names)
        rows += more_rows
        per_feature += more_frames
        if progress is not None:
            progress((m_i + 1) / len(labels))
    return SweepResult(pd.DataFrame(rows), pd.concat(per_feature, ignore_index=True))


def crossing_sentences(table: pd.DataFrame, mode: str, target_db: float = 0.0) -> list[str]:
    """Sweep table and accounting mode in, one sentence per mechanism out: the ε (log-interpolated between the
    sweep's points) at which its utility first reaches target_db, or that it does not within the swept range."""
    out = []
    part = table[table["mode"] == mode]
    for label, d in part.groupby("mechanism", sort=False):
        d = d.sort_values("epsilon")
        eps, db = d["epsilon"].to_numpy(float), d["utility_db"].to_numpy(float)
        hit = np.flatnonzero(db >= target_db)
        if hit.size == 0:
            out.append(f"{label}: below {target_db:g} dB up to ε = {eps[-1]:.3g} (best {db.max():+.1f} dB); more "
                       "ε, fewer features or a release form with a smaller sensitivity would be needed.")
        elif hit[0] == 0:
            out.append(f"{label}: at or above {target_db:g} dB over the whole range (from ε = {eps[0]:.3g}).")
        else:
            i = hit[0]
            frac = (target_db - db[i - 1]) / (db[i] - db[i - 1])
            star = float(10 ** (np.log10(eps[i - 1]) + frac * (np.log10(eps[i]) - np.log10(eps[i - 1]))))
            out.append(f"{label}: reaches {target_db:g} dB from ε ≈ {star:.3g}.")
    return out
