"""Time series: LPA, FPA, CFPA and DCFPA on eye-movement feature signals (Bozkir et al.)."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from ui import state, theme
from ui.widgets import coming_soon
from ui.shell import ensure_shell

ensure_shell()

st.title("Time series")
df = state.current("features").frame
meta = [c for c in ("participant", "gender", "task", "window", "t_start_s") if c in df.columns]
feats = [c for c in df.columns if c not in meta]
c1, c2, c3 = st.columns(3)
feature = c1.selectbox("Feature", feats, key="ts_feature")
participant = c2.selectbox("Participant", sorted(df["participant"].unique()), key="ts_participant")
tasks = sorted(df["task"].unique()) if "task" in df.columns else [None]
task = c3.selectbox("Task", tasks, key="ts_task")
sel = df[(df["participant"] == participant) & ((df["task"] == task) if task is not None else True)]
x = sel["t_start_s"] if "t_start_s" in sel.columns else np.arange(len(sel))
fig = go.Figure(go.Scatter(x=x, y=sel[feature], line=dict(color=theme.CLEAN), name="clean"))
fig.update_layout(xaxis_title="window start (s)", yaxis_title=feature)
st.plotly_chart(theme.style(fig, 360, f"{feature} — participant {participant}, {task} (data preview)"))
coming_soon("LPA, FPA, CFPA and DCFPA with utility versus ε, the choice of k and honest accounting.")
