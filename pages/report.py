"""Report: the study's stored ledger composed per person, the cap on ε per person, and the review-board report."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import COMPOSITION_RULE
from eyedp_core.io import uploads
from eyedp_core.report.html import epsilon_reading
from eyedp_core.report.tables import person_table, releases_table
from ui import runlog, state
from ui.fragment import fragment
from ui.share import report
from ui.shell import ensure_shell
from ui.text import md_cells, md_text

FRESH_REASON = "ledger_fresh_reason"  # the reason a fresh record is started (not a page setting)
FRESH_CONFIRM = "ledger_fresh_confirm"



def _fresh_record() -> None:
    """Callback: archive the study's releases with the reason given (only with the reason and the confirmation)."""
    reason = str(st.session_state.get(FRESH_REASON) or "").strip()
    if not reason or not st.session_state.get(FRESH_CONFIRM):
        return
    state.clear_ledger(reason)
    for key in ("rp_report_html", "rp_report_pdf"):
        st.session_state.pop(key, None)
    st.session_state[FRESH_REASON] = ""
    st.session_state[FRESH_CONFIRM] = False


ensure_shell()
runlog.note("page")

st.title("Report")
ledger = state.ledger()
st.markdown(
    f"Every view records what it releases in the **privacy ledger** of the study '{md_text(state.study())}', stored "
    "on this machine and shared by every session that opens the study (a reload or a restart loses nothing). "
    "Releases that read the same person's data add up (sequential composition); releases about different people do "
    "not. The headline is the worst-case total for any one person.")

# ---- the cap and what it changes: a fragment, so a cap move re-runs only this part ------------------------------


@fragment(name="cap")
def cap_and_totals() -> None:
    """The cap slider -> the cap status, the per-person headline and the per-person table (cap left)."""
    ledger = state.ledger()
    stated = ledger.stated()  # under the accountant the study's charges were checked under, basic beside it
    eps, delta = stated.epsilon, stated.delta
    st.text_input("Why the cap changes (optional; kept in the study's record with the change)",
                  key=state.CAP_REASON_KEY, placeholder="e.g. agreed with the review board",
                  help="Type it before moving the cap: every change of the cap is an entry of the stored record, "
                       "and the report lists each with its time and this text.")
    cap = st.slider("Cap on ε per person", min_value=0.1, max_value=100.0, value=state.epsilon_cap(), step=0.1,
                    key=state.CAP_WIDGET_KEY, help="A release (export, recording, private choice) that would push any person's "
                                       "total ε above this cap is refused: nothing is drawn or added to the ledger. "
                                       f"Every session starts with ε ≤ {state.DEFAULT_EPSILON_CAP:g}.")
    state.set_epsilon_cap(cap)
    within, text = report.cap_status(eps, cap)
    (st.success if within else st.error)(text, icon=":material/shield:")
    history = report.cap_history_rows()
    if len(history) > 1:
        with st.expander(f"Cap history of this study ({len(history)} settings)"):
            st.table(md_cells(pd.DataFrame(history)))
    c1, c2, c3 = st.columns(3)
    c1.metric("Worst-case ε per person", f"{eps:.4g}")
    c2.metric("Worst-case δ per person", f"{delta:.2g}")
    made, entries = state.releases_made(), len(ledger.releases)
    c3.metric("Releases", made, help=None if made == entries else f"{entries} ledger entries: a release with several "
              "noisy parts (an AOI export's sums) is one release of several entries.")
    if not ledger.releases:
        return
    if stated.accountant is not Accountant.BASIC:
        st.caption(md_text(f"Totals {stated.words}."))
    st.caption(epsilon_reading(eps, delta))
    st.markdown("**Total per person.** Each row is one person, protected as an observer (Heatmaps) or a participant "
                "(time series); 'every …' rows hold the total that applies to each of them.")
    people = person_table(ledger, cap)
    people = md_cells(people)  # st.table renders markdown: labels quote data names
    st.table(people.style.format({c: "{:.4g}" for c in people.columns if people[c].dtype.kind == "f"}))


cap_and_totals()
with st.expander("The ledger rule (docs/PRIVACY_MODEL.md §0.6)"):
    st.markdown(COMPOSITION_RULE)

# ---- the review-board report --------------------------------------------------------------------------------
st.subheader("Review-board report")
st.markdown("One self-contained HTML file that opens with a one-page verdict in plain words (who is protected, the "
            "worst-case ε per person, what the attacks showed, the caveats), then every released artefact with its "
            "mechanism, ε, δ, sensitivity and noise scale, the total per person after composition, the caveats, the "
            "software versions and the settings to reproduce it. No participant id appears in it. Works offline; "
            "print it to PDF from the browser.")
