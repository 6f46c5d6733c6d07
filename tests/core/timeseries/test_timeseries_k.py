"""Choice of k: reconstruction error, analytic error curves (§2.5, §4), the paper's search, public rules."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eyedp_core.timeseries import k as ts_k
from eyedp_core.timeseries import mechanisms as ts
from eyedp_core.timeseries.k_search import optimal_k
from eyedp_core.timeseries.sensitivity import chunk_differences, l2_public
from eyedp_core.timeseries.setting import MechanismSetting


def _smooth(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.clip(0.5 + np.cumsum(rng.normal(0, 0.03, size=shape), axis=-1), 0.0, 1.0)


@pytest.mark.parametrize("n", [31, 32])
def test_reconstruction_errors_equal_direct_truncation(rng, n):
    x = rng.normal(size=(3, n))
    re = ts_k.reconstruction_errors(x)
    direct = np.stack(
        [((ts.truncate_spectrum(x, k) - x) ** 2).sum(axis=1) for k in range(1, n // 2 + 2)], axis=1
    )
    np.testing.assert_allclose(re, direct, atol=1e-9)
    assert np.all(np.diff(re, axis=1) <= 1e-12) and np.allclose(re[:, -1], 0.0)


def test_dcfpa_reconstruction_errors_equal_direct_cumsum(rng):
    x = rng.normal(size=(4, 20))
    d = chunk_differences(x, 20)
    got = ts_k.dcfpa_reconstruction_errors(d)
    for k in range(1, 12):
        direct = ((np.cumsum(ts.truncate_spectrum(d, k), axis=1) - x) ** 2).sum(axis=1)
        np.testing.assert_allclose(got[:, k - 1], direct, atol=1e-9)


def test_fpa_curve_matches_v_fpa_6_and_closed_form():
    t = np.arange(32)
    x = 2 + np.sin(2 * np.pi * t / 32) + 0.3 * np.cos(2 * np.pi * 5 * t / 32)
    curve = ts_k.expected_error_curve(x, method="fpa", epsilon=1.0, sensitivity=1.0)
    row = curve.set_index("k").loc[4]
    assert row.reconstruction == pytest.approx(1.44, rel=1e-9)
    assert row.total == pytest.approx(105.44, rel=1e-9)
    k = curve.k.to_numpy()
    expected = np.where(k < 17, 2 * k * (4 * k - 3), 2 * k * (4 * k - 6))  # Nyquist retained at k = 17
    np.testing.assert_allclose(curve.perturbation, expected, rtol=1e-12)


def test_v_comp_2_per_sample_variance_under_honest_accounting():
    # T = 1024, N_c = 32 (C = 32), k = 4, public bounds R = 1, ε_user = 1.
    c, k = 32, 4
    lam_chunk = ts.fpa_scale(32, k, l2_public(32, 1.0), 1.0 / c)
    assert ts_k.fpa_noise_variance(32, k, lam_chunk) == pytest.approx(2 * c**2 * k * (4 * k - 3))
    assert 2 * c**2 * k * (4 * k - 3) == 106_496
    lam_whole = ts.fpa_scale(1024, 128, l2_public(1024, 1.0), 1.0)
    assert ts_k.fpa_noise_variance(1024, 128, lam_whole) == pytest.approx(130_304)
    assert ts_k.fpa_noise_variance(
        1024, 4, ts.fpa_scale(1024, 4, l2_public(1024, 1.0), 1.0)
    ) == pytest.approx(104)
    assert ts_k.fpa_noise_variance(32, 4, ts.fpa_scale(32, 4, l2_public(32, 1.0), 1.0)) == pytest.approx(104)


@pytest.mark.parametrize("method,chunk", [("cfpa", 32), ("dcfpa", 32)])
def test_chunked_curves_match_monte_carlo(rng, method, chunk):
    x = _smooth(rng, (3, 100))  # 3 full chunks + a tail of 4
    eps = 400.0
    curve = ts_k.expected_error_curve(x, method=method, epsilon=eps, chunk=chunk, bounds=(0, 1))
    mech = ts.cfpa if method == "cfpa" else ts.dcfpa
    for k in (1, 3):
        reps = np.broadcast_to(x, (3000, 3, 100))
        out = mech(reps, epsilon=eps, k=k, chunk=chunk, bounds=(0, 1), rng=rng)
        total = ((out - x) ** 2).sum(axis=-1).mean(axis=1)  # averaged over the 3 series, per draw
        se = total.std() / math.sqrt(total.size)
        assert abs(total.mean() - curve.total[k - 1]) < 4 * se + 1e-9


def test_optimal_k_search_agrees_with_expected_curve(rng):
    x = _smooth(rng, (6, 128))
    for method, chunk in [("fpa", None), ("cfpa", 32), ("dcfpa", 64)]:
        curve = ts_k.expected_error_curve(x, method=method, epsilon=300.0, chunk=chunk, bounds=(0, 1))
        res = optimal_k(x, MechanismSetting(mech=method, epsilon=300.0, chunk=chunk), bounds=(0, 1), runs=2000, rng=rng)
        n_k = res.ks.size
        np.testing.assert_allclose(res.mean_error, curve.total[:n_k], rtol=0.06)
        assert res.tuned_on_private_data and "private" in res.note
        assert res.per_chunk_error.shape[1] == n_k
        np.testing.assert_allclose(res.per_chunk_error.sum(axis=0), res.mean_error)
        # The chosen k is (near-)optimal for the analytic curve too.
        assert curve.total[res.k - 1] <= curve.total.min() * 1.05


def test_optimal_k_candidates_beyond_tail_are_capped(rng):
    x = _smooth(rng, (2, 70))  # tail chunk of 6 samples has only 4 bins
    res = optimal_k(x, MechanismSetting(mech="cfpa", epsilon=50.0, chunk=32), bounds=(0, 1), runs=50, rng=rng)
    assert res.ks.tolist() == list(range(1, 18)) and res.per_chunk_k.shape == (3,)
    tail = res.per_chunk_error[2]
    assert np.all(tail[3:] == tail[3])  # k ≥ 4 is the same (capped) mechanism on the tail


def test_public_k_is_prior_argmin_and_monotone_in_epsilon():
    n, frac, decay = 32, 0.1, 2.0
    eps = np.array([0.1, 1.0, 10.0, 100.0, 1000.0, 1e4])
    ks = ts_k.public_k(n, epsilon=eps, value_range=1.0, prior=ts_k.KPrior(signal_fraction=frac, decay=decay))
    # Independent recomputation of the rule's cost.
    j = np.arange(1, 17)
    w = np.where(j == 16, 1.0, 2.0) * j**-decay
    for e, kk in zip(eps, ks, strict=True):
        cost = []
        for k in range(1, 18):
            re = n * frac**2 * w[j >= k].sum() / w.sum()
            weights = [1.0] + [4.0] * 15 + [1.0]
            cost.append(re + 2 * k * sum(weights[:k]) * n / e**2)
        assert kk == int(np.argmin(cost)) + 1
    assert np.all(np.diff(ks) >= 0) and ks[0] == 1 and ks[-1] > 1
    assert ts_k.public_k(n, epsilon=10.0) == ks[2]
    assert ts_k.fraction_k(64, 0.1) == 3 and ts_k.fraction_k(8, 0.01) == 1


def _kept_l1_by_fft(n: int, k: int) -> float:
    """Independent: the entrywise L1 norm of x -> (Re, Im of the first k rfft bins of the differences), R = 1."""
    eye = np.eye(n)
    d = np.vstack([eye[:1], np.diff(eye, axis=0)])  # d = D x
    spec = np.fft.rfft(d, axis=0)[:k]  # (k, n): column t = the kept bins of D e_t
    # Im of DC and Nyquist is 0 and adds nothing.
    return float(np.abs(spec.real).sum() + np.abs(spec.imag).sum())


@pytest.mark.parametrize("method", ["cfpa", "dcfpa"])
def test_optimal_k_equals_loop_over_k_with_the_same_draws(recording_rng, method):
    x = _smooth(np.random.default_rng(8), (2, 40))  # chunks 16, 16, tail 8
    rec = recording_rng(4)
    res = optimal_k(x, MechanismSetting(mech=method, epsilon=30.0, chunk=16), bounds=(0, 1), runs=3, rng=rec)
    full_re, full_im, tail_re, tail_im = rec.draws  # one (runs, series, chunks, nb) pair per chunk length
    ref = np.zeros((3, 9))
    for c, (start, n) in enumerate([(0, 16), (16, 16), (32, 8)]):
        z_re, z_im, ci = (full_re, full_im, c) if c < 2 else (tail_re, tail_im, 0)
        for k in range(1, 10):
            kk = min(k, n // 2 + 1)
            for r in range(3):
                for s in range(2):
                    seg = x[s, start : start + n]
                    sig = np.concatenate([[seg[0]], np.diff(seg)]) if method == "dcfpa" else seg
                    d2 = np.sqrt(4 * n - 3) if method == "dcfpa" else np.sqrt(n)
                    lam = np.sqrt(kk * n) * d2 / 30.0
                    if method == "dcfpa":  # public bounds: the smaller of the two L1 bounds (§4)
                        lam = min(lam, _kept_l1_by_fft(n, kk) / 30.0)
                    spec = np.fft.rfft(sig)
                    spec[kk:] = 0
                    spec[:kk] += lam * (z_re[r, s, ci, :kk] + 1j * z_im[r, s, ci, :kk])
                    out = np.fft.irfft(spec, n)
                    out = np.cumsum(out) if method == "dcfpa" else out
                    ref[c, k - 1] += np.sum((out - seg) ** 2) / 3 / 2
    np.testing.assert_allclose(res.per_chunk_error, ref, rtol=1e-9)
