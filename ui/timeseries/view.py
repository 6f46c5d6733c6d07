"""Time-series view, compute side: cached wrappers around eyedp_core for the preview, k, sweep and accounting.

Every wrapper is keyed on the dataset token and the parameters; the big arrays travel as underscore
arguments (not hashed). The computing itself lives in eyedp_core.timeseries (preview, choices,
experiments); this module only caches it. The preview path (one mechanism, one setting, all
recordings and features) never touches the sweep, so slider moves stay fast.
"""
from __future__ import annotations

import dataclasses
import hashlib
import time
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.data import bundled
from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.feature_specs import feature_bounds
from eyedp_core.timeseries import choices
from eyedp_core.timeseries.choices import KChoice, KSource
from eyedp_core.timeseries.experiments import SweepSpec, sweep_utility
from eyedp_core.timeseries.k import expected_error_curve
from eyedp_core.timeseries.k_search import OptimalK, optimal_k
from eyedp_core.timeseries.preview import (
    Preview,
    PreviewRun,
    PreviewSetting,
    data_derived_sensitivity,
    preview_of,
)
from eyedp_core.timeseries.preview import run_all as core_run_all
from eyedp_core.timeseries.setting import MechanismSetting
from eyedp_core.timeseries.signals import feature_columns, feature_tensor
from eyedp_core.timeseries.steil import published_worst_log_ratio
from eyedp_core.timeseries.temporal_leakage import discretise, transition_matrices


@dataclass(frozen=True, kw_only=True)
class Setting:
    """One mechanism setting chosen on the page."""

    mech: Mech  # one of registry.TIME_SERIES
    chunk: int | None  # chunk length for CFPA/DCFPA
    mode: str  # "paper" | "participant"
    epsilon: float  # the slider value (its meaning depends on mode)
    k: int
    k_source: KSource
    sensitivity_mode: str  # "public" (from bounds) | "empirical" (Bozkir Eq. 7, not DP)
    nmse_kind: str  # "var" | "range"
    runs: int
    seed: int
    tuned: bool  # k was picked by looking at the private data (choices.KChoice)

    @property
    def label(self) -> str:
        """Mechanism label for the colours and the ledger, e.g. 'CFPA-32'."""
        return self.mech.label(self.chunk)


# --------------------------------------------------------------------------------------------
# sensitivities, preview


@st.cache_data(max_entries=32, show_spinner="Computing the data-derived sensitivities (as in the paper)…")
def empirical(token: str, names: tuple[str, ...], length: int, mech: Mech, chunk: int | None,
              _x: np.ndarray) -> np.ndarray:
    """Series in, Bozkir Eq. 7 sensitivities out: L1 per feature (F,) for LPA, else L2 per feature and chunk (F, C)."""
    return data_derived_sensitivity(_x, mech, chunk)


