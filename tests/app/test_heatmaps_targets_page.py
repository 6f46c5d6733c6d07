"""The Heatmaps page's hot-spots metric, Target finder, Compare A/B and private-m comparison in AppTest: the values
shown are the core's (eyedp_core.heatmaps.targets) at the page's settings."""
from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.data import bundled
from eyedp_core.heatmaps import cap, maps, preview, targets
from eyedp_core.heatmaps.calibration import HeatmapSetting
from tests.apptest import metric_value, open_app, page_text, shown_numbers
from ui.widgets import fmt_num

PAGE = "pages/heatmaps.py"


def _heatmaps() -> AppTest:
    return open_app(PAGE, timeout=240)


def _core(at: AppTest):
    """The page's study rebuilt by the core from its settings: (gaze maps, setting, σ in px, seed)."""
    ss = at.session_state
    name = bundled.stimulus_names()[0]
    assert ss["hm_stimulus"] == name
    h, w = bundled.stimulus_image(name).shape[:2]
    sub, _ = preview.fixations_for_stimulus(bundled.load_sample("fixations"), "s", name, w, h)
    gm = maps.gaze_maps(sub, w, h, int(ss["hm_cell"]), "count")
    g0 = bundled.SAMPLE_SCREEN
    sigma = maps.sigma_px_from_degrees(float(ss["hm_deg"]), g0.width_px, g0.width_cm, g0.distance_cm)
    s = HeatmapSetting(float(ss["hm_eps"]), float(ss["hm_delta"]), "gaussian", "analytic", 1.0, 30.0, gm.cell, sigma)
    return gm, s, sigma, int(ss["hm_seed"])


def test_hot_spots_metric_is_the_core_value():
    at = _heatmaps()
    gm, s, sigma, seed = _core(at)
    clean = preview.clean_maps(gm, 1.0, 30.0, sigma)
    prev = preview.noisy_preview(clean, preview.maps_sensitivity(gm, 1.0, 30.0),
                                 HeatmapSetting(epsilon=s.epsilon, delta=s.delta, mechanism="gaussian",
                                                method="analytic", sigma_px=sigma, cell_px=gm.cell),
                                 seed=seed, emd_bins=None)
    want = targets.hot_spots_kept(clean.smooth, prev.smooth, targets.DEFAULT_Q)
    assert metric_value(at, "Hot spots kept") == pytest.approx(round(100 * want), abs=0.5)
    assert metric_value(at, "CC") == pytest.approx(prev.metrics["cc"], abs=5e-4)


def test_target_finder_shows_the_core_answers_and_follows_the_target():
    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value("target").run()
    assert not at.exception, at.exception
    gm, s, sigma, seed = _core(at)
    agg = maps.aggregate(gm, 1.0, 30.0)
    kw = dict(draws=targets.DrawSpec(R=100, q=0.05))
    eps = targets.epsilon_for_target(agg, gm.n_observers, s, targets.Measure.CC, 0.8, np.random.default_rng(seed),
                                     basis=targets.Basis.PRIVATE, **kw)
    obs = targets.observers_for_target(agg, s, targets.Measure.CC, 0.8, np.random.default_rng(seed),
                                       basis=targets.Basis.PLANNING, **kw)
    shown = dict(shown_numbers(at))
    assert shown["Smallest ε per observer for CC ≥ 0.8"] == fmt_num(eps.value)
    assert shown[f"Observers needed at ε = {fmt_num(s.epsilon)}"] == f"{int(obs.value):,}"
    text = page_text(at)
    assert "tuning that is not itself private" in text and "planning model" in text
    assert f"expected CC {eps.expected:.2f}" in text
    # A higher target needs a larger ε and more observers; hot spots kept is a target of its own.
    at.slider(key="hm_tg_target").set_value(0.9).run()
    assert not at.exception, at.exception
    assert metric_value(at, "Smallest ε per observer for CC ≥ 0.9") > eps.value
    assert metric_value(at, "Observers needed") > obs.value
    at.radio(key="hm_tg_measure").set_value("hot_spots").run()
    assert not at.exception, at.exception
    assert any(label == "Smallest ε per observer for hot spots kept ≥ 0.9" for label, _ in shown_numbers(at))
    at.radio(key="hm_tg_basis").set_value("pilot").run()
    assert not at.exception, at.exception
    assert "public/pilot data" in page_text(at)


