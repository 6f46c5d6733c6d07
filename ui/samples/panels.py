"""Panels of the Gaze-samples page: data checks, the raw-stream view, the method cards, the comparison views,
the utility/privacy table and the k-anonymity view. Slider-driven parts are fragments (ui.fragment), so a
slider move re-runs only its own section; figures and computations are cached in ui.samples.view."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.gaze.events import ScreenGeometry
from eyedp_core.samples import display, explain, kanon
from eyedp_core.samples.kaleido import kaleido_plan, window_sums
from eyedp_core.samples.streams import PreparedStreams
from ui import state
from ui.samples import figs, view
from ui.fragment import fragment
from ui.widgets import badge, fmt_num, log_slider

BADGE_KIND = {"w-event": "dp", "record": "paper", "not-dp": "notdp"}
METHODS = ("Kaleido", "k-same-synth", "PD (as published)", "PD (randomised threshold)")
W_OPTIONS = [10, 20, 30, 60, 120, 240, 600]
SKIP_OPTIONS = [1, 2, 3, 6, 12, 24, 60]
H_OPTIONS = [1.25, 1.5, 2.0, 3.0, 4.0, 8.0]
FLOOR_OPTIONS = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64]
GAMMA_OPTIONS = [1.5, 2.0, 5.0, 10.0, 100.0, 1e3, 1e6, 1e10, 1e20, 1e50, 1e100]
SEED_KS = (4, 6, 8, 15)


# --------------------------------------------------------------------------------------------
# data checks


def data_notes(prep: PreparedStreams, name: str) -> None:
    """Show what the input checks found: left-out participants and fixes as warnings, the rest folded away."""
    shown = [n for n in prep.notes if n.level in ("error", "warning")]
    for n in shown[:6]:
        st.warning(f"{name}: {n.text}", icon=":material/warning:")
    if len(shown) > 6:
        st.warning(f"… and {len(shown) - 6} more findings of the same kinds (see the list below).")
    info = [n for n in prep.notes if n.level == "info"] + shown[6:]
    if info:
        with st.expander(f"Data checks: {len(info)} more note(s)"):
            st.markdown("\n".join(f"- **{n.participant}**: {n.text}" for n in info))


# --------------------------------------------------------------------------------------------
# raw stream


@fragment(name="gs_raw")
def raw_section(token: str, stream_key: str, one: pd.DataFrame, who: str, geometry: ScreenGeometry,
                data_name: str) -> None:
    """Detector, its threshold and the time window -> events, headline numbers, raw trace and scanpath (a
    fragment: moving any of its controls re-runs only this section)."""
    c = st.columns([1, 2])
    method = c[0].radio("Event detection", ["ivt", "idt"], horizontal=True, key="gs_method",
                        format_func={"ivt": "I-VT (velocity)", "idt": "I-DT (dispersion)"}.get)
    if method == "ivt":
        threshold = c[1].slider("Velocity threshold (deg/s)", 10.0, 100.0, 30.0, 5.0, key="gs_vt")
    else:
        threshold = c[1].slider("Dispersion threshold (deg)", 0.25, 3.0, 1.0, 0.25, key="gs_dt")
    try:
        ev = view.detect(token, stream_key, method, threshold, geometry, one)
    except ValueError as err:
        st.error(f"{data_name}, participant {who}: {err}")
        return
    t0, t1 = float(one["t_s"].min()), float(one["t_s"].max())
    spec = display.time_slider(t0, t1)
    if spec is None:
        st.info(f"Participant {who}'s samples all share one time stamp: there is no time axis to show.")
        return
    span = st.slider("Time window (s)", spec.lo, spec.hi, spec.value, spec.step, key="gs_window")
    m = st.columns(4)
    for col, (label, value) in zip(m, display.summary(ev, t0, t1).items()):
        col.metric(label, value)
    trace, scan, counts = view.raw_figures(token, stream_key, method, threshold, geometry, tuple(span), who, one, ev)
    st.plotly_chart(trace, key="gs_raw_trace", theme=None)
    # Drawn at its own size (screen aspect ratio): stretched to a column it became a thin band.
    st.plotly_chart(scan, key="gs_raw_scan", width="content", theme=None)
    st.caption(f"{counts[0]} fixations, {counts[1]} saccades and {counts[2]} blinks in the window; detected with "
               f"{display.DETECTORS[method]} on the raw samples.")


# --------------------------------------------------------------------------------------------
# method cards


def guarantee_card(g: explain.Guarantee, title: str) -> None:
    """A method's promise: name, verdict badge, headline, plain words; the formulas behind an expander."""
    st.markdown(f"#### {title}")
    st.markdown(f"{badge(g.badge, BADGE_KIND[g.verdict])}", unsafe_allow_html=True)
    st.markdown(f"**{g.headline}.**")
    st.caption(g.words)
    with st.expander("Formulas (docs/PRIVACY_MODEL.md)"):
        for f in g.formulas:
            st.latex(f)


