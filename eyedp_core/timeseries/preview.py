"""One preview run of a time-series mechanism over every recording and feature, as the page shows it.

The preview runs the mechanism once (`mechanisms.run`), keeps the shown feature's noisy series, the NMSE
per feature and series, and the calibrations the noise was ACTUALLY drawn with: the page's calibration
box, noise-scale metric and per-feature table all read them from here, never from a second computation.
Preview noise comes from a numpy Generator: it is not a release (docs/PRIVACY_MODEL.md §11).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from eyedp_core import metrics
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.blocks import row_blocks
from eyedp_core.timeseries.calibration import ChunkCalibration
from eyedp_core.timeseries.mechanisms import dcfpa_paper_reconstruction, run
from eyedp_core.timeseries.private import PrivateSeries
from eyedp_core.timeseries.sensitivity import chunk_differences, empirical_chunk_sensitivity, empirical_sensitivity
from eyedp_core.timeseries.setting import MechanismSetting

__all__ = ["Preview", "PreviewRun", "PreviewSetting", "data_derived_sensitivity", "preview_of", "representative", "run_all",
           "run_preview", "sensitivity_for_run"]


@dataclass(frozen=True, kw_only=True)
class Preview:
    """What the page shows of one seeded run (small: it is cached and copied on every rerun)."""

    noisy: np.ndarray  # (recordings, T) of the shown feature
    paper: np.ndarray | None  # DCFPA with the paper's printed step 3, same shape
    nmse_feature: np.ndarray  # (F,) NMSE per feature, mean over recordings
    nmse_paper_feature: np.ndarray  # (F,) the paper's NMSE of this one run, median over recordings
    nmse_series: np.ndarray  # (recordings,) NMSE of the shown feature per recording
    shown: tuple[ChunkCalibration, ...]  # the shown feature's calibrations as drawn: representative first
    feature_scale: np.ndarray  # (F,) scale of each feature's representative calibration
    feature_sensitivity: np.ndarray  # (F,) its sensitivity
    seconds: float


def data_derived_sensitivity(x: np.ndarray, mech: Mech, chunk: int | None) -> np.ndarray:
    """Series (recordings, F, T), mechanism, chunk in, Bozkir Eq. 7 sensitivities out (NOT DP):
    L1 per feature (F,) for LPA, else L2 per feature and chunk (F, C)."""
    if x.shape[0] < 2:
        raise ValueError("a data-derived sensitivity needs at least two recordings to compare")
    if mech is Mech.LPA:
        return empirical_sensitivity(x, order=1)
    size = x.shape[-1] if mech is Mech.FPA else int(chunk)
    return empirical_chunk_sensitivity(x, size, order=2, difference=mech is Mech.DCFPA)


def sensitivity_for_run(mech: Mech, sens: np.ndarray | None) -> np.ndarray | None:
    """Sensitivities (F,) or (F, C) in, the shape `run` broadcasts over (recordings, F[, C]) out."""
    if sens is None or mech is Mech.LPA:
        return sens
    if mech is Mech.FPA:
        return sens[:, 0]
    return sens[None, :, :]


def representative(groups: tuple[ChunkCalibration, ...]) -> tuple[ChunkCalibration, ...]:
    """Calibration groups of one feature in, one group per transform length (longest first) out: the
    median-scale group of that length (with public bounds there is only one per length)."""
    out = []
    for length in sorted({g.length for g in groups}, reverse=True):
        same = sorted((g for g in groups if g.length == length), key=lambda g: g.calibration.scale)
        out.append(same[(len(same) - 1) // 2])
    return tuple(out)


def _per_feature(private: PrivateSeries, n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """PrivateSeries over (recordings, F, ...) in, (scale, sensitivity) of each feature's representative."""
    firsts = [representative(private.used((slice(None), f)))[0].calibration for f in range(n_features)]
    return np.array([c.scale for c in firsts]), np.array([c.sensitivity for c in firsts])


