"""CC/MSE-versus-ε curves and the planning view (eyedp_core.heatmap_curves) against brute force: noisy
maps drawn cell by cell, smoothed with scipy.ndimage and scored directly."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.fft as sfft
from scipy import ndimage, stats

from eyedp_core.heatmaps import curves as hcur
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap, heatmap_sensitivity
from eyedp_core.metrics import mse, nmse_by_energy, pearson_cc


def _maps(rng, shape=(24, 36)):
    clean = np.zeros(shape)
    clean[8:12, 10:16] = 0.6
    clean += rng.gamma(0.2, 0.05, shape)
    reference = clean * 1.3 + 0.01  # a different (e.g. uncapped) reference map
    return clean, reference


@pytest.mark.parametrize("sigma,tol", [(2.5, 0.0), (0.0, 0.0), (4.0, 1e-12)])
def test_engine_statistics_equal_direct_computation_for_a_fixed_noise_field(rng, sigma, tol):
    """For one given noise field Z, the DCT-domain statistics reproduce CC, MSE, NMSE of the smoothed map."""
    clean, ref = _maps(rng)
    eng = hcur._Engine(clean, ref, sigma, 4.0, tol)
    z = rng.standard_normal(clean.shape)
    zc = sfft.dctn(z, type=2, norm="ortho")[:eng.kr, :eng.kc]
    met = eng.metrics(eng.stats(zc[None]), np.array([0.05, 0.4]))
    ks = ndimage.gaussian_filter(z, sigma) if sigma > 0 else z
    cs = ndimage.gaussian_filter(clean, sigma) if sigma > 0 else clean
    rs = ndimage.gaussian_filter(ref, sigma) if sigma > 0 else ref
    for i, s in enumerate((0.05, 0.4)):
        noisy = cs + s * ks
        rel = 1e-9 if tol == 0 else 1e-5
        assert met["mse"][i, 0] == pytest.approx(mse(rs, noisy), rel=rel)
        assert met["cc"][i, 0] == pytest.approx(pearson_cc(rs, noisy), rel=rel)
        assert met["nmse"][i, 0] == pytest.approx(nmse_by_energy(rs, noisy), rel=rel)


@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_curves_match_brute_force_distribution(rng, mechanism):
    clean, ref = _maps(rng)
    n, eps, delta, sigma_px, cell, R = 30, 2.0, 30 ** -1.5, 6.0, 2, 400
    sens = heatmap_sensitivity(clean.size, n, 1.0, cap_total=6.0)
    df = hcur.eps_curves(clean, sens, HeatmapSetting(delta=delta, sigma_px=sigma_px, cell_px=cell),
                         hcur.CurveSpec(epsilons=(eps,), R=R, mechanisms=(mechanism,)), rng, reference_map=ref)
    assert len(df) == R and set(df["mechanism"]) == {mechanism}
    cal = calibrate_heatmap(sens, eps, delta, mechanism, "analytic" if mechanism == "gaussian" else "laplace")
    assert np.allclose(df["std"], cal.std) and np.allclose(df["scale"], cal.scale)
    rs = ndimage.gaussian_filter(ref, sigma_px / cell)
    brute = {"cc": [], "mse": []}
    for _ in range(R):
        noise = (rng.normal(0, cal.scale, clean.shape) if mechanism == "gaussian"
                 else rng.laplace(0, cal.scale, clean.shape))
        noisy = ndimage.gaussian_filter(clean + noise, sigma_px / cell)
        brute["cc"].append(pearson_cc(rs, noisy))
        brute["mse"].append(mse(rs, noisy))
    for key in ("cc", "mse"):
        assert stats.ks_2samp(df[key], brute[key]).pvalue > 1e-3, key
    # Mean MSE against the exact expectation ‖bias‖²/r + std²·ΣΛ²/r, within 4 standard errors.
    cs = ndimage.gaussian_filter(clean, sigma_px / cell)
    expect = np.mean((cs - rs) ** 2) + hcur.expected_noise_mse(cal.std, clean.shape, sigma_px, cell)
    assert abs(df["mse"].mean() - expect) < 4 * df["mse"].std() / np.sqrt(R)


def test_curves_shape_monotonicity_progress_and_notes(rng):
    clean, _ = _maps(rng, (40, 60))
    sens = heatmap_sensitivity(clean.size, 500, 1.0)
    seen = []
    eps = [0.25, 0.5, 0.9, 2.0]
    df = hcur.eps_curves(clean, sens, HeatmapSetting(delta=1e-6, method="classical", sigma_px=3.0),
                         hcur.CurveSpec(epsilons=tuple(eps), R=30), rng, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0
    assert sorted(df.loc[df.mechanism == "gaussian", "eps"].unique()) == [0.25, 0.5, 0.9]
    assert df.attrs["notes"] and "ε ≥ 1" in df.attrs["notes"][0]
    assert sorted(df.loc[df.mechanism == "laplace", "eps"].unique()) == eps
    summ = hcur.summarize_curves(df)
    for mech, g in summ.groupby("mechanism"):
        g = g.sort_values("eps")
        assert np.all(np.diff(g["mse_mean"]) < 0) and np.all(np.diff(g["cc_mean"]) > 0), mech
    gauss = summ[summ.mechanism == "gaussian"].set_index("eps")
    lap = summ[summ.mechanism == "laplace"].set_index("eps")
    assert (lap.loc[0.5, "mse_mean"] > 100 * gauss.loc[0.5, "mse_mean"])  # Figure 3: Laplace is far worse


def test_plan_study(rng):
    clean, _ = _maps(rng)
    ns = [100, 1_000, 10_000]
    df = hcur.plan_study(clean, ns, HeatmapSetting(1.0, 1e-6, cap_m=1.0, sigma_px=3.0), rng, R=40)
    assert list(df["N"]) == ns
    # σ ∝ 1/N at fixed δ
    assert np.allclose(df["std"].to_numpy() * df["N"].to_numpy(), df["std"].iloc[0] * 100)
    assert df["label"].str.contains("PLANNING ONLY").all() and df["label"].str.contains("no privacy").all()
    exp = [hcur.expected_noise_mse(s, clean.shape, 3.0) for s in df["std"]]
    assert np.allclose(df["expected_mse"], exp)  # reference = clean: no bias term
    assert np.all(np.diff(df["cc_mean"]) > 0)
    d = hcur.plan_study(clean, [50, 500], HeatmapSetting(1.0), rng, delta_of_n=lambda N: N ** -1.5, R=5)
    assert np.allclose(d["delta"], [50 ** -1.5, 500 ** -1.5])
