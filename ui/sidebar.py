"""The shared sidebar: which data every page works on, and the privacy spent so far."""
from __future__ import annotations

import streamlit as st

from eyedp_core.dp.accountants import Accountant
from eyedp_core.io.errors import DataError
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
        st.markdown("### Privacy spent")
        try:
            study_picker()
            ledger = state.ledger()  # re-read from the store on every run: other sessions' charges of the study show
        except DataError as err:  # a ledger file that is not ours (or cannot be made): said, never overwritten
            st.error(md_text(err), icon=":material/error:")
            return
        stated = ledger.stated()  # under the accountant the study's charges were checked under
        eps, delta = stated.epsilon, stated.delta
        cap = state.epsilon_cap()
        if cap_on_page:
            st.metric("Worst-case ε per person", f"{eps:.3g}", help=f"The {_TOTAL}. The study's cap on ε per "
                      "person is set and shown on this page.")
        else:
            st.metric("Worst-case ε per person, of the cap", f"{eps:.3g} of {cap:g}",
                      help=f"Left: the {_TOTAL}, over every session of this study. Right: the study's cap on ε per "
                      "person; a release that would exceed it is refused before anything is drawn. Change the cap on "
                      "the Report page.")
        if not ledger.releases:
            st.caption(f"Nothing released yet in this study; {_CAP_HERE if cap_on_page else f'cap ε ≤ {cap:g} per person'}.")
        else:
            counted = "" if stated.accountant is Accountant.BASIC else (
                f"zCDP (basic composition: ε = {stated.basic_epsilon:.3g}, δ = {stated.basic_delta:.2g}) · ")
            st.caption(f"δ = {delta:.2g} · {md_text(counted)}{state.releases_made()} release(s) · "
                       + (_CAP_HERE if cap_on_page else f"cap ε ≤ {cap:g} per person · see the Report page"))


NEW_STUDY = "New study…"
STUDY_WIDGET = "sb_study"
NEW_STUDY_NAME = "sb_new_study"


def _pick_study() -> None:
    """Callback: charge the study chosen in the picker (a new one is named first)."""
    chosen = st.session_state.get(STUDY_WIDGET)
    if chosen and chosen != NEW_STUDY:
        state.set_study(chosen)


def _create_study() -> None:
    """Callback: open (create) the named study and charge it from now on."""
    name = str(st.session_state.get(NEW_STUDY_NAME) or "").strip()
    if name:
        state.set_study(name)
        st.session_state[STUDY_WIDGET] = name
        st.session_state[NEW_STUDY_NAME] = ""


def study_picker() -> None:
    """Which study this session charges: every session of a study shares its ledger and its cap (stored)."""
    if state.stored() is None:  # a ledger held in memory only (put in the session): no study to pick
        return
    names = state.studies()
    if st.session_state.get(STUDY_WIDGET) != NEW_STUDY:
        st.session_state[STUDY_WIDGET] = state.study()
    st.selectbox("Study charged", [*names, NEW_STUDY], key=STUDY_WIDGET, on_change=_pick_study,
                 help="A study owns one stored privacy ledger and one cap: every session (tab, colleague, restart) "
                      "that opens it sees and charges the same record. Pick another or start a new one.")
    if st.session_state.get(STUDY_WIDGET) == NEW_STUDY:
        st.text_input("Name of the new study", key=NEW_STUDY_NAME, max_chars=200)
        st.button("Create it and charge it", key="sb_create_study", on_click=_create_study,
                  disabled=not str(st.session_state.get(NEW_STUDY_NAME) or "").strip())
    else:
        st.caption(f"Charging the study **{md_text(state.study())}** (its ledger is stored: a reload loses nothing).")
