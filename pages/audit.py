"""Audit: each configured mechanism run on two worst-case neighbours, a lower confidence bound ε̂ beside ε."""
from __future__ import annotations

import streamlit as st

from ui import runlog
from ui.audit import panels
from ui.shell import ensure_shell

ensure_shell()
runlog.note("page")

st.title("Audit")
panels.lead()
st.subheader("Each mechanism as configured, against its claimed ε")
panels.settings_form()
request = st.session_state.get("aud_request")
if request is None:
    st.caption("Press **Run the audit**: the mechanisms are read from the settings of the Heatmaps, Time series, "
               "Areas of interest and Gaze samples pages (their defaults where a page was never opened).")
else:
    panels.run(request)
panels.residue()
