"""The pages' headline numbers tell the expectation, not one draw's luck: the expected value and its 10–90 % band
shown on Heatmaps (CC, hot spots kept, NMSE, MSE), Time series (utility in dB) and Areas of interest (expected
absolute error) equal an independent computation at the page's settings, and a new preview seed moves the draw
but not the expectation."""
from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.data import bundled
from eyedp_core.heatmaps import expectation, maps, preview
from eyedp_core.heatmaps.calibration import HeatmapSetting
from tests.apptest import metric_value, open_app, shown_numbers

HEATMAPS = "pages/heatmaps.py"
_BAND = re.compile(r"^(-?[\d.]+)\s*%?\s*\(10–90 %: (-?[\d.]+)\s*%?–(-?[\d.]+)\s*%?\)$")


def _shown(at: AppTest, label: str) -> tuple[float, float, float]:
    """(mean, low, high) of the number labelled exactly `label` ('0.25 (10–90 %: 0.10–0.38)')."""
    hits = [v for lab, v in shown_numbers(at) if lab == label]
    assert hits, f"no number labelled {label!r}; shown: {[lab for lab, _ in shown_numbers(at)]}"
    m = _BAND.match(hits[0].strip())
    assert m, hits[0]
    return tuple(float(g) for g in m.groups())


def _heatmap_draws(at: AppTest) -> list[dict[str, float]]:
    """The metrics of the R preview draws the expectation stands for, computed by the core's preview path (one
    noisy_preview per seed, no shared noise fields) at the page's settings."""
    ss = at.session_state
    name = bundled.stimulus_names()[0]
    assert ss["hm_stimulus"] == name
    h, w = bundled.stimulus_image(name).shape[:2]
    sub, _ = preview.fixations_for_stimulus(bundled.load_sample("fixations"), "s", name, w, h)
    gm = maps.gaze_maps(sub, w, h, int(ss["hm_cell"]), "count")
    g0 = bundled.SAMPLE_SCREEN
    sigma = maps.sigma_px_from_degrees(float(ss["hm_deg"]), g0.width_px, g0.width_cm, g0.distance_cm)
    clean = preview.clean_maps(gm, 1.0, 30.0, sigma)
    sens = preview.maps_sensitivity(gm, 1.0, 30.0)
    setting = HeatmapSetting(epsilon=float(ss["hm_eps"]), delta=float(ss["hm_delta"]), mechanism="gaussian",
                             method="analytic", sigma_px=sigma, cell_px=gm.cell)
    return [preview.noisy_preview(clean, sens, setting, seed=expectation.EXPECTATION_SEED + i, emd_bins=None).metrics
            for i in range(expectation.EXPECTATION_DRAWS)]


def test_heatmap_expected_headline_is_the_mean_and_band_of_seeded_preview_draws():
    at = open_app(HEATMAPS, timeout=240)
    draws = _heatmap_draws(at)
    for label, key, scale, tol in (("Expected CC", "cc", 1.0, 0.0051), ("Expected hot spots kept", "hot_spots", 100.0, 0.51)):
        v = np.array([d[key] for d in draws]) * scale
        mean, lo, hi = _shown(at, label)
        assert mean == pytest.approx(v.mean(), abs=tol), label
        assert (lo, hi) == pytest.approx(tuple(np.quantile(v, (0.1, 0.9))), abs=tol), label
    nmse = np.array([d["nmse"] for d in draws])
    assert _shown(at, "Expected NMSE")[0] == pytest.approx(nmse.mean(), rel=0.005)
    # The draw is labelled apart and is this seed's preview, not the mean.
    cc_expected = _shown(at, "Expected CC")
    cc_draw = metric_value(at, "CC")
    at.session_state["hm_seed"] = 7
    at.run()
    assert not at.exception, at.exception
    assert metric_value(at, "CC") != pytest.approx(cc_draw, abs=1e-4)
    assert _shown(at, "Expected CC") == cc_expected


AOI = "pages/areas_of_interest.py"
_AOI_LINE = re.compile(r"Expected absolute error of one private value, in any release \(not this preview's luck\): "
                       r"(.*?)\. Before clipping")


def _aoi_expected(at: AppTest) -> dict[str, tuple[float, float, float]]:
    """The AOI page's expected absolute errors: metric's short name -> (expected, 10 %, 90 %) as shown."""
    hits = [m.group(1) for md in at.markdown for m in [_AOI_LINE.search(str(md.value))] if m]
    assert hits, "no expected-error line on the AOI page"
    out = {}
    for part in hits[0].split("; "):
        m = re.match(r"^(.*?) ± ([\d.e+-]+)(?: s| pts)? \(10–90 %: ([\d.e+-]+)–([\d.e+-]+)(?: s)?\)$", part)
        assert m, part
        out[m.group(1)] = tuple(float(g) for g in m.groups()[1:])
    return out


