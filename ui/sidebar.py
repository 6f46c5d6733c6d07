"""The shared sidebar: which data every page works on, and the privacy spent so far."""
from __future__ import annotations

import streamlit as st

from ui import state
from ui.text import md_text

_TOTAL = "sum over every release that read the same person's data (sequential composition, docs/PRIVACY_MODEL.md §0.6)"
_CAP_HERE = "the cap on ε per person is on this page"


def render(*, cap_on_page: bool = False) -> None:
    """Draw the data selectors and the ledger summary in the sidebar; `cap_on_page`: the page shows the cap and
    changes it in a fragment, whose re-runs leave the sidebar as it was, so the sidebar does not state it."""
    with st.sidebar:
        st.markdown("### Data in use")
        for kind, spec in state.KINDS.items():
            state.apply_pending_selection(kind)
            opts = state.options(kind)
            if st.session_state.get(f"sel_{kind}") not in opts:
                st.session_state[f"sel_{kind}"] = opts[0]
            st.selectbox(spec["label"], opts, key=f"sel_{kind}")
            notes = state.selection(kind)[3]  # no sample table is loaded for this
            if notes:  # what an upload was derived from (detected fixations, ...): the full account is on Your data
                st.caption(md_text(notes[0]))
        st.page_link("pages/your_data.py", label="Upload your own data", icon=":material/upload_file:")
        st.divider()
        ledger = state.ledger()
        eps, delta = ledger.total()
        cap = state.epsilon_cap()
        st.markdown("### Privacy spent")
        if cap_on_page:
            st.metric("Worst-case ε per person", f"{eps:.3g}", help=f"The {_TOTAL}. The session's cap on ε per "
                      "person is set and shown on this page.")
        else:
            st.metric("Worst-case ε per person, of the cap", f"{eps:.3g} of {cap:g}",
                      help=f"Left: the {_TOTAL}. Right: the session's cap on ε per person; a release that would "
                      "exceed it is refused before anything is drawn. Change the cap on the Report page.")
        if not ledger.releases:
            st.caption(f"Nothing released yet in this session; {_CAP_HERE if cap_on_page else f'cap ε ≤ {cap:g} per person'}.")
        else:
            st.caption(f"δ = {delta:.2g} · {len(ledger.releases)} release(s) · "
                       + (_CAP_HERE if cap_on_page else f"cap ε ≤ {cap:g} per person · see the Report page"))