def _forget_built_report() -> None:
    """A PDF built for the other kind of report must not be offered under this one."""
    st.session_state.pop("rp_report_html", None)
    st.session_state.pop("rp_report_pdf", None)


safe = st.toggle("Release-safe report", value=True, key="rp_release_safe", on_change=_forget_built_report,
                 help="On: only public parameters and the releases with their guarantees — fit for a review board "
                      "or the public. Off: the curator's full report, which adds a clearly marked last section of "
                      "figures computed on the unprotected data (utility against the clean data, attack "
                      "accuracies, the preview's shifts, exact row counts); those are not covered by any ε.")
if not safe:
    st.warning("The curator's full report holds figures computed on the unprotected data (marked NOT PROTECTED in "
               "its last section). Keep it with the curator; give others the release-safe report.",
               icon=":material/visibility:")
a, b = st.columns(2)
a.download_button("Download the report (HTML)", report.deferred_report(release_safe=safe),
                  "eyedp_report.html" if safe else "eyedp_report_curator_only.html", "text/html",
                  key="rp_dl_report", type="primary", icon=":material/summarize:", on_click="ignore",
                  help="Built when you press the button, from the ledger and the views as they are now.")
if b.button("Build a PDF as well", key="rp_build", icon=":material/picture_as_pdf:",
            help="Prints the same report with headless Chromium, where this machine has it; the HTML goes to "
                 "Chromium and the PDF comes back over a pipe, so the report is never written to disk (Chromium "
                 "only gets an empty profile folder of its own, removed at once)."):
    html = report.report_html(release_safe=safe)
    st.session_state["rp_report_html"] = html.encode()
    with st.spinner("Printing the report to PDF…"):
        st.session_state["rp_report_pdf"] = report.html_to_pdf(html)
    if st.session_state["rp_report_pdf"] is None:
        b.warning("No PDF on this machine (headless Chromium not found or failed): print the HTML report from "
                  "your browser instead.", icon=":material/print_disabled:")
if st.session_state.get("rp_report_pdf"):
    b.download_button("Download the report (PDF)", st.session_state["rp_report_pdf"], "eyedp_report.pdf",
                      "application/pdf", key="rp_dl_pdf", icon=":material/download:", on_click=report.record_download,
                      args=("pdf", st.session_state["rp_report_pdf"], safe))

if not ledger.releases:
    st.info("Nothing has been released yet. Move to a view, choose settings and press its *record* or *export* "
            "button; the release appears here.", icon=":material/info:")
else:
    caveats = ledger.warnings()
    if caveats:
        # Data-derived sensitivities and parameters, tuning on the private data and sub-person units all weaken
        # the stated ε: the board must see each one.
        st.subheader("Caveats")
        for w in caveats:
            st.warning(md_text(w), icon=":material/warning:")
    st.subheader("Releases")
    table = releases_table(ledger)
    # The page shows what a reader needs to follow the totals; every column is in the CSV and the report.
    shown = table[["#", "View", "What was released", "Protects one", "Covers", "ε per invocation",
                   "Invocations per person", "ε charged per person", "δ charged per person", "Caveats"]]
    shown = md_cells(shown)  # st.table renders markdown: labels quote data names
    st.table(shown.style.format({c: "{:.4g}" for c in shown.columns if shown[c].dtype.kind == "f"}))
    fig = report.ledger_figure()
    if fig is not None:
        st.plotly_chart(fig, key="rp_ledger_chart", theme=None)
    st.download_button("Download the ledger (CSV)", uploads.to_csv_bytes(table), "eyedp_ledger.csv", "text/csv",
                       key="rp_dl_csv")
    with st.expander("Start a fresh record", icon=":material/inventory_2:"):
        st.markdown("Archives this study's releases: the totals and the cap check start again from zero, while every "
                    "archived entry stays in the stored record, readable, and in the chain the report states. "
                    "Nothing is deleted. The people's earlier releases still happened: start afresh only for new "
                    "people or a new purpose, and say why.")
        reason = st.text_input("Reason (required; kept with the archive entry)", key=FRESH_REASON, max_chars=500)
        sure = st.checkbox("I confirm: start a fresh record for this study", key=FRESH_CONFIRM)
        st.button("Start a fresh record", key="report_clear", disabled=not (reason.strip() and sure),
                  on_click=_fresh_record,
                  help="Also forgets the last export and any cap m read off the data in this session, so nothing "
                       "archived can come back.")

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page

ui.share.page_tools("report")
