"""AppTest of the plan-aware finders: the Heatmaps Target finder and the Areas of interest target finder state how
many outputs of their kind the session's plan holds and the ε `eyedp_core.plan.allocate` gives this page's output
(computed here independently on the sample table), and with no plan how many fit under the cap at the finder's ε."""
from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest

from eyedp_core.aoi import planning
from eyedp_core.aoi.bundled import bundled_aois
from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.aoi.observers import AoiBounds, observer_table
from eyedp_core.data import bundled
from eyedp_core.heatmaps import maps, preview, targets
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.plan import AoiOutput, Cap, HeatmapOutput, StudyPlan, allocate, inputs_from_fixations
from tests.apptest import open_app
from ui.widgets import fmt_num

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
CAP = 10.0
AOI_METRICS = (AoiMetric.HIT_RATIO, AoiMetric.DWELL, AoiMetric.TTFF)  # the AOI page's default metrics


def _heatmap(name: str) -> HeatmapOutput:
    h, w = bundled.stimulus_image(name).shape[:2]
    return HeatmapOutput(stimulus=name, width=int(w), height=int(h))


def _aoi() -> AoiOutput:
    shapes = tuple(bundled_aois("webpage"))
    return AoiOutput(stimulus="webpage", shapes=shapes, aois=tuple(a.name for a in shapes), metrics=AOI_METRICS)


def _allotted(plan: StudyPlan, label: str) -> float:
    """The ε `allocate` gives one output of the plan on the sample table (independent of the page's cache)."""
    expanded, inputs = inputs_from_fixations(bundled.load_sample("fixations"), plan, table_name="Sample: fixations")
    return allocate(expanded, expanded.cap, inputs).row(label).epsilon


def _plan_line(at) -> str:
    lines = [str(m.value) for m in at.markdown if str(m.value).startswith("**Plan:**")]
    assert len(lines) == 1, lines
    return lines[0]


def _heatmap_finder(plan: StudyPlan | None):
    at = open_app("pages/heatmaps.py", timeout=240)
    if plan is not None:
        at.session_state["plan_json"] = plan.to_json()
    at.segmented_control(key="hm_panel").set_value("target").run()
    assert not at.exception, at.exception
    return at


def _finder_epsilon(at) -> float | None:
    """The Heatmaps finder's smallest ε for CC ≥ 0.8 at the page's settings, computed by the core."""
    ss = at.session_state
    name = bundled.stimulus_names()[0]
    assert ss["hm_stimulus"] == name and ss["hm_tg_target"] == 0.8 and ss["hm_tg_measure"] == "cc"
    h, w = bundled.stimulus_image(name).shape[:2]
    sub, _ = preview.fixations_for_stimulus(bundled.load_sample("fixations"), "s", name, w, h)
    gm = maps.gaze_maps(sub, w, h, int(ss["hm_cell"]), "count")
    g0 = bundled.SAMPLE_SCREEN
    sigma = maps.sigma_px_from_degrees(float(ss["hm_deg"]), g0.width_px, g0.width_cm, g0.distance_cm)
    s = HeatmapSetting(float(ss["hm_eps"]), float(ss["hm_delta"]), "gaussian", "analytic", 1.0, 30.0, gm.cell, sigma)
    ans = targets.epsilon_for_target(maps.aggregate(gm, 1.0, 30.0), gm.n_observers, s, targets.Measure.CC, 0.8,
                                     np.random.default_rng(int(ss["hm_seed"])), basis=targets.Basis.PRIVATE,
                                     draws=targets.DrawSpec(R=int(ss["hm_tg_R"]), q=float(ss["hm_q"])))
    return ans.value


