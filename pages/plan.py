"""Plan and release: every output released from one dataset under one cap per person (docs/PRIVACY_MODEL.md §17):
the guarantee, the outputs and their targets, the allocation as one table with the honest sentence, the study's
remaining budget, one preview per heatmap, and one release of the whole plan."""
from __future__ import annotations

import streamlit as st

import ui.share
from eyedp_core.io.errors import DataError
from eyedp_core.plan.inputs import table_stimuli
from eyedp_core.plan.schema import HeatmapOutput
from eyedp_core.settings.schema import MAX_TEXT_CHARS
from ui import runlog, state
from ui.plan import panels, parts, session, view
from ui.shell import ensure_shell
from ui.text import md_text

ensure_shell()
runlog.note("page")
st.title("Plan and release")

fix = state.current("fixations")
stimuli = state.stimuli()
canvases: dict[str, tuple[int, int]] = {}
for name in table_stimuli(fix.frame):
    ds = stimuli.get(name)
    if ds is not None and ds.image is not None:
        canvases[name] = (int(ds.image.shape[1]), int(ds.image.shape[0]))
    else:
        canvases[name] = tuple(int(v) for v in state.canvas_size(fix))

plan, problem = session.current()
alloc = None
if plan is not None:
    try:
        alloc = view.allocation(fix.token, fix.name, plan.to_json(), fix.frame, *parts.series_models(plan))
    except DataError as err:
        problem = str(err)
panels.lead(plan, alloc)
st.caption(f"Fixations: **{md_text(fix.name)}** (choose another table in the sidebar).")
if problem:
    st.error(md_text(problem), icon=":material/error:")

st.subheader("Outputs and targets")
panels.editor(plan, fix.frame, canvases)
with st.expander("Plan file (JSON)"):
    st.text_area("The plan", key=session.PLAN_KEY, height=260,
                 help="The plan file's text (README 'Study plans'): it travels in the share link and the settings "
                      "file; an edit here is the plan.")
    size = len(str(st.session_state.get(session.PLAN_KEY) or ""))
    if size > MAX_TEXT_CHARS:
        st.warning(f"This plan's text has {size:,} characters: a share link or settings file carries at most "
                   f"{MAX_TEXT_CHARS:,}, so it will not travel in one. Keep the plan file (plan.json, also in the "
                   "release bundle); fewer AOIs or outputs shorten it.", icon=":material/link_off:")

if alloc is not None:
    st.subheader("Allocation")
    panels.allocation_table(alloc)
    panels.budget(alloc, fix)
    st.subheader("Previews at the allotted ε")
    panels.pictures(alloc, fix, stimuli)
    st.subheader("Release the whole plan")
    caveats = tuple(dict.fromkeys(c for r in alloc.outputs if isinstance(r.output, HeatmapOutput)
                                  and (ds := stimuli.get(r.output.stimulus)) is not None
                                  for c in state.data_derived_canvas(ds)))
    panels.release_section(alloc, fix, alloc.plan.to_json(), caveats)

ui.share.page_tools(session.PAGE)
