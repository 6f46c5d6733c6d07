"""Attacks view, figures: clean baseline bars and accuracy versus ε per task (one colour per mechanism)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from eyedp_core.attacks.transition import epsilon_unit, strongest
from ui import theme
from ui.text import html_text

TASK_TITLES = {"task": "Document type (utility)", "gender": "Gender (no prior knowledge)",
               "identity": "Re-identification (prior knowledge)"}
SCENARIO_DASH = {"private": "solid", "clean": "dot", "same-release": "dash"}
SCENARIO_NAMES = {"clean": "trained on clean data", "private": "trained on its own release",
                  "same-release": "same release"}


def baseline_bars(base: pd.DataFrame) -> go.Figure:
    """Clean baseline table -> grouped bars (per window, majority vote) with the chance level marked."""
    fig = go.Figure()
    for i, col in enumerate(["per window", "majority vote"]):
        vals = base[col].astype(float)
        fig.add_bar(x=[html_text(a) for a in base["attack"]], y=vals, name=col, marker_color=theme.CATEGORY[i],
                    text=[f"{v:.2f}" if np.isfinite(v) else "" for v in vals], textposition="outside")
    fig.add_scatter(x=[html_text(a) for a in base["attack"]], y=base["chance"], mode="markers", name="chance level",
                    marker=dict(symbol="line-ew-open", size=40, color=theme.DANGER, line=dict(width=3)))
    fig.update_layout(yaxis_title="accuracy", yaxis_range=[0, 1.1], barmode="group")
    return theme.style(fig, 340, "Clean data, honest protocol: how well each attack works before any noise")


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """An ε range -> one labelled tick per decade that covers it ('0.1', '1', …, '1000', '10⁴', '10⁵', …)."""
    sup = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    first, last = int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi)))
    vals = [10.0 ** d for d in range(first, last + 1)]
    return vals, [f"{v:g}" if 0.01 <= v <= 1000 else "10" + str(d).translate(sup)
                  for v, d in zip(vals, range(first, last + 1), strict=True)]


def _epsilon_axes(fig: go.Figure, eps: pd.Series, cols: int, unit: str) -> None:
    """Every subplot's x axis: log ε with its unit in the title and every decade tick labelled."""
    e = eps.dropna().astype(float)
    lo, hi = (float(e.min()), float(e.max())) if not e.empty else (1.0, 10.0)
    vals, text = log_ticks(lo, hi)
    pad = 0.08 * max(np.log10(hi) - np.log10(lo), 1.0)
    for col in range(1, cols + 1):
        fig.update_xaxes(type="log", title_text=f"ε {unit}", tickvals=vals, ticktext=text,
                         range=[np.log10(lo) - pad, np.log10(hi) + pad], row=1, col=col)


CEILING_DASH = "dashdot"


def _reference_lines(fig: go.Figure, t: pd.DataFrame, x_range: tuple[float, float], col: int) -> None:
    """One task's chance level (red, dashed) and clean accuracy (grey) across the panel."""
    chance = float(t["chance"].mean())
    fig.add_scatter(x=list(x_range), y=[chance, chance], mode="lines", name="chance",
                    line=dict(color=theme.DANGER, dash="dash", width=1.5), legendgroup="chance",
                    showlegend=col == 1, row=1, col=col, hovertemplate=f"chance {chance:.2f}<extra></extra>")
    clean = t[t["mechanism"] == "clean"]
    if not clean.empty:
        c = float(clean["accuracy"].iloc[0])
        fig.add_scatter(x=list(x_range), y=[c, c], mode="lines", name="clean data", legendgroup="clean",
                        line=dict(color=theme.MUTED, width=1.5), showlegend=col == 1, row=1, col=col,
                        hovertemplate=f"clean {c:.2f}<extra></extra>")


