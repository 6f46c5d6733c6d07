"""Gaze samples: raw gaze streams with detected events, and four privacy methods of David-John et al. —
Kaleido (docs/PRIVACY_MODEL.md §8), k-anonymity, k-same-synth and plausible deniability (§9)."""
from __future__ import annotations

import streamlit as st

import ui.share
from eyedp_core.data import bundled
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.streams import StreamError, selection_column
from ui import runlog, state
from ui.gazestream import panels, protect, view
from ui.plan.add import gaze_plan_box
from ui.shell import ensure_shell
from ui.text import md_text

ensure_shell()
runlog.note("page")

VIEWS = {"raw": "Raw stream and events", "protect": "Protect the stream", "demographics": "Demographics (k-anonymity)"}

st.title("Gaze samples")
st.caption("Raw gaze streams and their events, and what four published privacy methods for gaze samples "
           "(David-John et al.) promise and cost: **Kaleido** is differential privacy per window of samples; "
           "**k-anonymity**, **k-same-synth** and **plausible deniability** as published are **not** differential "
           "privacy. Every protected stream on this page is a seeded preview, not a release.")
ds = state.current("gaze")

given = state.upload_geometry(ds.name) if ds.source == "upload" else None
if given is not None and st.session_state.get("gs_geometry_of") != ds.token:
    # The screen given on Your data travels with the upload: the fields start from it once per dataset.
    st.session_state.update(gs_wpx=int(given.width_px), gs_hpx=int(given.height_px), gs_wcm=float(given.width_cm),
                            gs_hcm=float(given.height_cm), gs_dist=float(given.distance_cm), gs_geometry_of=ds.token)

with st.expander("Screen geometry (used to convert pixels to degrees of visual angle)",
                 expanded=ds.source == "upload"):
    g0 = bundled.SAMPLE_SCREEN
    g = st.columns(5)
    geometry = Geometry.from_cm(
        int(g[0].number_input("width (px)", 100, 10000, g0.width_px, key="gs_wpx")),
        int(g[1].number_input("height (px)", 100, 10000, g0.height_px, key="gs_hpx")),
        float(g[2].number_input("width (cm)", 5.0, 500.0, float(g0.width_cm), key="gs_wcm")),
        float(g[3].number_input("height (cm)", 5.0, 500.0, float(g0.height_cm), key="gs_hcm")),
        float(g[4].number_input("viewing distance (cm)", 10.0, 500.0, float(g0.distance_cm), key="gs_dist")),
    )
    dx, dy = geometry.deg_per_px()
    st.caption(f"At the screen centre one pixel spans {dx:.4f}° × {dy:.4f}° ({1 / dx:.1f} px per degree).")

try:
    prep = view.prepared(ds.token, geometry.width_px, geometry.height_px, ds.frame)
except StreamError as err:
    st.error(f"{md_text(ds.name)}: {md_text(err)}", icon=":material/error:")
    st.page_link("pages/your_data.py", label="Upload gaze samples", icon=":material/upload_file:")
    st.stop()
panels.data_notes(prep, ds.name)
df = prep.frame
people = prep.participants

sel = selection_column(df)
c1, c1b, c2 = st.columns([1, 1, 3])
who = c1.selectbox("Participant", people, key="gs_participant")
stims_of_who = sorted(df.loc[df["participant"] == who, sel].astype(str).unique()) if sel is not None else []
if len(stims_of_who) > 1:
    stim_name = c1b.selectbox(sel.capitalize(), stims_of_who, key="gs_stimulus")
else:
    stim_name = stims_of_who[0] if stims_of_who else None
page_view = c2.radio("View", list(VIEWS), format_func=VIEWS.get, horizontal=True, key="gs_view")


one = view.pick(df, who, stim_name, sel)

if page_view == "protect":
    # Closes with the share box and its export; Kaleido's part ends with the study plan's box.
    protect.protect_view(ds.token, prep, who, stim_name, sel, geometry, gaze_plan_box)
else:
    if page_view == "raw":
        panels.raw_section(ds.token, f"{who}|{stim_name}", one, str(who), geometry, ds.name)
    else:
        panels.kanon_view()
    ui.share.page_tools("gaze_samples")  # settings JSON and script; the export needs the Protect view's settings
