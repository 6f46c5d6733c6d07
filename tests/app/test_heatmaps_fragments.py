"""What a slider move on the Heatmaps page re-sends (AppTest): no Plotly figure by default, the ε-curves figure
kept per session with only its "current ε" marker moved."""
from __future__ import annotations

import json

import pytest

from tests.apptest import open_app
from ui.heatmaps import panels

PAGE = "pages/heatmaps.py"


def _charts(at) -> list[dict]:
    """The Plotly figures the last run sent, as JSON."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def _pair_caption(at) -> str:
    """The caption of the picture holding both overlays (clean left, noisy right), or ''."""
    caps = [i.caption for img in at.get("image") for i in img.proto.imgs]
    return next((c for c in caps if "Clean heatmap" in c and "Noisy heatmap" in c), "")


@pytest.fixture(scope="module")
def at():
    return open_app(PAGE, timeout=240)


def test_default_page_sends_no_plotly_figure(at):
    """Overlays are images and the Explore panels wait to be opened: an ε move re-sends no Plotly figure."""
    assert _charts(at) == []
    assert _pair_caption(at) and "ε = 3," in _pair_caption(at)  # the clean and the noisy overlay: one picture
    at.select_slider(key="hm_eps").set_value(0.5).run()
    assert not at.exception, at.exception
    assert _charts(at) == [] and "ε = 0.5," in _pair_caption(at)


def test_eps_curves_figure_is_kept_and_only_its_marker_moves(at):
    """Open the ε-curves: an ε move keeps the same figure object and moves both dotted lines to the new ε."""
    at.segmented_control(key="hm_panel").set_value("curves").run()
    assert not at.exception, at.exception
    at.select_slider(key="hm_eps").set_value(1.0).run()
    held = at.session_state[panels.CURVES_FIG]
    spec = _charts(at)[0]
    assert [s["x0"] for s in spec["layout"]["shapes"]] == [1.0, 1.0]
    at.select_slider(key="hm_eps").set_value(3.0).run()
    assert not at.exception, at.exception
    assert at.session_state[panels.CURVES_FIG][2] is held[2]  # not rebuilt
    spec2 = _charts(at)[0]
    assert [s["x0"] for s in spec2["layout"]["shapes"]] == [3.0, 3.0]
    assert spec2["data"] == spec["data"]  # the curves themselves did not change
    # A parameter the curves depend on (the cap m) rebuilds the figure.
    at.slider(key="hm_m_count").set_value(2).run()
    assert at.session_state[panels.CURVES_FIG][2] is not held[2]


def test_eps_curves_span_the_eps_sliders_range(at):
    """The curves are drawn from the ε slider's lowest to its highest value, so the current-ε marker is on them
    wherever the slider stands (they stopped at ε = 10 while the slider reaches 100)."""
    from ui.heatmaps.settings import EPS_SPEC

    at.segmented_control(key="hm_panel").set_value("curves").run()
    at.select_slider(key="hm_eps").set_value(EPS_SPEC.hi).run()
    assert not at.exception, at.exception
    fig = at.session_state[panels.CURVES_FIG][2]
    xs = [float(x) for trace in fig.data if trace.x is not None for x in trace.x]
    assert xs and min(xs) == pytest.approx(EPS_SPEC.lo) and max(xs) == pytest.approx(EPS_SPEC.hi)
    assert [s["x0"] for s in _charts(at)[0]["layout"]["shapes"]] == [EPS_SPEC.hi, EPS_SPEC.hi]
