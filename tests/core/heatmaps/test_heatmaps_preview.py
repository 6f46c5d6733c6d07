"""The Heatmaps page's computations in the core (eyedp_core.heatmaps.preview and .release): stimulus rows,
clean and noisy maps, the export and its ledger entry (docs/PRIVACY_MODEL.md §6, §11)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.dp.noise import from_calibration
from eyedp_core.heatmaps import maps as hm
from eyedp_core.heatmaps import preview, release
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap
from eyedp_core.heatmaps.saliency import heatmap_metrics
from eyedp_core.heatmaps.targets import DEFAULT_Q, hot_spots_kept
from eyedp_core.io.errors import DataError


def _table(rng: np.random.Generator, n_obs: int = 6, per: int = 30, stimulus: bool = True) -> pd.DataFrame:
    n = n_obs * per
    df = pd.DataFrame({"observer": np.repeat([f"o{i}" for i in range(n_obs)], per),
                       "x": rng.uniform(0, 80, n), "y": rng.uniform(0, 60, n)})
    if stimulus:
        df["stimulus"] = np.where(np.arange(n) % 2 == 0, "comic", "portrait.png")
    return df


def test_fixations_for_stimulus_filters_and_explains(rng):
    df = _table(rng)
    sub, how = preview.fixations_for_stimulus(df, "fix.csv", "comic.png", 80, 60)
    assert set(sub["stimulus"]) == {"comic"} and "stimulus = 'comic.png'" in how  # file stem matches
    sub, _ = preview.fixations_for_stimulus(df, "fix.csv", "portrait.png", 80, 60)
    assert set(sub["stimulus"]) == {"portrait.png"}
    whole, how = preview.fixations_for_stimulus(_table(rng, stimulus=False), "mine.csv", "x.png", 80, 60)
    assert len(whole) == 180 and "no stimulus column" in how
    with pytest.raises(DataError, match="no fixations for the stimulus 'webpage'"):
        preview.fixations_for_stimulus(df, "fix.csv", "webpage", 80, 60)
    with pytest.raises(DataError, match="outside the stimulus"):
        preview.fixations_for_stimulus(df, "fix.csv", "comic", 40, 60)
    # One observer is a property of the data, not a mistake in it: its own type, which the page shows as information.
    with pytest.raises(preview.TooFewObservers, match="at least 2 observers"):
        preview.fixations_for_stimulus(_table(rng, n_obs=1), "fix.csv", "comic", 80, 60)
    with pytest.raises(DataError, match="outside the stimulus") as bad:
        preview.fixations_for_stimulus(df, "fix.csv", "comic", 40, 60)
    assert not isinstance(bad.value, preview.TooFewObservers)
    with pytest.raises(DataError, match="holds no fixations"):
        preview.fixations_for_stimulus(None, "fix.csv", "comic", 80, 60)


def test_small_rules():
    assert preview.gaussian_method("classical", 0.5) == "classical"
    assert preview.gaussian_method("classical", 1.0) == "analytic"  # classical is proven only for ε < 1
    assert preview.gaussian_method("analytic", 5.0) == "analytic"
    assert preview.delta_spent("laplace", 1e-5) == 0.0 and preview.delta_spent("gaussian", 1e-5) == 1e-5
    assert preview.delta_for_sizes("fixed", 1e-5) == 1e-5
    assert np.allclose(preview.delta_for_sizes("n^-1.5", 1e-5)(np.array([100, 10_000])), [1e-3, 1e-6])
    with pytest.raises(ValueError):
        preview.delta_for_sizes("1/n", 1e-5)
    with pytest.raises(ValueError):
        preview.delta_spent("random-selection", 1e-5)
    eps, delta = release.stimuli_total(1.0, 1e-5, 3, 0.1)
    assert eps == pytest.approx(3.1) and delta == pytest.approx(3e-5)


def test_clean_maps_and_preview_show_the_noise_they_draw(rng):
    gm = hm.gaze_maps(_table(rng, stimulus=False), 80, 60, cell=4)
    clean = preview.clean_maps(gm, 2.0, 20.0, 6.0)
    np.testing.assert_allclose(clean.agg, hm.aggregate(gm, 2.0, 20.0))
    np.testing.assert_allclose(clean.smooth, hm.smooth(clean.agg, 6.0, 4))
    assert clean.vmax == pytest.approx(clean.smooth.max())
    sens = preview.maps_sensitivity(gm, 2.0, 20.0)
    assert (sens.r, sens.n) == (gm.n_cells, gm.n_observers)
    kw = dict(setting=HeatmapSetting(epsilon=1.0, delta=1e-4, mechanism="laplace", method="analytic", sigma_px=6.0,
                                     cell_px=4), seed=11)
    prev = preview.noisy_preview(clean, sens, **kw)
    assert prev.calibration == calibrate_heatmap(sens, 1.0, 1e-4, "laplace")
    # The shown calibration is the one drawn: the same generator through its mechanism object gives the noise.
    noise = from_calibration(prev.calibration).sample(np.random.default_rng(11), clean.agg.shape, np.float32)
    np.testing.assert_allclose(prev.noisy, clean.agg.astype(np.float32) + noise, rtol=1e-6)
    noisy_smooth = hm.smooth(prev.noisy, 6.0, 4)
    assert prev.metrics == {**heatmap_metrics(clean.smooth, noisy_smooth, cell=4),
                            "hot_spots": hot_spots_kept(clean.smooth, noisy_smooth, DEFAULT_Q)}
    again = preview.noisy_preview(clean, sens, **kw)
    np.testing.assert_array_equal(prev.noisy, again.noisy)  # a preview is seeded on purpose


def _export(rng, mechanism: str, tuned: bool = False) -> release.HeatmapExport:
    gm = hm.gaze_maps(_table(rng, stimulus=False), 80, 60, cell=4)
    sens = preview.maps_sensitivity(gm, 1.0, None)
    source = release.MapsSource.of(gm, fixations="f", stimulus="s", stimulus_name="comic")
    return release.HeatmapExport(aggregate=hm.aggregate(gm, 1.0), sensitivity=sens,
                                 calibration=calibrate_heatmap(sens, 1.0, 1e-4, mechanism), source=source, cell_px=4,
                                 weight="count", cap_m=1.0, cap_total=None, sigma_px=6.0, tuned_on_private_data=tuned)


@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_release_heatmap_entry_and_metadata(rng, mechanism):
    export = _export(rng, mechanism, tuned=mechanism == "laplace")
    cal = export.calibration
    scale = release.export_scale(export)
    if mechanism == "laplace":
        assert scale == cal.scale
    else:
        assert cal.scale < scale < 1.2 * cal.scale  # OpenDP's zCDP accounting needs a little more σ
    rel = release.release_heatmap(export, scale)
    entry = rel.ledger_entry
    assert rel.values.shape == export.aggregate.shape and rel.scale == scale
    assert entry.view == "Heatmaps" and entry.unit == "observer" and entry.sensitivity_type == "public"
    assert entry.participants == export.source.observers and len(entry.participants) == 6
    assert entry.epsilon == rel.epsilon_charged == pytest.approx(1.0, rel=1e-6) and entry.epsilon >= 1.0
    assert entry.delta == (1e-4 if mechanism == "gaussian" else 0.0)
    assert entry.mechanism.startswith(mechanism) and entry.tuned_on_private_data is (mechanism == "laplace")
    assert "'comic'" in rel.label and "cells of 4 px" in rel.label and "m = 1" in rel.label
    meta = rel.metadata
    assert meta["seeded"] is False and meta["view"] == "Heatmaps" and meta["n_observers"] == 6
    assert meta["epsilon_charged"] == entry.epsilon and meta["calibration"] == cal.method
    noise = (rel.values - export.aggregate).ravel()
    law = stats.norm(scale=scale) if mechanism == "gaussian" else stats.laplace(scale=scale)
    assert stats.kstest(noise, law.cdf).pvalue > 1e-6
    with pytest.raises(ValueError, match="below the calibrated"):
        release.release_heatmap(export, 0.5 * cal.scale)


def test_release_table_and_colour_range():
    values = np.arange(6, dtype=float).reshape(2, 3)
    table = release.release_table(values, 10)
    assert list(table.columns) == ["row", "col", "x0_px", "y0_px", "value"]
    assert table.iloc[4].tolist() == [1, 1, 10, 10, 4.0]
    assert release.colour_range(values) == pytest.approx(np.quantile(values, 0.999))
    assert release.colour_range(-np.ones((3, 3))) == 1.0  # nothing positive: a neutral range
    assert math.isfinite(release.colour_range(np.zeros((2, 2))))
