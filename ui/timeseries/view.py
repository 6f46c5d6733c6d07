"""Time-series view, compute side: cached wrappers around eyedp_core for the preview, k, sweep and accounting.

Every wrapper is keyed on the dataset token and the parameters; the big arrays travel as underscore
arguments (not hashed). The preview path (one mechanism, one setting, all recordings and features)
never touches the sweep, so slider moves stay fast.
"""
from __future__ import annotations

import dataclasses
import time
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.data import samples as datasets

from eyedp_core import metrics
from eyedp_core.gaze.feature_specs import feature_bounds
from eyedp_core.dp.mechanisms import Calibration
from eyedp_core.timeseries.steil import published_worst_log_ratio
from eyedp_core.timeseries.temporal_leakage import discretise, transition_matrices
from eyedp_core.timeseries.mechanisms import dcfpa_paper_reconstruction
from eyedp_core.timeseries.calibration import chunk_calibrations, fpa_calibration, lpa_calibration
from eyedp_core.timeseries.experiments import utility_sweep
from eyedp_core.timeseries.k import expected_error_curve, public_k
from eyedp_core.timeseries.k_search import OptimalK, optimal_k
from eyedp_core.timeseries.sensitivity import chunk_differences, empirical_chunk_sensitivity, empirical_sensitivity
from eyedp_core.timeseries.signals import feature_columns, feature_tensor, run_mechanism

FAMILIES = ("lpa", "fpa", "cfpa", "dcfpa")
SWEEP_MECHANISMS = ("LPA", "FPA", "CFPA-32", "CFPA-64", "CFPA-128", "DCFPA-32", "DCFPA-64", "DCFPA-128")


@dataclass(frozen=True)
class Setting:
    """One mechanism setting chosen on the page."""

    family: str  # lpa | fpa | cfpa | dcfpa
    chunk: int | None  # chunk length for cfpa/dcfpa
    mode: str  # "paper" | "participant"
    epsilon: float  # the slider value (its meaning depends on mode)
    k: int
    k_source: str  # "rule" | "analytic" | "optimal" | "manual"
    sens_mode: str  # "public" (from bounds) | "empirical" (Bozkir Eq. 7, not DP)
    nmse_kind: str  # "var" | "range"
    runs: int
    seed: int

    @property
    def label(self) -> str:
        """Mechanism label for run_mechanism and the colours, e.g. 'CFPA-32'."""
        return mech_label(self.family, self.chunk)

    @property
    def tuned(self) -> bool:
        """Whether k was picked by looking at the private data (analytic minimum or the paper's search)."""
        return self.family != "lpa" and self.k_source in ("analytic", "optimal")


def mech_label(family: str, chunk: int | None) -> str:
    """Family and chunk in, label such as 'LPA', 'FPA', 'DCFPA-64' out."""
    return family.upper() if family in ("lpa", "fpa") else f"{family.upper()}-{int(chunk)}"


def transform_length(family: str, chunk: int | None, length: int) -> int:
    """Family, chunk, public T in, the FFT length n of one invocation (T for LPA/FPA, else the chunk) out."""
    return int(length) if family in ("lpa", "fpa") else int(min(int(chunk), int(length)))


# --------------------------------------------------------------------------------------------
# sensitivities, preview


@st.cache_data(max_entries=32, show_spinner="Computing the data-derived sensitivities (as in the paper)…")
def empirical(token: str, names: tuple[str, ...], length: int, family: str, chunk: int | None,
              _x: np.ndarray) -> np.ndarray:
    """Series in, Bozkir Eq. 7 sensitivities out: L1 per feature (F,) for LPA, else L2 per feature and chunk (F, C)."""
    if _x.shape[0] < 2:
        raise ValueError("a data-derived sensitivity needs at least two recordings to compare")
    if family == "lpa":
        return empirical_sensitivity(_x, order=1)
    size = int(length) if family == "fpa" else int(chunk)
    return empirical_chunk_sensitivity(_x, size, order=2, difference=family == "dcfpa")


def sensitivity_arg(family: str, sens: np.ndarray | None) -> np.ndarray | None:
    """Empirical sensitivities (F,) or (F, C) in, the shape run_mechanism broadcasts over (recordings, F[, C])."""
    if sens is None:
        return None
    if family == "lpa":
        return sens
    if family == "fpa":
        return sens[:, 0]
    return sens[None, :, :]


@dataclass(frozen=True)
class Preview:
    """One seeded run of the mechanism over every recording and feature (what the page shows of it)."""

    noisy: np.ndarray  # (recordings, T) of the shown feature
    paper: np.ndarray | None  # DCFPA with the paper's printed step 3, same shape
    nmse_feature: np.ndarray  # (F,) NMSE per feature, mean over recordings
    nmse_paper_feature: np.ndarray  # (F,) the paper's NMSE of this one run, median over recordings
    nmse_series: np.ndarray  # (recordings,) NMSE of the shown feature per recording
    seconds: float