def kaleido_controls() -> view.KaleidoSettings:
    """Kaleido's sliders -> its settings."""
    eps = log_slider("ε per window", 0.1, 100.0, 5.0, "gs_kal_eps", help="Budget of every window of w samples.")
    c = st.columns(2)
    w = int(c[0].select_slider("w (window, samples)", W_OPTIONS, value=60, key="gs_kal_w"))
    t_skip = int(c[1].select_slider("t_skip (samples)", SKIP_OPTIONS, value=12, key="gs_kal_skip",
                                    help="Test every t_skip-th sample; the samples between repeat the last point."))
    r = float(c[0].slider("r (radius, px)", 5, 200, 50, 5, key="gs_kal_r",
                          help="Moves up to r px inside one window are protected at ε."))
    l_thresh = float(c[1].slider("l_thresh (px)", 0, 300, 60, 10, key="gs_kal_l",
                                 help="Repeat the last point while the gaze stays within about this distance."))
    h = float(c[0].select_slider("h (1/h of ε for tests)", H_OPTIONS, value=2.0, key="gs_kal_h"))
    floor = float(c[1].select_slider("smallest publication", FLOOR_OPTIONS, value=1 / 16, key="gs_kal_floor",
                                     format_func=lambda v: f"1/{round(1 / v)} of ε−ε/h",
                                     help="Below this budget a window repeats the last point instead of "
                                          "publishing with huge noise."))
    return view.KaleidoSettings(eps, w, t_skip, r, l_thresh, h, floor)


def synth_controls(n_people: int) -> int:
    """k-same-synth's slider -> k (no slider when fewer than 3 identities leave nothing to choose)."""
    if n_people < 3:
        st.caption(f"k = 2: with {n_people} identit{'y' if n_people == 1 else 'ies'} there is nothing to choose.")
        return 2
    return int(st.slider("k (identities per group)", 2, n_people, min(3, n_people), key="gs_syn_k"))


def pd_controls(n_people: int) -> view.PDSettings:
    """Plausible deniability's sliders -> its settings."""
    if n_people < 3:
        k = 2
        st.caption(f"k = 2: with {n_people} identit{'y' if n_people == 1 else 'ies'} there is nothing to choose.")
    else:
        k = int(st.slider("k (plausible identities, incl. the owner)", 2, n_people, 2, key="gs_pd_k"))
    c = st.columns(2)
    gamma = float(c[0].select_slider("γ (bucket width)", GAMMA_OPTIONS, value=2.0, key="gs_pd_gamma",
                                     format_func=fmt_num))
    eps0 = float(c[1].select_slider("ε0 (threshold noise)", [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0], value=1.0,
                                    key="gs_pd_eps0"))
    tries = int(st.slider("max draws (as published: until pass)", 1, 50, 20, key="gs_pd_tries"))
    return view.PDSettings(k, gamma, eps0, tries)


# --------------------------------------------------------------------------------------------
# original vs protected


