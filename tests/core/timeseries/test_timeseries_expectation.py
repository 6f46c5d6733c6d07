"""eyedp_core.timeseries.expectation: the NMSE model read off three ε is the sweep's exact error at any other ε (every
mechanism, DCFPA's cross term included), and the expected median utility is the preview's over seeded runs."""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import experiments
from eyedp_core.timeseries.expectation import EXPECTATION_SEED, expected_median_db, nmse_model
from eyedp_core.timeseries.preview import PreviewSetting, run_all


def _series(seed: int = 3) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    t = np.arange(96)
    x = np.stack([np.stack([np.sin(t / (4 + f)) + 0.3 * rng.standard_normal(t.size) for f in range(5)])
                  for _ in range(12)])
    return x, (np.full(5, -2.0), np.full(5, 2.0))


@pytest.mark.parametrize("mech, chunk", [(Mech.LPA, None), (Mech.FPA, None), (Mech.CFPA, 16), (Mech.DCFPA, 16)])
def test_model_equals_the_sweep_error_at_any_epsilon(mech, chunk):
    x, bounds = _series()
    model = nmse_model(x, bounds, PreviewSetting(mech=mech, chunk=chunk, epsilon=1.0, k=3, nmse_kind="var"), runs=6)
    spec = experiments.SweepSpec(epsilons=(1.0,), modes=("paper",), runs=6, k_rule="fixed", k=3, nmse_kind="var")
    data = experiments.prepare(x, bounds, "var")
    for eps in (0.05, 0.7, 30.0):
        err, _ = experiments.mechanism_errors(data, mech, chunk, np.array([eps]), spec,
                                              np.random.default_rng(EXPECTATION_SEED))
        want = err[0] * data.inv_norm[None] / data.length
        assert model.nmse(eps) == pytest.approx(want, rel=1e-7, abs=1e-12)


def test_expected_median_db_agrees_with_preview_runs():
    x, bounds = _series()
    eps = 0.5
    e = expected_median_db(nmse_model(x, bounds, PreviewSetting(mech=Mech.CFPA, chunk=16, epsilon=1.0, k=3, nmse_kind="var")), eps)
    setting = PreviewSetting(mech=Mech.CFPA, chunk=16, epsilon=eps, k=3, nmse_kind="var")
    meds = np.array([np.nanmedian(-10 * np.log10(np.nanmean(
        run_all(x, setting, bounds=bounds, rng=np.random.default_rng(s)).nmse_all, axis=0))) for s in range(40)])
    # Two independent sets of runs of one quantity: their means agree within 5 standard errors of the difference.
    se = np.sqrt(meds.var(ddof=1) / meds.size + ((e.high - e.low) / 2.56) ** 2 / e.runs)
    assert abs(e.mean - meds.mean()) < 5 * se
    assert e.low <= e.mean <= e.high