def _nmse_blocks(x: np.ndarray, out: np.ndarray, bounds: tuple[np.ndarray, np.ndarray],
                 kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Series and mechanism output (recordings, F, T), bounds per feature in, (NMSE of `kind`, the paper's
    NMSE) per series out, computed over blocks of recordings so that no full-size temporary is formed."""
    lo, hi = bounds
    b = (lo[None, :], hi[None, :])
    nmse_all, paper_all = np.empty(x.shape[:2]), np.empty(x.shape[:2])
    for rec in row_blocks(x.shape[0], 8 * 4 * x.shape[1] * x.shape[2], 1):
        clean = np.clip(x[rec], lo[None, :, None], hi[None, :, None])
        nmse_all[rec] = metrics.nmse(clean, out[rec], kind=kind, bounds=b)
        paper_all[rec] = metrics.nmse(clean, out[rec], kind="paper", bounds=b)
    return nmse_all, paper_all


@dataclass(frozen=True, kw_only=True)
class PreviewRun:
    """One seeded run over every recording and feature, before a feature is picked for display: a page can keep
    it and show another feature without running the mechanism again (`preview_of`)."""

    mech: Mech
    chunk: int | None
    private: PrivateSeries  # the run: values (recordings, F, T) and the calibrations drawn with
    nmse_all: np.ndarray  # (recordings, F) NMSE of the chosen kind
    nmse_paper_feature: np.ndarray  # (F,) the paper's NMSE, median over recordings
    feature_scale: np.ndarray  # (F,)
    feature_sensitivity: np.ndarray  # (F,)
    seconds: float


@dataclass(frozen=True, kw_only=True)
class PreviewSetting:
    """One mechanism setting of a preview run: mechanism, chunk, ε per invocation, k, the NMSE normaliser and
    whether the sensitivity is public or data-derived (the calibrations are marked so)."""

    mech: Mech
    chunk: int | None
    epsilon: float  # per invocation
    k: int
    nmse_kind: str  # "var" | "range"
    sensitivity_type: str = "public"

    def mechanism(self) -> MechanismSetting:
        """-> the mechanism part of the setting (what `mechanisms.run` takes)."""
        return MechanismSetting(mech=self.mech, epsilon=self.epsilon, k=self.k, chunk=self.chunk,
                                sensitivity_type=self.sensitivity_type)


def run_all(x: np.ndarray, setting: PreviewSetting, *, bounds: tuple[np.ndarray, np.ndarray],
            rng: np.random.Generator, sensitivity: np.ndarray | None = None) -> PreviewRun:
    """Series (recordings, F, T), setting, public bounds per feature, rng (and data-derived sensitivities) in,
    one run over all recordings and features with its NMSE and calibrations out (no feature picked yet)."""
    t0 = time.perf_counter()
    s = setting
    lo, hi = (np.asarray(b, dtype=float) for b in bounds)
    private = run(x, s.mechanism(), rng=rng, bounds=(lo, hi), sensitivity=sensitivity_for_run(s.mech, sensitivity))
    nmse_all, paper_all = _nmse_blocks(x, private.values, (lo, hi), s.nmse_kind)
    with np.errstate(all="ignore"):
        paper_med = np.nanmedian(np.where(np.isfinite(paper_all), paper_all, np.nan), axis=0)
    scale, sens = _per_feature(private, x.shape[1])
    return PreviewRun(mech=s.mech, chunk=s.chunk, private=private, nmse_all=nmse_all, nmse_paper_feature=paper_med,
                      feature_scale=scale, feature_sensitivity=sens, seconds=time.perf_counter() - t0)


def preview_of(r: PreviewRun, feature: int) -> Preview:
    """A run and the index of the shown feature in, what the page shows of it out (cheap: no noise drawn)."""
    noisy = np.array(r.private.values[:, feature, :])
    paper = None
    if r.mech is Mech.DCFPA:
        paper = dcfpa_paper_reconstruction(chunk_differences(noisy, int(r.chunk)), int(r.chunk))
    return Preview(noisy=noisy, paper=paper, nmse_feature=np.nanmean(r.nmse_all, axis=0),
                   nmse_paper_feature=r.nmse_paper_feature, nmse_series=r.nmse_all[:, feature],
                   shown=representative(r.private.used((slice(None), feature))), feature_scale=r.feature_scale,
                   feature_sensitivity=r.feature_sensitivity, seconds=r.seconds)


def run_preview(x: np.ndarray, setting: PreviewSetting, *, bounds: tuple[np.ndarray, np.ndarray],
                rng: np.random.Generator, feature: int, sensitivity: np.ndarray | None = None) -> Preview:
    """Series (recordings, F, T), setting, public bounds per feature, rng, shown feature in, one run over all
    recordings and features with the calibrations it drew with out."""
    return preview_of(run_all(x, setting, bounds=bounds, rng=rng, sensitivity=sensitivity), feature)
