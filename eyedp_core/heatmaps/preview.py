"""What the Heatmaps page computes before anything is released: the fixations of one stimulus, the clean
capped map and the seeded noisy PREVIEW with its quality metrics (docs/PRIVACY_MODEL.md §6, §11).

The page only caches these calls and draws their results; nothing here is charged to the ledger.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np
import pandas as pd

from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps.calibration import HeatmapSensitivity, HeatmapSetting, heatmap_sensitivity, noise_family
from eyedp_core.heatmaps.maps import GazeMaps, aggregate, privatize, smooth
from eyedp_core.heatmaps.saliency import heatmap_metrics
from eyedp_core.heatmaps.targets import DEFAULT_Q, hot_spots_kept
from eyedp_core.io.checks import fit_to_canvas
from eyedp_core.io.errors import DataError

__all__ = [
    "CleanMaps",
    "NoisyPreview",
    "clean_maps",
    "delta_for_sizes",
    "delta_spent",
    "fixations_for_stimulus",
    "gaussian_method",
    "maps_sensitivity",
    "noisy_preview",
    "stimulus_names",
    "TooFewObservers",
]

DELTA_RULES = ("n^-1.5", "fixed")



class TooFewObservers(DataError):
    """The data are fine but hold fewer than the 2 observers a private mean map needs (a property of the data,
    not a mistake in it: pages say it as information)."""


def stimulus_names(name: str) -> set[str]:
    """Stimulus or file name in, the names a fixation table's 'stimulus' column may use for it out."""
    return {name, PurePath(name).stem}


def fixations_for_stimulus(fixations: pd.DataFrame | None, table_name: str, stimulus: str, width: int,
                           height: int) -> tuple[pd.DataFrame, str]:
    """Fixation table and its name, stimulus name and size in, (rows for that stimulus, how they were
    chosen) out.

    Tables with a 'stimulus' column are filtered to the chosen stimulus; tables without one apply to it
    as a whole. Positions just outside the image are clipped to it, and a table the app derived (its attrs'
    "made_by") loses the rows further out, both counted in `how` (io.fit_to_canvas). Raises DataError when
    nothing matches, a coordinate of the user's own table lies further outside the image or fewer than 2 observers
    remain (n is public, and a mean of one map is that observer's map)."""
    if fixations is None or fixations.empty:
        raise DataError(f"{table_name} holds no fixations.", file=table_name)
    made_by = fixations.attrs.get("made_by")
    # A table the app derived is named by its source file and step, not by row numbers nobody can look up.
    origin = f" (This table was made by the app: {made_by}.)" if made_by else ""
    if "stimulus" in fixations.columns:
        names = fixations["stimulus"].astype(str)
        sub = fixations[names.isin(stimulus_names(stimulus))]
        if sub.empty:  # an image saved in another format than the stimulus' name says (a.png for a.jpg)
            sub = fixations[names.map(lambda s: PurePath(s).stem) == PurePath(stimulus).stem]
        if sub.empty:
            have = ", ".join(sorted(map(str, fixations["stimulus"].dropna().unique()))[:12])
            raise DataError(f"no fixations for the stimulus '{stimulus}'. The table has fixations for: "
                            f"{have}. Choose one of those stimuli, or upload fixations recorded on "
                            f"'{stimulus}' (without a stimulus column they apply to the chosen image).{origin}",
                            file=table_name, expected=f"rows with stimulus = '{stimulus}'")
        how = f"the rows of {table_name} with stimulus = '{stimulus}'"
    else:
        sub = fixations
        how = f"every row of {table_name} (it has no stimulus column, so it applies to the chosen image)"
    sub, fitted = fit_to_canvas(sub, width, height, table_name, made_by)
    if fitted:
        how += "; " + fitted[0].lower() + fitted[1:].rstrip(".")
    if sub["observer"].nunique() < 2:
        raise TooFewObservers(f"only {sub['observer'].nunique()} observer looked at '{stimulus}'; a private "
                        f"heatmap of the mean map needs at least 2 observers (n is public).{origin}", file=table_name)
    return sub, how


