"""Gaze samples: raw gaze streams of one participant, with fixations and saccades detected (I-VT / I-DT)."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from eyedp_core.data import samples as datasets

from eyedp_core.gaze import events
from ui import state
from ui import theme
from ui.widgets import coming_soon
from ui.shell import ensure_shell

ensure_shell()

st.title("Gaze samples")
ds = state.current("gaze")
df = ds.frame


@st.cache_data(show_spinner="Detecting events…", max_entries=32)
def detect(token: str, who: str, method: str, threshold: float, geometry: events.ScreenGeometry,
           _one: pd.DataFrame) -> pd.DataFrame:
    """One participant's samples -> event table (cached on data token, participant and thresholds)."""
    opts = {"velocity_threshold_deg_s": threshold} if method == "ivt" else {"dispersion_threshold_deg": threshold}
    return events.detect_events(_one[["t_s", "x", "y", *(["pupil"] if "pupil" in _one else [])]], geometry,
                                method=method, **opts)


people = sorted(df["participant"].unique())
c1, c2, c3 = st.columns([1, 1, 2])
who = c1.selectbox("Participant", people, key="gs_participant")
method = c2.radio("Event detection", ["ivt", "idt"], horizontal=True, key="gs_method",
                  format_func={"ivt": "I-VT (velocity)", "idt": "I-DT (dispersion)"}.get)
if method == "ivt":
    threshold = c3.slider("Velocity threshold (deg/s)", 10.0, 100.0, 30.0, 5.0, key="gs_vt")
else:
    threshold = c3.slider("Dispersion threshold (deg)", 0.25, 3.0, 1.0, 0.25, key="gs_dt")

with st.expander("Screen geometry (used to convert pixels to degrees of visual angle)",
                 expanded=ds.source == "upload"):
    g0 = datasets.SAMPLE_SCREEN
    g = st.columns(5)
    geometry = events.ScreenGeometry(
        int(g[0].number_input("width (px)", 100, 10000, g0.width_px, key="gs_wpx")),
        int(g[1].number_input("height (px)", 100, 10000, g0.height_px, key="gs_hpx")),
        float(g[2].number_input("width (cm)", 5.0, 500.0, float(g0.width_cm), key="gs_wcm")),
        float(g[3].number_input("height (cm)", 5.0, 500.0, float(g0.height_cm), key="gs_hcm")),
        float(g[4].number_input("viewing distance (cm)", 10.0, 500.0, float(g0.distance_cm), key="gs_dist")),
    )
    dx, dy = geometry.deg_per_px()
    st.caption(f"At the screen centre one pixel spans {dx:.4f}° × {dy:.4f}° ({1 / dx:.1f} px per degree).")

one = df[df["participant"] == who].sort_values("t_s")
try:
    ev = detect(ds.token, str(who), method, threshold, geometry, one)
except ValueError as err:
    st.error(f"{ds.name}, participant {who}: {err}")
    st.stop()

t0, t1 = float(one["t_s"].min()), float(one["t_s"].max())
span = st.slider("Time window (s)", t0, t1, (t0, min(t0 + 10.0, t1)), 0.5, key="gs_window")
part = one[(one["t_s"] >= span[0]) & (one["t_s"] <= span[1])]
evw = ev[(ev["end_s"] >= span[0]) & (ev["start_s"] <= span[1])]
fx, sc, bl = (evw[evw["type"] == k] for k in ("fixation", "saccade", "blink"))

m = st.columns(4)
dur = max(t1 - t0, 1e-9)
m[0].metric("Fixations / s", f"{(ev['type'] == 'fixation').sum() / dur:.2f}")
m[1].metric("Median fixation", f"{ev.loc[ev['type'] == 'fixation', 'duration_ms'].median():.0f} ms")
m[2].metric("Median saccade amplitude", f"{ev.loc[ev['type'] == 'saccade', 'amplitude_deg'].median():.1f}°")
m[3].metric("Blinks / min", f"{(ev['type'] == 'blink').sum() / dur * 60:.1f}")

left, right = st.columns([1.4, 1])
with left:
    rows = 3 if "pupil" in part.columns else 2
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.05)
    for i, (col, unit) in enumerate([("x", "px"), ("y", "px"), ("pupil", "mm")][:rows]):
        fig.add_scattergl(x=part["t_s"], y=part[col], name=f"{col} ({unit})", line=dict(color=theme.CATEGORY[i], width=1.2),
                          row=i + 1, col=1)
        fig.update_yaxes(title_text=f"{col} ({unit})", row=i + 1, col=1)
    # Shade fixations so the segmentation can be judged by eye against the raw trace; one shapes
    # list spanning all rows (Plotly's add_vrect per event costs ~0.1 s each on subplots).
    shade = [("rgba(0,114,178,0.08)", fx), ("rgba(213,94,0,0.18)", bl)]
    fig.update_layout(shapes=[dict(type="rect", xref="x", yref="paper", x0=s, x1=e, y0=0, y1=1, line_width=0,
                                   fillcolor=color, layer="below")
                              for color, evs in shade for s, e in zip(evs["start_s"], evs["end_s"])])
    fig.update_xaxes(title_text="time (s)", row=rows, col=1)
    fig.update_layout(showlegend=False)
    st.plotly_chart(theme.style(fig, 520, f"Raw gaze of {who}: {len(part):,} samples (blue = fixations, orange = blinks)"))
with right:
    sp = go.Figure()
    sp.add_scatter(x=part["x"], y=part["y"], mode="lines", line=dict(color="rgba(107,119,133,0.45)", width=1),
                   name="raw samples")
    sp.add_scatter(x=fx["x"], y=fx["y"], mode="markers+lines", name="fixations",
                   marker=dict(size=(fx["duration_ms"] / 25).clip(4, 30), color=theme.CATEGORY[0], opacity=0.7,
                               line=dict(color="white", width=1)),
                   line=dict(color=theme.CATEGORY[0], width=1))
    # Screen coordinates: y grows downwards, one pixel is square, the frame is the whole screen.
    sp.update_yaxes(range=[geometry.height_px, 0], scaleanchor="x", scaleratio=1, constrain="domain",
                    title_text="y (px)")
    sp.update_xaxes(range=[0, geometry.width_px], constrain="domain", title_text="x (px)", mirror=True,
                    showline=True)
    sp.update_layout(legend=dict(orientation="h", y=-0.15))
    st.plotly_chart(theme.style(sp, 520, "Scanpath (marker size = fixation duration)"))

st.caption(f"{len(fx)} fixations, {len(sc)} saccades and {len(bl)} blinks in the window; "
           f"detected with {'I-VT' if method == 'ivt' else 'I-DT'} on the raw samples.")
coming_soon("The Kaleido gaze-stream mechanism (w-event privacy with planar Laplace noise).")