def _ceiling_line(fig: go.Figure, m_all: pd.DataFrame, mech: str, color: str, col: int) -> None:
    """One mechanism's analytic ceiling (dash-dot), where known."""
    if "ceiling" in m_all and m_all["ceiling"].notna().any():
        ceil = m_all.groupby("epsilon", sort=True)["ceiling"].max().dropna()
        fig.add_scatter(x=ceil.index, y=ceil.to_numpy(float), mode="lines", name=f"{mech}: ceiling",
                        legendgroup=f"ceil-{mech}", showlegend=col == 1,
                        line=dict(color=color, dash=CEILING_DASH, width=1.2), opacity=0.7, row=1, col=col,
                        hovertemplate=f"{html_text(mech)}: the most any attacker can reach<br>ε = %{{x:g}}"
                                      "<br>ceiling %{y:.3f}<extra></extra>")


def _flagged_points(fig: go.Figure, m: pd.DataFrame, name: str, col: int, legend: bool) -> bool:
    """A line's measured points flagged above their ceiling as red ✕; whether any were drawn."""
    bad = m[m["defect"].fillna(False).astype(bool)] if "defect" in m else m.iloc[0:0]
    if bad.empty:
        return False
    fig.add_scatter(x=bad["epsilon"], y=bad["accuracy"], mode="markers", name="above its ceiling",
                    legendgroup="defect", showlegend=legend, row=1, col=col,
                    marker=dict(symbol="x", size=14, color=theme.DANGER, line=dict(width=2)),
                    customdata=bad["ceiling"].to_numpy(float),
                    hovertemplate=f"{name}: ABOVE ITS CEILING<br>ε = %{{x:g}}<br>accuracy %{{y:.2f}} "
                                  "> ceiling %{customdata:.3f}<extra></extra>")
    return True


def _mechanism_lines(fig: go.Figure, m_all: pd.DataFrame, mech: str, color: str, scenarios: list[str], col: int,
                     flagged_shown: bool) -> bool:
    """One mechanism's accuracy line per scenario with its flagged points; whether the flag's legend is shown."""
    for scen in scenarios:
        m = m_all[m_all["train_on"] == scen].sort_values("epsilon")
        if m.empty:
            continue
        name = mech if len(scenarios) == 1 else f"{mech}, {SCENARIO_NAMES.get(scen, scen)}"
        fig.add_scatter(x=m["epsilon"], y=m["accuracy"], mode="lines+markers", name=name, legendgroup=name,
                        showlegend=col == 1, line=dict(color=color, dash=SCENARIO_DASH.get(scen, "solid")),
                        error_y=dict(type="data", array=m["accuracy_sd"], visible=bool((m["runs"] > 1).any())),
                        row=1, col=col,
                        hovertemplate=f"{name}<br>ε = %{{x:g}}<br>accuracy %{{y:.2f}}<extra></extra>")
        flagged_shown = _flagged_points(fig, m, name, col, not flagged_shown) or flagged_shown
    return flagged_shown


def accuracy_vs_epsilon(summary: pd.DataFrame, tasks: list[str], classifier: str,
                        scenarios: list[str], unit: str = "per person") -> go.Figure:
    """Summary (mean, sd over repetitions; `ceiling` and `defect` if known) -> one panel per task: accuracy vs ε,
    a line per mechanism and scenario, each mechanism's analytic ceiling (what the guarantee allows any attacker,
    dash-dot), the clean accuracy (grey) and the chance level (red, dashed); a measured point flagged above its
    ceiling is a red ✕."""
    s = summary[summary["classifier"] == classifier]
    fig = make_subplots(rows=1, cols=len(tasks), shared_yaxes=True, horizontal_spacing=0.05,
                        subplot_titles=[html_text(TASK_TITLES.get(t, t)) for t in tasks])
    mechs = [m for m in dict.fromkeys(s["mechanism"]) if m != "clean"]
    eps_all = s["epsilon"].dropna()
    x_range = (float(eps_all.min()), float(eps_all.max())) if not eps_all.empty else (1.0, 10.0)
    flagged_shown = False
    for col, task in enumerate(tasks, start=1):
        t = s[s["task"] == task]
        if t.empty:
            continue
        _reference_lines(fig, t, x_range, col)
        for i, mech in enumerate(mechs):
            color = theme.color_for(mech, i)
            m_all = t[t["mechanism"] == mech]
            _ceiling_line(fig, m_all, mech, color, col)
            flagged_shown = _mechanism_lines(fig, m_all, mech, color, scenarios, col, flagged_shown)
    _epsilon_axes(fig, eps_all, len(tasks), unit)
    fig.update_yaxes(range=[0, 1], row=1, col=1, title_text="accuracy")
    fig.update_yaxes(range=[0, 1])
    fig.update_layout(legend=dict(orientation="h", y=-0.3))
    return theme.style(fig, 460, None)