@st.cache_data(max_entries=48, show_spinner=False)
def preview(token: str, names: tuple[str, ...], length: int, lo: tuple[float, ...], hi: tuple[float, ...],
            label: str, epsilon: float, k: int, sens_mode: str, seed: int, feature: int, nmse_kind: str,
            _x: np.ndarray, _sens: np.ndarray | None) -> Preview:
    """Series, mechanism label, per-invocation ε, k in, one seeded run over all recordings and features out."""
    t0 = time.perf_counter()
    lo_a, hi_a = np.asarray(lo), np.asarray(hi)
    rng = np.random.default_rng(seed)
    out = run_mechanism(_x, label, epsilon=epsilon, rng=rng, bounds=(lo_a, hi_a), k=k, sensitivity=_sens)
    clean = np.clip(_x, lo_a[None, :, None], hi_a[None, :, None])
    b = (lo_a[None, :], hi_a[None, :])
    nmse_all = metrics.nmse(clean, out, kind=nmse_kind, bounds=b)
    paper_all = metrics.nmse(clean, out, kind="paper", bounds=b)
    noisy = np.array(out[:, feature, :])
    paper = None
    if label.startswith("DCFPA"):
        size = int(label.split("-")[1])
        paper = dcfpa_paper_reconstruction(chunk_differences(noisy, size), size)
    with np.errstate(all="ignore"):
        paper_med = np.nanmedian(np.where(np.isfinite(paper_all), paper_all, np.nan), axis=0)
    return Preview(noisy, paper, np.nanmean(nmse_all, axis=0), paper_med, nmse_all[:, feature],
                   time.perf_counter() - t0)


def stacked(cal: Calibration) -> Calibration:
    """Calibration in, the same with its plugged-in formula broken into lines at ';' (fits a narrow column)."""
    parts = [p.strip() for p in cal.plugged_tex.split(r";\ ") if p.strip()]
    if len(parts) < 2:
        return cal
    return dataclasses.replace(cal, plugged_tex=r"\begin{gathered}" + r" \\ ".join(parts) + r"\end{gathered}")


def calibrations(s: Setting, length: int, n: int, eps_inv: float, value_range: float,
                 sens: np.ndarray | None, sens_type: str) -> tuple[str, Calibration, str]:
    """Setting, per-invocation ε, range R or empirical Δ of the shown feature in, (title, Calibration, note) out.

    The calibration is that of a full-length invocation; the note describes a shorter last chunk.
    """
    diff = s.family == "dcfpa"
    if s.family == "lpa":
        kw = {"value_range": value_range} if sens is None else {"sensitivity": float(sens)}
        cal = lpa_calibration(length, eps_inv, sensitivity_type=sens_type, **kw)
        return f"LPA: Laplace scale b per sample (T = {length})", stacked(cal), ""
    if sens is not None:
        cal = fpa_calibration(n, s.k, eps_inv, sensitivity=float(np.median(sens)), difference=diff,
                              sensitivity_type=sens_type)
        return f"{s.label}: λ per Re/Im part (median data-derived Δ₂ over chunks)", stacked(cal), ""
    if s.family == "fpa":
        cal = fpa_calibration(n, s.k, eps_inv, value_range=value_range, sensitivity_type=sens_type)
        return f"FPA: λ per Re/Im part (whole series, n = {n})", stacked(cal), ""
    parts = chunk_calibrations(length, int(s.chunk), s.k, eps_inv, value_range=value_range, difference=diff,
                               sensitivity_type=sens_type)
    first = parts[0]
    what = "chunk" if first.count == 1 else "chunks"
    note = ""
    if len(parts) > 1:
        tail = parts[1]
        note = (f"The last chunk has {tail.length} windows: it is transformed at its true length with its own "
                f"Δ₂ = {tail.calibration.sensitivity:.4g}, k = {tail.k} and λ = {tail.calibration.scale:.4g}.")
    title = f"{s.label}: λ per Re/Im part ({first.count} {what} of n = {first.length}, k = {first.k})"
    return title, stacked(first.calibration), note


# --------------------------------------------------------------------------------------------
# choice of k


def k_rule(family: str, n: int, eps_inv: float) -> int:
    """Family, FFT length, per-invocation ε in, the data-free public k (ts_k.public_k) out."""
    return int(public_k(int(n), epsilon=float(eps_inv), difference=family == "dcfpa"))


def _k_kwargs(family: str, chunk: int | None, lo: float, hi: float, sens: np.ndarray | None) -> dict:
    """Arguments of ts_k's curve and search for one feature: method, chunk and bounds or sensitivity."""
    kw: dict = {"method": family, "chunk": None if family == "fpa" else int(chunk)}
    if sens is None:
        kw["bounds"] = (lo, hi)
    else:
        kw["sensitivity"] = np.asarray(sens, dtype=float)
    return kw


@st.cache_data(max_entries=64, show_spinner=False)
def k_curve(token: str, names: tuple[str, ...], length: int, feature: int, lo: float, hi: float, family: str,
            chunk: int | None, eps_inv: float, sens_mode: str, _xf: np.ndarray,
            _sens: np.ndarray | None) -> pd.DataFrame:
    """One feature's series (recordings, T), family, per-invocation ε in, expected error over k (ts_k) out."""
    return expected_error_curve(_xf, epsilon=eps_inv, **_k_kwargs(family, chunk, lo, hi, _sens))


