"""aoi.planning.expected_absolute_error: E|error| = b/n with the exponential's 10–90 % band, the same model as the
95 % half-width, and the mean absolute error of simulated Laplace releases agrees."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eyedp_core.aoi import planning
from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.aoi.observers import AoiBounds


def test_expected_error_is_b_over_n_and_matches_the_half_width_model():
    bounds = AoiBounds()
    metrics = (AoiMetric.HIT_RATIO, AoiMetric.DWELL)
    e, lo, hi = planning.expected_absolute_error(AoiMetric.DWELL, epsilon=2.0, n=40, k=16, bounds=bounds,
                                                 metrics=metrics)
    b_over_n = planning.sensitivity_for(AoiMetric.DWELL, 16, bounds) / (2.0 / 2 * 40)  # two queries share ε
    assert e == pytest.approx(b_over_n)
    assert (lo, hi) == pytest.approx((math.log(10 / 9) * b_over_n, math.log(10) * b_over_n))
    # The finder's ε for a 95 % half-width h gives an expected error of h / ln 20.
    eps = planning.epsilon_for_half_width(AoiMetric.DWELL, 0.5, n=40, k=16, bounds=bounds, metrics=metrics)
    e_at, _, _ = planning.expected_absolute_error(AoiMetric.DWELL, epsilon=eps, n=40, k=16, bounds=bounds,
                                                  metrics=metrics)
    assert e_at == pytest.approx(0.5 / math.log(20))


def test_simulated_laplace_errors_have_that_mean_and_band():
    e, lo, hi = planning.expected_absolute_error(AoiMetric.HIT_RATIO, epsilon=1.0, n=25, k=4, bounds=AoiBounds(),
                                                 metrics=(AoiMetric.HIT_RATIO,))
    b = e * 25
    err = np.abs(np.random.default_rng(11).laplace(0.0, b, 200_000)) / 25
    assert abs(err.mean() - e) < 4 * err.std() / math.sqrt(err.size)
    assert np.mean(err <= lo) == pytest.approx(0.1, abs=0.005)
    assert np.mean(err <= hi) == pytest.approx(0.9, abs=0.005)
    with pytest.raises(ValueError):
        planning.expected_absolute_error(AoiMetric.DWELL, epsilon=0.0, n=5, k=2, bounds=AoiBounds(), metrics=())
