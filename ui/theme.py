"""One colour scheme and one Plotly template for every chart in EyeDP."""
from __future__ import annotations

from pathlib import Path

import numpy as np
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


def _rgba(text: str) -> tuple[float, float, float, float]:
    """'rgba(r,g,b,a)', 'rgb(r,g,b)' or '#rrggbb' -> (r, g, b, a) floats (r, g, b in 0..255, a in 0..1)."""
    t = text.strip()
    if t.startswith("#"):
        return float(int(t[1:3], 16)), float(int(t[3:5], 16)), float(int(t[5:7], 16)), 1.0
    parts = [float(p) for p in t[t.index("(") + 1:t.index(")")].split(",")]
    return parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0


def rgba(color: str, alpha: float) -> str:
    """'#rrggbb' colour and opacity in, 'rgba(r,g,b,a)' out (other colour strings are returned unchanged)."""
    if not (color.startswith("#") and len(color) == 7):
        return color
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def heat_lut(size: int = 256) -> np.ndarray:
    """Number of levels -> (size, 4) uint8 RGBA look-up table interpolated from HEAT_SCALE (level 0 transparent)."""
    stops = np.array([s for s, _ in HEAT_SCALE], dtype=float)
    cols = np.array([_rgba(c) for _, c in HEAT_SCALE], dtype=float)
    cols[:, 3] *= 255.0
    x = np.linspace(0.0, 1.0, size)
    lut = np.stack([np.interp(x, stops, cols[:, k]) for k in range(4)], axis=1)
    return np.clip(np.rint(lut), 0, 255).astype(np.uint8)
