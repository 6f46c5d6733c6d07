"""eyedp_core.plan.schema: the plan file's JSON form round-trips, takes the issue's minimal form with the Heatmaps
page's defaults, and refuses anything unknown or out of range with a DataError naming the field."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.aoi.observers import AoiBounds
from eyedp_core.aoi.shapes import polygon, rectangle
from eyedp_core.batch.settings import HeatmapSettings
from eyedp_core.io.errors import DataError
from eyedp_core.plan import (
    AoiOutput,
    Cap,
    GazeSamplesOutput,
    HeatmapOutput,
    SeriesFormOutput,
    StudyPlan,
    Target,
    TargetMeasure,
)
from eyedp_core.plan.schema import Accountant
from eyedp_core.timeseries.forms import Form

MINIMAL = {"study": "UX", "cap": {"epsilon": 10},
           "outputs": [{"kind": "heatmap", "stimulus": "1001.jpg", "width": 1280, "height": 800,
                        "target": {"hot_spots_kept": 0.5}}]}


def test_minimal_file_takes_the_heatmaps_page_defaults():
    plan = StudyPlan.from_json(json.dumps(MINIMAL))
    (o,) = plan.outputs
    page = HeatmapSettings(stimulus="1001.jpg", width=1280, height=800)
    assert (o.cell_px, o.delta, o.mechanism, o.method, o.cap_m, o.cap_total, o.sigma_px) == (
        page.cell_px, page.delta, page.mechanism, page.method, page.cap_m, page.cap_total, page.sigma_px)
    assert o.target == Target(TargetMeasure.HOT_SPOTS_KEPT, 0.5) and o.epsilon is None and o.priority == 1.0
    assert plan.cap == Cap(10.0) and plan.cap.accountant is Accountant.BASIC
    assert o.label == "heatmap_1001-jpg"


def test_every_kind_round_trips():
    plan = StudyPlan("study ü", Cap(7.5, 1e-6, Accountant.ZCDP), (
        HeatmapOutput(stimulus="a", width=640, height=480, cell_px=16, cap_total=None, epsilon=2.0, priority=3.0,
                      target=Target(TargetMeasure.CC, 0.8), name="first"),
        AoiOutput(stimulus="a", aois=("logo", "menu"), metrics=(AoiMetric.DWELL, AoiMetric.TTFF),
                  bounds=AoiBounds(max_dwell_s=3.0), target=Target(TargetMeasure.DWELL_S, 0.4)),
        SeriesFormOutput(form=Form.RECORDING, blocks=4, recordings_per_person=3, target=Target(TargetMeasure.DB, 2)),
        GazeSamplesOutput(epsilon=1.0),
        AoiOutput(stimulus="b", shapes=(rectangle("logo", 0, 0, 200, 80), polygon("menu", [(0, 100), (200, 100),
                                                                                         (100, 300)])),
                  aois=("logo", "menu"), metrics=(AoiMetric.HIT_RATIO,))))
    again = StudyPlan.from_json(plan.to_json())
    assert again == plan and again.outputs[-1].k == 2
    assert json.loads(again.to_json()) == json.loads(plan.to_json())


_names = st.text(st.characters(min_codepoint=48, max_codepoint=122), min_size=1, max_size=8)
_heat = st.builds(lambda s, w, h, c, t, e, p: HeatmapOutput(
    stimulus=s, width=w, height=h, cell_px=c, target=None if t is None else Target(TargetMeasure.HOT_SPOTS_KEPT, t),
    epsilon=e, priority=p), _names, st.integers(1, 4000), st.integers(1, 4000), st.integers(1, 64),
    st.none() | st.floats(0.01, 1.0), st.none() | st.floats(0.01, 50), st.floats(0.1, 10))
_aoi = st.builds(lambda k, m, t: AoiOutput(n_aois=k, metrics=m, target=None if t is None else
                                           Target(TargetMeasure.DWELL_S, t)),
                 st.integers(1, 20), st.just((AoiMetric.HIT_RATIO, AoiMetric.DWELL)), st.none() | st.floats(0.01, 5))


@settings(max_examples=60, deadline=None)
@given(st.lists(_heat | _aoi, min_size=1, max_size=6), st.floats(0.01, 1000), st.sampled_from(list(Accountant)))
def test_random_plans_round_trip(outputs, eps, accountant):
    plan = StudyPlan("s", Cap(eps, 1e-5, accountant), tuple(outputs))
    assert StudyPlan.from_json(plan.to_json()) == plan


def _with(path: str, value) -> str:
    """The minimal plan with one field set (dotted path; outputs[0] written as outputs.0)."""
    d = json.loads(json.dumps(MINIMAL))
    *head, last = path.split(".")
    node = d
    for k in head:
        node = node[int(k)] if k.isdigit() else node[k]
    node[last] = value
    return json.dumps(d)


@pytest.mark.parametrize("path, value, named", [
    ("colour", "red", "colour"),
    ("cap.budget", 3, "cap.budget"),
    ("outputs.0.colour", "red", "outputs[0].colour"),
    ("outputs.0.target", {"hot_spots": 0.5}, "outputs[0].target.hot_spots"),
    ("outputs.0.target", {"dwell_s": 0.5}, "outputs[0].target.dwell_s"),
    ("outputs.0.width", -3, "outputs[0].width"),
    ("outputs.0.width", 12.5, "outputs[0].width"),
    ("outputs.0.width", True, "outputs[0].width"),
    ("outputs.0.width", "1280", "outputs[0].width"),
    ("outputs.0.delta", 1.0, "outputs[0].delta"),
    ("outputs.0.epsilon", 0, "outputs[0].epsilon"),
    ("outputs.0.epsilon", float("nan"), "outputs[0].epsilon"),
    ("outputs.0.priority", -1, "outputs[0].priority"),
    ("outputs.0.target", {"hot_spots_kept": 1.5}, "outputs[0].target.hot_spots_kept"),
    ("outputs.0.method", "liu-thm-3.4", "outputs[0].method"),
    ("outputs.0.kind", "movie", "outputs[0].kind"),
    ("cap.epsilon", -1, "cap.epsilon"),
    ("cap.epsilon", float("inf"), "cap.epsilon"),
    ("cap.accountant", "rdp", "cap.accountant"),
    ("outputs", [], "outputs"),
])
def test_bad_fields_are_named(path, value, named):
    with pytest.raises(DataError) as err:
        StudyPlan.from_json(_with(path, value))
    assert named in str(err.value)


@pytest.mark.parametrize("output, named", [
    ({"kind": "gaze_samples", "target": {"db": 1}}, "outputs[0].target"),
    ({"kind": "aoi", "metrics": ["hit_ratio"]}, "n_aois"),
    ({"kind": "aoi", "n_aois": 2, "metrics": ["hit_ratio"], "target": {"dwell_s": 1}}, "outputs[0].target"),
    ({"kind": "aoi", "n_aois": 2, "metrics": ["gaze"]}, "outputs[0].metrics[0]"),
    ({"kind": "aoi", "n_aois": 2, "bounds": {"max_speed": 1}}, "outputs[0].bounds.max_speed"),
    ({"kind": "series_form", "form": "wavelet"}, "outputs[0].form"),
    ({"kind": "heatmap", "stimulus": "a", "width": 10}, "outputs[0].height"),
])
def test_bad_outputs_are_named(output, named):
    with pytest.raises(DataError) as err:
        StudyPlan.from_dict({"cap": {"epsilon": 1}, "outputs": [output]})
    assert named in str(err.value)


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '{"cap": {"epsilon": 1}}'])
def test_text_that_is_no_plan_is_a_data_error(text):
    with pytest.raises(DataError):
        StudyPlan.from_json(text)


def test_all_stimuli_expand_to_one_output_each():
    plan = StudyPlan.from_dict({"cap": {"epsilon": 9}, "outputs": [
        {"kind": "heatmap", "stimulus": "*", "width": 100, "height": 100, "target": {"cc": 0.5}},
        {"kind": "aoi", "n_aois": 1}]})
    out = plan.expanded(("b.png", "a.png"))
    assert [o.label for o in out.outputs] == ["heatmap_b-png", "heatmap_a-png", "aoi_hit-ratio-dwell"]
    assert all(o.target == Target(TargetMeasure.CC, 0.5) for o in out.outputs[:2])


def test_the_readme_plan_example_is_a_valid_plan():
    """The README's 'Study plans' JSON is read as written, with the fields its table lists."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Study plans"):]
    plan = StudyPlan.from_json(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    assert plan.cap == Cap(10, 1e-5, Accountant.BASIC)
    assert [o.kind.value for o in plan.outputs] == ["heatmap", "aoi", "gaze_samples"]
    assert plan.outputs[1].priority == 2 and plan.outputs[2].epsilon == 1


@pytest.mark.parametrize("shapes, named", [
    ([{"name": "a", "kind": "rect", "x0": 0, "y0": 0, "x1": "z", "y1": 1}], "outputs[0].shapes[0].x1"),
    ([{"name": "a", "kind": "hexagon"}], "outputs[0].shapes[0].kind"),
    ([{"name": "a", "kind": "rect", "x0": 0, "y0": 0, "x1": 1, "y1": 1, "colour": 2}], "outputs[0].shapes[0].colour"),
    ([{"name": "a", "kind": "rect", "x0": 0, "y0": 0, "x1": 1, "y1": 1}] * 2, "outputs[0].shapes[1].name"),
    ([{"name": "a", "points": [[0, 0], [1, 1]]}], "outputs[0].shapes[0].points"),
])
def test_bad_aoi_shapes_are_named(shapes, named):
    with pytest.raises(DataError) as err:
        StudyPlan.from_dict({"cap": {"epsilon": 1}, "outputs": [{"kind": "aoi", "shapes": shapes}]})
    assert named in str(err.value)
