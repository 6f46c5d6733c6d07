"""One colour scheme and one Plotly template for every chart in EyeDP."""
from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

ROOT = Path(__file__).resolve().parents[1]

# Colour-blind-safe base (Okabe–Ito order), used for categories everywhere.
INK = "#1b2430"
MUTED = "#6b7785"
GRID = "#e3e8ee"
CLEAN = "#1b2430"
PRIMARY = "#1f5f8b"
DANGER = "#c0392b"
WARN = "#d98c00"
OK = "#2e7d4f"

# Mechanism families keep one hue; chunk sizes are shades of it, so the legend reads as groups.
MECHANISM_COLORS: dict[str, str] = {
    "clean": CLEAN,
    "original": CLEAN,
    "LPA": "#d55e00",
    "FPA": "#e69f00",
    "CFPA-32": "#0b4f7c",
    "CFPA-64": "#2f7fb8",
    "CFPA-128": "#7fb6dd",
    "DCFPA-32": "#136f44",
    "DCFPA-64": "#3a9e6a",
    "DCFPA-128": "#86cfa3",
    "Steil (faithful)": "#7b4ea3",
    "Steil (as published)": "#b39ddb",
    "Gaussian": "#0072b2",
    "Laplace": "#d55e00",
    "noise-free": "#6b7785",
    "random selection": "#cc79a7",
    "difference": "#009e73",
}
CATEGORY = ["#0072b2", "#d55e00", "#009e73", "#e69f00", "#cc79a7", "#56b4e9", "#f0e442", "#6b7785"]

# Sequential scale for densities: transparent at zero so the stimulus stays visible under a heatmap.
HEAT_SCALE = [
    [0.0, "rgba(255,255,255,0)"],
    [0.08, "rgba(49,54,149,0.35)"],
    [0.3, "rgba(69,117,180,0.6)"],
    [0.5, "rgba(254,224,144,0.75)"],
    [0.75, "rgba(244,109,67,0.85)"],
    [1.0, "rgba(165,0,38,0.95)"],
]
DIVERGING = "RdBu_r"


def _template() -> go.layout.Template:
    """Build the EyeDP Plotly template (fonts, grid, colourway)."""
    t = go.layout.Template()
    t.layout = go.Layout(
        font=dict(family="Inter, Segoe UI, Helvetica, Arial, sans-serif", size=13, color=INK),
        colorway=CATEGORY,
        paper_bgcolor="white",
        plot_bgcolor="white",
        margin=dict(l=60, r=20, t=50, b=50),
        title=dict(font=dict(size=15), x=0.0, xanchor="left"),
        xaxis=dict(gridcolor=GRID, zerolinecolor=GRID, linecolor=MUTED, ticks="outside"),
        yaxis=dict(gridcolor=GRID, zerolinecolor=GRID, linecolor=MUTED, ticks="outside"),
        legend=dict(bgcolor="rgba(255,255,255,0.8)", bordercolor=GRID, borderwidth=1),
        hoverlabel=dict(font_size=12),
    )
    return t


pio.templates["eyedp"] = _template()
pio.templates.default = "eyedp"


def color_for(name: str, index: int = 0) -> str:
    """Mechanism or series name -> its fixed colour (falls back to the category cycle)."""
    return MECHANISM_COLORS.get(name, CATEGORY[index % len(CATEGORY)])


def style(fig: go.Figure, height: int = 380, title: str | None = None) -> go.Figure:
    """Figure -> the same figure with the EyeDP template, a height and an optional title."""
    fig.update_layout(template="eyedp", height=height)
    if title is not None:
        fig.update_layout(title=title)
    return fig


def inject_css() -> None:
    """Load assets/style.css into the page (small visual polish on top of the Streamlit theme)."""
    css = (ROOT / "assets" / "style.css").read_text(encoding="utf-8")
    st.html(f"<style>{css}</style>")
