"""AppTest of "Add to plan" and the plan-aware sentence on the Time series and Gaze samples pages: a press adds
exactly the page's output (form, coarse windows, recordings per person, target dB; Kaleido's settings and screen)
to the session's plan, and the sentence states the ε `eyedp_core.plan.allocate` gives it (computed here
independently on the bundled samples, series forms with their models as the Plan and release page), with the
form's crossing ε from `eyedp_core.timeseries.forms` for the met / not met verdict."""
from __future__ import annotations

import math
import os
import re
from dataclasses import replace

import pytest

from eyedp_core.data import bundled
from eyedp_core.exports.plan_parts import PartTables, part_inputs, series_bases
from eyedp_core.gaze.feature_specs import feature_bounds
from eyedp_core.plan.allocate import allocate
from eyedp_core.plan.inputs import inputs_from_fixations
from eyedp_core.plan.schema import (
    Cap,
    GazeSamplesOutput,
    HeatmapOutput,
    SeriesFormOutput,
    StudyPlan,
    Target,
    TargetMeasure,
)
from eyedp_core.timeseries import forms
from eyedp_core.timeseries.signals import feature_tensor
from tests.apptest import open_app
from ui.widgets import fmt_num

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
CAP = 10.0
TARGET_DB = -30.0  # low enough that the group form's crossing on the sample (about ε = 4.5) sits under the cap
META = ("participant", "gender", "task", "window", "t_start_s")


def _features():
    return bundled.load_sample("reading_features")


def _most_recordings() -> int:
    """The most recordings one participant has in the sample (one per task read)."""
    df = _features()
    return int(df.groupby("participant")["task"].nunique().max())


def _crossing(form: forms.Form, blocks: int, target_db: float) -> float:
    """The page's "ε for target dB" of one form over all features (public bounds, T = 600), recomputed on the
    sample."""
    df = _features()
    names = [c for c in df.columns if c not in META]
    x, recs = feature_tensor(df, names, length=600, fill="edge", order_col="window")
    lo, hi = feature_bounds(names)
    rows = forms.compare_forms(x, lo, hi, recs, forms.FormComparison(
        epsilon=1.0, blocks=10, recordings_per_person=_most_recordings(), feature_index=0, target_db=target_db))
    return next(r.crossing_epsilon for r in rows if r.setting.form is form and r.setting.blocks == blocks
                and r.features == len(names))


def _allotted(plan: StudyPlan, label: str) -> float:
    """The ε `allocate` gives one output on the samples, the series forms with their models (as the release)."""
    expanded, inputs = inputs_from_fixations(bundled.load_sample("fixations"), plan, table_name="Sample: fixations")
    outs = tuple(o for o in expanded.outputs if isinstance(o, SeriesFormOutput))
    parts = part_inputs(outs, PartTables(features=_features(), features_name="Sample: reading features"))
    inputs = replace(inputs, series=series_bases(outs, parts))
    return allocate(expanded, expanded.cap, inputs).row(label).epsilon


def _heatmaps() -> tuple[HeatmapOutput, ...]:
    out = []
    for name in bundled.stimulus_names():
        h, w = bundled.stimulus_image(name).shape[:2]
        out.append(HeatmapOutput(stimulus=name, width=int(w), height=int(h)))
    return tuple(out)


def _plan_line(at) -> str:
    lines = [str(m.value) for m in at.markdown if str(m.value).startswith("**Plan:**")]
    assert len(lines) == 1, lines
    return lines[0]


def _outputs(at) -> tuple:
    return StudyPlan.from_json(at.session_state["plan_json"]).outputs


def _forms_page(plan: StudyPlan | None, target_db: float = TARGET_DB):
    at = open_app("pages/time_series.py")
    if plan is not None:
        at.session_state["plan_json"] = plan.to_json()
    at.segmented_control(key="ts_panel").set_value("forms").run()
    at.number_input(key="ts_form_target").set_value(target_db).run()
    assert not at.exception, at.exception
    return at


def _series(form: forms.Form, blocks: int, target_db: float = TARGET_DB) -> SeriesFormOutput:
    """The output the page's button should add: the sample's every bounded feature (the plan's default), T = 600,
    grouped by task."""
    return SeriesFormOutput(form=form, blocks=blocks, recordings_per_person=_most_recordings(), by_task=True,
                            features=(), length=600, target=Target(TargetMeasure.DB, target_db))


