"""Your data: upload recordings, fixation or feature tables and stimulus images, map their columns."""
from __future__ import annotations

import streamlit as st

from ui import runlog
from ui.errors import guarded
from ui.shell import ensure_shell
from ui.yourdata import held, panels, view

ensure_shell()
runlog.note("page")


def render() -> None:
    """The page body (run inside the error guard)."""
    st.title("Your data")
    st.markdown(
        "Upload your own recordings or stimuli. Files are parsed **in memory for this session only**: "
        "nothing you upload is written to disk or logged, and it is gone when you close the tab.")
    st.caption("Tobii Studio / Pro Lab exports, EyeLink ASC files and Data Viewer reports, Pupil Labs "
               "exports and GazeBase recordings are recognised; any other CSV/TSV table is mapped by hand. "
               "Gzip files (`.csv.gz`) are fine; EyeLink EDF files must be converted to ASC first (SR "
               "Research's edf2asc). " + view.limits_text())
    panels.show_messages()
    if panels.upload_form():
        held.uploads_panel()


guarded(render, page="your_data")

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page

ui.share.page_tools("your_data")
