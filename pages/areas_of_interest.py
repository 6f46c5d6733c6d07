"""Areas of interest: per-AOI hit ratio, fixations, dwell, time to first fixation, revisits and transitions,
clean and private with 95 % intervals (docs/PRIVACY_MODEL.md §15)."""
from __future__ import annotations

import streamlit as st

import ui.share
from eyedp_core.io.errors import DataError
from ui import runlog, state
from ui.aoi import figs, panels, view
from ui.plan.add import aoi_button
from ui.shell import ensure_shell
from ui.text import md_text

ensure_shell()
runlog.note("page")

st.title("Areas of interest")
panels.lead()

fix_ds = state.current("fixations")
stims = state.stimuli()
top = st.columns([1, 2])
panels.follow_fixations(fix_ds, list(stims))
stim_name = top[0].selectbox("Stimulus", list(stims), key="aoi_stimulus",
                             help="The stimuli of the selected fixation table (sidebar), then uploaded images.")
stim = stims[stim_name]
top[1].caption(f"Fixations: **{md_text(fix_ds.name)}** (choose another table in the sidebar).")
canvas = panels.canvas(fix_ds, stim)
W, H = canvas.width, canvas.height
try:
    sub, how = view.fixations(fix_ds.token, fix_ds.name, stim_name, W, H, fix_ds.frame)
except DataError as err:
    st.error(md_text(err), icon=":material/error:")
    st.page_link("pages/your_data.py", label="Upload fixations or a stimulus image", icon=":material/upload_file:")
    st.stop()

left, right = st.columns([2, 3])
with left:
    aois = panels.aoi_source(stim_name, W, H)
    bounds = panels.bounds_inputs()
    metrics = panels.metric_choice(sub)
    panels.preview_choices(metrics)
with right:
    if aois:
        st.image(figs.aoi_picture(canvas.image, aois), caption=f"{len(aois)} AOIs over '{md_text(stim_name)}'")
if not aois:
    st.info("Define at least one AOI to see the metrics.")
    st.stop()

table = view.observers(fix_ds.token, stim_name, aois, tuple(vars(bounds).values()), sub)
ctx = panels.AoiContext(fix_ds, W, H, stim_name, aois, bounds, table, metrics,
                        panels.released_caveats(stim_name, canvas))
st.caption(f"Using {md_text(how)}. Fixations outside every AOI count as *elsewhere*; overlapping AOIs each "
           "count a fixation inside both.")
panels.privacy_part(ctx)
panels.target_finder(ctx)
panels.export_panel(ctx)
aoi_button(ctx)  # these AOI metrics into the study plan (Plan and release page)

ui.share.page_tools("areas_of_interest", ctx)