def test_aoi_expected_absolute_error_follows_the_laplace_noise_of_the_release_path():
    from eyedp_core.aoi.bundled import bundled_aois
    from eyedp_core.aoi.metrics import AoiMetric, private_metrics
    from eyedp_core.aoi.observers import AoiBounds, observer_table
    from ui.aoi import tables

    at = open_app(AOI, timeout=240)
    at.selectbox(key="aoi_stimulus").set_value("webpage").run()
    at.select_slider(key="aoi_epsilon").set_value(3.0).run()
    assert not at.exception, at.exception
    shown = _aoi_expected(at)
    f = bundled.load_sample("fixations")
    t = observer_table(f[f["stimulus"] == "webpage"], bundled_aois("webpage"), AoiBounds())
    chosen = [AoiMetric.HIT_RATIO, AoiMetric.DWELL, AoiMetric.TTFF]
    res, _ = private_metrics(t, chosen, 3.0, np.random.default_rng(0))
    z = np.log(20.0)  # the release path's 95 % half-width is ln 20 · b / n; |Lap(b)| / n is exponential, mean b / n
    for m, unit in ((AoiMetric.HIT_RATIO, 100.0), (AoiMetric.DWELL, 1.0)):
        b_over_n = float(res[m].half_width[0]) / z
        want = (b_over_n, -np.log(0.9) * b_over_n, np.log(10.0) * b_over_n)
        got = shown[tables.SHORT[m]]
        assert got == pytest.approx(tuple(unit * w for w in want), rel=0.01, abs=0.051), m
    # Simulated: the mean absolute error of many draws of the dwell noise agrees within 4 standard errors.
    draws = [np.abs(private_metrics(t, chosen, 3.0, np.random.default_rng(s))[0][AoiMetric.DWELL].private
                    - res[AoiMetric.DWELL].clean) for s in range(200)]
    err = np.concatenate(draws)
    se = err.std(ddof=1) / np.sqrt(err.size)
    assert abs(err.mean() - shown[tables.SHORT[AoiMetric.DWELL]][0]) < 4 * se + 0.0005
    # A new preview seed redraws the private table but not the expectation.
    private_before = tables.metric_table(res, private=True)
    at.session_state["aoi_seed"] = 5
    at.run()
    assert not at.exception, at.exception
    assert _aoi_expected(at) == shown
    assert private_before not in "\n".join(str(md.value) for md in at.markdown)


TIME_SERIES = "pages/time_series.py"
_TS_WORDS = re.compile(r"expected median utility (-?\d+) dB over the features \(10–90 % of single runs: (-?\d+) to "
                       r"(-?\d+) dB, over (\d+) seeded runs; this preview draw: median utility (-?\d+) dB\)")


def _ts_expected(at: AppTest) -> tuple[int, ...]:
    """(expected, 10 %, 90 %, runs, this draw) of the Time series verdict."""
    text = "\n".join(str(e.value) for kind in ("info", "warning") for e in getattr(at, kind))
    m = _TS_WORDS.search(text)
    assert m, text[:600]
    return tuple(int(g) for g in m.groups())


def test_time_series_verdict_states_the_expected_median_utility_of_seeded_runs():
    from eyedp_core.dp.registry import Mech
    from eyedp_core.gaze.feature_specs import feature_bounds
    from eyedp_core.timeseries import experiments
    from eyedp_core.timeseries.accounting import epsilon_plan
    from eyedp_core.timeseries.expectation import EXPECTATION_RUNS, EXPECTATION_SEED
    from eyedp_core.timeseries.preview import PreviewSetting, run_preview
    from eyedp_core.timeseries.signals import feature_columns, feature_tensor

    at = open_app(TIME_SERIES, timeout=240)
    at.radio(key="ts_mode").set_value("paper").run()
    at.select_slider(key="ts_eps").set_value(10000.0).run()
    assert not at.exception, at.exception
    mean, lo, hi, runs, draw = _ts_expected(at)
    assert runs == EXPECTATION_RUNS
    # Independently: the sweep's exact error sums at this ε per invocation (no quadratic in 1/ε), same seed.
    table = bundled.load_sample("reading_features")
    names = feature_columns(table)
    length = int(at.number_input(key="ts_length").value)
    x, _ = feature_tensor(table, names, length=length, fill="edge", order_col="window")
    k = int(at.slider(key="ts_k").value)
    plan = epsilon_plan("paper", 10000.0, Mech.CFPA, 32, length, len(names), 3)
    spec = experiments.SweepSpec(epsilons=(1.0,), modes=("paper",), runs=runs, k_rule="fixed", k=k, nmse_kind="var")
    data = experiments.prepare(x, feature_bounds(names), "var")
    err, _ = experiments.mechanism_errors(data, Mech.CFPA, 32, np.array([plan.per_invocation]), spec,
                                          np.random.default_rng(EXPECTATION_SEED))
    nmse = np.nanmean(err[0] * data.inv_norm[None] / data.length, axis=1)
    med = np.nanmedian(-10 * np.log10(nmse), axis=1)
    assert (mean, lo, hi) == (round(med.mean()), round(np.quantile(med, 0.1)), round(np.quantile(med, 0.9)))
    prev = run_preview(x, PreviewSetting(mech=Mech.CFPA, chunk=32, epsilon=plan.per_invocation, k=k, nmse_kind="var"),
                       bounds=feature_bounds(names), rng=np.random.default_rng(20190625),
                       feature=names.index(at.selectbox(key="ts_feature").value))
    assert draw == round(float(np.nanmedian(-10 * np.log10(prev.nmse_feature))))
    # A new preview seed is a new draw of the preview, not a new expectation.
    at.number_input(key="ts_seed").set_value(3).run()
    assert not at.exception, at.exception
    assert _ts_expected(at)[:4] == (mean, lo, hi, runs)