TRANSITION_COLORS = {"task": theme.CATEGORY[2], "identity": theme.DANGER, "gender": theme.CATEGORY[3]}
TRANSITION_NAMES = {"task": "document type (utility)", "identity": "re-identification (strongest attacker)",
                    "gender": "gender (strongest attacker)"}


def transition_chart(summary: pd.DataFrame, tasks: list[str], classifier: str, transitions: list) -> go.Figure:
    """Summary and its transitions -> one panel per mechanism: the utility task and the strongest attacks against ε,
    each as the share of its clean advantage over chance it keeps (0 = chance, 1 = as on clean data); the gap
    where the task works and the attacks are near chance shaded; collapsed classifiers marked ✕."""
    best = strongest(summary, classifier=classifier)
    mechs = [m for m in dict.fromkeys(best["mechanism"]) if m != "clean"]
    unit = epsilon_unit(summary)
    fig = make_subplots(rows=1, cols=max(1, len(mechs)), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=mechs or [""])
    by_mech = {t.mechanism: t for t in transitions}
    for col, mech in enumerate(mechs, start=1):
        for task in tasks:
            clean = best[(best["mechanism"] == "clean") & (best["task"] == task)]
            m = best[(best["mechanism"] == mech) & (best["task"] == task)].sort_values("epsilon")
            if m.empty or clean.empty:
                continue
            chance = m["chance"].to_numpy(float)
            scale = max(float(clean["accuracy"].iloc[0]) - float(clean["chance"].iloc[0]), 0.05)
            raw = (m["accuracy"].to_numpy(float) - chance) / scale
            y = np.clip(raw, -0.3, 1.0)  # above 1 (better than on clean data) is drawn at 1 as a triangle
            flag = m["collapsed"].fillna(False).to_numpy(bool) if "collapsed" in m else np.zeros(len(m), bool)
            over = raw > 1.0
            name = TRANSITION_NAMES.get(task, task)
            custom = np.c_[m["accuracy"].to_numpy(float), chance, m["train_on"].to_numpy(str)]
            fig.add_scatter(x=m["epsilon"], y=y, mode="lines+markers", name=name, legendgroup=task,
                            showlegend=col == 1, line=dict(color=TRANSITION_COLORS.get(task, theme.MUTED),
                                                           dash="solid" if task == "task" else "dot"),
                            marker=dict(symbol=np.where(flag, "x", np.where(over, "triangle-up", "circle")).tolist(),
                                        size=np.where(flag | over, 11, 7).tolist()),
                            customdata=np.c_[custom, np.round(raw, 2)], row=1, col=col,
                            hovertemplate=f"{name}<br>ε = %{{x:g}}<br>accuracy %{{customdata[0]:.2f}} "
                                          "(chance %{customdata[1]:.2f})<br>advantage kept %{customdata[3]}"
                                          "<br>%{customdata[2]}<extra></extra>")
        t = by_mech.get(mech)
        if t is not None and t.utility_recovers is not None:
            right = t.attack_leaves if t.attack_leaves is not None else t.largest_epsilon
            if t.utility_recovers < right:
                fig.add_vrect(x0=t.utility_recovers, x1=right, fillcolor=theme.CATEGORY[2], opacity=0.12,
                              line_width=0, row=1, col=col)
    _epsilon_axes(fig, best[best["mechanism"] != "clean"]["epsilon"], max(1, len(mechs)), unit)
    fig.add_hline(y=0, line=dict(color=theme.MUTED, dash="dash", width=1))
    fig.update_yaxes(range=[-0.35, 1.05])
    fig.update_yaxes(title_text="advantage kept<br>(acc − chance)/(clean − chance)", row=1, col=1)
    fig.update_layout(margin=dict(t=70))
    fig.update_layout(legend=dict(orientation="h", y=-0.25))
    return theme.style(fig, 420, "Utility and risk against ε: where each leaves chance")