def data_key(token: str, names: tuple[str, ...], lo: np.ndarray, hi: np.ndarray, length: int) -> str:
    """Dataset token, released features, bounds and public T in, one short cache key out.

    Streamlit hashes a tuple element by element (~ms for 48 names and 96 bounds): the hot-path caches take
    this digest instead, computed once per run of the page."""
    raw = repr((token, tuple(names), np.asarray(lo, float).tolist(), np.asarray(hi, float).tolist(), int(length)))
    return token + ":" + hashlib.blake2b(raw.encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class RunKey:
    """What names one seeded preview run: the data (see data_key) and every setting the run depends on."""

    data: str  # data_key of the released series
    setting: PreviewSetting
    sensitivity_mode: str  # "public" | "empirical"
    seed: int


# cache_resource, not cache_data: the run is read on every slider move, and cache_data would unpickle a copy of
# it each time (~ms). The whole run (every recording and feature) is kept for the last few settings only, so that
# picking another feature needs no new run; memory stays a small multiple of the data.
@st.cache_resource(max_entries=2, show_spinner=False)
def run_all(run: RunKey, _lo: np.ndarray, _hi: np.ndarray, _x: np.ndarray, _sens: np.ndarray | None) -> PreviewRun:
    """Series (named by run.data, see data_key), the setting in, one seeded run over all recordings and features
    out (its arrays read-only: the cached run is shared)."""
    r = core_run_all(_x, run.setting, bounds=(np.asarray(_lo), np.asarray(_hi)), rng=np.random.default_rng(run.seed),
                     sensitivity=_sens)
    for a in (r.private.values, r.nmse_all, r.nmse_paper_feature, r.feature_scale, r.feature_sensitivity):
        a.setflags(write=False)
    return r


@st.cache_resource(max_entries=48, show_spinner=False)
def preview(run: RunKey, feature: int, _lo: np.ndarray, _hi: np.ndarray, _x: np.ndarray,
            _sens: np.ndarray | None) -> Preview:
    """The run at this setting (cached apart, see run_all) and the shown feature in, what the page shows out:
    the same numbers as eyedp_core.timeseries.preview.run_preview with this seed."""
    prev = preview_of(run_all(run, _lo, _hi, _x, _sens), feature)
    for value in vars(prev).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return prev


def stacked(cal: Calibration) -> Calibration:
    """Calibration in, the same with its plugged-in formula broken into lines at ';' (fits a narrow column)."""
    parts = [p.strip() for p in cal.plugged_tex.split(r";\ ") if p.strip()]
    if len(parts) < 2:
        return cal
    return dataclasses.replace(cal, plugged_tex=r"\begin{gathered}" + r" \\ ".join(parts) + r"\end{gathered}")


# --------------------------------------------------------------------------------------------
# choice of k


def _k_kwargs(mech: Mech, chunk: int | None, lo: float, hi: float, sens: np.ndarray | None) -> dict:
    """Arguments of the core curve and search for one feature: method, chunk and bounds or sensitivity."""
    kw: dict = {"method": mech, "chunk": None if mech is Mech.FPA else int(chunk)}
    if sens is None:
        kw["bounds"] = (lo, hi)
    else:
        kw["sensitivity"] = np.asarray(sens, dtype=float)
    return kw


@dataclass(frozen=True)
class KQuery:
    """One feature's question about k: the data, the feature and its bounds, the mechanism and ε per invocation."""

    token: str
    names: tuple[str, ...]  # released features
    length: int  # public T
    feature: int  # index of the feature in names
    bounds: tuple[float, float]  # its public (L, U)
    mech: Mech
    chunk: int | None
    eps_inv: float
    sensitivity_mode: str  # "public" | "empirical"

    def kwargs(self, sens: np.ndarray | None) -> dict:
        """Arguments of the core curve and search: method, chunk and bounds or sensitivity."""
        return _k_kwargs(self.mech, self.chunk, *self.bounds, sens)


@st.cache_data(max_entries=64, show_spinner=False)
def k_curve(q: KQuery, _xf: np.ndarray, _sens: np.ndarray | None) -> pd.DataFrame:
    """One feature's series (recordings, T), mechanism, per-invocation ε in, expected error over k out."""
    return expected_error_curve(_xf, epsilon=q.eps_inv, **q.kwargs(_sens))


@st.cache_data(max_entries=64, show_spinner="Running the paper's search for k on the private data…")
def k_optimal(q: KQuery, runs: int, seed: int, _xf: np.ndarray, _sens: np.ndarray | None) -> OptimalK:
    """One feature's series, mechanism, ε, R draws in, the paper's optimal k (flagged tuned on private data) out."""
    rng = np.random.default_rng([seed, 7])
    kw = q.kwargs(_sens)
    setting = MechanismSetting(mech=kw.pop("method"), epsilon=q.eps_inv, chunk=kw.pop("chunk"))
    return optimal_k(_xf, setting, rng=rng, runs=int(runs), **kw)


def k_choice(q: KQuery, n: int, source: KSource, manual: int, runs: int, seed: int, xf: np.ndarray,
             sens: np.ndarray | None) -> KChoice:
    """The page's k: only the curve or search the source needs is computed (cached), the choice is the core's."""
    curve = search = None
    if q.mech is not Mech.LPA and source is KSource.ANALYTIC:
        curve = k_curve(q, xf, sens)
    elif q.mech is not Mech.LPA and source is KSource.OPTIMAL:
        search = k_optimal(q, runs, seed, xf, sens)
    return choices.choose_k(q.mech, n, q.eps_inv, source, manual=manual, curve=curve, search=search)


# --------------------------------------------------------------------------------------------
# utility versus ε


@dataclass(frozen=True)
class SeriesKey:
    """What names the released series in a cache key: dataset token, released features, public T and bounds."""

    token: str
    names: tuple[str, ...]
    length: int
    lo: tuple[float, ...]
    hi: tuple[float, ...]

    @classmethod
    def of(cls, keys: tuple, lo: np.ndarray, hi: np.ndarray) -> SeriesKey:
        """(token, names, length) and the bounds as arrays -> the key."""
        return cls(*keys, tuple(np.asarray(lo).tolist()), tuple(np.asarray(hi).tolist()))


@st.cache_data(max_entries=128, show_spinner=False)
def sweep_one(data: SeriesKey, label: str, spec: SweepSpec, seed: int, _x: np.ndarray) -> pd.DataFrame:
    """Series and one mechanism label in, its utility-versus-ε rows for the spec's accounting modes out."""
    t0 = time.perf_counter()
    rng = np.random.default_rng([seed, zlib.crc32(label.encode())])
    result = sweep_utility(_x, (np.asarray(data.lo), np.asarray(data.hi)), spec, rng=rng, mechanisms=[label])
    return result.table.assign(compute_s=time.perf_counter() - t0)


def sweep(data: SeriesKey, labels: list[str], spec: SweepSpec, seed: int, x: np.ndarray) -> tuple[pd.DataFrame, float]:
    """Mechanism labels in, the sweep table of all of them and the seconds this run waited out, with a progress bar."""
    from eyedp_core.timeseries.experiments import estimated_sweep_seconds

    t0 = time.perf_counter()
    # The estimate is shown before anything computes (a cached mechanism then just skips ahead).
    left = [estimated_sweep_seconds(x.shape, [label], spec) for label in labels]
    bar = st.progress(0.0, text=f"Computing utility versus ε: about {sum(left):.0f} s on a two-core machine…")
    parts = []
    for i, label in enumerate(labels):  # one cached call per mechanism: the bar advances between them
        bar.progress(i / len(labels), text=f"Computing utility versus ε: {label} ({i + 1} of {len(labels)}), about "
                                           f"{sum(left[i:]):.0f} s left…")
        parts.append(sweep_one(data, label, spec, seed, x))
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
    table = bundled.load_sample("reading_features")
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


@st.cache_data(max_entries=16, show_spinner=False)
def form_rows(data: SeriesKey, epsilon: float, blocks: int, recordings_per_person: int, feature: int,
              target_db: float, _x: np.ndarray, _recs: pd.DataFrame) -> list:
    """Released series, ε per person, coarse windows, shown feature, target in, the release forms compared
    (eyedp_core.timeseries.forms.compare_forms) out."""
    from eyedp_core.timeseries import forms

    question = forms.FormComparison(epsilon=epsilon, blocks=blocks, recordings_per_person=recordings_per_person,
                                    feature_index=feature, target_db=target_db)
    return forms.compare_forms(_x, np.asarray(data.lo), np.asarray(data.hi), _recs, question)


@st.cache_data(max_entries=16, show_spinner=False)
def form_preview(data: SeriesKey, epsilon: float, recordings_per_person: int, feature: int, seed: int,
                 _x: np.ndarray, _recs: pd.DataFrame) -> pd.DataFrame:
    """-> the shown feature's group means per task: clean and one seeded private preview, with the noise scale."""
    from eyedp_core.timeseries import forms

    setting = forms.FormSetting(forms.Form.GROUP, float(epsilon), 1, int(recordings_per_person))
    sel = [int(feature)]
    rel = forms.release(setting, _x[:, sel], np.asarray(data.lo)[sel], np.asarray(data.hi)[sel], _recs,
                        np.random.default_rng(seed))
    out = rel.units.copy()
    out["clean mean"] = rel.clean[:, 0, 0]
    out["private preview"] = rel.noisy[:, 0, 0]
    out["noise scale b"] = rel.calibration.feature_scale[0]
    return out
