"""Timing figures of the Heatmaps core (eyedp_core.heatmaps and friends), each against a baseline measured
in the same run. Run alone: python bench/bench_heatmaps.py; or via bench/run.py --only heatmaps.

Baselines:
* floor: draw r = 1280·800 float32 Gaussian numbers with numpy and smooth them once with the transform the
  core uses (maps.smooth: a type-II DCT, a multiplication by the kernel's spectrum, the inverse DCT), the
  spectrum computed beforehand — the least a noisy heatmap at full resolution costs. The earlier floor
  (float64 normals + scipy.ndimage.gaussian_filter) is still printed as a reference row: it is many times
  slower than the real floor and flattered every ratio measured against it;
* sparse build: np.bincount of the same number of (observer, cell) codes, i.e. touching each fixation once.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import fft as sfft
from scipy import ndimage

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import median_time  # noqa: E402
from eyedp_core.heatmaps import cap  # noqa: E402
from eyedp_core.heatmaps import maps as hm  # noqa: E402
from eyedp_core.heatmaps.calibration import HeatmapSetting, heatmap_sensitivity  # noqa: E402
from eyedp_core.heatmaps.curves import CurveSpec, eps_curves  # noqa: E402
from eyedp_core.heatmaps.saliency import heatmap_metrics  # noqa: E402

WIDTH, HEIGHT = 1280, 800
SIGMA_PX = 40.0  # about 1° of visual angle on the sample screen (1280 px over 47.5 cm at 60 cm)


def _fixations(n_obs: int, per_obs: int, width: int, height: int, seed: int = 0) -> pd.DataFrame:
    """Synthetic fixations: a few hot spots plus background, one row per fixation."""
    rng = np.random.default_rng(seed)
    n = n_obs * per_obs
    centres = rng.uniform([0.2 * width, 0.2 * height], [0.8 * width, 0.8 * height], size=(5, 2))
    pick = rng.integers(0, 5, n)
    hot = rng.random(n) < 0.7
    x = np.where(hot, centres[pick, 0] + rng.normal(0, 25, n), rng.uniform(0, width, n))
    y = np.where(hot, centres[pick, 1] + rng.normal(0, 25, n), rng.uniform(0, height, n))
    return pd.DataFrame({"observer": np.repeat(np.arange(n_obs), per_obs), "x": x, "y": y,
                         "duration_ms": rng.gamma(2.0, 110.0, n)})


def _sample_or_synthetic() -> tuple[pd.DataFrame, str]:
    """The bundled sample's busiest stimulus if it exists, otherwise 50 synthetic observers."""
    try:
        from eyedp_core.data import bundled

        fix = bundled.load_sample("fixations")
        name = fix["stimulus"].value_counts().index[0]
        return fix[fix["stimulus"] == name], f"sample '{name}'"
    except Exception:  # sample data not generated yet: fall back, the figure stays comparable
        return _fixations(50, 40, WIDTH, HEIGHT, seed=1), "synthetic, 50 observers"


_time = median_time


def _floor_rows(repeats: int) -> list[dict]:
    """The floor every figure is a ratio to (r float32 normals and the core's DCT smoothing at 1280x800), and the
    gaussian_filter reference; the floor row first."""
    lam = np.multiply.outer(hm.kernel_spectrum(HEIGHT, SIGMA_PX, 4.0),
                            hm.kernel_spectrum(WIDTH, SIGMA_PX, 4.0)).astype(np.float32)
    floor_rng = np.random.default_rng(1)

    def floor():
        z = floor_rng.standard_normal((HEIGHT, WIDTH), dtype=np.float32)
        spec = sfft.dctn(z, type=2, norm="ortho")
        spec *= lam
        sfft.idctn(spec, type=2, norm="ortho", overwrite_x=True)

    def old_floor():
        z = np.random.default_rng(1).standard_normal((HEIGHT, WIDTH))
        ndimage.gaussian_filter(z, SIGMA_PX)

    t_floor = _time(floor, max(3, repeats))
    return [dict(name="floor: r float32 normals + the core's DCT smoothing (1280x800)", seconds=t_floor,
                 baseline_seconds=t_floor),
            dict(name="old floor (reference): float64 normals + gaussian_filter", seconds=_time(old_floor, 2),
                 baseline_seconds=t_floor)]


