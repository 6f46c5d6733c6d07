"""Plotly figures of the Heatmaps view: overlays with a shared colour bar, ε-curves, the cap curve, the
noise calculator, the attack and the planning charts. Builders only: no Streamlit calls, no computing."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from eyedp_core.dp.registry import HEATMAP, Family
from eyedp_core.heatmaps.colour import HEAT_SCALE
from ui import theme

# Keyed by the registry's families (their stored names look them up too: Family is a StrEnum).
MECH_LABEL: dict[Family, str] = {m.family: m.family.value.capitalize() for m in HEATMAP}


@dataclass(frozen=True)
class BandStyle:
    """How a mean line with its band is drawn: legend name, colour, whether it shows in the legend, line dash."""

    name: str
    color: str
    legend: bool = True
    dash: str | None = None


def _band(fig: go.Figure, x: np.ndarray, mean: np.ndarray, sd: np.ndarray, style: BandStyle,
          at: tuple[int, int] | None = None) -> None:
    """Add a mean line with a ±1 sd band (filled) to a figure, in subplot `at` = (row, col) when given."""
    name, color, legend, dash = style.name, style.color, style.legend, style.dash
    sd = np.nan_to_num(np.asarray(sd, dtype=float))
    kw = dict(row=at[0], col=at[1]) if at else {}
    fig.add_trace(go.Scatter(x=np.r_[x, x[::-1]], y=np.r_[mean + sd, (mean - sd)[::-1]], fill="toself",
                             mode="lines",
                             fillcolor=theme.rgba(color, 0.18), line=dict(width=0), hoverinfo="skip",
                             showlegend=False, legendgroup=name), **kw)
    fig.add_trace(go.Scatter(x=x, y=mean, name=name, legendgroup=name, showlegend=legend, mode="lines+markers",
                             line=dict(color=color, width=2, dash=dash), marker=dict(size=5)), **kw)


def overlay_figure(uri: str, width: int, height: int, display_w: int, vmax: float, title: str, unit: str,
                   fig_height: int = 430) -> go.Figure:
    """Overlay image (data URI, display_w px wide), stimulus size, colour range and labels -> figure with a
    colour bar; the axes are in stimulus pixels."""
    fig = go.Figure()
    plot_h = max(fig_height - 135, 60)
    s = width / display_w  # the source is drawn at its own pixel size: scale it to stimulus pixels
    fig.add_trace(go.Image(source=uri, x0=s / 2, y0=s / 2, dx=s, dy=s, hoverinfo="skip"))
    # The colour bar comes from an invisible scatter with the same colour scale and range as the image;
    # it sits under the image so that the image can use the full width of its column.
    fig.add_trace(go.Scatter(
        x=[None], y=[None], mode="markers", hoverinfo="skip", showlegend=False,
        marker=dict(colorscale=HEAT_SCALE, cmin=0.0, cmax=vmax, color=[0.0], showscale=True,
                    colorbar=dict(title=dict(text=unit, side="top", font=dict(size=12)), orientation="h",
                                  x=0.5, xanchor="center", y=-40 / plot_h, yanchor="top", len=1.0, thickness=10,
                                  outlinewidth=0, tickformat=".2g", ypad=0))))
    fig.update_xaxes(range=[0, width], ticksuffix=" px", showgrid=False, zeroline=False, constrain="domain")
    fig.update_yaxes(range=[height, 0], ticksuffix=" px", showgrid=False, zeroline=False,
                     scaleanchor="x", constrain="domain")
    fig.update_layout(margin=dict(l=10, r=10, t=40, b=95))
    return theme.style(fig, fig_height, title)


def curves_figure(summary: pd.DataFrame, current_eps: float, mse_unit: str) -> go.Figure:
    """summarize_curves table and the current ε -> CC (and hot spots kept, dashed, when the table has them) and MSE
    versus ε with ±1 sd bands (Liu Figure 3)."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("CC (solid) and hot spots kept (dashed)", "Mean squared error (MSE)"))
    for i, (mech, g) in enumerate(summary.groupby("mechanism", sort=False)):
        g = g.sort_values("eps")
        name = MECH_LABEL.get(Family(mech), mech)
        color = theme.color_for(name)
        x = g["eps"].to_numpy()
        _band(fig, x, g["cc_mean"].to_numpy(), g["cc_sd"].to_numpy(), BandStyle(name, color), (1, 1))
        if "kept_mean" in g and g["kept_mean"].notna().any():
            _band(fig, x, g["kept_mean"].to_numpy(), g["kept_sd"].to_numpy(),
                  BandStyle(f"{name}: hot spots kept", color, dash="dash"), (1, 1))
        _band(fig, x, g["mse_mean"].to_numpy(), g["mse_sd"].to_numpy(), BandStyle(name, color, legend=False), (1, 2))
    move_eps_marker(fig, current_eps)
    fig.update_xaxes(type="log", title_text="ε (log scale)", tickvals=[0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100])
    fig.update_yaxes(title_text="CC / share of hot spots kept", range=[-0.1, 1.05], row=1, col=1)
    fig.update_yaxes(title_text=f"MSE ({mse_unit}², log)", type="log", dtick=1, row=1, col=2)
    fig.update_layout(legend=dict(orientation="h", y=-0.22, x=0))
    return theme.style(fig, 420)


