"""Audit view, Streamlit panels: what the audit does and does not show, its settings, the run with a progress
bar and a Stop button, and the results beside the claimed ε.

Session state: "aud_request" holds the settings of the last press of Run, "aud_cancel" is set by the Stop button,
"aud_results" keeps (settings and the cases' claims, rows finished so far), so a stopped run still shows what it
finished and Run resumes it, while a setting moved on another page starts afresh.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from eyedp_core.audit.residue import export_residue_check
from eyedp_core.audit.run import AuditResult, run_case
from ui.audit import view
from ui.text import md_text

CONFIDENCES = (0.9, 0.95, 0.99)
DRAW_FACTORS = {0.25: "quick (¼ of the default draws)", 1.0: "default (under 30 s on this machine)",
                4.0: "thorough (4× the draws, about 4× the time)"}


@dataclass(frozen=True)
class AuditRequest:
    """What Run was pressed with: confidence, a factor on each case's default draws, and the seed."""

    confidence: float
    factor: float
    seed: int


def lead() -> None:
    """What ε̂ is, and what it is not, first thing on the page."""
    st.markdown(
        "**What this page does.** For every mechanism as you configured it on the other pages, the audit builds "
        "two neighbouring inputs that differ in one observer or participant — changed completely, at the public "
        "bounds — draws the mechanism's output many times on each, and asks how well a threshold test on a "
        "likelihood-ratio statistic tells them apart. From the test's true- and false-positive counts it "
        "computes **ε̂, a lower confidence bound on the privacy loss** (Clopper–Pearson, at the confidence you "
        "choose), shown beside the ε the page claims.")
    st.info(
        "**ε̂ is a lower bound: it can reveal a bug, never certify a guarantee.** If ε̂ lies above the claimed ε, "
        "the mechanism (its sensitivity, calibration or noise) is broken, up to the stated confidence. If ε̂ "
        "lies below it, this test found no violation — the guarantee itself rests on the proofs in "
        "docs/PRIVACY_MODEL.md, not on this page.", icon=":material/info:")
    st.caption("The draws use a seeded numpy Generator and the mechanisms' preview path: the audit tests the "
               "mechanism's law on made-up neighbours, not a release of anyone's data, so nothing is charged to "
               "the privacy ledger.")


def _cancel() -> None:
    st.session_state["aud_cancel"] = True


def settings_form() -> None:
    """Confidence, draws and seed in a form; Run stores the request."""
    with st.form("aud_form"):
        c1, c2, c3 = st.columns([1, 2, 1])
        conf = c1.selectbox("Confidence", CONFIDENCES, index=1, key="aud_conf",
                            format_func=lambda c: f"{c:.0%}")
        factor = c2.selectbox("Draws", list(DRAW_FACTORS), index=1, format_func=DRAW_FACTORS.get, key="aud_draws")
        seed = c3.number_input("Seed", 0, 1_000_000, 0, key="aud_seed")
        pressed = st.form_submit_button("Run the audit", type="primary", icon=":material/play_arrow:")
    if pressed:
        st.session_state["aud_request"] = AuditRequest(float(conf), float(factor), int(seed))
        st.session_state["aud_cancel"] = False


def _row(page: str, res: AuditResult) -> dict:
    b, c = res.bound, res.case
    # The numbers first: at 1280 px the long text columns would push ε̂ out of sight.
    return {"page": page, "claimed ε": c.epsilon, "ε̂ (lower bound)": b.epsilon, "δ": c.delta,
            "confidence": f"{b.confidence:.0%}", "draws per neighbour": res.draws, "seconds": round(res.seconds, 1),
            "verdict": ("ε̂ > ε: the mechanism breaks its claim" if res.exceeds else "ε̂ ≤ ε: no violation found")
            + (" (stopped early)" if res.stopped else ""), "mechanism": c.title, "neighbours": c.neighbours}