@st.cache_data(max_entries=64, show_spinner="Running the paper's search for k on the private data…")
def k_optimal(token: str, names: tuple[str, ...], length: int, feature: int, lo: float, hi: float, family: str,
              chunk: int | None, eps_inv: float, sens_mode: str, runs: int, seed: int, _xf: np.ndarray,
              _sens: np.ndarray | None) -> OptimalK:
    """One feature's series, family, ε, R draws in, the paper's optimal k (flagged tuned on private data) out."""
    rng = np.random.default_rng([seed, 7])
    return optimal_k(_xf, epsilon=eps_inv, rng=rng, runs=int(runs), **_k_kwargs(family, chunk, lo, hi, _sens))


# --------------------------------------------------------------------------------------------
# utility versus ε


@st.cache_data(max_entries=128, show_spinner=False)
def sweep_one(token: str, names: tuple[str, ...], length: int, lo: tuple[float, ...], hi: tuple[float, ...],
              label: str, epsilons: tuple[float, ...], runs: int, k_rule_name: str, k_fixed: int,
              sensitivity: str, nmse_kind: str, n_recordings: int, seed: int, _x: np.ndarray) -> pd.DataFrame:
    """Series and one mechanism label in, its utility-versus-ε rows for both accounting modes out."""
    t0 = time.perf_counter()
    rng = np.random.default_rng([seed, zlib.crc32(label.encode())])
    table = utility_sweep(_x, (np.asarray(lo), np.asarray(hi)), epsilons=list(epsilons), rng=rng, mechanisms=[label],
                          modes=("paper", "participant"), runs=int(runs), n_recordings=int(n_recordings),
                          k_rule=k_rule_name, k=int(k_fixed), sensitivity=sensitivity, nmse_kind=nmse_kind)
    return table.assign(compute_s=time.perf_counter() - t0)


def sweep(token: str, names: tuple[str, ...], length: int, lo: tuple[float, ...], hi: tuple[float, ...],
          labels: list[str], epsilons: tuple[float, ...], runs: int, k_rule_name: str, k_fixed: int,
          sensitivity: str, nmse_kind: str, n_recordings: int, seed: int, x: np.ndarray) -> tuple[pd.DataFrame, float]:
    """Mechanism labels in, the sweep table of all of them and the seconds this run waited out, with a progress bar."""
    t0 = time.perf_counter()
    bar = st.progress(0.0, text="Computing utility versus ε…")
    parts = []
    for i, label in enumerate(labels):  # one cached call per mechanism: the bar advances between them
        bar.progress(i / len(labels), text=f"Computing utility versus ε: {label} ({i + 1} of {len(labels)})…")
        parts.append(sweep_one(token, names, length, lo, hi, label, epsilons, runs, k_rule_name, k_fixed,
                               sensitivity, nmse_kind, n_recordings, seed, x))
    bar.empty()
    return pd.concat(parts, ignore_index=True), time.perf_counter() - t0


def sweep_epsilons(lo_exp: float, hi_exp: float, points: int = 10) -> tuple[float, ...]:
    """Decade exponents in, `points` log-spaced ε values (rounded) out."""
    return tuple(float(f"{v:.4g}") for v in np.logspace(lo_exp, hi_exp, points))


# --------------------------------------------------------------------------------------------
# temporal correlation (Markov model from PUBLIC data), Steil


@st.cache_data(max_entries=32, show_spinner=False)
def public_chain(feature: str, chunk: int, n_states: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Feature, chunk length, states in, (P^B, P^F, chains used) from the bundled synthetic sample out.

    The bundled sample is shipped with EyeDP (synthetic), so it is public: estimating the matrices on the
    private data would itself be a release (docs/PRIVACY_MODEL.md §10.2).
    """
    table = datasets.load_sample("reading_features")
    if feature not in feature_columns(table):
        raise KeyError(feature)
    x, _ = feature_tensor(table, [feature], fill="edge")
    series = x[:, 0, :]
    c = series.shape[-1] // int(chunk)
    if c < 2:
        raise ValueError("the public recordings are shorter than two chunks")
    means = series[:, : c * int(chunk)].reshape(series.shape[0], c, int(chunk)).mean(axis=-1)
    lo, hi = feature_bounds([feature])
    states = discretise(means, (float(lo[0]), float(hi[0])), int(n_states))
    pb, pf = transition_matrices(states, int(n_states))
    return pb, pf, int(series.shape[0])


def sticky_chain(n_states: int, stay: float) -> np.ndarray:
    """States and stay probability in, the assumed chain p·I + (1 − p)/s (same backward and forward) out."""
    s = int(n_states)
    return float(stay) * np.eye(s) + (1.0 - float(stay)) / s * np.ones((s, s))


@st.cache_data(max_entries=32, show_spinner=False)
def steil_worst_ratio(epsilon: float, value_range: float) -> float:
    """Nominal ε and range in, the published sampler's worst log density ratio for one element out (V-STEIL-3)."""
    return published_worst_log_ratio(epsilon, value_range)
