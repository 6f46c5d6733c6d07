"""Report: every release of this session, composed per person, for an ethics board."""
from __future__ import annotations

import streamlit as st

from eyedp_core.dp.accounting import COMPOSITION_RULE
from eyedp_core.io import uploads
from ui import state
from ui.shell import ensure_shell

ensure_shell()

st.title("Report")
ledger = state.ledger()
st.markdown(
    "Every view records what it releases in this session's **privacy ledger**. Releases that read the "
    "same person's data add up (sequential composition); releases about disjoint people do not "
    "(parallel composition). The headline is the worst-case total for any one person."
)
st.info(f"**The ledger rule.** {COMPOSITION_RULE} (docs/PRIVACY_MODEL.md §0.6)", icon=":material/rule:")
if not ledger.releases:
    st.info("Nothing has been released yet. Move to a view, choose settings and press its *record* "
            "or *export* button; the release appears here.", icon=":material/info:")
    st.stop()

eps, delta = ledger.total()
c1, c2, c3 = st.columns(3)
c1.metric("Worst-case ε per person", f"{eps:.4g}")
c2.metric("Worst-case δ per person", f"{delta:.2g}")
c3.metric("Releases", len(ledger.releases))
caveats = ledger.warnings()
if caveats:
    # Data-derived sensitivities and parameters (e.g. a length T read off the recordings), tuning on the
    # private data and sub-person units all weaken the stated ε: the board must see each one.
    st.subheader("Caveats")
    for w in caveats:
        st.warning(w, icon=":material/warning:")
st.subheader("Releases")
table = ledger.to_frame()
st.dataframe(table, hide_index=True)
st.subheader("Per person")
st.dataframe(ledger.per_participant(), hide_index=True)
st.download_button("Download the ledger (CSV)", uploads.to_csv_bytes(table), "eyedp_ledger.csv", "text/csv")
if st.button("Clear the ledger", key="report_clear",
             help="Starts a new accounting session: forgets every release, the last export and any cap m read "
                  "off the data, so nothing cleared can come back."):
    state.clear_ledger()
    st.rerun()
