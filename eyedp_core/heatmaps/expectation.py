"""What a heatmap setting gives on average, not in one lucky draw: the preview's headline metrics (CC, hot spots
kept, NMSE, MSE, KL, SIM) as a mean with a 10–90 % band over R seeded preview draws (docs/PRIVACY_MODEL.md §6.7).

Draw i is exactly the preview the page would show with seed `EXPECTATION_SEED + i`: the same noise sampler, the
same smoothing, the same metrics against the same clean map. So the expectation does not move when the user
changes the preview seed, and it is the same number on every machine. Smoothing is linear, so the R smoothed
unit-noise fields are drawn once per (grid, kernel, noise family) and every noise scale reuses them.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from eyedp_core.dp.noise import sample_noise
from eyedp_core.dp.registry import Family
from eyedp_core.heatmaps.maps import smooth
from eyedp_core.heatmaps.saliency import heatmap_metrics
from eyedp_core.heatmaps.targets import BAND, DEFAULT_Q, hot_spots_kept

__all__ = ["EXPECTATION_DRAWS", "EXPECTATION_SEED", "Expected", "HeadlineMetric", "draws_for_cells",
           "expected_metrics", "smoothed_unit_fields"]

EXPECTATION_DRAWS = 30  # small enough to recompute on a slider move, large enough for a stable 10–90 % band
EXPECTATION_SEED = 1_000_003  # far from the seeds a user types (0, 1, 42 …), so no draw is the shown preview
_CELL_DRAWS = 6_000_000  # cells × draws held and scored per setting: fine grids get fewer draws (at least 8)


class HeadlineMetric(enum.Enum):
    """A headline number of the heatmap preview (the key it has in the preview's metrics)."""

    CC = "cc"
    HOT_SPOTS = "hot_spots"
    NMSE = "nmse"
    MSE = "mse"
    KL = "kl"
    SIM = "sim"


@dataclass(frozen=True)
class Expected:
    """A metric's mean over R seeded draws with the 10 % and 90 % quantiles of the draws."""

    mean: float
    low: float
    high: float
    draws: int


def draws_for_cells(cells: int) -> int:
    """Cells r in, the draws R the expectation uses: EXPECTATION_DRAWS, fewer on grids so fine that R·r fields
    would slow a slider move (8 at least; the band is then coarser, and the page states R)."""
    return int(min(EXPECTATION_DRAWS, max(8, _CELL_DRAWS // max(1, int(cells)))))


def smoothed_unit_fields(shape: tuple[int, int], sigma_px: float, cell: int, mechanism: Family, *,
                         R: int = EXPECTATION_DRAWS, seed: int = EXPECTATION_SEED) -> np.ndarray:
    """Grid shape, kernel σ in px, cell size, noise family, draws R and first seed in, (R, rows, cols) float32 out:
    draw i is the unit-scale noise (Gaussian σ = 1, Laplace b = 1) of seed `seed + i`, smoothed like a preview."""
    fam = Family(mechanism)
    out = np.empty((R,) + tuple(shape), dtype=np.float32)
    for i in range(R):  # one generator per draw, as the preview seeds its own
        z = sample_noise(np.random.default_rng(seed + i), fam, 1.0, tuple(shape), np.float32)
        out[i] = smooth(z, sigma_px, cell)
    return out


def expected_metrics(clean_smooth: np.ndarray, unit_fields: np.ndarray, scale: float, *,
                     q: float = DEFAULT_Q) -> dict[HeadlineMetric, Expected]:
    """Smoothed clean map, smoothed unit-noise fields (R, …) from `smoothed_unit_fields`, the calibration's noise
    scale (σ or b) and the hot-spot share q in, each headline metric's mean and 10–90 % band over the R draws out.

    Each draw's smoothed noisy map is clean + scale·(smoothed unit noise), the preview's map for that seed (noise
    added before smoothing; smoothing is linear)."""
    clean = np.asarray(clean_smooth, dtype=float)
    per: dict[HeadlineMetric, list[float]] = {m: [] for m in HeadlineMetric}
    for field in unit_fields:
        noisy = clean + float(scale) * field.astype(float)
        met = heatmap_metrics(clean, noisy, emd_bins=None)
        met["hot_spots"] = float(hot_spots_kept(clean, noisy, q))
        for m in HeadlineMetric:
            per[m].append(met[m.value])
    out = {}
    for m, vals in per.items():
        v = np.asarray(vals, dtype=float)
        if np.isfinite(v).any():
            lo, hi = np.nanquantile(v, BAND)
            out[m] = Expected(float(np.nanmean(v)), float(lo), float(hi), int(v.size))
        else:
            out[m] = Expected(float("nan"), float("nan"), float("nan"), int(v.size))
    return out
