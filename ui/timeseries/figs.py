"""Time-series view, figures: Plotly builders for the preview, utility versus ε, k, correlation, accounting, Steil."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from eyedp_core.dp.registry import Mech
from ui import theme
from ui.text import html_text
from ui.widgets import fmt_num

MODE_TITLES = {"paper": "As in the paper (ε per chunk / per series)",
               "participant": "Same total ε per participant"}
DB_TITLE = "utility 10·log₁₀(1/NMSE) (dB)"


def time_axis(length: int, step_s: float | None) -> tuple[np.ndarray, str]:
    """Public length and seconds per window in, x values and the axis title out."""
    if step_s:
        return np.arange(length) * step_s, "time (s, window start)"
    return np.arange(length, dtype=float), "window (index)"


@dataclass(frozen=True, eq=False)
class TimeAxes:
    """The frame of a time-series chart: the time axis and its title, the y title and the chart title."""

    t: np.ndarray
    t_title: str
    y_title: str
    title: str


def preview_figure(axes: TimeAxes, clean: np.ndarray, noisy: np.ndarray, paper: np.ndarray | None, label: str,
                   true_length: int, chunk: int | None, zoom: tuple[float, float] | None) -> go.Figure:
    """Clean and noisy series of one recording (and the paper's DCFPA step 3) in, the preview chart out."""
    t = axes.t
    fig = go.Figure()
    if paper is not None:
        fig.add_scatter(x=t, y=paper, name="DCFPA as printed in the paper (x̃ₜ = d̃ₜ + d̃ₜ₋₁) — wrong",
                        line=dict(color=theme.DANGER, width=1, dash="dot"), opacity=0.8)
    fig.add_scatter(x=t, y=noisy, name=f"noisy: {label}" + (" (cumulative sum, correct)" if paper is not None else ""),
                    line=dict(color=theme.color_for(label, 1), width=1.3))
    fig.add_scatter(x=t, y=clean, name="clean (clamped to the bounds)", line=dict(color=theme.CLEAN, width=2.2))
    shapes = []
    if chunk and chunk < len(t):
        # Chunk boundaries as ONE dotted trace broken by gaps: a shape per boundary costs the browser far more.
        step = t[1] - t[0] if len(t) > 1 else 1.0
        xs = t[0] + (np.arange(chunk, len(t), chunk) - 0.5) * step
        lo_y = float(min(np.min(clean), np.min(noisy))) if zoom is None else zoom[0] - 0.15 * (zoom[1] - zoom[0])
        hi_y = float(max(np.max(clean), np.max(noisy))) if zoom is None else zoom[1] + 0.15 * (zoom[1] - zoom[0])
        fig.add_scatter(x=np.repeat(xs, 3), y=np.tile([lo_y, hi_y, np.nan], xs.size), mode="lines",
                        line=dict(color=theme.GRID, width=1, dash="dot"), name="chunk boundaries",
                        hoverinfo="skip", showlegend=False)
    if true_length < len(t):
        shapes.append(dict(type="rect", xref="x", yref="paper", x0=t[true_length - 1], x1=t[-1], y0=0, y1=1,
                           fillcolor="rgba(107,119,133,0.10)", line_width=0, layer="below"))
        fig.add_annotation(x=t[-1], y=1, xref="x", yref="paper", xanchor="right", yanchor="top", showarrow=False,
                           text="padding to the public T", font=dict(size=11, color=theme.MUTED))
    fig.update_layout(shapes=shapes, xaxis_title=axes.t_title, yaxis_title=axes.y_title,
                      legend=dict(orientation="h", y=-0.22, x=0), margin=dict(b=90))
    if zoom is not None:
        pad = 0.15 * (zoom[1] - zoom[0])
        fig.update_yaxes(range=[zoom[0] - pad, zoom[1] + pad])
    return theme.style(fig, 430, axes.title)


def utility_figure(table: pd.DataFrame, modes: list[str], labels: list[str], current: tuple[str, float],
                   run_band: bool, x_titles: dict[str, str]) -> go.Figure:
    """Sweep table in, utility (dB) against log ε, one colour per mechanism, one facet per accounting mode."""
    fig = make_subplots(rows=1, cols=len(modes), shared_yaxes=True, horizontal_spacing=0.06,
                        subplot_titles=[MODE_TITLES[m] for m in modes])
    for col, mode in enumerate(modes, start=1):
        part = table[table["mode"] == mode]
        for i, label in enumerate(labels):
            d = part[part["mechanism"] == label].sort_values("epsilon")
            if d.empty:
                continue
            color = theme.color_for(label, i)
            x = d["epsilon"].to_numpy()
            bands = [("utility_db_lo", "utility_db_hi", 0.22)]
            if run_band:
                bands.append(("utility_db_run_lo", "utility_db_run_hi", 0.10))
            for lo, hi, alpha in bands:
                fig.add_scatter(x=np.r_[x, x[::-1]], y=np.r_[d[hi].to_numpy(), d[lo].to_numpy()[::-1]],
                                fill="toself", fillcolor=theme.rgba(color, alpha), line=dict(width=0), hoverinfo="skip",
                                legendgroup=label, showlegend=False, row=1, col=col)
            mech, _ = Mech.parse(label)
            dash = "dash" if mech is Mech.DCFPA else ("dot" if mech in (Mech.LPA, Mech.FPA) else "solid")
            fig.add_scatter(x=x, y=d["utility_db"], mode="lines+markers", name=label, legendgroup=label,
                            showlegend=col == 1, line=dict(color=color, width=2, dash=dash), marker=dict(size=5),
                            customdata=np.c_[d["eps_invocation"], d["eps_participant"], d["k_median"]],
                            hovertemplate=(f"{label}<br>ε = %{{x:.3g}}<br>utility %{{y:.1f}} dB<br>ε per invocation "
                                           "%{customdata[0]:.3g}<br>ε per participant %{customdata[1]:.3g}"
                                           "<br>median k %{customdata[2]:.0f}<extra></extra>"),
                            row=1, col=col)
        fig.update_xaxes(type="log", title_text=x_titles[mode], exponentformat="power", row=1, col=col)
        if current[0] == mode:
            # On a log axis shapes take data values but annotations take log10 of them.
            fig.add_vline(x=current[1], line=dict(color=theme.MUTED, dash="dash", width=1), row=1, col=col)
            fig.add_annotation(x=np.log10(current[1]), y=1, yref="y domain", text=f"your ε = {fmt_num(current[1])}",
                               showarrow=False, xanchor="left", yanchor="top", font=dict(size=11, color=theme.MUTED),
                               row=1, col=col)
    fig.update_yaxes(title_text=DB_TITLE, row=1, col=1)
    fig.add_hline(y=0, line=dict(color=theme.MUTED, width=1))
    fig.update_layout(legend=dict(orientation="h", y=-0.2, x=0), margin=dict(b=95, t=70))
    return theme.style(fig, 500, "Utility against ε (the shape of Bozkir et al.'s Figure 2; 0 dB = noise as large as "
                                 "the signal's variance)")


def k_figure(curve: pd.DataFrame, marks: dict[str, int], search: pd.DataFrame | None, y_unit: str) -> go.Figure:
    """Expected error over k (and the paper's search) in, the choice-of-k chart with the candidate ks marked."""
    fig = go.Figure()
    parts = [("total_per_sample", "expected total error", theme.INK, "solid"),
             ("reconstruction_per_sample", "dropped signal RE(k) (reads the data)", theme.CATEGORY[2], "dot"),
             ("perturbation_per_sample", "noise h(k)·Δ₂²/ε² (data-free)", theme.CATEGORY[1], "dash")]
    top = float(np.nanmax(curve["total_per_sample"].to_numpy()))
    values = curve[[p[0] for p in parts]].to_numpy().ravel()
    floor = max(float(np.min(values[values > 0])) / 2, top / 1e9)
    for col, name, color, dash in parts:
        y = curve[col].where(curve[col] > 0)  # log axis: an exact zero (every bin kept) is left out
        fig.add_scatter(x=curve["k"], y=y, name=name, mode="lines",
                        line=dict(color=color, dash=dash, width=2.6 if dash == "solid" else 1.8))
    if search is not None:
        fig.add_scatter(x=search["k"], y=search["error"], name="paper's search: mean over R noisy draws",
                        mode="markers", marker=dict(color=theme.CATEGORY[4], size=6, symbol="circle-open"))
    colors = {"rule": theme.OK, "analytic": theme.PRIMARY, "optimal": theme.DANGER, "current": theme.MUTED}
    by_k: dict[int, list[str]] = {}
    for name, k in marks.items():
        by_k.setdefault(int(k), []).append(name)
    log_x = len(curve) > 40
    for i, (k, names) in enumerate(sorted(by_k.items())):
        color = colors.get(names[0].split(" ")[0], theme.MUTED)
        fig.add_vline(x=k, line=dict(color=color, dash="dash", width=1.4))
        # Annotations on a log axis take log10 of the data value (shapes do not).
        fig.add_annotation(x=np.log10(k) if log_x else k, y=1, yref="paper", yshift=-18 * i, showarrow=False,
                           xanchor="left", yanchor="top", text=" = ".join(names) + f": k = {k}",
                           font=dict(size=11, color=color), bgcolor="rgba(255,255,255,0.8)")
    fig.update_layout(xaxis_title="k (retained Fourier coefficients per invocation)",
                      yaxis=dict(type="log", range=[np.log10(floor), np.log10(top) + 0.6], exponentformat="power",
                                 title=f"expected squared error per sample ({y_unit})" if y_unit else
                                 "expected squared error per sample"),
                      legend=dict(orientation="h", y=-0.22, x=0), margin=dict(b=90, t=60))
    if log_x:
        fig.update_xaxes(type="log", title_text="k (retained Fourier coefficients, log scale)")
    return theme.style(fig, 430, "Why this k: the dropped signal falls and the noise grows with k")


def correlation_figure(curves: pd.DataFrame, step_s: float | None, label: str, feature: str,
                       task: str | None) -> go.Figure:
    """Tidy correlation curves (signal, lag, cc) in, CC against Δt for original, difference and noisy."""
    fig = go.Figure()
    scale = step_s or 1.0
    names = {"original": "original signal", "difference": "difference signal (DCFPA's input)",
             "noisy": f"noisy ({label})"}
    for sig, d in curves.groupby("signal", sort=False):
        color = theme.color_for(label, 1) if sig == "noisy" else theme.color_for(str(sig))
        fig.add_scatter(x=d["lag"] * scale, y=d["cc"], name=names.get(str(sig), str(sig)), mode="lines",
                        line=dict(color=color, width=2.4 if sig == "original" else 1.6))
    fig.add_hline(y=0, line=dict(color=theme.MUTED, width=1))
    fig.update_layout(xaxis_title="time difference Δt (s)" if step_s else "time difference Δt (windows)",
                      yaxis_title="correlation across participants", yaxis_range=[-1.05, 1.05],
                      legend=dict(orientation="h", y=-0.22, x=0), margin=dict(b=90))
    where = f", {html_text(task)}" if task else ""
    return theme.style(fig, 420, f"{html_text(feature)}{where}: CC with the 5th sample vs Δt")


def acf_figure(table: pd.DataFrame, step_s: float | None) -> go.Figure:
    """Tidy per-participant ACF (signal, participant, lag, acf) in, thin line per participant, bold mean."""
    fig = go.Figure()
    scale = step_s or 1.0
    for sig, d in table.groupby("signal", sort=False):
        color = theme.color_for(str(sig))
        # Every participant's line in one trace, broken by a gap between participants: one trace builds and draws
        # far faster than one per participant, and looks the same.
        gap = d["participant"].ne(d["participant"].shift()).to_numpy()
        lag = np.insert((d["lag"] * scale).to_numpy(float), np.flatnonzero(gap[1:]) + 1, np.nan)
        val = np.insert(d["acf"].to_numpy(float), np.flatnonzero(gap[1:]) + 1, np.nan)
        fig.add_scatter(x=lag, y=val, mode="lines", line=dict(color=theme.rgba(color, 0.25), width=1),
                        legendgroup=str(sig), showlegend=False, hoverinfo="skip", connectgaps=False)
        mean = d.groupby("lag")["acf"].mean()
        fig.add_scatter(x=mean.index * scale, y=mean.to_numpy(), mode="lines", name=f"{sig}: mean over participants",
                        legendgroup=str(sig), line=dict(color=color, width=2.6))
    fig.add_hline(y=0, line=dict(color=theme.MUTED, width=1))
    fig.update_layout(xaxis_title="lag (s)" if step_s else "lag (windows)", yaxis_title="autocorrelation",
                      yaxis_range=[-1.05, 1.05], legend=dict(orientation="h", y=-0.22, x=0), margin=dict(b=90))
    return theme.style(fig, 420, "Autocorrelation of each participant's series (thin lines)")


KIND_COLORS = {"as in the paper": theme.WARN, "per unit": theme.MUTED, "rigorous": theme.OK,
               "rigorous (ε, δ)": theme.PRIMARY, "model-based estimate": "#7b4ea3", "no guarantee": theme.DANGER}


def accounting_figure(rows: pd.DataFrame) -> go.Figure:
    """Table scope, epsilon, kind in, horizontal bars of ε (log) coloured by how rigorous each number is."""
    d = rows[np.isfinite(rows["epsilon"]) & (rows["epsilon"] > 0)].iloc[::-1]
    text = [f"{v:,.0f}" if v >= 1000 else fmt_num(v) for v in d["epsilon"]]
    fig = go.Figure(go.Bar(x=d["epsilon"], y=d["scope"], orientation="h", text=text,
                           textposition="outside", cliponaxis=False,
                           marker_color=[KIND_COLORS.get(k, theme.MUTED) for k in d["kind"]],
                           customdata=d["kind"], hovertemplate="%{y}<br>ε = %{x:.4g}<br>%{customdata}<extra></extra>"))
    hi = float(d["epsilon"].max()) if len(d) else 1.0
    lo = float(d["epsilon"].min()) if len(d) else 1.0
    fig.update_layout(xaxis=dict(type="log", title="ε (log scale; bigger = weaker privacy)",
                                 range=[np.log10(lo) - 0.5, np.log10(hi) + 0.8], exponentformat="power"),
                      yaxis=dict(automargin=True), showlegend=False, margin=dict(l=20, r=40, t=50, b=55))
    return theme.style(fig, 120 + 44 * len(d), "The same release, counted at different scopes")


def tpl_figure(tpl: pd.DataFrame, group: float) -> go.Figure:
    """Cao et al. BPL/FPL/TPL per chunk in, leakage over the chunks of one series with the group bound."""
    fig = go.Figure()
    for col, name, color in [("bpl", "backward leakage BPL", theme.CATEGORY[0]),
                             ("fpl", "forward leakage FPL", theme.CATEGORY[1]),
                             ("tpl", "temporal leakage TPL (model-based)", "#7b4ea3")]:
        fig.add_scatter(x=tpl["t"], y=tpl[col], name=name, mode="lines+markers", marker=dict(size=4),
                        line=dict(color=color, width=2.4 if col == "tpl" else 1.4))
    fig.add_hline(y=group, line=dict(color=theme.OK, dash="dash"),
                  annotation_text=f"group bound C·ε = {fmt_num(group)} (rigorous)", annotation_position="top left")
    fig.update_layout(xaxis_title="chunk of the series (t)", yaxis_title="ε leaked about one chunk",
                      legend=dict(orientation="h", y=-0.25, x=0), margin=dict(b=90))
    return theme.style(fig, 380, "Markov-model leakage about one chunk (Cao et al.) across the chunks")


def steil_figure(axes: TimeAxes, clean: np.ndarray, pos: np.ndarray, values: np.ndarray, name: str, color: str,
                 clean_name: str = "clean (clamped)") -> go.Figure:
    """Clean series and one Steil output (released samples at their positions) in, the Steil chart out."""
    fig = go.Figure()
    fig.add_scatter(x=axes.t, y=clean, name=clean_name, line=dict(color=theme.CLEAN, width=2))
    fig.add_scatter(x=axes.t[pos], y=values, name=name, mode="markers+lines",
                    line=dict(color=theme.rgba(color, 0.5), width=1), marker=dict(color=color, size=6))
    fig.update_layout(xaxis_title=axes.t_title, yaxis_title=axes.y_title, legend=dict(orientation="h", y=-0.22, x=0),
                      margin=dict(b=90))
    return theme.style(fig, 380, axes.title)


def forms_figure(rows: list, target_db: float, current_eps: float, eps_range: tuple[float, float]) -> go.Figure:
    """Release-form rows in, expected utility (dB) against ε per person (log), the target and the crossings marked."""
    eps = np.logspace(np.log10(eps_range[0]), np.log10(eps_range[1]), 61)
    fig = go.Figure()
    for i, r in enumerate(rows):
        color = theme.color_for(r.label, i)
        # Utility grows as ε² (20 dB per decade): the line through the current point.
        y = r.utility_db + 20.0 * np.log10(eps / r.setting.epsilon)
        dash = "dot" if "shown feature only" in r.label else "solid"
        fig.add_scatter(x=eps, y=y, mode="lines", name=r.label, line=dict(color=color, width=2, dash=dash),
                        hovertemplate=f"{r.label}<br>ε = %{{x:.3g}}<br>%{{y:.1f}} dB<extra></extra>")
        if eps_range[0] <= r.crossing_epsilon <= eps_range[1]:
            fig.add_scatter(x=[r.crossing_epsilon], y=[target_db], mode="markers", showlegend=False,
                            marker=dict(color=color, size=9, symbol="circle-open", line=dict(width=2)),
                            hovertemplate=f"{r.label}: {target_db:g} dB from ε = %{{x:.3g}}<extra></extra>")
    fig.add_hline(y=target_db, line=dict(color=theme.MUTED, width=1, dash="dash"))
    fig.add_vline(x=current_eps, line=dict(color=theme.MUTED, dash="dot", width=1))
    fig.update_xaxes(type="log", title_text="ε per person (total)", exponentformat="power")
    fig.update_yaxes(title_text="expected " + DB_TITLE, range=[-80, 60])
    fig.update_layout(legend=dict(orientation="h", y=-0.25, x=0), margin=dict(b=120, t=60))
    return theme.style(fig, 460, f"Release forms: expected utility against ε (target {target_db:g} dB, circles mark "
                                 "where each form reaches it)")
