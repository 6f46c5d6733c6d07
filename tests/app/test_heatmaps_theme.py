"""ui.theme.style: figures get the EyeDP template without a validated deep copy of it on every call."""
from __future__ import annotations

import json

import plotly.graph_objects as go
import plotly.io as pio
import pytest

from ui import theme


@pytest.fixture
def template_copies(monkeypatch):
    """Count how many plotly Template objects are constructed (each one is a validated deep copy)."""
    calls = {"n": 0}
    init = go.layout.Template.__init__

    def counting(self, *args, **kwargs):
        calls["n"] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(go.layout.Template, "__init__", counting)
    return calls


def test_style_builds_no_template_copy(template_copies):
    """Ten styled figures construct no Template; the serialised figure still carries the EyeDP template."""
    figs = [go.Figure(go.Scatter(x=[1, 2], y=[3, 4])) for _ in range(10)]
    template_copies["n"] = 0  # plotly's own construction is not what is measured
    for fig in figs:
        theme.style(fig, 300, "t")
    assert template_copies["n"] == 0
    out = json.loads(pio.to_json(figs[0], validate=False))
    assert out["layout"]["template"]["layout"]["colorway"] == theme.CATEGORY
    assert out["layout"]["height"] == 300 and out["layout"]["title"]["text"] == "t"


def test_style_still_applies_the_template_when_plotly_has_another_default(monkeypatch):
    """When the default is not EyeDP's (another library changed it), style() assigns the template."""
    monkeypatch.setattr(pio.templates, "default", "plotly")
    fig = theme.style(go.Figure(), 200)
    out = json.loads(pio.to_json(fig, validate=False))
    assert out["layout"]["template"]["layout"]["colorway"] == theme.CATEGORY


def test_style_keeps_an_explicit_eyedp_template():
    """A figure already given the EyeDP template by name is recognised (no second assignment needed)."""
    fig = go.Figure()
    fig.update_layout(template="eyedp")
    assert theme._has_eyedp_template(fig)
    fig2 = go.Figure()
    fig2.update_layout(template="plotly_dark")
    assert not theme._has_eyedp_template(fig2)