def maps_sensitivity(maps: GazeMaps, cap_m: float, cap_total: float | None) -> HeatmapSensitivity:
    """GazeMaps and caps in, the public sensitivities of the capped mean map out (§6.1: r and n are public)."""
    return heatmap_sensitivity(maps.n_cells, maps.n_observers, cap_m, cap_total)


def gaussian_method(method: GaussianMethod, epsilon: float) -> GaussianMethod:
    """Requested Gaussian calibration and ε in, the calibration used out: the classical one is proven only
    for ε < 1 (docs/PRIVACY_MODEL.md §6.2), so it falls back to the analytic one there."""
    return GaussianMethod.ANALYTIC if method == GaussianMethod.CLASSICAL and epsilon >= 1 else method


def delta_spent(mechanism: Family, delta: float) -> float:
    """Noise family and the chosen δ in, the δ a release spends out: 0 for Laplace noise (pure ε-DP)."""
    return float(delta) if noise_family(mechanism) is Family.GAUSSIAN else 0.0


def delta_for_sizes(rule: str, delta: float) -> float | Callable[[np.ndarray], np.ndarray]:
    """δ rule for other study sizes ("n^-1.5": the paper's levels, "fixed": the current δ) in, δ as a number
    or as a function of n out."""
    if rule not in DELTA_RULES:
        raise ValueError(f"δ rule must be one of {DELTA_RULES}, got {rule!r}")
    return (lambda n: np.asarray(n, dtype=float) ** -1.5) if rule == "n^-1.5" else float(delta)


@dataclass(frozen=True, eq=False)
class CleanMaps:
    """The capped aggregate on the cell grid, its smoothed version and the colour range (from the clean map)."""

    agg: np.ndarray
    smooth: np.ndarray
    vmax: float


def clean_maps(maps: GazeMaps, cap_m: float, cap_total: float | None, sigma_px: float) -> CleanMaps:
    """GazeMaps, caps and kernel σ in px in, CleanMaps (aggregate, smoothed, colour range) out."""
    agg = aggregate(maps, cap_m, cap_total)
    sm = smooth(agg, sigma_px, maps.cell)
    vmax = float(sm.max()) if sm.size and sm.max() > 0 else 1.0
    return CleanMaps(agg, sm, vmax)


@dataclass(frozen=True, eq=False)
class NoisyPreview:
    """A seeded preview: the calibration drawn, the noisy aggregate, its smoothed version and the metrics."""

    calibration: Calibration
    noisy: np.ndarray
    smooth: np.ndarray
    metrics: dict[str, float]


def noisy_preview(clean: CleanMaps, sensitivity: HeatmapSensitivity, setting: HeatmapSetting, *, seed: int,
                  emd_bins: int | None = 32) -> NoisyPreview:
    """Clean maps, sensitivity, the setting ((ε, δ), mechanism, Gaussian method, cell size and kernel) and the
    preview seed in, NoisyPreview out. emd_bins=None leaves the earth mover's distance (a linear program, the
    slowest metric) out of the metrics, for pages that compute it only on request.

    Seeded numpy noise (a PREVIEW, docs/PRIVACY_MODEL.md §11): the same seed gives the same noise field,
    rescaled when ε moves. Never exported or charged: exports go through eyedp_core.heatmaps.release."""
    pm = privatize(clean.agg, setting, sensitivity, np.random.default_rng(seed))
    sm = smooth(pm.map, setting.sigma_px, setting.cell_px)
    met = heatmap_metrics(clean.smooth, sm, emd_bins=emd_bins, cell=setting.cell_px)
    met["hot_spots"] = float(hot_spots_kept(clean.smooth, sm, DEFAULT_Q))
    return NoisyPreview(pm.calibration, pm.map, sm, met)
