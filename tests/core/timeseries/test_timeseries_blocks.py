"""Blocked computation equals the one-block computation (same seed, same numbers), for every mechanism and sweep.

The mechanisms and sweeps walk over rows/recordings in blocks of about `blocks.BLOCK_BYTES`; noise is drawn in
fixed granules, so shrinking the block to a few rows must not change a single draw. Each test runs the same
seeded call with a tiny block budget (many blocks) and with a budget larger than the input (one block).
"""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import blocks
from eyedp_core.timeseries import mechanisms as ts
from eyedp_core.timeseries.experiments import SweepSpec, mechanism_errors, prepare, sweep_utility
from eyedp_core.timeseries.preview import PreviewSetting, run_preview

BOUNDS = (np.array([0.0, -1.0, 0.0]), np.array([1.0, 1.0, 5.0]))


@pytest.fixture
def series() -> np.ndarray:
    """(40 recordings, 3 features, T = 100), some values outside the bounds so clamping matters."""
    g = np.random.default_rng(3)
    x = np.cumsum(g.normal(0, 0.1, size=(40, 3, 100)), axis=-1) + np.array([0.5, 0.0, 2.5])[None, :, None]
    x[0, 0, 5] = 9.0  # clamped
    return x


def _both(monkeypatch, fn):
    """Run fn() with one block holding everything, then with blocks of a few rows; return both results."""
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 2**40)
    one = fn()
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1)  # the smallest block: one granule
    many = fn()
    return one, many


def _small_granules(monkeypatch):
    """Granules of a few rows, so that the small test input really spans many blocks."""
    monkeypatch.setattr(blocks, "NOISE_VALUES", 256)


@pytest.mark.parametrize("call", [
    lambda x, r: ts.lpa(x, epsilon=2.0, bounds=BOUNDS, rng=r),
    lambda x, r: ts.fpa(x, epsilon=2.0, k=5, bounds=BOUNDS, rng=r),
    lambda x, r: ts.cfpa(x, epsilon=2.0, k=4, chunk=32, bounds=BOUNDS, rng=r),  # 3 chunks + a tail of 4
    lambda x, r: ts.dcfpa(x, epsilon=2.0, k=3, chunk=32, bounds=BOUNDS, increment_bound=0.2, rng=r),
    lambda x, r: ts.cfpa(x, epsilon=np.array([1.0, 2.0, 3.0, 4.0]), k=np.array([1, 2, 3, 2]), chunk=32,
                         sensitivity=1.5, rng=r),  # per-chunk ε and k, no clamping
], ids=["lpa", "fpa", "cfpa", "dcfpa", "cfpa-per-chunk"])
def test_mechanism_blocked_equals_one_block(monkeypatch, series, call):
    _small_granules(monkeypatch)
    one, many = _both(monkeypatch, lambda: call(series, np.random.default_rng(11)))
    np.testing.assert_array_equal(one, many)
    assert np.abs(one - np.clip(series, BOUNDS[0][:, None], BOUNDS[1][:, None])).max() > 0  # noise was added


def test_blocks_really_split_the_rows(monkeypatch):
    _small_granules(monkeypatch)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1)
    assert len(list(blocks.row_blocks(120, 800, blocks.noise_rows(100)))) == 60  # 2 rows per granule
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 2**40)
    assert len(list(blocks.row_blocks(120, 800, blocks.noise_rows(100)))) == 1


def test_mechanism_rejects_nan_in_any_block(monkeypatch, series):
    _small_granules(monkeypatch)
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1)
    bad = series.copy()
    bad[-1, -1, -1] = np.nan  # in the last block only
    with pytest.raises(ValueError, match="NaN or inf"):
        ts.cfpa(bad, epsilon=1.0, k=2, chunk=32, bounds=BOUNDS, rng=np.random.default_rng(0))
    bad[-1, -1, -1] = np.inf  # inf would be clipped silently if the check came after the clamp
    with pytest.raises(ValueError, match="NaN or inf"):
        ts.lpa(bad, epsilon=1.0, bounds=BOUNDS, rng=np.random.default_rng(0))


def test_preview_blocked_equals_one_block(monkeypatch, series):
    _small_granules(monkeypatch)

    def run():
        setting = PreviewSetting(mech=Mech.DCFPA, chunk=32, epsilon=5.0, k=3, nmse_kind="var")
        p = run_preview(series, setting, bounds=BOUNDS, rng=np.random.default_rng(2), feature=1)
        return p.noisy, p.nmse_feature, p.nmse_paper_feature

    one, many = _both(monkeypatch, run)
    for a, b in zip(one, many):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("label", ["LPA", "FPA", "CFPA-32", "DCFPA-32"])
@pytest.mark.parametrize("k_rule", ["public", "oracle"])
def test_sweep_errors_blocked_equal_one_block(monkeypatch, series, label, k_rule):
    from eyedp_core.timeseries.labels import parse_label

    mech, size = parse_label(label)
    spec = SweepSpec(epsilons=(0.5, 50.0, 5000.0), runs=4, k_rule=k_rule, n_recordings=2)
    data = prepare(series, BOUNDS, "var")
    eps = np.array([0.5, 50.0, 5000.0])

    def run():
        return mechanism_errors(data, mech, size, eps, spec, np.random.default_rng(5))

    (err_one, k_one), (err_many, k_many) = _both(monkeypatch, run)
    np.testing.assert_array_equal(err_one, err_many)
    np.testing.assert_array_equal(k_one, k_many)


def test_sweep_table_blocked_equals_one_block(monkeypatch, series):
    spec = SweepSpec(epsilons=(0.1, 10.0, 1000.0), runs=5, n_recordings=2)

    def run():
        return sweep_utility(series, BOUNDS, spec, rng=np.random.default_rng(9)).table

    one, many = _both(monkeypatch, run)
    num = one.select_dtypes("number").columns
    # Sums over recordings are added block by block: equal up to the order of float additions.
    np.testing.assert_allclose(one[num].to_numpy(float), many[num].to_numpy(float), rtol=1e-10, equal_nan=True)


def test_sweep_sums_reproduce_the_full_error_average(series):
    """The reduced sweep (sums over recordings) gives the paper's average of the full (E, R, Rec, F) errors."""
    spec = SweepSpec(epsilons=(1.0, 100.0), runs=6, modes=("paper",))
    table = sweep_utility(series, BOUNDS, spec, rng=np.random.default_rng(4), mechanisms=["CFPA-32"]).table
    data = prepare(series, BOUNDS, "var")
    from eyedp_core.timeseries.accounting import epsilon_plan

    eps = np.array([plan.per_invocation for plan in
                    (epsilon_plan("paper", e, Mech.CFPA, 32, 100, 3, 1) for e in (1.0, 100.0))])
    err, _ = mechanism_errors(data, Mech.CFPA, 32, eps, spec, np.random.default_rng(4))
    mse = err.mean(axis=1) / data.length  # (E, Rec, F): averaged over runs
    nmse_feat = np.nanmean(mse * data.inv_norm, axis=1)  # (E, F)
    expected = np.mean(1.0 / nmse_feat, axis=1)
    np.testing.assert_allclose(table["utility"].to_numpy(), expected, rtol=1e-10)
