"""Attacks: what noise buys — re-identification, gender and document type on private features, across ε."""
from __future__ import annotations

import streamlit as st

from ui import runlog, state
from ui.attacks import panels, view
from ui.shell import ensure_shell
from ui.text import md_text

ensure_shell()
runlog.note("page")

st.title("Attacks")
panels.lead()
ds = state.current("features")
try:
    at = view.prepared(ds.token, ds.frame)
except ValueError as err:
    st.error(f"{md_text(ds.name)}: cannot run the attacks: {md_text(err)}", icon=":material/error:")
    st.stop()

panels.summary(ds.name, at)
panels.threat_models()
panels.baseline_and_traps(ds.token, at)

st.subheader("Attacks on private releases")
panels.settings_form(at)
request = st.session_state.get("atk_request")
if request is not None and not set(request.tasks) <= set(panels.task_options(at)):
    request = None  # made for a table with other labels
if request is None:
    st.caption("Choose mechanisms, ε and the rest, then press **Run attacks**. Results appear as they finish; "
               "settings you ran before come back instantly.")
else:
    panels.run(ds.token, at, request)
    panels.results(ds.token, request)
panels.formulas()

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page

ui.share.page_tools("attacks")
