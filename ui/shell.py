"""Keeps every page inside the app shell (navigation, sidebar), even on a deep link to a fresh server."""
from __future__ import annotations

import streamlit as st

try:  # internal API: guarded so a Streamlit upgrade degrades to a no-op, not a crash
    from streamlit.runtime.pages_manager import PagesManager
except ImportError:  # pragma: no cover
    PagesManager = None

NAV_OPTION = "client.showSidebarNavigation"


def show_navigation() -> None:
    """Call in app.py before st.navigation: turn the sidebar navigation on for EyeDP's own page list.

    .streamlit/config.toml starts the server with client.showSidebarNavigation = false. A folder named
    pages/ next to app.py makes Streamlit's first run after a server start use its legacy multipage mode,
    which draws a navigation of the pages/ file names ("app", "attacks", …) before app.py ever runs; with
    the option off that navigation is hidden, so the first deep link no longer flashes it. Once EyeDP's
    own navigation is about to be drawn, the option goes back on (a client option, settable at run time).
    """
    if st.get_option(NAV_OPTION) is False:
        st.set_option(NAV_OPTION, True)


def ensure_shell() -> None:
    """Call first in every page: if Streamlit ran the page directly, re-run it through app.py.

    A folder named pages/ next to app.py makes Streamlit start in its legacy multipage mode until
    app.py has called st.navigation once in the process (and AppTest resets that flag on every
    run). In that mode a page URL runs the page file alone, without app.py's sidebar and data
    selection. Switching the flag off and re-running sends the same request through app.py
    (the legacy file-name navigation of that first run stays hidden: see show_navigation).
    """
    if PagesManager is not None and PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        show_navigation()
        st.rerun()
