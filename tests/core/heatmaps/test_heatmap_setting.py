"""The one heatmap setting (eyedp_core.heatmaps.calibration.HeatmapSetting) and the one grid shape
(eyedp_core.heatmaps.maps.grid_shape) that the gaze maps, the grid calculator, the batch settings and the plan's
heatmap output share."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eyedp_core.batch.settings import HeatmapSettings
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps import maps
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap, heatmap_sensitivity
from eyedp_core.plan.schema import HeatmapOutput


@pytest.mark.parametrize("width,height,cell", [(1280, 800, 32), (1281, 801, 32), (17, 5, 1), (10, 7, 64)])
def test_grid_shape_counts_partial_cells_and_every_holder_agrees(width, height, cell):
    want = (math.ceil(height / cell), math.ceil(width / cell))
    assert maps.grid_shape(width, height, cell) == want
    assert HeatmapSettings(stimulus="s", width=width, height=height, cell_px=cell).grid_shape == want
    assert HeatmapOutput(stimulus="s", width=width, height=height, cell_px=cell).grid_shape == want
    rng = np.random.default_rng(0)
    fix = {"observer": np.repeat([1, 2], 20), "x": rng.uniform(0, width, 40), "y": rng.uniform(0, height, 40)}
    assert maps.gaze_maps(pd.DataFrame(fix), width, height, cell).grid_shape == want


def test_grid_shape_takes_arrays_of_cell_sizes():
    cells = np.arange(1, 40)
    rows, cols = maps.grid_shape(100, 30, cells)
    np.testing.assert_array_equal(rows, [math.ceil(30 / c) for c in cells])
    np.testing.assert_array_equal(cols, [math.ceil(100 / c) for c in cells])


def test_setting_parses_names_refuses_unknown_ones_and_is_a_cache_key():
    s = HeatmapSetting(2.0, 1e-5, "gaussian", "classical", 3.0, 30.0, 16, 12.0)
    assert s.mechanism is Family.GAUSSIAN and s.method is GaussianMethod.CLASSICAL
    assert s == HeatmapSetting(2.0, 1e-5, Family.GAUSSIAN, GaussianMethod.CLASSICAL, 3.0, 30.0, 16, 12.0)
    assert len({s, HeatmapSetting(2.0, 1e-5, Family.GAUSSIAN, GaussianMethod.CLASSICAL, 3.0, 30.0, 16, 12.0)}) == 1
    assert s.with_epsilon(4) == HeatmapSetting(4.0, 1e-5, "gaussian", "classical", 3.0, 30.0, 16, 12.0)
    with pytest.raises(ValueError):
        HeatmapSetting(mechanism="random-selection")
    with pytest.raises(ValueError):
        HeatmapSetting(method="liu")


@pytest.mark.parametrize("mechanism,method", [("gaussian", "analytic"), ("gaussian", "liu-thm-3.4"),
                                              ("laplace", "analytic")])
def test_setting_std_is_the_calibrated_std(mechanism, method):
    n, r = 40, 25 * 40
    s = HeatmapSetting(0.8, 1e-5, mechanism, method, cap_m=2.0, cap_total=20.0)
    sens = heatmap_sensitivity(r, n, 2.0, 20.0)
    want = calibrate_heatmap(sens, 0.8, 1e-5, mechanism, method if mechanism == "gaussian" else Family.LAPLACE)
    assert s.std(n, r) == want.std
    if mechanism == "laplace":  # √2·b with b = Δ1/ε and Δ1 = min(m·r, 2C)/n (§6.1); the method plays no part
        assert s.std(n, r) == pytest.approx(math.sqrt(2) * min(2.0 * r, 2 * 20.0) / n / 0.8, rel=1e-12)