@fragment
def compare_view(original: pd.DataFrame, protected: pd.DataFrame, method: str, geometry: ScreenGeometry,
                 who: str, stimulus_uri: str | None, stimulus_note: str) -> None:
    """Time slider + trail length -> the original and protected scanpaths up to that time (a fragment)."""
    t_lo = float(np.nanmin([original["t_s"].min(), protected["t_s"].min()]))
    t_hi = float(np.nanmax([original["t_s"].max(), protected["t_s"].max()]))
    spec = display.time_slider(t_lo, t_hi)
    if spec is None:
        st.info("This stream has no time span to animate.")
        return
    c = st.columns([3, 1])
    default = min(spec.lo + 5.0, spec.hi)
    t_end = c[0].slider("Time (s) — move to animate the scanpaths", spec.lo, spec.hi, default, spec.step,
                        key="gs_t")
    trail = float(c[1].select_slider("Trail (s)", [0.5, 1.0, 2.0, 3.0, 5.0, 10.0], value=3.0, key="gs_trail"))
    a = display.trail(original, t_end, trail)
    b = display.trail(protected, t_end, trail)
    title = f"{who}: original and {method}, {t_end - trail:.1f}–{t_end:.1f} s (PREVIEW)"
    st.plotly_chart(figs.compare_scanpath(a, b, method, geometry, title, stimulus_uri), key="gs_compare",
                    width="content", theme=None)
    st.caption(stimulus_note)


def kaleido_budget(one: pd.DataFrame, s: view.KaleidoSettings) -> None:
    """One participant's Kaleido run -> the budget-per-window chart and its counts."""
    eps = one["eps"].to_numpy(float)
    ws = window_sums(eps, s.w)
    new = one["new_point"].to_numpy(bool)
    st.plotly_chart(figs.budget_chart(one["t_s"].to_numpy(float), ws, new, s.epsilon, s.w, s.epsilon / s.h), theme=None)
    tested = int(one["tested"].sum())
    st.caption(f"{tested:,} tests and {int(new.sum()):,} new published points over {len(one):,} samples; the "
               f"largest window spent {ws.max():.4g} of ε = {s.epsilon:g} (tests at most ε/h = "
               f"{s.epsilon / s.h:.3g}, publications strictly less than ε − ε/h).")


# --------------------------------------------------------------------------------------------
# the side-by-side table


def utility_table(rows: list[dict], n_people: int) -> None:
    """Rows of figures per method -> the side-by-side table of numbers (privacy first, then utility), then each
    method's promise and notes as a list (long sentences in table cells were cut off at 1280 px)."""
    df = pd.DataFrame(rows)
    for col in ("reid_accuracy", "fixation_rate_change", "fixation_duration_change"):
        if col in df:
            df[col] = df[col] * 100.0
    cols = ["method", "reid_accuracy", "displacement_deg", "heatmap_cc", "fixation_rate_change",
            "fixation_duration_change"]
    table = df[[c for c in cols if c in df.columns]].set_index("method")
    chance = 1.0 / n_people if n_people else float("nan")
    fmt = {"reid_accuracy": "{:.0f} %", "displacement_deg": "{:.2f}", "heatmap_cc": "{:.3f}",
           "fixation_rate_change": "{:+.0f} %", "fixation_duration_change": "{:+.0f} %"}
    names = {"reid_accuracy": f"re-identified (chance {chance:.0%})", "displacement_deg": "displacement (°)",
             "heatmap_cc": "heatmap CC", "fixation_rate_change": "fixation rate",
             "fixation_duration_change": "fixation duration"}
    # Text cells: a missing figure (nothing published) reads "–"; number columns would show "None".
    shown = pd.DataFrame({c: [fmt[c].format(v) if pd.notna(v) else "–" for v in table[c]] for c in table.columns},
                         index=table.index)
    st.dataframe(shown, width="stretch", column_config={
        "method": st.column_config.TextColumn("method"),
        **{c: st.column_config.TextColumn(n, help=None) for c, n in names.items()}})
    lines = []
    for r in rows:
        note = f" — *{r['note']}*" if r.get("note") else ""
        lines.append(f"- **{r['method']}**: {r['guarantee']}{note}")
    st.markdown("**What each one guarantees**\n" + "\n".join(lines))


# --------------------------------------------------------------------------------------------
# k-anonymity


