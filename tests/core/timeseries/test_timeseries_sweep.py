"""Utility-versus-ε sweep: exactness of the shortcuts against time-domain loops, statistics, modes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eyedp_core import metrics
from eyedp_core.timeseries import k as ts_k
from eyedp_core.timeseries.error_curves import dcfpa_errors, fft_errors
from eyedp_core.timeseries.experiments import SweepResult, SweepSpec, sweep_utility
from eyedp_core.timeseries.sensitivity import chunk_differences, split_chunks


def _series(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.clip(0.5 + np.cumsum(rng.normal(0, 0.02, size=shape), axis=-1), 0.0, 1.0)


def _loop_reference(x, d2, k, eps, z_re, z_im, chunk, difference):
    """Σ_t (x̃ − x)² per (ε, run, rec, feature) by explicit per-chunk reconstruction loops."""
    runs = z_re.shape[0]
    rec, feat, t = x.shape
    out = np.zeros((eps.size, runs, rec, feat))
    for e in range(eps.size):
        for r in range(runs):
            for i in range(rec):
                for f in range(feat):
                    for c, start in enumerate(range(0, t, chunk)):
                        seg = x[i, f, start : start + chunk]
                        n = seg.size
                        sig = np.concatenate([[seg[0]], np.diff(seg)]) if difference else seg
                        kk = int(k[e, f, c])
                        lam = math.sqrt(kk * n) * d2[f, c] / eps[e]
                        spec = np.fft.rfft(sig)
                        spec[kk:] = 0
                        spec[:kk] += lam * (z_re[r, i, f, c, :kk] + 1j * z_im[r, i, f, c, :kk])
                        rec_sig = np.fft.irfft(spec, n)
                        if difference:
                            rec_sig = np.cumsum(rec_sig)
                        out[e, r, i, f] += np.sum((rec_sig - seg) ** 2)
    return out


@pytest.mark.parametrize("difference", [False, True])
def test_shortcut_errors_equal_time_domain_loop(difference):
    rng = np.random.default_rng(3)
    x = _series(rng, (2, 3, 40))  # chunks 16, 16 and a tail of 8
    chunk = 16
    eps = np.array([0.5, 3.0, 40.0])
    d2 = rng.uniform(1, 3, size=(3, 3))
    k = rng.integers(1, 6, size=(3, 3, 3))
    k[:, :, 2] = np.minimum(k[:, :, 2], 5)  # the tail of 8 has 5 bins
    k[1] = 2  # one uniform setting exercises the slicing fast path
    z_re = rng.laplace(size=(4, 2, 3, 3, 6))
    z_im = rng.laplace(size=(4, 2, 3, 3, 6))
    z_im[..., 0] = 0.0
    z_im[..., 2, 4] = 0.0  # Nyquist of the 8-sample tail
    ref = _loop_reference(x, d2, k, eps, z_re, z_im, chunk, difference)
    got = np.zeros_like(ref)
    src = chunk_differences(x, chunk) if difference else x
    for (part, pos), (xpart, _) in zip(split_chunks(src, chunk), split_chunks(x, chunk), strict=True):
        zr, zi = z_re[..., pos, :], z_im[..., pos, :]
        if difference:
            got += dcfpa_errors(xpart, part, d2[:, pos], k[..., pos], eps, zr, zi)
        else:
            got += fft_errors(part, d2[:, pos], k[..., pos], eps, zr, zi)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9)


def test_sweep_matches_analytic_expected_error(rng):
    x = _series(rng, (4, 2, 96))
    eps = [50.0, 500.0]
    spec = SweepSpec(epsilons=tuple(eps), modes=("paper",), runs=400, k_rule="fixed", k=3, nmse_kind="range")
    table = sweep_utility(x, (0.0, 1.0), spec, rng=rng, mechanisms=["FPA", "CFPA-32", "DCFPA-32"]).table
    for label, method, chunk in [("FPA", "fpa", None), ("CFPA-32", "cfpa", 32), ("DCFPA-32", "dcfpa", 32)]:
        for e in eps:
            # Per series expected MSE = (RE(3) + h(3)Δ2²/ε²)/T; NMSE_range with R = 1 is the MSE.
            mse = np.array(
                [
                    [
                        ts_k.expected_error_curve(
                            x[i, f], method=method, epsilon=e, chunk=chunk, bounds=(0, 1), ks=[3]
                        ).total[0]
                        / 96
                        for f in range(2)
                    ]
                    for i in range(4)
                ]
            )
            expected = np.mean(1.0 / mse.mean(axis=0))
            row = table[(table.mechanism == label) & (table.epsilon == e)].iloc[0]
            assert row.utility == pytest.approx(expected, rel=0.05)
            assert row.utility_lo <= row.utility <= row.utility_hi


def test_lpa_sweep_matches_closed_form(rng):
    x = _series(rng, (3, 2, 50))
    spec = SweepSpec(epsilons=(10.0,), modes=("paper",), runs=400)
    table = sweep_utility(x, (0.0, 2.0), spec, rng=rng, mechanisms=["LPA"]).table
    b = 50 * 2.0 / 10.0
    var = x.var(axis=-1)  # NMSE_var normaliser per series
    expected = np.mean(1.0 / np.mean(2 * b**2 / var, axis=0))
    assert table.utility.iloc[0] == pytest.approx(expected, rel=0.03)


def test_participant_mode_shrinks_the_cfpa_advantage(rng):
    x = _series(rng, (6, 4, 256))
    eps = [10.0, 100.0, 1000.0]
    spec = SweepSpec(epsilons=tuple(eps), runs=10, n_recordings=3)
    table = sweep_utility(x, (0.0, 1.0), spec, rng=rng, mechanisms=["FPA", "CFPA-32"]).table
    wide = table.pivot_table(index=["mode", "epsilon"], columns="mechanism", values="utility_db")
    gap = wide["CFPA-32"] - wide["FPA"]
    assert (gap.loc["paper"] > gap.loc["participant"] + 3.0).all()
    part = table[table["mode"] == "participant"]
    np.testing.assert_allclose(part.eps_participant, part.epsilon)
    paper = table[(table["mode"] == "paper") & (table.mechanism == "CFPA-32")]
    np.testing.assert_allclose(paper.eps_participant, paper.epsilon * 4 * 8 * 3)


def test_sweep_table_shape_progress_and_flags(rng):
    x = _series(rng, (3, 2, 70))
    seen: list[float] = []
    spec = SweepSpec(epsilons=(1.0, 10.0), runs=3, k_rule="oracle", sensitivity="data-derived")
    result = sweep_utility(x, (np.zeros(2), np.ones(2)), spec, rng=rng, progress=seen.append, features=["a", "b"])
    table, per_feature = result.table, result.per_feature
    assert len(table) == 8 * 2 * 2 and len(per_feature) == 8 * 2 * 2 * 2
    assert seen == pytest.approx([(i + 1) / 8 for i in range(8)])
    assert table.loc[table.family != "lpa", "tuned_on_private_data"].all()
    assert not table.loc[table.family == "lpa", "tuned_on_private_data"].any()
    assert (table.sensitivity_type == "data-derived").all()
    assert set(table.mechanism) == {
        "LPA",
        "FPA",
        "CFPA-32",
        "CFPA-64",
        "CFPA-128",
        "DCFPA-32",
        "DCFPA-64",
        "DCFPA-128",
    }
    assert np.all(np.isfinite(table[["utility_db", "utility_db_lo", "utility_db_hi"]].to_numpy()))
    assert isinstance(per_feature, pd.DataFrame) and set(per_feature.feature) == {"a", "b"}
    with pytest.raises(ValueError):
        SweepSpec(epsilons=(1.0,), nmse_kind="paper")


def test_sweep_utility_has_one_return_type():
    """sweep_utility always returns a SweepResult (table and per-feature frame), whatever `features` is, with
    the same numbers for the same draws."""
    x = _series(np.random.default_rng(9), (3, 2, 70))
    spec = SweepSpec(epsilons=(1.0, 10.0), runs=3, modes=("paper",))
    plain = sweep_utility(x, (0.0, 1.0), spec, rng=np.random.default_rng(4), mechanisms=["LPA", "CFPA-32"])
    named = sweep_utility(x, (0.0, 1.0), spec, rng=np.random.default_rng(4), mechanisms=["LPA", "CFPA-32"],
                          features=["a", "b"])
    for result in (plain, named):
        assert isinstance(result, SweepResult) and isinstance(result.per_feature, pd.DataFrame)
        assert len(result.table) == 2 * 2 and len(result.per_feature) == 2 * 2 * 2
    assert set(named.per_feature.feature) == {"a", "b"}
    pd.testing.assert_frame_equal(plain.table, named.table)
    with pytest.raises(ValueError):
        SweepSpec(epsilons=(1.0,), k_rule="best")


def test_sweep_normaliser_comes_from_metrics(rng):
    x = _series(rng, (2, 1, 64))
    x[1, 0] = 0.25  # a constant series: NMSE_var falls back to NMSE_range (metrics' rule)
    spec = SweepSpec(epsilons=(5.0,), modes=("paper",), runs=200)
    table = sweep_utility(x, (0.0, 1.0), spec, rng=rng, mechanisms=["LPA"]).table
    b = 64 / 5.0
    inv = metrics.nmse(x, x + 1.0, kind="var", bounds=(0.0, 1.0))
    assert inv[1, 0] == pytest.approx(1.0)
    expected = 1.0 / np.mean(2 * b**2 * inv[:, 0])
    assert table.utility.iloc[0] == pytest.approx(expected, rel=0.05)
