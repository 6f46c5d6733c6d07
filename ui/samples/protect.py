"""Gaze-samples page, "Protect the stream" view: the method cards with their controls, the original and protected
scanpaths, Kaleido's budget chart and the utility/privacy table of every method (one fragment: a control here
re-runs only this view; every computation is cached per method and settings in ui.samples.view)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from eyedp_core.gaze.events import ScreenGeometry
from eyedp_core.samples import explain
from eyedp_core.samples.streams import PreparedStreams
from ui import state
from ui.fragment import fragment
from ui.samples import figs, panels, view
import ui.share
from ui.widgets import preview_watermark


@fragment(name="gs_protect")
def protect_view(token: str, prep: PreparedStreams, who: object, stim_name: str | None, sel: str | None,
                 geometry: ScreenGeometry) -> None:
    """Checked streams, the chosen participant and stimulus -> the whole Protect view (a fragment)."""
    n_people = len(prep.participants)
    df = prep.frame
    one = view.pick(df, who, stim_name, sel)

    def pick(frame: pd.DataFrame) -> pd.DataFrame:
        return view.pick(frame, who, stim_name, sel)

    st.subheader("What each method promises")
    cards = st.columns(3, gap="medium")
    with cards[0]:
        kal_box = st.container()
        s_kal = panels.kaleido_controls()
        plan = panels.kaleido_plan_for(s_kal)
        with kal_box:
            panels.guarantee_card(explain.kaleido_guarantee(plan, prep.rate_hz, len(one), geometry), "Kaleido")
    with cards[1]:
        syn_box = st.container()
        k_syn = panels.synth_controls(n_people)
        with syn_box:
            panels.guarantee_card(explain.synth_guarantee(k_syn), "k-same-synth")
    with cards[2]:
        pd_box = st.container()
        s_pd = panels.pd_controls(n_people)
        with pd_box:
            panels.guarantee_card(explain.pd_guarantee_words("published", s_pd.k, s_pd.gamma, s_pd.eps0),
                                  "Plausible deniability (fixations)")
            st.caption("Randomised-threshold form: " + explain.pd_guarantee_words(
                "randomised", s_pd.k, s_pd.gamma, s_pd.eps0).words)

    st.divider()
    c = st.columns([1, 3])
    seed = int(c[0].number_input("Preview seed", 0, 2**31 - 1, 0, key="gs_seed",
                                 help="Every protected stream here is drawn from a numpy Generator seeded with "
                                      "this number (reproducible previews, docs/PRIVACY_MODEL.md §11)."))
    with c[1]:
        preview_watermark()
        st.caption("Nothing on this page is exported or charged to the ledger: the protected streams are previews "
                   "for exploring the methods.")

    outputs, notes = {}, {}
    kal = view.kaleido(token, s_kal, seed, (geometry.width_px, geometry.height_px), df)
    outputs["Kaleido"] = kal
    ep = view.params(token, geometry, df)
    try:
        outputs["k-same-synth"] = view.synth(token, k_syn, seed, geometry, df, ep).samples
    except ValueError as err:
        notes["k-same-synth"] = str(err)
    pd_runs = {}
    for form, name in (("published", "PD (as published)"), ("randomised", "PD (randomised threshold)")):
        pd_runs[name] = view.deniability(token, form, s_pd, seed, geometry, df, ep)
        outputs[name] = pd_runs[name].samples

    st.subheader("Original and protected, over the stimulus")
    shown = st.radio("Method", [m for m in panels.METHODS if m in outputs], horizontal=True, key="gs_show")
    prot_one = pick(outputs[shown])
    stims = state.stimuli()
    if stim_name is not None and stim_name in stims and stims[stim_name].image is not None:
        uri, note = figs.image_uri(stims[stim_name].image), f"Background: the stimulus '{stim_name}'."
    else:
        uri, note = None, (f"No stimulus image named '{stim_name}' is loaded, so the frame is the screen "
                           f"({geometry.width_px} × {geometry.height_px} px); upload one on Your data to see it "
                           "underneath." if stim_name else "The frame is the screen.")
    if prot_one.empty or not prot_one[["x", "y"]].notna().any().any():
        st.info(f"{shown} published nothing for {who}. " + notes.get(shown, ""))
    else:
        panels.compare_view(one, prot_one, shown, geometry, str(who), uri, note)
    if shown == "Kaleido":
        panels.kaleido_budget(pick(kal), s_kal)
    elif shown.startswith("PD"):
        run = pd_runs[shown]
        st.plotly_chart(figs.tries_chart(run.records, 1 if run.form == "randomised" else run.max_tries), theme=None)
        st.caption(f"{run.n_published:,} of {run.n_events:,} fixations published, {run.n_dropped:,} dropped "
                   + ("(failed the noisy threshold; not re-drawn)." if run.form == "randomised" else
                      f"(no pass within {run.max_tries} draws; the published loop would never stop). ")
                   + " A fixation passes only if another person has a fixation with the same number of samples "
                     "under which the draw is almost as likely — with tracker noise of a few pixels, that needs "
                     "a fixation within a few pixels of this one.")
    elif shown == "k-same-synth":
        res = view.synth(token, k_syn, seed, geometry, df, ep)
        st.caption(" ".join(res.notes) + " Blinks are not synthesised; the synthetic stream is as long as the "
                   "aligned events.")

    st.subheader("All methods side by side, at these settings")
    base = view.baseline(token, geometry, df)
    guarantees = {"Kaleido": f"ε = {s_kal.epsilon:g} per {s_kal.w}-sample window, r = {s_kal.r:g} px",
                  "k-same-synth": f"each event vector shared by ≥ {k_syn} (not DP)",
                  "PD (as published)": f"≥ {s_pd.k - 1} other plausible identit{'y' if s_pd.k == 2 else 'ies'} "
                                       "per fixation (not DP)",
                  "PD (randomised threshold)": "record-level (ε, δ) as claimed; not per person"}
    settings = {"Kaleido": s_kal, "k-same-synth": k_syn, "PD (as published)": s_pd, "PD (randomised threshold)": s_pd}
    rows = [dict(method="original (no protection)", guarantee="none", **base, note="")]
    for name, run in pd_runs.items():
        if run.n_published == 0:
            notes[name] = f"nothing published: 0 of {run.n_events:,} fixations passed the test"
    for name in panels.METHODS:
        if name not in outputs:
            rows.append(dict(method=name, guarantee=guarantees[name], note=notes.get(name, "")))
            continue
        try:
            f = view.figures(token, name, settings[name], seed, geometry, df, outputs[name])
            rows.append(dict(method=name, guarantee=guarantees[name], **f, note=notes.get(name, "")))
        except ValueError as err:
            rows.append(dict(method=name, guarantee=guarantees[name], note=str(err)))
    panels.utility_table(rows, n_people)
    st.caption("Displacement: mean visual angle between protected and original samples at the same time. Heatmap "
               "CC: correlation of the blurred sample densities. Fixation changes: I-VT on the protected stream vs "
               "the original. Re-identification: an SVM trained on each person's clean earlier windows "
               f"({view.WINDOW_S:g} s) names the person behind each later protected window. Empirical figures on "
               "this data, not guarantees.")
    # The share box closes the page; here it gets the Kaleido settings the release-mode export uses.
    ui.share.page_tools("gaze_samples", {"s_kal": s_kal, "df": df, "geometry": geometry, "kal": kal, "seed": seed})
