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


TEMPLATE = _template()
pio.templates["eyedp"] = TEMPLATE
pio.templates.default = "eyedp"


def color_for(name: str, index: int = 0) -> str:
    """Mechanism or series name -> its fixed colour (falls back to the category cycle)."""
    return MECHANISM_COLORS.get(name, CATEGORY[index % len(CATEGORY)])


def _has_eyedp_template(fig: go.Figure) -> bool:
    """Whether the figure will be drawn with the EyeDP template without assigning it again."""
    own = getattr(fig.layout, "_props", {}).get("template")  # set explicitly on this figure, or None
    if own is None:
        return pio.templates.default == "eyedp"  # plotly applies the default once, when serialising
    return own is TEMPLATE or own == TEMPLATE.to_plotly_json()


def style(fig: go.Figure, height: int = 380, title: str | None = None) -> go.Figure:
    """Figure -> the same figure with the EyeDP template, a height and an optional title.

    Assigning a template by name validates and deep-copies it (thousands of copies per page run), so the
    template is set only when the figure would not get it anyway as plotly's default."""
    layout: dict = {"height": height}
    if title is not None:
        layout["title"] = title
    if not _has_eyedp_template(fig):
        layout["template"] = TEMPLATE
    fig.update_layout(**layout)
    return fig


def inject_css() -> None:
    """Load assets/style.css into the page (small visual polish on top of the Streamlit theme)."""
    css = (ROOT / "assets" / "style.css").read_text(encoding="utf-8")
    st.html(f"<style>{css}</style>")


def rgba(color: str, alpha: float) -> str:
    """'#rrggbb' colour and opacity in, 'rgba(r,g,b,a)' out (other colour strings are returned unchanged)."""
    if not (color.startswith("#") and len(color) == 7):
        return color
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"