def test_time_series_add_to_plan_adds_the_chosen_form_with_the_panels_settings() -> None:
    at = _forms_page(None, target_db=-12.0)
    assert "plan_json" not in at.session_state or not at.session_state["plan_json"]
    at.button(key="ts_add_plan").click().run()
    assert not at.exception, at.exception
    group = _series(forms.Form.GROUP, 1, -12.0)
    assert _outputs(at) == (group,)
    at.selectbox(key="ts_form_plan").set_value("coarse").run()
    at.slider(key="ts_form_blocks").set_value(6).run()
    at.button(key="ts_add_plan").click().run()
    assert not at.exception, at.exception
    assert _outputs(at) == (group, _series(forms.Form.RECORDING, 6, -12.0))
    at.button(key="ts_add_plan").click().run()  # a second press updates the same output
    assert len(_outputs(at)) == 2


def test_time_series_sentence_states_the_plans_series_forms_and_their_epsilon() -> None:
    mine = _series(forms.Form.GROUP, 1)
    plan = StudyPlan("finder test", Cap(CAP), (*_heatmaps(), mine))
    line = _plan_line(_forms_page(plan))
    eps = _allotted(plan, mine.label)
    need = _crossing(forms.Form.GROUP, 1, TARGET_DB)
    assert 0 < eps <= CAP and math.isfinite(need)
    assert "**1 series form** (this form included)" in line, line
    assert f"this one gets ε = {fmt_num(eps)}" in line and f"ε ≤ {fmt_num(CAP)} per participant" in line, line
    assert f"the finder needs ε = {fmt_num(need)}" in line, line
    assert re.search(rf"\*\*{'met' if eps >= need else 'not met'} \(", line), line


def test_time_series_sentence_names_a_plan_without_this_form() -> None:
    other = replace(_series(forms.Form.RECORDING, 10), target=None)
    plan = StudyPlan("finder test", Cap(CAP), (*_heatmaps(), other))
    line = _plan_line(_forms_page(plan))
    eps = _allotted(plan, other.label)
    assert eps == pytest.approx(CAP / 4, rel=1e-6)  # four outputs without targets share the cap equally
    need = _crossing(forms.Form.GROUP, 1, TARGET_DB)
    assert "**1 series form** (this form not included)" in line and f"each gets ε = {fmt_num(eps)}" in line, line
    assert ("**met" if eps >= need else "**not met") in line, line


def test_time_series_sentence_without_plan_states_how_many_fit_under_the_cap() -> None:
    line = _plan_line(_forms_page(None))
    need = _crossing(forms.Form.GROUP, 1, TARGET_DB)
    fit = math.floor(CAP / need + 1e-9)
    assert fit >= 1, need
    assert f"holds **{fit} series form{'' if fit == 1 else 's'}**" in line, line
    assert f"finder's ε = {fmt_num(need)}" in line and "per participant" in line and "observer" not in line, line


def test_gaze_samples_add_to_plan_adds_kaleidos_settings_and_the_screen() -> None:
    at = open_app("pages/gaze_samples.py")
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    assert "no gaze samples are planned" in _plan_line(at)
    at.slider(key="gs_kal_r").set_value(80).run()
    at.number_input(key="gs_wpx").set_value(1600).run()
    at.button(key="gs_add_plan").click().run()
    assert not at.exception, at.exception
    g = bundled.SAMPLE_SCREEN
    want = GazeSamplesOutput(w=60, r=80.0, t_skip=12, l_thresh=60.0, h=2.0, min_pub_share=1 / 16, width_px=1600,
                             height_px=int(g.height_px))
    assert _outputs(at) == (want,)
    plan = StudyPlan.from_json(at.session_state["plan_json"])
    eps = _allotted(plan, want.label)
    assert eps == pytest.approx(CAP, rel=1e-6)  # the plan's only output takes the whole cap
    line = _plan_line(at)
    assert "**1 gaze-sample output**" in line and f"'gaze_samples' gets ε = {fmt_num(eps)} per participant" in line
    assert "**met" not in line and "not met" not in line  # no utility model: no verdict