@fragment
def kanon_view() -> None:
    """k-anonymity of demographics: the generalised table, the seed's Table 2 and the intersection attack
    (a fragment: its controls re-run only this view)."""
    sources = {"seed": "ET-DK2 + 360_em (David-John et al., Table 1, 31 rows)",
               "bundled": "The bundled readers (20, synthetic)"}
    src = st.radio("Demographics", list(sources), format_func=sources.get, horizontal=True, key="gs_demo")
    demo = kanon.SEED_DEMOGRAPHICS if src == "seed" else state.demographics()
    n = len(demo)
    if n < 4:
        st.info(f"The demographics table has {n} rows: k-anonymity needs at least 4 rows to show anything.")
        return
    k = int(st.slider("k", 2, n // 2, min(4, n // 2), key="gs_kanon_k"))
    guarantee_card(explain.kanon_guarantee(k), "k-anonymity (gender, age)")
    try:
        table, scheme = kanon.k_anonymize(demo, k)
    except ValueError as err:
        st.error(str(err))
        return
    c = st.columns([1.3, 1])
    with c[0]:
        st.markdown(f"**Generalised table, k = {k}:** {scheme.text()}")
        st.dataframe(table, hide_index=True, height=300)
    with c[1]:
        st.markdown("**Classes**")
        st.dataframe(kanon.class_sizes(demo, scheme), hide_index=True)
        st.caption("Ranges cover every age from the youngest to the oldest in the table (that span is itself read "
                   "off the data). Among all schemes with every class ≥ k we take the one with the most classes "
                   "(the seed's rule); ties keep gender, then the narrowest ranges.")
    if src == "seed":
        st.markdown("#### The seed's Table 2, reproduced or explained")
        rows, why = [], []
        for kk in SEED_KS:
            cmp = kanon.compare_with_seed(kk)
            rows.append({"k": kk, "verdict": cmp.verdict, "seed (Table 2)": cmp.seed.text(), "EyeDP": cmp.ours.text()})
            why.append(f"- **k = {kk} — {cmp.verdict}.** {cmp.explanation}")
        st.table(pd.DataFrame(rows).set_index("k"))  # wraps the long schemes instead of cutting them off
        st.markdown("\n".join(why))
    st.markdown("#### Intersection attack: several generalisations of the same rows")
    ks = [kk for kk in SEED_KS if kk <= n] if src == "seed" else [kk for kk in (2, 3, 4, 5, 8) if kk <= n // 2]
    chosen = st.multiselect("Released together (k)", ks, default=[kk for kk in (4, 8, 15) if kk in ks] or ks[:2],
                            key="gs_attack_ks")
    if not chosen:
        st.info("Choose at least one release.")
        return
    schemes = [kanon.SEED_TABLE2[kk] if src == "seed" else kanon.k_anonymize(demo, kk)[1] for kk in sorted(chosen)]
    joint = kanon.intersection_attack(demo, schemes)
    smallest = int(joint["rows"].min())
    single = int((joint["rows"] == 1).sum())
    m = st.columns(3)
    m[0].metric("Smallest joint class", smallest)
    m[1].metric("People singled out", single)
    m[2].metric("Smallest class of any single release", min(s.k for s in schemes))
    which = "the seed's published schemes" if src == "seed" else "EyeDP's schemes"
    st.caption(f"Linking {which} for k = {', '.join(map(str, sorted(chosen)))} row by row: each release alone is "
               "k-anonymous, but the intersection of their classes is much smaller. This is why EyeDP allows one "
               "generalisation per dataset (docs/PRIVACY_MODEL.md §9.1).")
    st.table(joint, hide_index=True)  # wraps the "who" lists instead of cutting them off


def kaleido_plan_for(s: view.KaleidoSettings):
    """Settings -> the validated KaleidoPlan (for the guarantee text)."""
    return kaleido_plan(epsilon=s.epsilon, w=s.w, t_skip=s.t_skip, h=s.h, r=s.r, l_thresh=s.l_thresh,
                        min_pub=s.min_pub_share * (s.epsilon - s.epsilon / s.h))
