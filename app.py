"""EyeDP entry point: page navigation and the shared data selection."""
from __future__ import annotations

import time

_T0 = time.perf_counter()

import streamlit as st  # noqa: E402 - after the clock: the run log times the whole script, imports included

from ui import runlog, settings, sidebar, theme  # noqa: E402
from ui.errors import page_guard  # noqa: E402
from ui.fragment import run_after_hooks  # noqa: E402
from ui.shell import show_navigation  # noqa: E402

# An emoji favicon is drawn inline (a data: URL); a ":material/...:" one is fetched from fonts.gstatic.com on every
# page, a request to another host that the app must not make.
st.set_page_config(page_title="EyeDP", page_icon="👁️", layout="wide")
theme.inject_css()

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/heatmaps.py", title="Heatmaps", icon=":material/blur_on:"),
    st.Page("pages/areas_of_interest.py", title="Areas of interest", icon=":material/select_all:"),
    st.Page("pages/time_series.py", title="Time series", icon=":material/show_chart:"),
    st.Page("pages/attacks.py", title="Attacks", icon=":material/policy:"),
    st.Page("pages/audit.py", title="Audit", icon=":material/fact_check:"),
    st.Page("pages/gaze_samples.py", title="Gaze samples", icon=":material/scatter_plot:"),
    st.Page("pages/plan.py", title="Plan and release", icon=":material/checklist:"),
    st.Page("pages/report.py", title="Report", icon=":material/summarize:"),
    st.Page("pages/your_data.py", title="Your data", icon=":material/upload_file:"),
]

show_navigation()  # config.toml starts with it off: no flash of the pages/ file names (ui/shell.py)
nav = st.navigation(PAGES)
# Settings from the URL (first run), a reset, a loaded configuration or the page's stored settings, before any
# widget is drawn; inside the guard, so that no link or file reaches Streamlit's own error box.
with page_guard("settings"):
    settings.apply_before_run(nav.url_path)
# The Report page states the cap beside its slider, whose fragment re-runs would leave the sidebar's copy behind.
sidebar.render(cap_on_page=nav.url_path == "report")
with page_guard("settings"):
    settings.sidebar_tools()
# One guard for every page: an unexpected error shows a short message with an error id, never a traceback
# or anything the user uploaded (ui/errors.py).
with page_guard("app"):
    nav.run()
    run_after_hooks()  # e.g. the page's settings into the URL (ui/fragment.py)
runlog.note("app", (time.perf_counter() - _T0) * 1000)