def run(request: AuditRequest) -> None:
    """Run every configured case with a progress bar and a Stop button; rows are kept as they finish."""
    cases, problems = view.cases()
    for p in problems:
        st.warning(f"Not audited — {md_text(p)}", icon=":material/warning:")
    kept = st.session_state.get("aud_results")
    key = (request, tuple((page, c.title, c.epsilon, c.delta, c.draws) for page, c in cases))
    rows = list(kept[1]) if kept and kept[0] == key else []
    if st.session_state.get("aud_cancel"):
        st.info(f"Audit stopped after {len(rows)} of {len(cases)} mechanisms. Press **Run the audit** to go on "
                "from there.", icon=":material/pause_circle:")
        results(rows)  # what finished before the stop
        return
    if len(rows) < len(cases):
        stop = st.empty()
        stop.button("Stop the audit", key="aud_stop", on_click=_cancel, icon=":material/stop_circle:")
        bar = st.progress(0.0, text="Starting…")
        for i in range(len(rows), len(cases)):
            page, case = cases[i]

            def tick(frac: float, i: int = i, page: str = page) -> bool:
                bar.progress(min(1.0, (i + frac) / len(cases)),
                             text=f"{i + 1:d} of {len(cases)}: {md_text(page)}, {int(frac * 100)} % of the draws")
                return not st.session_state.get("aud_cancel")

            draws = max(100, int(case.draws * request.factor))
            res = run_case(case, draws=draws, confidence=request.confidence, seed=request.seed + i, progress=tick)
            rows.append(_row(page, res))
            st.session_state["aud_results"] = (key, list(rows))
        bar.progress(1.0, text=f"Done: {len(cases)} mechanisms.")
        stop.empty()
    results(rows)


def results(rows: list[dict]) -> None:
    """The table of ε̂ beside ε, and a line per mechanism in words."""
    if not rows:
        return
    df = pd.DataFrame(rows)
    st.dataframe(df, hide_index=True, key="aud_table",
                 column_config={"claimed ε": st.column_config.NumberColumn(format="%.4g"),
                                "δ": st.column_config.NumberColumn(format="%.2g"),
                                "ε̂ (lower bound)": st.column_config.NumberColumn(format="%.3f")})
    total = sum(r["seconds"] for r in rows)
    bad = [r for r in rows if r["ε̂ (lower bound)"] > r["claimed ε"] * (1 + 1e-9)]
    if bad:
        st.error("ε̂ exceeds the claimed ε for: " + ", ".join(md_text(r["mechanism"]) for r in bad)
                 + ". At the stated confidence these mechanisms do not keep their guarantee.", icon=":material/error:")
    else:
        st.success(f"For every mechanism audited, ε̂ ≤ ε: no violation found ({total:.1f} s in all). This is "
                   "evidence against a bug, not a certificate.", icon=":material/check:")
    st.caption("ε̂ = log((TPR_lower − δ)/FPR_upper): the threshold and its direction are chosen on the first half "
               "of each neighbour's draws, and the rates are counted on the second half, each with a one-sided "
               "Clopper–Pearson bound at half the error level. The Time series row audits one invocation (one "
               "chunk or series of one feature) at its share of the per-person ε; the per-person total composes "
               "such invocations; the release-form row audits the shown feature's per-recording summaries at the "
               "page's ε per person, with the sample's 3 recordings per person. Statistics are rounded to 10⁻⁹ "
               "noise scales, so the float residue of preview noise (not a release) does not count; the check "
               "below covers the release path (docs/PRIVACY_MODEL.md §18).")


def residue() -> None:
    """The exports' float path: every released value on its lattice, and what a naive path would keep."""
    st.subheader("Float residue of an exported release")
    t0 = time.perf_counter()
    family = view.heatmap_family()
    chk = export_residue_check(family)
    secs = time.perf_counter() - t0
    (st.success if chk.passed else st.error)(
        f"{chk.values:d} values released through the exports' path with {md_text(family)} noise, the Heatmaps "
        "page's family (OpenDP, rounded to the lattice "
        f"2^{chk.lattice_k:d} first): "
        + ("every released value lies on the lattice: the export publishes no low-order bits of the data"
           if chk.passed else f"{chk.off_lattice:d} released values lie off the lattice: the export leaks "
           "low-order bits of the data")
        + f" ({secs:.2f} s).", icon=":material/check:" if chk.passed else ":material/error:")
    st.caption(f"For contrast, the same lattice noise added to the unrounded values leaves {chk.naive_off_lattice:d} "
               f"of {chk.values:d} values off the lattice, and their residues "
               + ("tell two neighbours apart with certainty" if chk.naive_separates else "do not differ here")
               + " (docs/PRIVACY_MODEL.md §11.2). Synthetic values: nothing is charged.")
