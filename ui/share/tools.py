"""`page_tools(page)`: the share box at the end of every page (settings JSON, exports, Python script)."""
from __future__ import annotations

from typing import Any

import streamlit as st

from ui import settings
from ui.share import facts, scripts

PAGE_TITLES = {"home": "Home", "heatmaps": "Heatmaps", "time_series": "Time series", "attacks": "Attacks",
               "gaze_samples": "Gaze samples", "report": "Report", "your_data": "Your data"}


OPEN_KEY = "share_open"  # the toggle that opens the share box (one for every page: it stays open across pages)
EXPORT_PAGES = ("heatmaps", "time_series", "gaze_samples")  # the pages with a release export (exports.EXPORTS)


def settings_box(page: str) -> None:
    """Download this page's settings as JSON, load a JSON configuration, and how the URL carries them."""
    st.markdown("**Settings.** The address bar always holds this page's settings that differ from the defaults "
                "(and the names of the data sources, never the data): copy it to send a colleague this exact view. "
                "The JSON file holds every setting of the page.")
    a, b = st.columns(2)
    a.download_button("Download settings (JSON)", settings.config_json(page).encode(), f"eyedp_{page}_settings.json",
                      "application/json", key="share_dl_settings", icon=":material/download:")
    with b:
        up = st.file_uploader("Load settings (JSON)", type=["json"], key="share_up_settings",
                              help="A file downloaded from any EyeDP page; settings it does not know are ignored "
                                   "with a message.")
    if up is not None and st.session_state.get("share_loaded_id") != up.file_id:
        st.session_state["share_loaded_id"] = up.file_id
        target, _ = settings.load_json(up.getvalue())
        if target and target != page and target in PAGE_TITLES:
            st.session_state[settings.MESSAGES + "_page"] = target
        st.rerun()
    target = st.session_state.pop(settings.MESSAGES + "_page", None)
    if target:
        st.info(f"The file holds settings of the {PAGE_TITLES[target]} page; they are applied when "
                "you open it.",
                icon=":material/info:")
        st.page_link(f"pages/{target}.py", label=f"Open {PAGE_TITLES[target]}", icon=":material/arrow_forward:")


def remember(page: str, ctx: Any = None) -> None:
    """Keep what the report and the share box read of this page (the page drawn last, its facts, its script's
    parameters): called on every run of the part that computes `ctx`, with the box open or closed."""
    st.session_state[settings.PAGE_KEY] = page
    facts.remember(page, ctx)
    if page in scripts.PARAMS:
        scripts.remember(page, ctx)  # the report and the tests read the parameters even with the box closed


def share_toggle() -> bool:
    """The switch that opens the share box -> whether it is open."""
    # No st.divider: the rule above the box is the toggle's own top border (assets/style.css, .st-key-share_open),
    # one element fewer on every slider move of the page's fragment.
    # Closed by default: drawn open, the box re-ran with every slider move of the page's fragment (settings JSON,
    # export panel, script: ~10 ms and a dozen elements per move) for a tool used once.
    return st.toggle("**Share and reproduce**: this page's settings as a file, a private release (export) and a "
                     "Python script", key=OPEN_KEY)


def share_box(page: str, ctx: Any = None) -> None:
    """The open share box: settings JSON and, where the view has them, the export and the script."""
    with st.container(border=True):
        settings_box(page)
    if page in EXPORT_PAGES:
        from ui.share import exports  # imported here: the release exports (OpenDP, Kaleido) are not app start

        with st.container(border=True):
            exports.EXPORTS[page](ctx)
    if page in scripts.PARAMS:
        with st.container(border=True):
            scripts.script_box(page, ctx)


def page_tools(page: str, ctx: Any = None) -> None:
    """The share box at the end of a page: settings JSON and, where the view has them, exports and script.

    `ctx` is the view's context (Heatmaps, Time series): what it computed is kept for the report. A page whose
    context changes on a slider move that the switch does not need draws the parts itself (remember in the
    fragment, share_toggle outside it, share_box into a container under it)."""
    remember(page, ctx)
    if share_toggle():
        share_box(page, ctx)
