"""What a time-series setting gives on average, not in one lucky preview run: the median utility over the features
(dB, the page's headline) as a mean with a 10–90 % band over R seeded runs (docs/PRIVACY_MODEL.md §5).

The runs are the sweep's exact error sums (`experiments.mechanism_errors`: the mechanism's error for each draw of
standard noise, no inverse transform). For a fixed k the error of every mechanism is a quadratic in 1/ε per
invocation (LPA, FPA, CFPA: RE + λ²·P; DCFPA adds the cross term 2λ⟨u, Φr⟩, λ ∝ 1/ε), so the R runs are drawn once
per setting at three ε and every other ε is read off the quadratic exactly: a slider move costs a few array sums.
The seeds are fixed (`EXPECTATION_SEED`), so changing the preview seed moves the preview, not the expectation.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import experiments
from eyedp_core.timeseries.preview import PreviewSetting

__all__ = ["EXPECTATION_RUNS", "EXPECTATION_SEED", "ExpectedDb", "NmseModel", "expected_median_db", "nmse_model"]

EXPECTATION_RUNS = 30  # small enough to draw once per setting, large enough for a stable 10–90 % band
EXPECTATION_SEED = 1_000_003
BAND = (0.1, 0.9)
_U = np.array([1.0, 2.0, 4.0])  # 1/ε per invocation at which the runs are drawn (the quadratic's three points)


@dataclass(frozen=True, eq=False)
class NmseModel:
    """Per (run, recording, feature) the NMSE of the setting as a + b·u + c·u², u = 1/ε per invocation."""

    a: np.ndarray  # (R, Rec, F)
    b: np.ndarray
    c: np.ndarray

    def nmse(self, epsilon_invocation: float) -> np.ndarray:
        """ε per invocation in, NMSE (R, Rec, F) out (never below 0: the quadratic is an exact sum of squares)."""
        u = 1.0 / float(epsilon_invocation)
        return np.maximum(self.a + u * self.b + u * u * self.c, 0.0)


@dataclass(frozen=True)
class ExpectedDb:
    """Median utility over the features in dB: mean over runs and the 10 % and 90 % quantiles of single runs."""

    mean: float
    low: float
    high: float
    runs: int


def nmse_model(x: np.ndarray, bounds: tuple, setting: PreviewSetting, *, runs: int = EXPECTATION_RUNS,
               seed: int = EXPECTATION_SEED) -> NmseModel:
    """Series (recordings, F, T), public bounds (L, U), the setting (mechanism, chunk, k, NMSE kind 'var' | 'range',
    sensitivity type 'public' | 'data-derived'; its ε is not read: the model covers every ε), runs and seed in,
    the NmseModel of the setting out."""
    s = setting
    spec = experiments.SweepSpec(epsilons=(1.0,), modes=("paper",), runs=runs, k_rule="fixed", k=int(s.k),
                                 sensitivity=s.sensitivity_type, nmse_kind=s.nmse_kind)
    data = experiments.prepare(x, bounds, s.nmse_kind)
    err, _ = experiments.mechanism_errors(data, Mech(s.mech), s.chunk, 1.0 / _U, spec, np.random.default_rng(seed))
    nm = err * (data.inv_norm / data.length)[None, None]  # (3, R, Rec, F); NaN where a series has no normaliser
    coef = np.linalg.solve(np.vander(_U, 3, increasing=True), nm.reshape(3, -1)).reshape(nm.shape)
    return NmseModel(coef[0], coef[1], coef[2])


def expected_median_db(model: NmseModel, epsilon_invocation: float) -> ExpectedDb:
    """NmseModel and ε per invocation in, each run's median over the features of −10·log10(NMSE per feature, mean
    over recordings), as the preview computes it for its one run, summarised over the runs out."""
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a feature without any normaliser: an empty mean
        per_feature = np.nanmean(model.nmse(epsilon_invocation), axis=1)  # (R, F)
        db = -10.0 * np.log10(per_feature)
        med = np.nanmedian(db, axis=1)  # (R,)
    med = med[np.isfinite(med)]
    if med.size == 0:
        return ExpectedDb(float("nan"), float("nan"), float("nan"), int(model.a.shape[0]))
    lo, hi = np.quantile(med, BAND)
    return ExpectedDb(float(med.mean()), float(lo), float(hi), int(model.a.shape[0]))

