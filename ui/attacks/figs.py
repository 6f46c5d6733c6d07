"""Attacks view, figures: clean baseline bars and accuracy versus ε per task (one colour per mechanism)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui import theme
from ui.text import html_text

TASK_TITLES = {"task": "Document type (utility)", "gender": "Gender (no prior knowledge)",
               "identity": "Re-identification (prior knowledge)"}
SCENARIO_DASH = {"clean": "solid", "private": "dot", "same-release": "dash"}
SCENARIO_NAMES = {"clean": "trained clean", "private": "trained private", "same-release": "same release"}


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


def accuracy_vs_epsilon(summary: pd.DataFrame, tasks: list[str], classifier: str,
                        scenarios: list[str]) -> go.Figure:
    """Summary (mean, sd over repetitions) -> one panel per task: accuracy vs ε, a line per mechanism and
    scenario, the clean accuracy (grey) and the chance level (red, dashed)."""
    s = summary[summary["classifier"] == classifier]
    fig = make_subplots(rows=1, cols=len(tasks), shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=[html_text(TASK_TITLES.get(t, t)) for t in tasks])
    mechs = [m for m in dict.fromkeys(s["mechanism"]) if m != "clean"]
    eps_all = s["epsilon"].dropna()
    x_range = (float(eps_all.min()), float(eps_all.max())) if not eps_all.empty else (1.0, 10.0)
    for col, task in enumerate(tasks, start=1):
        t = s[s["task"] == task]
        if t.empty:
            continue
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
        for i, mech in enumerate(mechs):
            for scen in scenarios:
                m = t[(t["mechanism"] == mech) & (t["train_on"] == scen)].sort_values("epsilon")
                if m.empty:
                    continue
                name = mech if len(scenarios) == 1 else f"{mech}, {SCENARIO_NAMES.get(scen, scen)}"
                fig.add_scatter(x=m["epsilon"], y=m["accuracy"], mode="lines+markers", name=name, legendgroup=name,
                                showlegend=col == 1, line=dict(color=theme.color_for(mech, i),
                                                                dash=SCENARIO_DASH.get(scen, "solid")),
                                error_y=dict(type="data", array=m["accuracy_sd"], visible=bool((m["runs"] > 1).any())),
                                row=1, col=col,
                                hovertemplate=f"{name}<br>ε = %{{x:g}}<br>accuracy %{{y:.2f}}<extra></extra>")
        fig.update_xaxes(type="log", title_text="ε per person" if col == 1 else "ε", row=1, col=col)
    fig.update_yaxes(range=[0, 1.05], title_text="accuracy", row=1, col=1)
    fig.update_layout(legend=dict(orientation="h", y=-0.25))
    return theme.style(fig, 420, None)
