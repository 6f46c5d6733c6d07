"""Gaze samples: raw gaze streams of one participant over time."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from ui import state, theme
from ui.widgets import coming_soon

st.title("Gaze samples")
ds = state.current("gaze")
df = ds.frame
people = sorted(df["participant"].unique())
c1, c2 = st.columns([1, 2])
who = c1.selectbox("Participant", people, key="gs_participant")
one = df[df["participant"] == who]
t0, t1 = float(one["t_s"].min()), float(one["t_s"].max())
span = c2.slider("Time window (s)", t0, t1, (t0, min(t0 + 10.0, t1)), key="gs_window")
part = one[(one["t_s"] >= span[0]) & (one["t_s"] <= span[1])]
rows = 3 if "pupil" in part.columns else 2
fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.06)
fig.add_scattergl(x=part["t_s"], y=part["x"], name="x (px)", line=dict(color=theme.CATEGORY[0]), row=1, col=1)
fig.add_scattergl(x=part["t_s"], y=part["y"], name="y (px)", line=dict(color=theme.CATEGORY[1]), row=2, col=1)
if rows == 3:
    fig.add_scattergl(x=part["t_s"], y=part["pupil"], name="pupil (mm)", line=dict(color=theme.CATEGORY[2]),
                      row=3, col=1)
fig.update_xaxes(title_text="time (s)", row=rows, col=1)
st.plotly_chart(theme.style(fig, 520, f"Raw gaze of {who} ({len(part):,} samples)"))
coming_soon("Event detection overlays (I-VT / I-DT) and the Kaleido gaze-stream mechanism.")