def _table_row(text: str, label: str) -> list[str]:
    """The cells of the markdown table row starting with `label`."""
    line = next(ln for ln in text.splitlines() if ln.startswith(f"| {label}"))
    return [c.strip() for c in line.strip("|").split("|")][1:]


def test_compare_panel_numbers_are_the_core_values():
    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value("compare").run()
    assert not at.exception, at.exception
    at.select_slider(key="hm_ab_eps").set_value(10.0).run()
    assert not at.exception, at.exception
    gm, s, sigma, seed = _core(at)
    text = page_text(at, ["markdown"])
    std_a = s.std(gm.n_observers, gm.n_cells)
    std_b = HeatmapSetting(10.0, s.delta, cap_m=1.0, cap_total=30.0).std(gm.n_observers, gm.n_cells)
    assert _table_row(text, "noise std σ per cell") == [f"{std_a:.3g}", f"{std_b:.3g}"]
    assert _table_row(text, "ε per observer (this map)") == [fmt_num(s.epsilon), "10"]
    agg = maps.aggregate(gm, 1.0, 30.0)
    d = targets.utility_at_stds(agg, [std_b], np.random.default_rng(seed), s, targets.DrawSpec(R=100))
    cc_b = _table_row(text, "expected CC (10–90 %)")[1]
    assert cc_b.startswith(f"{np.nanmean(d.cc[0]):.2f} (")
    assert re.search(r"B spends ε = 10 per observer instead of [\d.]+ and adds [\d.]+× less noise than A", text)
    assert at.get("plotly_chart") == [] or len(at.get("plotly_chart")) == 0  # pictures and tables only


def test_cap_panel_puts_the_private_choice_next_to_the_fixed_m():
    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value("cap").run()
    assert not at.exception, at.exception
    gm, s, sigma, seed = _core(at)
    eps_sel = float(at.select_slider(key="hm_sel_eps").value)
    bound = float(at.number_input(key="hm_sel_bound_count").value)
    comp = targets.cap_choice_utility(gm, fixed_m=1.0, candidates=cap.public_candidates("count", bound),
                                      selection=cap.SelectionSpec(bound, eps_sel, "exponential"),
                                      setting=s, rng=np.random.default_rng(seed), basis=targets.Basis.PRIVATE,
                                      draws=targets.DrawSpec(R=50))
    cc = comp.summary(targets.Measure.CC)
    text = page_text(at, ["markdown"])
    fixed = _table_row(text, "**fixed public m = 1 fixations**")
    private = _table_row(text, f"**private choice of m** (ε = {fmt_num(eps_sel)})")
    assert fixed[0] == fmt_num(s.epsilon) and fixed[1].startswith(f"{cc['fixed'][0]:.2f} (")
    assert private[0] == fmt_num(s.epsilon + eps_sel) and private[1].startswith(f"{cc['private'][0]:.2f} (")
    diff = cc["private"][0] - cc["fixed"][0]
    assert f"{'raise' if diff > 0 else 'lower'} mean CC by {abs(diff):.2f}" in text


def test_target_finder_subsample_answer_is_the_core_value():
    at = _heatmaps()
    at.segmented_control(key="hm_panel").set_value("target").run()
    at.select_slider(key="hm_eps").set_value(30.0).run()
    assert not at.exception, at.exception
    gm, s, sigma, seed = _core(at)
    sub = targets.observers_by_subsample(gm, s, targets.Measure.CC, 0.8, np.random.default_rng(seed),
                                         basis=targets.Basis.PRIVATE, draws=targets.DrawSpec(R=100, q=0.05))
    assert sub.value is not None and sub.value <= gm.n_observers
    assert f"**{int(sub.value)} of these {gm.n_observers} observers** at ε = 30" in page_text(at, ["markdown"])
