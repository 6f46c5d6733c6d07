"""LPA, FPA, CFPA, DCFPA mechanisms against VECTORS.md (V-LPA, V-FPA, V-DCFPA) and loop references."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from eyedp_core import metrics
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import mechanisms as ts
from eyedp_core.timeseries.calibration import chunk_calibrations, fpa_calibration, lpa_calibration
from eyedp_core.timeseries.setting import MechanismSetting


def loop_fpa(x: np.ndarray, k: int, lam: float, z_re: np.ndarray, z_im: np.ndarray) -> np.ndarray:
    """Straightforward single-series FPA (backward norm) with given standard noise."""
    n = x.size
    spec = np.fft.rfft(x)
    out = np.zeros(n // 2 + 1, dtype=complex)
    for j in range(k):
        re = spec[j].real + lam * z_re[j]
        real_only = j == 0 or (n % 2 == 0 and j == n // 2)
        im = 0.0 if real_only else spec[j].imag + lam * z_im[j]
        out[j] = complex(re, im)
    return np.fft.irfft(out, n=n)


# ------------------------------------------------------------------------------------------------
# LPA


def test_v_lpa_1_scale_and_noise_std(rng):
    cal = lpa_calibration(100, 0.5, value_range=2.0)
    assert cal.scale == pytest.approx(100 * 2 / 0.5)
    assert cal.std == pytest.approx(565.685, rel=1e-6)
    # Aggregate mean over N = 20 (replace-one) divides Δ1 by N.
    assert lpa_calibration(100, 0.5, sensitivity=100 * 2 / 20).scale == pytest.approx(20.0)
    x = np.ones((200, 100))
    noise = ts.lpa(x, epsilon=0.5, bounds=(0, 2), rng=rng) - x
    # 20 000 Laplace samples: sd of the sample std is about std·sqrt(5/4/20000) = 0.8%.
    assert noise.std() == pytest.approx(565.685, rel=0.04)


def test_v_lpa_2_monte_carlo_mse_and_nmse(rng):
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.6, 0.2, 0.5])
    runs = np.broadcast_to(x, (2000, 8))
    noisy = ts.lpa(runs, epsilon=8.0, bounds=(0.0, 1.0), rng=rng)
    mse = ((noisy - x) ** 2).mean(axis=1)
    assert 1.85 <= mse.mean() <= 2.15
    nmse_var = metrics.nmse(runs, noisy, kind="var")
    assert 27.4 <= nmse_var.mean() <= 31.9
    assert 2.0 / np.var(x) == pytest.approx(29.6468, rel=1e-5)


def test_lpa_per_feature_bounds_broadcast(rng):
    x = np.zeros((5, 3, 400))
    lo, hi = np.array([0.0, 0.0, 0.0]), np.array([1.0, 10.0, 100.0])
    noise = ts.lpa(x, epsilon=400.0, bounds=(lo, hi), rng=rng)
    # b_f = T·R_f/ε = R_f: the empirical std per feature scales with R_f.
    std = noise.std(axis=(0, 2)) / np.sqrt(2.0)
    np.testing.assert_allclose(std, hi - lo, rtol=0.08)


# ------------------------------------------------------------------------------------------------
# FPA


@pytest.mark.parametrize(
    "n,k,d2,eps,back,ortho,forward,var",
    [
        (32, 4, 1, 1, 11.3137085, 2.0, 0.35355339, 3.25),
        (64, 8, 3, 1, 67.8822510, 8.48528137, 1.06066017, 65.25),
        (128, 10, 0.5, 0.1, 178.885438, 15.8113883, 1.39754249, 144.53125),
    ],
)
def test_v_fpa_1_scale_per_norm(n, k, d2, eps, back, ortho, forward, var):
    assert ts.fpa_scale(n, k, d2, eps, "backward") == pytest.approx(back, rel=1e-6)
    assert ts.fpa_scale(n, k, d2, eps, "ortho") == pytest.approx(ortho, rel=1e-6)
    assert ts.fpa_scale(n, k, d2, eps, "forward") == pytest.approx(forward, rel=1e-6)
    # Independent recomputation of the formula λ = c·√(kn)·Δ2/ε.
    assert back == pytest.approx(math.sqrt(k * n) * d2 / eps, rel=1e-6)
    assert float(fpa_calibration(n, MechanismSetting(mech=Mech.FPA, k=k, epsilon=eps), sensitivity=d2).note.split()[-1]) == pytest.approx(var, rel=1e-3)
    assert 2 * back**2 * (4 * k - 3) / n**2 == pytest.approx(var, rel=1e-6)


def _param_matrix(n: int, k: int) -> np.ndarray:
    """Rows: the retained real parameters (F_0, Re F_1, Im F_1, …) of rfft as linear maps of x."""
    rows = []
    eye_spec = np.fft.rfft(np.eye(n), axis=1)  # column j of the DFT applied to unit vectors
    for j in range(k):
        rows.append(eye_spec[:, j].real)
        if not (j == 0 or (n % 2 == 0 and j == n // 2)):
            rows.append(eye_spec[:, j].imag)
    return np.array(rows)


@pytest.mark.parametrize(
    "n,k,expected", [(8, 2, 4.0), (8, 5, 6.324555), (16, 3, 6.928203), (32, 4, 11.313708), (12, 7, 9.165151)]
)
def test_v_fpa_2_sqrt_kn_is_exact_by_brute_force(n, k, expected):
    a = _param_matrix(n, k)
    best = max(np.linalg.norm(a.T @ np.array(s)) for s in itertools.product((-1.0, 1.0), repeat=a.shape[0]))
    assert best == pytest.approx(expected, rel=1e-6)
    assert ts.fpa_scale(n, k, 1.0, 1.0) == pytest.approx(best, rel=1e-9)


def test_fpa_noises_exactly_the_retained_parameters(recording_rng):
    n, k = 12, 7  # includes the Nyquist bin
    x = np.linspace(0, 1, n)
    rec = recording_rng(5)
    out = ts.fpa(x, epsilon=1.0, k=k, sensitivity=1.0, rng=rec)
    noise = np.fft.rfft(out) - np.fft.rfft(ts.truncate_spectrum(x, k))
    lam = math.sqrt(k * n)
    # The draws are (rows, chunks, k): one row, one chunk here.
    np.testing.assert_allclose(noise.real, lam * rec.draws[0].ravel(), atol=1e-9)
    np.testing.assert_allclose(noise.imag[1:6], lam * rec.draws[1].ravel()[1:6], atol=1e-9)
    assert noise.imag[0] == 0.0 and abs(noise.imag[6]) < 1e-9


def test_v_fpa_3_tight_pair_privacy_loss_equals_epsilon():
    n, k, eps = 32, 4, 0.7
    dspec = np.zeros(n // 2 + 1, dtype=complex)
    dspec[0] = 1.0
    dspec[1:4] = 0.5 + 0.5j
    dx = np.fft.irfft(dspec, n)
    assert np.linalg.norm(dx) == pytest.approx(math.sqrt(k / n), rel=1e-9)
    theta = _param_matrix(n, k) @ dx
    assert np.abs(theta).sum() == pytest.approx(k, rel=1e-9)
    lam = ts.fpa_scale(n, k, np.linalg.norm(dx), eps)
    # Laplace log-density ratio at the worst output: Σ|Δθ_i|/λ.
    assert np.abs(theta).sum() / lam == pytest.approx(eps, rel=1e-9)


def test_v_fpa_4_reconstruction_is_not_halved():
    t = np.arange(8)
    x = np.cos(2 * np.pi * t / 8)
    np.testing.assert_allclose(ts.truncate_spectrum(x, 2), x, atol=1e-12)
    full = np.fft.fft(x)
    naive = np.fft.ifft(np.concatenate([full[:2], np.zeros(6)])).real
    np.testing.assert_allclose(naive, x / 2, atol=1e-12)  # the pitfall the product avoids


@pytest.mark.parametrize("n", [31, 32])
def test_fpa_all_bins_without_noise_returns_input(rng, n):
    x = rng.normal(size=(3, n))
    for norm in ts.NORMS:
        out = ts.fpa(x, epsilon=1.0, k=n // 2 + 1, sensitivity=0.0, rng=rng, norm=norm)
        np.testing.assert_allclose(out, x, atol=1e-12)


@pytest.mark.parametrize("norm", ["backward", "ortho"])
def test_v_fpa_5_per_sample_variance_monte_carlo(rng, norm):
    x = np.broadcast_to(np.sin(np.arange(32) / 3.0), (40_000, 32))
    out = ts.fpa(x, epsilon=1.0, k=4, sensitivity=1.0, rng=rng, norm=norm)
    noise = out - ts.truncate_spectrum(x[:1], 4)
    assert 3.12 <= noise.var(axis=0).mean() <= 3.38
    # mean_t(x̃) − mean_t(x) = η0/n with η0 ~ Lap(λ_backward): variance 2λ²/n² = 2·128/1024.
    dc = noise.mean(axis=1)
    assert dc.var() == pytest.approx(2 * 128 / 32**2, rel=0.05)


def test_fpa_variance_with_nyquist_bin(rng):
    n, k = 16, 9
    x = np.zeros((40_000, n))
    noise = ts.fpa(x, epsilon=2.0, k=k, sensitivity=1.0, rng=rng)
    lam = math.sqrt(k * n) / 2.0
    assert noise.var(axis=0).mean() == pytest.approx(2 * lam**2 * (4 * k - 6) / n**2, rel=0.03)


def test_v_fpa_6_expected_total_error(rng):
    t = np.arange(32)
    x = 2 + np.sin(2 * np.pi * t / 32) + 0.3 * np.cos(2 * np.pi * 5 * t / 32)
    trunc_err = np.sum((ts.truncate_spectrum(x, 4) - x) ** 2)
    assert trunc_err == pytest.approx(1.44, rel=1e-9)
    out = ts.fpa(np.broadcast_to(x, (20_000, 32)), epsilon=1.0, k=4, sensitivity=1.0, rng=rng)
    total = ((out - x) ** 2).sum(axis=1)
    se = total.std() / math.sqrt(total.size)
    assert abs(total.mean() - 105.44) < 4 * se


def test_v_fpa_7_rastogi_nath_scale_is_sqrt_n_too_small():
    for n, factor in [(32, 5.656854), (64, 8.0), (128, 11.313708), (1140, 33.763886)]:
        rn = math.sqrt(4) * 1.0 / 1.0
        assert ts.fpa_scale(n, 4, 1.0, 1.0) / rn == pytest.approx(factor, rel=1e-6)
        assert ts.fpa_scale(n, 4, 1.0, 1.0, "ortho") == pytest.approx(rn)


def test_v_fpa_8_imaginary_parts_of_retained_bins_change(rng):
    x = np.arange(1.0, 9.0)
    spec = np.fft.rfft(x)
    np.testing.assert_allclose(spec.imag, [0, 9.656854, 4.0, 1.656854, 0], atol=1e-6)
    # The faulty real-only version leaks Im exactly:
    faulty = spec.copy()
    faulty[:3] += rng.laplace(size=3)
    faulty[3:] = 0
    np.testing.assert_allclose(np.fft.rfft(np.fft.irfft(faulty, 8)).imag[:3], [0, 9.656854, 4.0], atol=1e-6)
    out = ts.fpa(x, epsilon=1.0, k=3, sensitivity=1.0, rng=rng)
    assert np.all(np.abs(np.fft.rfft(out).imag[1:3] - spec.imag[1:3]) > 1e-9)


def test_fpa_batched_equals_per_series_loop(recording_rng):
    x = np.random.default_rng(1).normal(size=(4, 3, 21))
    rec = recording_rng(7)
    out = ts.fpa(x, epsilon=0.5, k=5, sensitivity=2.0, rng=rec)
    lam = math.sqrt(5 * 21) * 2.0 / 0.5
    z_re, z_im = (d.reshape(4, 3, 5) for d in rec.draws)  # drawn as (rows, one chunk, k)
    for i, j in itertools.product(range(4), range(3)):
        ref = loop_fpa(x[i, j], 5, lam, z_re[i, j], z_im[i, j])
        np.testing.assert_allclose(out[i, j], ref, atol=1e-9)


def test_fpa_rejects_bad_inputs(rng):
    with pytest.raises(ValueError):
        ts.fpa(np.zeros(8), epsilon=1.0, k=6, sensitivity=1.0, rng=rng)
    with pytest.raises(ValueError):
        ts.fpa(np.zeros(8), epsilon=0.0, k=2, sensitivity=1.0, rng=rng)
    with pytest.raises(ValueError):
        ts.fpa(np.zeros(8), epsilon=1.0, k=2, rng=rng)
    with pytest.raises(ValueError):
        ts.fpa(np.array([1.0, np.nan]), epsilon=1.0, k=1, sensitivity=1.0, rng=rng)


# ------------------------------------------------------------------------------------------------
# CFPA


def test_cfpa_with_chunk_equal_to_length_equals_fpa():
    x = np.random.default_rng(3).random((5, 64))
    a = ts.fpa(x, epsilon=0.3, k=6, bounds=(0, 1), rng=np.random.default_rng(11))
    b = ts.cfpa(x, epsilon=0.3, k=6, chunk=64, bounds=(0, 1), rng=np.random.default_rng(11))
    np.testing.assert_array_equal(a, b)


def test_cfpa_batched_equals_per_chunk_loop_with_partial_tail(recording_rng):
    t, chunk, k, eps = 100, 32, 4, 0.8
    x = np.random.default_rng(2).random((3, t))
    rec = recording_rng(9)
    out = ts.cfpa(x, epsilon=eps, k=k, chunk=chunk, bounds=(0.0, 2.0), rng=rec)
    re_full, im_full, re_tail, im_tail = rec.draws
    for i in range(3):
        for c in range(3):
            seg = x[i, c * chunk : (c + 1) * chunk]
            lam = math.sqrt(k * chunk) * math.sqrt(chunk) * 2.0 / eps
            ref = loop_fpa(seg, k, lam, re_full[i, c], im_full[i, c])
            np.testing.assert_allclose(out[i, c * chunk : (c + 1) * chunk], ref, atol=1e-9)
        # The tail of 4 samples at its TRUE length: k capped at 3 bins, Δ2 = √4·R.
        lam_tail = math.sqrt(3 * 4) * math.sqrt(4) * 2.0 / eps
        np.testing.assert_allclose(
            out[i, 96:], loop_fpa(x[i, 96:], 3, lam_tail, re_tail[i], im_tail[i]), atol=1e-9
        )


def test_cfpa_per_chunk_parameters_and_calibrations():
    cals = chunk_calibrations(100, MechanismSetting(mech=Mech.CFPA, chunk=32, k=4, epsilon=0.8), value_range=2.0)
    assert [(c.length, c.count, c.k) for c in cals] == [(32, 3, 4), (4, 1, 3)]
    assert cals[1].calibration.scale == pytest.approx(math.sqrt(12) * 2 * 2.0 / 0.8)
    x = np.zeros((2, 100))
    out = ts.cfpa(
        x,
        epsilon=np.array([1, 1, 1, 1e12]),
        k=np.array([1, 2, 3, 1]),
        chunk=32,
        bounds=(0, 1),
        rng=np.random.default_rng(0),
    )
    assert np.abs(out[:, 96:]).max() < 1e-9  # huge ε on the tail only
    assert np.abs(out[:, :96]).max() > 1.0


def test_cfpa_and_dcfpa_all_bins_without_noise_return_input(rng):
    x = rng.random((4, 150))
    np.testing.assert_allclose(ts.cfpa(x, epsilon=1, k=17, chunk=32, sensitivity=0.0, rng=rng), x, atol=1e-12)
    np.testing.assert_allclose(
        ts.dcfpa(x, epsilon=1, k=17, chunk=32, sensitivity=0.0, rng=rng), x, atol=1e-12
    )


# ------------------------------------------------------------------------------------------------
# DCFPA


def test_v_dcfpa_1_cumsum_reconstruction_and_paper_formula(rng):
    x = np.array([3.0, 5.0, 4.0, 8.0])
    out = ts.dcfpa(x, epsilon=1.0, k=3, chunk=4, sensitivity=0.0, rng=rng)
    np.testing.assert_allclose(out, x, atol=1e-12)
    d = np.array([3.0, 2.0, -1.0, 4.0])
    np.testing.assert_allclose(ts.dcfpa_paper_reconstruction(d, 4), [3, 5, 1, 3])


def _dcfpa_var_reference(n: int, k: int, lam: float) -> np.ndarray:
    """Var(x̃_t − x_t) from the formula of docs/PRIVACY_MODEL.md §4 with explicit cos/sin partial sums."""
    t = np.arange(n)
    total = (t + 1.0) ** 2
    for j in range(1, k):
        c = np.cumsum(np.cos(2 * np.pi * j * t / n))
        s = np.cumsum(np.sin(2 * np.pi * j * t / n))
        total = total + 4 * (c**2 + s**2)
    return 2 * lam**2 / n**2 * total


def test_v_dcfpa_2_integrated_noise_variance(rng):
    from eyedp_core.timeseries.k import dcfpa_noise_variance

    lam = ts.fpa_scale(32, 4, 1.0, 1.0)
    ref = _dcfpa_var_reference(32, 4, lam)
    np.testing.assert_allclose(ref[[0, 7, 15, 31]], [3.25, 100.2512, 179.9542, 256.0], rtol=1e-5)
    assert ref.mean() == pytest.approx(160.489, rel=1e-5)
    np.testing.assert_allclose(dcfpa_noise_variance(32, 4, lam), ref, rtol=1e-12)
    x = np.broadcast_to(np.linspace(0, 1, 32), (40_000, 32))
    noise = ts.dcfpa(x, epsilon=1.0, k=4, chunk=32, sensitivity=1.0, rng=rng) - ts.dcfpa(
        x[:1], epsilon=1.0, k=4, chunk=32, sensitivity=0.0, rng=rng
    )
    emp = noise.var(axis=0)
    np.testing.assert_allclose(emp[[0, 7, 15, 31]], ref[[0, 7, 15, 31]], rtol=0.05)


def test_v_dcfpa_3_and_4_sensitivities_and_variances():
    from eyedp_core.timeseries.k import dcfpa_noise_variance, fpa_noise_variance
    from eyedp_core.timeseries.sensitivity import diff_l1_public, diff_l2_public, l1_public, l2_public

    assert l1_public(32, 1.0) == 32 and l2_public(32, 1.0) == pytest.approx(5.656854, rel=1e-6)
    assert diff_l1_public(32, 1.0) == 63 and diff_l2_public(32, 1.0) == pytest.approx(11.180340, rel=1e-6)
    # Alternating worst case: x = (1, 0, 1, …) versus x' = (0, 1, 0, …) in [0, 1].
    dx = np.where(np.arange(32) % 2 == 0, 1.0, 0.0) - np.where(np.arange(32) % 2 == 0, 0.0, 1.0)
    dd = np.diff(dx, prepend=0.0)
    assert np.abs(dd).sum() == pytest.approx(63) and np.linalg.norm(dd) == pytest.approx(
        math.sqrt(4 * 32 - 3)
    )
    d2 = diff_l2_public(32, 1.0, 1 / 60)
    assert d2 == pytest.approx(1.017076, rel=1e-6)
    var = dcfpa_noise_variance(32, 4, ts.fpa_scale(32, 4, d2, 1.0))
    assert var.mean() == pytest.approx(166.017, rel=1e-5)
    assert var[-1] == pytest.approx(264.818, rel=1e-5)
    assert fpa_noise_variance(32, 4, ts.fpa_scale(32, 4, l2_public(32, 1.0), 1.0)) == pytest.approx(104.0)


def test_dcfpa_batched_equals_loop_with_increment_bound(recording_rng):
    t, chunk, k, eps, b = 70, 32, 3, 2.0, 0.05
    x = np.clip(np.cumsum(np.random.default_rng(4).normal(0, 0.08, size=(2, t)), axis=1) + 0.5, 0, 1)
    rec = recording_rng(13)
    out = ts.dcfpa(x, epsilon=eps, k=k, chunk=chunk, bounds=(0.0, 1.0), increment_bound=b, rng=rec)
    re_full, im_full, re_tail, im_tail = rec.draws
    for i in range(2):
        for c, (start, stop) in enumerate([(0, 32), (32, 64), (64, 70)]):
            seg = x[i, start:stop]
            n = seg.size
            d = np.concatenate([[seg[0]], np.clip(np.diff(seg), -b, b)])
            lam = math.sqrt(min(k, n // 2 + 1) * n) * math.sqrt(1 + 4 * (n - 1) * b**2) / eps
            zr, zi = (re_full[i, c], im_full[i, c]) if c < 2 else (re_tail[i], im_tail[i])
            ref = np.cumsum(loop_fpa(d, min(k, n // 2 + 1), lam, zr, zi))
            np.testing.assert_allclose(out[i, start:stop], ref, atol=1e-9)


def test_dcfpa_without_noise_inverts_clipped_differences(rng):
    x = np.cumsum(rng.normal(size=(3, 90)), axis=1)
    out = ts.dcfpa(x, epsilon=1.0, k=17, chunk=32, sensitivity=0.0, increment_bound=10.0, rng=rng)
    np.testing.assert_allclose(out, x, atol=1e-10)  # B larger than every increment: exact inverse


def test_v_nmse_3_paper_nmse_on_lpa_output_is_unstable(rng):
    x = np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.6, 0.2, 0.5])
    runs = np.broadcast_to(x, (2000, 8))
    noisy = ts.lpa(runs, epsilon=8.0, bounds=(0.0, 1.0), rng=rng)  # b = 1
    paper = metrics.nmse(runs, noisy, kind="paper")
    assert 0.12 <= np.mean(paper < 0) <= 0.23
    # The data-only normaliser stays positive and its run average is stable (V-LPA-2).
    var = metrics.nmse(runs, noisy, kind="var")
    assert np.all(var > 0)
    halves = var.reshape(2, -1).mean(axis=1)
    assert abs(halves[0] - halves[1]) < 0.1 * var.mean()