def move_eps_marker(fig: go.Figure, current_eps: float) -> go.Figure:
    """ε-curves figure and the current ε -> the same figure with its dotted "current ε" lines moved there
    (the curves themselves are not rebuilt)."""
    line = dict(color=theme.MUTED, dash="dot", width=1.5)
    fig.layout.shapes = [dict(type="line", xref=x, yref=f"{y} domain", x0=current_eps, x1=current_eps, y0=0, y1=1,
                              line=line) for x, y in (("x", "y"), ("x2", "y2"))]
    return fig


def cap_figure(m: np.ndarray, mse: np.ndarray, bias: np.ndarray, var: np.ndarray, m_opt: float,
               m_now: float, unit: str) -> go.Figure:
    """Algorithm 1's curve pieces, its minimiser and the current cap -> E[MSE] versus m chart."""
    fig = go.Figure()
    fig.add_scatter(x=m, y=mse, name="E[MSE] = variance + bias²", mode="lines+markers",
                    line=dict(color=theme.PRIMARY, width=2.5))
    fig.add_scatter(x=m, y=var, name="noise variance (grows with m)", mode="lines",
                    line=dict(color=theme.color_for("Laplace"), dash="dash"))
    fig.add_scatter(x=m, y=np.maximum(bias, 1e-30), name="squared bias of the cap (shrinks with m)",
                    mode="lines", line=dict(color=theme.color_for("difference"), dash="dot"))
    fig.add_vline(x=m_opt, line=dict(color=theme.DANGER, dash="dash"),
                  annotation_text=f"Algorithm 1: m = {m_opt:g}", annotation_position="top right")
    if m_now != m_opt:
        fig.add_vline(x=m_now, line=dict(color=theme.MUTED, dash="dot"),
                      annotation_text=f"current m = {m_now:g}", annotation_position="bottom right")
    positive = np.concatenate([mse, var, bias])
    positive = positive[positive > 0]
    lo = float(positive.min()) if positive.size else 1e-12
    top = max(float(np.max(mse)), 1e-300)
    fig.update_yaxes(type="log", title_text=f"per-cell error ({unit}², log)",
                     range=[np.log10(max(lo, top * 1e-8)) - 0.2, np.log10(top) + 0.3])
    fig.update_xaxes(title_text=f"cap m ({unit} per cell)")
    fig.update_layout(legend=dict(orientation="h", y=-0.25, x=0))
    return theme.style(fig, 400, "Liu's Theorem 4.1: expected MSE of the noisy map versus the cap m")


def calculator_contour(surface: pd.DataFrame, target: float, n_now: int, sqrt_r_now: float) -> go.Figure:
    """noise_surface table, target std and the current (n, √r) -> contour map of log10 σ (Figure 2a)."""
    piv = surface.pivot(index="sqrt_r", columns="n", values="std")
    z = np.log10(piv.to_numpy())
    fig = go.Figure(go.Contour(
        x=piv.columns.to_numpy(), y=piv.index.to_numpy(), z=z, colorscale="Viridis", ncontours=18,
        contours=dict(showlabels=False), line=dict(width=0.5),
        colorbar=dict(title=dict(text="log₁₀ noise std", side="right"), thickness=12),
        hovertemplate="n = %{x:,.0f}<br>√r = %{y:.0f}<br>log₁₀ σ = %{z:.2f}<extra></extra>"))
    fig.add_trace(go.Contour(
        x=piv.columns.to_numpy(), y=piv.index.to_numpy(), z=z, showscale=False, hoverinfo="skip",
        contours=dict(start=np.log10(target), end=np.log10(target), size=1, coloring="none",
                      showlabels=False), line=dict(color="white", width=3, dash="dash"), showlegend=False))
    fig.add_scatter(x=[n_now], y=[sqrt_r_now], mode="markers+text", text=["this study"],
                    textposition="top right", marker=dict(symbol="x", size=12, color="white",
                                                          line=dict(color=theme.INK, width=1.5)),
                    textfont=dict(color="white"), showlegend=False)
    fig.update_xaxes(type="log", title_text="observers n (log scale)")
    fig.update_yaxes(title_text="grid side √r (cells)")
    return theme.style(fig, 420, f"Noise std per cell (white dashed line: target σ = {target:.3g})")


