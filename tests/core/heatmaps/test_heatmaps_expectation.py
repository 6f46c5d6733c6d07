"""eyedp_core.heatmaps.expectation: the expected headline metrics are the mean and 10–90 % band of the very preview
draws of seeds EXPECTATION_SEED + i (Gaussian and Laplace), independent of the preview seed, and fine grids use
fewer draws."""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.data import bundled
from eyedp_core.dp.registry import Family
from eyedp_core.heatmaps import expectation, maps, preview
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.heatmaps.expectation import HeadlineMetric


@pytest.fixture(scope="module")
def study():
    name = bundled.stimulus_names()[0]
    h, w = bundled.stimulus_image(name).shape[:2]
    sub, _ = preview.fixations_for_stimulus(bundled.load_sample("fixations"), "s", name, w, h)
    gm = maps.gaze_maps(sub, w, h, 32, "count")
    return gm, preview.clean_maps(gm, 1.0, 30.0, 40.0), preview.maps_sensitivity(gm, 1.0, 30.0)


@pytest.mark.parametrize("mechanism, eps", [(Family.GAUSSIAN, 3.0), (Family.LAPLACE, 1.0)])
def test_expectation_is_the_mean_of_seeded_preview_draws(study, mechanism, eps):
    gm, clean, sens = study
    R = 12
    fields = expectation.smoothed_unit_fields(gm.grid_shape, 40.0, gm.cell, mechanism, R=R)
    setting = HeatmapSetting(epsilon=eps, delta=1e-5, mechanism=mechanism, method="analytic", sigma_px=40.0,
                             cell_px=gm.cell)
    draws = [preview.noisy_preview(clean, sens, setting, seed=expectation.EXPECTATION_SEED + i, emd_bins=None)
             for i in range(R)]
    got = expectation.expected_metrics(clean.smooth, fields, draws[0].calibration.scale)
    for m in HeadlineMetric:
        v = np.array([d.metrics[m.value] for d in draws])
        assert got[m].mean == pytest.approx(v.mean(), rel=1e-4, abs=1e-6), m
        assert (got[m].low, got[m].high) == pytest.approx(tuple(np.quantile(v, (0.1, 0.9))), rel=1e-4, abs=1e-6), m
        assert got[m].draws == R


def test_more_noise_lowers_the_expected_cc_and_the_band_holds_the_mean(study):
    gm, clean, _ = study
    fields = expectation.smoothed_unit_fields(gm.grid_shape, 40.0, gm.cell, Family.GAUSSIAN)
    low, high = (expectation.expected_metrics(clean.smooth, fields, s)[HeadlineMetric.CC] for s in (0.02, 0.5))
    assert high.mean < low.mean
    for e in (low, high):
        assert e.low <= e.mean <= e.high


def test_fine_grids_use_fewer_draws():
    assert expectation.draws_for_cells(1_000) == expectation.EXPECTATION_DRAWS
    assert expectation.draws_for_cells(400_000) == 15
    assert expectation.draws_for_cells(1_024_000) == 8
