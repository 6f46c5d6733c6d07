"""Keeps every page inside the app shell (navigation, sidebar), even on a deep link to a fresh server."""
from __future__ import annotations

import streamlit as st

try:  # internal API: guarded so a Streamlit upgrade degrades to a no-op, not a crash
    from streamlit.runtime.pages_manager import PagesManager
except ImportError:  # pragma: no cover
    PagesManager = None


def ensure_shell() -> None:
    """Call first in every page: if Streamlit ran the page directly, re-run it through app.py.

    A folder named pages/ next to app.py makes Streamlit start in its legacy multipage mode until
    app.py has called st.navigation once in the process (and AppTest resets that flag on every
    run). In that mode a page URL runs the page file alone, without app.py's sidebar and data
    selection. Switching the flag off and re-running sends the same request through app.py.
    """
    if PagesManager is not None and PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