def _large_study_rows(repeats: int) -> list[dict]:
    """Gaze maps and Algorithm 1's curve for 1000 observers at 1920x1080, against a bare bincount of the cells."""
    out: list[dict] = []
    big = _fixations(1000, 40, 1920, 1080, seed=2)

    def build():
        g = hm.gaze_maps(big, 1920, 1080)
        hm.aggregate(g, 1.0)

    def bincount():
        cells = (big["y"].to_numpy().clip(0, 1079).astype(np.int64) * 1920
                 + big["x"].to_numpy().clip(0, 1919).astype(np.int64))
        np.unique(big["observer"].to_numpy() * (1920 * 1080) + cells)

    t_base = _time(bincount, repeats)
    out.append(dict(name="gaze maps + aggregate, 1000 observers, 1920x1080", seconds=_time(build, repeats),
                     baseline_seconds=t_base))
    g_big = hm.gaze_maps(big, 1920, 1080)
    out.append(dict(name="Algorithm 1 curve (m = 1..g_max), 1000 observers",
                     seconds=_time(lambda: cap.optimal_cap(g_big, 0.01), repeats), baseline_seconds=t_base))
    return out


def run(repeats: int = 5) -> list[dict]:
    """Repeats in, one dict per figure out: name, seconds, baseline_seconds, ratio."""
    rng = np.random.default_rng(0)
    r = WIDTH * HEIGHT
    rows = _floor_rows(repeats)
    t_floor = rows[0]["seconds"]

    fix, label = _sample_or_synthetic()
    gm = hm.gaze_maps(fix, WIDTH, HEIGHT)
    n = gm.n_observers
    sens = heatmap_sensitivity(gm.n_cells, n, 1.0)
    agg = hm.aggregate(gm, 1.0)

    def rerender():
        a = hm.aggregate(gm, 1.0)
        pm = hm.privatize(a, HeatmapSetting(1.0, n ** -1.5, "gaussian"), sens, rng)
        hm.smooth(pm.map, SIGMA_PX)

    rows.append(dict(name=f"eps/m change: aggregate+privatize+smooth ({label})",
                     seconds=_time(rerender, repeats), baseline_seconds=t_floor))

    def priv_smooth():
        hm.smooth(hm.privatize(agg, HeatmapSetting(1.0, n ** -1.5, "gaussian"), sens, rng).map, SIGMA_PX)

    rows.append(dict(name="privatize+smooth at full res 1280x800", seconds=_time(priv_smooth, repeats),
                     baseline_seconds=t_floor))

    def hot_path():  # what the page computes on a slider move at 1 px cells, before drawing (EMD on request)
        noisy = hm.smooth(hm.privatize(agg, HeatmapSetting(1.0, n ** -2.0, "gaussian"), sens, rng).map, SIGMA_PX)
        heatmap_metrics(clean_s, noisy, emd_bins=None)

    clean_s = hm.smooth(agg, SIGMA_PX)
    rows.append(dict(name="page hot path at 1 px: privatize+smooth+CC/NMSE/MSE/KL/SIM", seconds=_time(hot_path, repeats),
                     baseline_seconds=t_floor))

    eps = np.linspace(0.5, 5.0, 10)
    t_curves = _time(lambda: eps_curves(agg, sens, HeatmapSetting(delta=n ** -1.5, sigma_px=SIGMA_PX),
                                        CurveSpec(epsilons=tuple(eps), R=100), rng), 1)
    rows.append(dict(name="eps-curves R=100 x 10 eps x 2 mechanisms, 1280x800", seconds=t_curves,
                     baseline_seconds=t_floor))

    rows += _large_study_rows(repeats)
    for row in rows:
        row["ratio"] = row["seconds"] / row["baseline_seconds"]
    del r
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row['name'][:70]:70s} {row['seconds']:8.3f}s  baseline {row['baseline_seconds']:8.3f}s  "
              f"ratio {row['ratio']:7.2f}")