def calculator_slice(n: np.ndarray, series: dict[str, tuple[np.ndarray, str, str | None]], target: float,
                     n_now: int, sqrt_r: float) -> go.Figure:
    """Observer counts, named std series (values, colour/dash) and the target -> σ versus n (Figure 2b)."""
    fig = go.Figure()
    for name, (y, color, dash) in series.items():
        fig.add_scatter(x=n, y=y, name=name, mode="lines", line=dict(color=color, dash=dash, width=2))
    # Shapes, not add_hline/add_vline annotations: those misplace text on log axes (x = 40 drawn at 10^40).
    fig.add_shape(type="line", xref="paper", x0=0, x1=1, y0=target, y1=target,
                  line=dict(color=theme.INK, dash="dot"))
    fig.add_shape(type="line", yref="paper", y0=0, y1=1, x0=n_now, x1=n_now,
                  line=dict(color=theme.MUTED, dash="dot"))
    fig.add_annotation(xref="paper", x=0.99, y=np.log10(target), text=f"target σ = {target:.3g}", showarrow=False,
                       xanchor="right", yanchor="bottom", font=dict(size=11))
    fig.add_annotation(x=np.log10(n_now), yref="paper", y=0.02, text=f" n = {n_now}", showarrow=False,
                       xanchor="left", yanchor="bottom", font=dict(size=11, color=theme.MUTED))
    fig.update_xaxes(type="log", title_text="observers n (log scale)", dtick=1)
    fig.update_yaxes(type="log", title_text="noise std per cell (log scale)", dtick=1)
    fig.update_layout(legend=dict(orientation="h", y=-0.25, x=0))
    return theme.style(fig, 420, f"Slice at √r = {sqrt_r:.0f} (r = {int(round(sqrt_r ** 2)):,} cells)")


def attack_figure(table: pd.DataFrame) -> go.Figure:
    """attack_demo table -> bar chart of the reconstruction error of the target's map per mechanism."""
    colors = {"noise-free": theme.color_for("noise-free"), "rs1": theme.color_for("random selection"),
              "rs2": theme.color_for("random selection"), Family.GAUSSIAN.value: theme.color_for("Gaussian"),
              Family.LAPLACE.value: theme.color_for("Laplace")}
    y = np.maximum(table["mse"].to_numpy(dtype=float), 1e-16)
    text = ["exact" if e else f"{v:.2g}" for e, v in zip(table["exact_recovery"], table["mse"])]
    short = {"noise-free": "noise-free<br>mean", "rs1": "random sel.<br>w/o replacement",
             "rs2": "random sel.<br>with replacement", Family.GAUSSIAN.value: "Gaussian<br>noise",
             Family.LAPLACE.value: "Laplace<br>noise"}
    mechs = list(table["mechanism"])
    fig = go.Figure(go.Bar(x=[short.get(m, m) for m in mechs], y=y,
                           marker_color=[colors.get(m, theme.MUTED) for m in mechs],
                           text=text, textposition="outside", cliponaxis=False,
                           hovertemplate="%{x}<br>MSE %{y:.3g}<extra></extra>"))
    fig.update_yaxes(type="log", title_text="MSE per cell (log; 1e-16 = exact)", dtick=4)
    fig.update_xaxes(title_text=None, tickangle=0)
    fig.update_layout(margin=dict(t=60))
    return theme.style(fig, 380, "How well the attacker recovers the target's capped map")


def plan_figure(plan: pd.DataFrame, n_now: int) -> go.Figure:
    """plan_study table -> CC (mean ± sd) and noise std versus the hypothetical study size N."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("CC with the clean heatmap", "Noise std per cell"))
    x = plan["N"].to_numpy(dtype=float)
    color = theme.PRIMARY
    _band(fig, x, plan["cc_mean"].to_numpy(), plan["cc_sd"].to_numpy(), BandStyle("CC (planning)", color, legend=False),
          (1, 1))
    fig.add_scatter(x=x, y=plan["std"], mode="lines+markers", line=dict(color=color), showlegend=False,
                    row=1, col=2)
    for c in (1, 2):
        fig.add_vline(x=n_now, line=dict(color=theme.MUTED, dash="dot"), row=1, col=c)
    fig.update_xaxes(type="log", title_text="hypothetical observers N (log scale)", dtick=1)
    fig.update_yaxes(title_text="CC with the clean heatmap", range=[-0.1, 1.05], row=1, col=1)
    fig.update_yaxes(type="log", title_text="σ per cell (log)", dtick=1, row=1, col=2)
    fig.update_layout(margin=dict(t=80))
    return theme.style(fig, 400, "PLANNING ONLY — not a privacy guarantee for the observers at hand")
