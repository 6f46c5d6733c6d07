"""Heatmaps: private gaze heatmaps with a per-observer cap (Liu et al.)."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ui import state, theme
from ui.widgets import coming_soon

st.title("Heatmaps")
fix = state.current("fixations").frame
stims = state.stimuli()
name = st.selectbox("Stimulus", list(stims), key="hm_stimulus")
img = stims[name].image
sub = fix[fix["stimulus"] == name] if "stimulus" in fix.columns else fix
st.caption(f"{sub['observer'].nunique()} observers, {len(sub):,} fixations on '{name}' ({img.shape[1]}×{img.shape[0]} px).")
fig = go.Figure(go.Image(z=img))
fig.add_scattergl(x=sub["x"], y=sub["y"], mode="markers", marker=dict(size=4, color=theme.DANGER, opacity=0.35),
                  name="fixations")
fig.update_xaxes(visible=False)
fig.update_yaxes(visible=False)
st.plotly_chart(theme.style(fig, 520, "Fixations over the stimulus (data preview)"))
coming_soon("Private heatmaps with cap m, Gaussian and Laplace noise, the optimal cap and the noise calculator.")
