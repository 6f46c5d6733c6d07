"""Gaze samples: raw gaze streams with detected events, and four privacy methods of David-John et al. —
Kaleido (docs/PRIVACY_MODEL.md §8), k-anonymity, k-same-synth and plausible deniability (§9)."""
from __future__ import annotations

import streamlit as st

from eyedp_core.data import samples as datasets
from eyedp_core.gaze import events
from eyedp_core.samples import explain
from eyedp_core.samples.streams import StreamError, selection_column
from ui import state
from ui.samples import figs, panels, view
from ui.shell import ensure_shell
from ui.widgets import preview_watermark

ensure_shell()

VIEWS = {"raw": "Raw stream and events", "protect": "Protect the stream", "demographics": "Demographics (k-anonymity)"}

st.title("Gaze samples")
st.caption("Raw gaze streams and their events, and what four published privacy methods for gaze samples "
           "(David-John et al.) promise and cost: **Kaleido** is differential privacy per window of samples; "
           "**k-anonymity**, **k-same-synth** and **plausible deniability** as published are **not** differential "
           "privacy. Every protected stream on this page is a seeded preview, not a release.")
ds = state.current("gaze")

with st.expander("Screen geometry (used to convert pixels to degrees of visual angle)",
                 expanded=ds.source == "upload"):
    g0 = datasets.SAMPLE_SCREEN
    g = st.columns(5)
    geometry = events.ScreenGeometry(
        int(g[0].number_input("width (px)", 100, 10000, g0.width_px, key="gs_wpx")),
        int(g[1].number_input("height (px)", 100, 10000, g0.height_px, key="gs_hpx")),
        float(g[2].number_input("width (cm)", 5.0, 500.0, float(g0.width_cm), key="gs_wcm")),
        float(g[3].number_input("height (cm)", 5.0, 500.0, float(g0.height_cm), key="gs_hcm")),
        float(g[4].number_input("viewing distance (cm)", 10.0, 500.0, float(g0.distance_cm), key="gs_dist")),
    )
    dx, dy = geometry.deg_per_px()
    st.caption(f"At the screen centre one pixel spans {dx:.4f}° × {dy:.4f}° ({1 / dx:.1f} px per degree).")

try:
    prep = view.prepared(ds.token, geometry.width_px, geometry.height_px, ds.frame)
except StreamError as err:
    st.error(f"{ds.name}: {err}", icon=":material/error:")
    st.page_link("pages/your_data.py", label="Upload gaze samples", icon=":material/upload_file:")
    st.stop()
panels.data_notes(prep, ds.name)
df = prep.frame
people = prep.participants

sel = selection_column(df)
c1, c1b, c2 = st.columns([1, 1, 3])
who = c1.selectbox("Participant", people, key="gs_participant")
stims_of_who = sorted(df.loc[df["participant"] == who, sel].astype(str).unique()) if sel is not None else []
if len(stims_of_who) > 1:
    stim_name = c1b.selectbox(sel.capitalize(), stims_of_who, key="gs_stimulus")
else:
    stim_name = stims_of_who[0] if stims_of_who else None
page_view = c2.radio("View", list(VIEWS), format_func=VIEWS.get, horizontal=True, key="gs_view")


def pick(frame):
    """Rows of the chosen participant (and stimulus/task) in a table with the same columns."""
    mask = frame["participant"] == who
    if stim_name is not None and sel in frame.columns:
        mask &= frame[sel].astype(str) == stim_name
    return frame[mask]


one = pick(df)

if page_view == "raw":
    c = st.columns([1, 2])
    method = c[0].radio("Event detection", ["ivt", "idt"], horizontal=True, key="gs_method",
                        format_func={"ivt": "I-VT (velocity)", "idt": "I-DT (dispersion)"}.get)
    if method == "ivt":
        threshold = c[1].slider("Velocity threshold (deg/s)", 10.0, 100.0, 30.0, 5.0, key="gs_vt")
    else:
        threshold = c[1].slider("Dispersion threshold (deg)", 0.25, 3.0, 1.0, 0.25, key="gs_dt")
    try:
        ev = view.detect(ds.token, f"{who}|{stim_name}", method, threshold, geometry, one)
    except ValueError as err:
        st.error(f"{ds.name}, participant {who}: {err}")
        st.stop()
    panels.raw_view(one, ev, str(who), geometry, method)

elif page_view == "protect":
    n_people = len(people)
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
    kal = view.kaleido(ds.token, s_kal, seed, (geometry.width_px, geometry.height_px), df)
    outputs["Kaleido"] = kal
    ep = view.params(ds.token, geometry, df)
    try:
        outputs["k-same-synth"] = view.synth(ds.token, k_syn, seed, geometry, df, ep).samples
    except ValueError as err:
        notes["k-same-synth"] = str(err)
    pd_runs = {}
    for form, name in (("published", "PD (as published)"), ("randomised", "PD (randomised threshold)")):
        pd_runs[name] = view.deniability(ds.token, form, s_pd, seed, geometry, df, ep)
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
        st.plotly_chart(figs.tries_chart(run.records, 1 if run.form == "randomised" else run.max_tries))
        st.caption(f"{run.n_published:,} of {run.n_events:,} fixations published, {run.n_dropped:,} dropped "
                   + ("(failed the noisy threshold; not re-drawn)." if run.form == "randomised" else
                      f"(no pass within {run.max_tries} draws; the published loop would never stop). ")
                   + " A fixation passes only if another person has a fixation with the same number of samples "
                     "under which the draw is almost as likely — with tracker noise of a few pixels, that needs "
                     "a fixation within a few pixels of this one.")
    elif shown == "k-same-synth":
        res = view.synth(ds.token, k_syn, seed, geometry, df, ep)
        st.caption(" ".join(res.notes) + " Blinks are not synthesised; the synthetic stream is as long as the "
                   "aligned events.")

    st.subheader("All methods side by side, at these settings")
    base = view.baseline(ds.token, geometry, df)
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
            f = view.figures(ds.token, name, settings[name], seed, geometry, df, outputs[name])
            rows.append(dict(method=name, guarantee=guarantees[name], **f, note=notes.get(name, "")))
        except ValueError as err:
            rows.append(dict(method=name, guarantee=guarantees[name], note=str(err)))
    panels.utility_table(rows, n_people)
    st.caption("Displacement: mean visual angle between protected and original samples at the same time. Heatmap "
               "CC: correlation of the blurred sample densities. Fixation changes: I-VT on the protected stream vs "
               "the original. Re-identification: an SVM trained on each person's clean earlier windows "
               f"({view.WINDOW_S:g} s) names the person behind each later protected window. Empirical figures on "
               "this data, not guarantees.")

else:
    panels.kanon_view()

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page
ui.share.page_tools("gaze_samples", globals())  # the export reads s_kal, df, geometry