def test_heatmaps_finder_states_the_plans_heatmaps_and_their_epsilon() -> None:
    plan = StudyPlan("finder test", Cap(CAP), tuple(_heatmap(s) for s in bundled.stimulus_names()))
    assert len(plan.outputs) == 3
    at = _heatmap_finder(plan)
    line = _plan_line(at)
    eps = _allotted(plan, f"heatmap_{bundled.stimulus_names()[0]}")
    assert eps == pytest.approx(CAP / 3, rel=1e-6)  # three equal outputs, no targets, basic composition
    assert "**3 heatmaps** (this stimulus included)" in line
    assert f"this one gets ε = {fmt_num(eps)}" in line and f"ε ≤ {fmt_num(CAP)} per observer" in line
    need = _finder_epsilon(at)
    verdict = "not met" if need is None or eps < need else "met"
    assert re.search(rf"\*\*{verdict}\b", line), line


def test_heatmaps_finder_without_plan_states_how_many_fit_under_the_cap() -> None:
    at = _heatmap_finder(None)
    line = _plan_line(at)
    need = _finder_epsilon(at)
    assert need is not None, "the sample reaches CC 0.8 at some ε ≤ 1000"
    fit = math.floor(CAP / need + 1e-9)
    one = "heatmap" if fit == 1 else "heatmaps"
    assert f"holds **{fit} {one}**" in line and f"finder's ε = {fmt_num(need)}" in line


def _aoi_finder(plan: StudyPlan | None):
    at = open_app("pages/areas_of_interest.py")
    if plan is not None:
        at.session_state["plan_json"] = plan.to_json()
    at.selectbox(key="aoi_stimulus").set_value("webpage").run()
    assert not at.exception, at.exception
    return at


def _dwell_epsilon(h: float = 0.5) -> float:
    """The AOI finder's smallest ε for dwell ± h s on the sample's webpage with its bundled AOIs (public formula)."""
    f = bundled.load_sample("fixations")
    t = observer_table(f[f["stimulus"] == "webpage"], bundled_aois("webpage"), AoiBounds())
    return planning.epsilon_for_half_width(AoiMetric.DWELL, h, n=t.n, k=t.k, bounds=AoiBounds(), metrics=AOI_METRICS)


def test_aoi_finder_states_the_plans_aoi_tables_and_their_epsilon() -> None:
    heat = tuple(_heatmap(s) for s in bundled.stimulus_names())
    plan = StudyPlan("finder test", Cap(CAP), (*heat, _aoi()))
    at = _aoi_finder(plan)
    line = _plan_line(at)
    eps = _allotted(plan, _aoi().label)
    assert eps == pytest.approx(CAP / 4, rel=1e-6)  # four equal outputs under basic composition
    assert "**1 AOI table** (this stimulus' AOI metrics included)" in line and f"this one gets ε = {fmt_num(eps)}" in line
    need = _dwell_epsilon()
    assert f"the finder needs ε = {fmt_num(need)}" in line
    assert ("**met" if eps >= need else "**not met") in line


def test_aoi_finder_without_plan_states_how_many_fit_under_the_cap() -> None:
    at = _aoi_finder(None)
    line = _plan_line(at)
    need = _dwell_epsilon()
    fit = math.floor(CAP / need + 1e-9)
    assert f"holds **{fit} AOI table{'' if fit == 1 else 's'}**" in line
    assert f"finder's ε = {fmt_num(need)}" in line


def test_heatmaps_finder_names_a_plan_without_this_stimulus() -> None:
    others = tuple(_heatmap(s) for s in bundled.stimulus_names()[1:])
    plan = StudyPlan("finder test", Cap(CAP), others)
    line = _plan_line(_heatmap_finder(plan))
    eps = [_allotted(plan, o.label) for o in others]
    assert eps == pytest.approx([CAP / 2, CAP / 2], rel=1e-6)
    assert "**2 heatmaps** (this stimulus not included)" in line and f"each gets ε = {fmt_num(eps[0])}" in line


def test_aoi_finder_with_a_plan_of_heatmaps_only_says_the_cap_is_shared() -> None:
    plan = StudyPlan("finder test", Cap(CAP), tuple(_heatmap(s) for s in bundled.stimulus_names()))
    line = _plan_line(_aoi_finder(plan))
    fit = math.floor(CAP / _dwell_epsilon() + 1e-9)
    assert f"holds **{fit} AOI table{'' if fit == 1 else 's'}**" in line
    assert "Your plan holds no AOI tables yet; its 3 other outputs already share that cap" in line
