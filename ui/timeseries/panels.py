"""Time-series view, secondary panels (only the visible one computes): utility vs ε, k, correlation, accounting."""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from eyedp_core.dp.accounting import advanced_composition
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.accounting import EpsilonPlan, sub_participant_bounds
from eyedp_core.timeseries.choices import KSource, analytic_k, rule_k
from eyedp_core.timeseries.experiments import SweepSpec, crossing_sentences
from eyedp_core.timeseries.labels import CHUNKED, DEFAULT_SWEEP_LABELS, STANDARD_CHUNKS, SWEEP_LABELS
from eyedp_core.timeseries.preview import PreviewSetting
from eyedp_core.timeseries.signals import acf_table, correlation_curves, difference_signal
from eyedp_core.timeseries.temporal_leakage import temporal_leakage
from ui import settings
from ui.text import md_cells, md_text
from ui.timeseries import figs, view
from ui.timeseries.context import PRIVATE_EPS_NOTE, TUNED_NOTE, Ctx, accounting_words, fe, ledger_table
from ui.timeseries.data import feature_label, unit_of
from ui.timeseries.preview_image import PreviewLayout
from ui.widgets import WATERMARK_HTML, badge, fmt_num, index_in_force, preview_watermark, value_in_force

PANELS = {"utility": "Utility vs ε", "k": "Choice of k", "corr": "Correlation", "acct": "Accounting",
          "steil": "Steil et al.", "table": "Per-feature table", "forms": "Release forms", "ab": "Compare A/B"}
EPS_RANGE = (0.001, 10000.0)  # the ε slider's range: the forms' crossings are sought inside it


# --------------------------------------------------------------------------------------------
# panels


def _sweep_controls(c: Ctx, labels: list[str]) -> tuple[list[str], str, bool, bool, tuple[int, int]]:
    """The sweep's widgets -> (chosen mechanism labels, k rule, both accountings, run band, ε range exponents)."""
    a, b, d = st.columns([1.6, 1.2, 1], gap="medium")
    chosen = a.multiselect("Mechanisms to compare", labels, default=list(DEFAULT_SWEEP_LABELS), key="ts_sweep_mechs",
                           help="CFPA/DCFPA with 64 and 128 windows are on offer too; each adds a few seconds.")
    rule = b.radio("k in the sweep", ["public", "fixed", "oracle"], key="ts_sweep_k",
                   index=index_in_force("ts_sweep_k", ["public", "fixed", "oracle"]),
                   format_func={"public": "public rule (data-free)", "fixed": f"fixed k = {c.setting.k}",
                                "oracle": "oracle (tuned on private data)"}.get,
                   help="Public rule: k from timeseries.k.public_k, costs no privacy. Oracle: per feature and chunk the k "
                        "minimising the expected error on the private data — " + TUNED_NOTE + ".")
    both = d.toggle("Both accountings side by side", value=True, key="ts_sweep_both")
    band = d.toggle("Spread of single runs", value=False, key="ts_sweep_runband",
                    help="10–90% quantiles of the utility of one run (what one release looks like).")
    lo_e, hi_e = st.select_slider("ε range of the sweep (10 log-spaced values)", options=list(range(-3, 6)),
                                  value=value_in_force("ts_sweep_range", (-2, 4)), format_func=lambda e: f"10^{e}" if e not in (0, 1) else str(10 ** e),
                                  key="ts_sweep_range")
    return chosen, rule, both, band, (lo_e, hi_e)


def _sweep_notes(c: Ctx, table: pd.DataFrame, secs: float, modes: list[str], rule: str) -> None:
    """The sweep's caption (flags, what was averaged, how long it took), when each mechanism becomes usable, and the
    numbers behind the chart."""
    flags = []
    if c.setting.sensitivity_mode == "empirical":
        flags.append(badge("data-derived sensitivity — as in paper, not a DP guarantee", "notdp"))
    if rule == "oracle":
        flags.append(badge(TUNED_NOTE, "notdp"))
    st.markdown(
        " ".join(flags) + f" {c.series.x.shape[0]} recordings × {len(c.series.names)} features, T = {c.series.length}, "
        f"R = {c.setting.runs} draws per ε (shared across ε). Utility as in the paper: MSE averaged over runs, "
        f"NMSE ({c.setting.nmse_kind}) per series, averaged over recordings per feature, 1/NMSE averaged over features. "
        f"Shaded: ±2 jackknife standard errors of that mean. Left: ε per invocation as the paper states it; "
        f"right: the same total ε per participant (split over features × chunks × recordings), where chunking "
        f"no longer looks free. Computed in {table.groupby('mechanism')['compute_s'].first().sum():.1f} s "
        f"({'just now' if secs >= 0.8 * table.groupby('mechanism')['compute_s'].first().sum() else 'cached since'}).",
        unsafe_allow_html=True)
    words = {"paper": "ε per chunk / series as in the paper", "participant": "total ε per person"}
    st.markdown(f"**When each becomes usable (0 dB, {words[c.setting.mode]}):**\n" + "\n".join(
        f"- {line}" for line in crossing_sentences(table, c.setting.mode)))
    with st.expander("Numbers (utility in dB)"):
        piv = table[table["mode"].isin(modes)].pivot_table(index="epsilon", columns=["mode", "mechanism"],
                                                           values="utility_db")
        st.dataframe(piv.round(1))


def utility_panel(c: Ctx) -> None:
    """Utility (dB) against log ε for the chosen mechanisms, both accountings, with Monte Carlo bands."""
    labels = list(SWEEP_LABELS)
    if c.setting.chunk and c.setting.chunk not in STANDARD_CHUNKS:
        labels += [m.label(c.setting.chunk) for m in CHUNKED]
    chosen, rule, both, band, (lo_e, hi_e) = _sweep_controls(c, labels)
    if not chosen or lo_e >= hi_e:
        st.info("Choose at least one mechanism and an ε range.")
        return
    sens = "data-derived" if c.setting.sensitivity_mode == "empirical" else "public"
    lo, hi = tuple(c.series.lo.tolist()), tuple(c.series.hi.tolist())
    try:
        # k enters the cache key only where the sweep uses it: a moved ε (which moves the public k) keeps the cache.
        spec = SweepSpec(epsilons=view.sweep_epsilons(lo_e, hi_e), runs=c.setting.runs, k_rule=rule,
                         k=c.setting.k if rule == "fixed" else SweepSpec.k, sensitivity=sens, nmse_kind=c.setting.nmse_kind,
                         n_recordings=c.plan.n_recordings)
        table, secs = view.sweep(view.SeriesKey(*c.keys, lo, hi), chosen, spec, c.setting.seed, c.series.x)
    except ValueError as err:
        st.error(f"The sweep cannot run on this data: {md_text(err)}")
        return
    modes = ["paper", "participant"] if both else [c.setting.mode]
    unit = "chunk / series"
    xt = {"paper": f"ε per {unit}, as the paper states it (log scale)",
          "participant": "total ε per participant (log scale)"}
    st.plotly_chart(figs.utility_figure(table, modes, [m for m in labels if m in chosen], (c.setting.mode, c.setting.epsilon),
                                        band, xt), theme=None)
    _sweep_notes(c, table, secs, modes, rule)


def k_panel(c: Ctx) -> None:
    """The expected error over k that explains the choice; the public rule, analytic minimum and paper's search."""
    if c.setting.mech is Mech.LPA:
        st.info("LPA adds noise to every sample; it keeps no Fourier coefficients, so there is no k to choose.")
        return
    xf = c.series.x[:, c.feature_index, :]
    lo, hi = c.bounds_f
    eps = c.plan.per_invocation
    mech, chunk = c.setting.mech, c.setting.chunk
    q = view.KQuery(*c.keys, c.feature_index, (lo, hi), mech, chunk, eps, c.setting.sensitivity_mode)
    curve = view.k_curve(q, xf, c.feature_sensitivities)
    marks = {"rule (public)": rule_k(mech, c.transform_length, eps), "analytic minimum": analytic_k(curve)}
    search = None
    run = st.toggle(f"Run the paper's search (R = {c.setting.runs} noisy draws per k on the private data)",
                    value=c.setting.k_source is KSource.OPTIMAL, key="ts_k_search")
    if run:
        opt = view.k_optimal(q, c.setting.runs, c.setting.seed, xf, c.feature_sensitivities)
        marks["optimal (paper's search)"] = opt.k
        search = pd.DataFrame({"k": opt.ks, "error": opt.mean_error / c.series.length})
    marks["current k"] = c.setting.k
    unit = unit_of(c.feature)
    st.plotly_chart(figs.k_figure(curve, marks, search, f"{unit}²" if unit and unit != "1" else ""), theme=None)
    if marks["analytic minimum"] == 1:
        st.caption("At this ε the noise term is larger than any signal it would keep, so keeping only the first "
                   "coefficient (k = 1) is best. Raise ε to see the trade-off move to larger k.")
    st.markdown(
        f"**{md_text(c.feature)}**, {c.setting.label}, ε = {fmt_num(eps)} per invocation, all {xf.shape[0]} recordings. "
        "The expected error of one invocation is RE(k) + h(k)·Δ₂²/ε² (docs/PRIVACY_MODEL.md §2.5): keeping more coefficients "
        "drops less of the signal (RE, falling) but adds noise to more of them (h(k), rising).\n"
        f"* **Public rule** {badge('costs no privacy', 'dp')}: replaces RE by a public prior (signal sd 0.1·R, "
        "spectrum falling as j⁻²), so k depends only on n, ε and the bounds. The default.\n"
        f"* **Analytic minimum** {badge(TUNED_NOTE, 'notdp')}: the minimum of the curve, which reads the data's "
        "spectrum.\n"
        f"* **Paper's optimal** {badge(TUNED_NOTE, 'notdp')}: Bozkir et al. pick k with the smallest mean error over "
        "noisy runs on the private data. Either of the last two, if used, is recorded in the ledger with "
        "*tuned on private data*.", unsafe_allow_html=True)
    if search is not None and opt.per_chunk_k is not None and len(opt.per_chunk_k) > 1:
        st.caption("Per chunk the paper would pick k = " + ", ".join(map(str, opt.per_chunk_k.tolist())) + ".")


def correlation_panel(c: Ctx) -> None:
    """Correlation against Δt across participants (original, difference, noisy) and per-participant ACFs."""
    rows = c.series.task_rows(c.task)
    t = c.series.length
    if rows.size < 3:
        st.info(f"The correlation across participants needs at least 3 participants with a recording"
                f"{' of ' + md_text(c.task) if c.task else ''}; this data has {rows.size}.")
        return
    if t < 12:
        st.info(f"The series are too short (T = {t}) for correlation curves.")
        return
    step = c.info.step_s
    top = max(6, t - 5)
    default = min(top, int(round(60 / step)) if step else 120)
    settings.clamp("ts_corr_lag", 5, top)  # a lag restored for a longer series
    lag = st.slider("Largest time difference shown" + (" (windows of 0.5 s)" if step == 0.5 else " (windows)"),
                    5, top, min(max(value_in_force("ts_corr_lag", default), 5), top), key="ts_corr_lag")
    xf = np.asarray(c.series.x[rows, c.feature_index, :])
    sig = {"original": xf, "difference": difference_signal(xf), "noisy": c.preview.noisy[rows]}
    curves = correlation_curves(sig, ref_index=4, max_lag=lag)
    ids = c.series.recs["participant"].to_numpy()[rows].tolist()
    acf = acf_table({"original": xf, "difference": sig["difference"]}, max_lag=lag, participants=ids)
    left, right = st.columns(2)
    left.plotly_chart(figs.correlation_figure(curves, step, c.setting.label, c.feature, c.task), theme=None)
    right.plotly_chart(figs.acf_figure(acf, step), theme=None)
    piv = curves.pivot(index="lag", columns="signal", values="cc")
    picks = sorted({1, min(lag, 10), min(lag, int(round(30 / step)) if step else 60), lag})
    when = [f"Δt = {L * step:g} s" if step else f"Δt = {L} windows" for L in picks]
    cc = pd.DataFrame({w: piv.loc[L, ["original", "difference", "noisy"]].to_numpy() for w, L in zip(when, picks)},
                      index=["original", "difference", f"noisy ({c.setting.label})"])
    st.markdown(f"**Correlation coefficient with the 5th sample, across the {rows.size} participants**")
    st.dataframe(cc.round(2), column_config={"_index": st.column_config.TextColumn("signal")})
    st.markdown(
        "Neighbouring windows overlap (30-s windows every 0.5 s), so the original feature signal stays correlated "
        "for tens of seconds; the difference signal DCFPA perturbs is far less correlated. **This is not a privacy "
        "argument** (docs/PRIVACY_MODEL.md §10): at participant level the DP guarantee already covers every correlation "
        "inside a person's record. Correlation matters only for sub-participant units such as one chunk — see "
        "the group bound and the Markov estimate under *Accounting*.")


def _markov_chain(c: Ctx) -> tuple[np.ndarray | None, np.ndarray | None, str]:
    """The widgets choosing the Markov chain of the temporal-leakage estimate -> (P^B, P^F, where it came from)."""
    pb = pf = None
    source_note = ""
    # One horizontal box, not three columns: fewer blocks re-sent on every move of its sliders.
    a = b = d = st.container(horizontal=True, gap="medium")
    src = a.radio("Transition matrix for the Markov estimate", ["public", "sticky"], horizontal=True,
                  index=index_in_force("ts_markov_src", ["public", "sticky"]),
                  key="ts_markov_src", format_func={"public": "bundled synthetic sample (public)",
                                                    "sticky": "assumed sticky chain"}.get)
    states = b.slider("States (equal-width bins of the chunk mean)", 2, 8, value_in_force("ts_states", 4), key="ts_states")
    if src == "public":
        try:
            pb, pf, chains = view.public_chain(c.feature, int(c.setting.chunk), states)
            source_note = (f"P^B, P^F counted on chunk means of '{md_text(c.feature)}' in the bundled synthetic sample "
                           f"({chains} recordings, public: shipped with EyeDP).")
        except (KeyError, ValueError):
            st.caption(f"'{md_text(c.feature)}' is not in the bundled sample; using the assumed sticky chain instead.")
            src = "sticky"
    if src == "sticky":
        stay = d.slider("Stay probability", 0.0, 0.99, value_in_force("ts_stay", 0.9), 0.01, key="ts_stay")
        pb = pf = view.sticky_chain(states, stay)
        source_note = f"assumed chain: stay in the same state with probability {stay:g}, else move uniformly."
    return pb, pf, source_note


def _scopes_table(p: EpsilonPlan, pb: np.ndarray | None, pf: np.ndarray | None) -> pd.DataFrame:
    """ε plan and Markov chain -> one row per scope (what it covers, ε, δ, how rigorous), the paper's claim first."""
    table = sub_participant_bounds(p, backward=pb, forward=pf)
    u = p.unit
    short = {"per unit": f"one {u} (the paper's unit)",
             "rigorous (ε, δ)": "participant: advanced composition (δ′ = 10⁻⁶)",
             "model-based estimate": "one series: Markov estimate — advanced estimate (model-based)"}
    labels = [short.get(k) or (f"one feature series: group bound ({p.n_chunks} {u}s)" if "group" in sc else
                               "participant: all features × chunks × recordings")
              for sc, k in zip(table["scope"], table["kind"])]
    table.insert(0, "what", labels)
    paper = pd.DataFrame([{"what": "paper's claimed ε (Σ features, chunks in parallel, per recording)",
                           "scope": "as in the paper", "epsilon": p.paper_total if p.has_guarantee else math.inf,
                           "delta": 0.0, "kind": "as in the paper"}])
    return pd.concat([paper, table], ignore_index=True)


def accounting_panel(c: Ctx) -> None:
    """The accounting in plain words, the ε at each scope, the Markov estimate and the ledger entries."""
    p = c.plan
    st.markdown(f"**Unit of privacy: one participant** — two datasets are neighbours if one participant's whole "
                f"contribution (every feature, chunk and recording) is replaced. **Mechanism**: {c.setting.label}"
                + ("" if c.setting.mech is Mech.LPA else f", k = {c.setting.k}") + f", public length T = {c.series.length}, "
                f"{'public bounds' if c.sensitivity_type == 'public' else 'data-derived sensitivity'}.")
    st.markdown(accounting_words(c), unsafe_allow_html=True)
    pb, pf, source_note = _markov_chain(c) if p.n_chunks >= 2 else (None, None, "")
    table = _scopes_table(p, pb, pf)
    st.plotly_chart(figs.accounting_figure(table.assign(scope=table["what"])), theme=None)
    if not (table["kind"] == "rigorous (ε, δ)").any() and p.invocations > 1:
        adv = advanced_composition(p.per_invocation, p.invocations, 1e-6)
        st.caption(f"Advanced composition of the {p.invocations:,} calls would give ε′ = {fe(adv)} (δ′ = 10⁻⁶), "
                   f"more than the basic total {fe(p.participant_total)} at ε₀ = {fe(p.per_invocation)}, so it does "
                   "not help here (it pays off only for small per-call ε).")
    st.dataframe(table[["what", "epsilon", "delta", "kind"]], hide_index=True,
                 column_config={"what": st.column_config.TextColumn("scope", width="large"),
                                "epsilon": st.column_config.NumberColumn("ε", format="%.4g"),
                                "delta": st.column_config.NumberColumn("δ", format="%.2g"),
                                "kind": st.column_config.TextColumn("how rigorous")})
    st.markdown(
        "* **Rigorous** (green, blue): the participant total (basic composition) and, where smaller, advanced "
        "composition — an (ε, δ′) guarantee. The group bound C·ε covers all the correlated chunks of one feature "
        "series.\n"
        "* **Advanced estimate (model-based)** (purple): Cao et al.'s temporal leakage about one chunk when "
        "consecutive chunks follow a Markov chain — only as good as the matrix, which must come from public data: "
        "**estimating it on the private data would itself leak**.\n"
        "* **As in the paper** (orange): Σ over features of the per-chunk ε; it protects one chunk, not a person.")
    if source_note:
        st.caption(source_note)
    if pb is not None:
        tpl = temporal_leakage(pb, pf, p.per_invocation, steps=p.n_chunks)
        st.plotly_chart(figs.tpl_figure(tpl, p.per_invocation * p.n_chunks), theme=None)
    st.markdown("**In this session's ledger (this view)**")
    ledger_table()


def _table_config(what: str, lpa: bool, nmse_kind: str) -> dict:
    """Column formats and help of the per-feature table (`what`: the sensitivity column's name)."""
    # Formats that never clip: scientific for values spanning many decades (λ reaches 10⁸, NMSE 10¹⁰), fixed
    # decimals for percentages and dB; headers short, the long name in the help.
    sci = "scientific"
    return {
        "feature": st.column_config.TextColumn("feature", width="large", pinned=True),
        "L": st.column_config.NumberColumn("L", format="%g"),
        "U": st.column_config.NumberColumn("U", format="%g"),
        "bounds": st.column_config.TextColumn("bounds", help="public: from the feature definition; declared: "
                                              "entered by you; pre-filled: read from this data (not DP)"),
        "source": st.column_config.TextColumn("source", help="where the public bound comes from "
                                              "(docs/PRIVACY_MODEL.md §13)"),
        "clamped %": st.column_config.NumberColumn("clamped %", format="%.2f", help="share of this data's values "
                                                   "outside [L, U], clipped by the mechanism (computed on the private "
                                                   "data: for the curator's eyes)"),
        what: st.column_config.NumberColumn(what, format=sci, help="sensitivity of one invocation"),
        ("b" if lpa else "λ"): st.column_config.NumberColumn("b" if lpa else "λ", format=sci,
                                                            help="Laplace scale the noise was drawn with"),
        "k": st.column_config.TextColumn("k"),
        f"NMSE ({nmse_kind})": st.column_config.NumberColumn(f"NMSE ({nmse_kind})", format=sci),
        "utility (dB)": st.column_config.NumberColumn("utility (dB)", format="%.1f",
                                                      help="10·log₁₀(1/NMSE): 0 dB = noise as large as the signal"),
        "NMSE as in paper (one run, median)": st.column_config.NumberColumn(
            "NMSE (paper)", format=sci, help="mean (x − x̃)²/(mean x · mean x̃), median over recordings"),
    }


def table_panel(c: Ctx) -> None:
    """Per feature: bounds and where they come from, clamped share, sensitivity, noise scale, k and NMSE."""
    from ui.timeseries.data import clamped_share, source_of

    d = c.series
    n = c.transform_length
    mech = c.setting.mech
    # Sensitivity and scale come from the calibrations the preview's noise was drawn with.
    if c.sensitivities is not None:
        what = "Δ (data)"
    elif mech is Mech.LPA:
        what = "Δ₁ = T·R"
    elif mech is Mech.DCFPA:
        what = "Δ₁ of the kept coefficients"
    else:
        what = "Δ₂ = √n·R"
    delta, scale = c.preview.feature_sensitivity, c.preview.feature_scale
    eps = c.plan.per_invocation
    lpa = mech is Mech.LPA
    clamped = clamped_share(*c.keys, tuple(d.lo.tolist()), tuple(d.hi.tolist()), d.x)
    frame = pd.DataFrame({
        "feature": [feature_label(f) for f in d.names], "L": d.lo, "U": d.hi,
        "bounds": c.bounds_kind, "source": [source_of(f) for f in d.names], "clamped %": 100 * clamped, what: delta,
        ("b" if lpa else "λ"): scale,
        "k": "—" if lpa else str(c.setting.k),
        f"NMSE ({c.setting.nmse_kind})": c.preview.nmse_feature,
        "utility (dB)": -10 * np.log10(c.preview.nmse_feature),
        "NMSE as in paper (one run, median)": c.preview.nmse_paper_feature,
    })
    config = _table_config(what, lpa, c.setting.nmse_kind)
    st.dataframe(frame, hide_index=True, height=min(36 * (len(frame) + 1) + 4, 560), column_config=config)
    scale_note = ("b: Laplace scale per sample" if lpa else "λ: Laplace scale per Re/Im part of a kept "
                  "coefficient, for a full-length chunk (a shorter last chunk gets its own)")
    sens_note = (" Δ (data): Bozkir et al.'s data-derived sensitivity (the chunk with the median scale) — as in "
                 "paper, not a DP guarantee." if c.sensitivities is not None else "")
    st.caption(
        f"{c.setting.label}, ε = {fmt_num(eps)} per invocation, n = {n}, one seeded run over all {d.x.shape[0]} "
        f"recordings (NMSE averaged over them). {scale_note}. 'NMSE (paper)' divides by mean(x)·mean(x̃): it can be negative "
        "and has no expectation (docs/PRIVACY_MODEL.md §5), so only one run's median is shown. Bounds: 'public' = from the "
        "feature definition (FEATURE_SPECS); 'declared' = entered by you; 'pre-filled' = read from this data, not a "
        f"DP guarantee until you confirm them.{sens_note}")


def _form_controls(left: DeltaGenerator, right: DeltaGenerator, length: int) -> tuple[float, int]:
    """The release forms' widgets (target utility; coarse windows per recording, up to the public T) -> (target dB,
    coarse windows)."""
    target = float(left.number_input("Target utility (dB)", -40.0, 40.0, value_in_force("ts_form_target", 0.0), 1.0, key="ts_form_target",
                                     help="0 dB: the noise is as large as the spread between people of the "
                                          "released values; +10 dB: ten times smaller in variance."))
    # The range follows the data: a recording of T windows has at most T coarse windows.
    top = min(60, length)
    if top > 2:
        settings.clamp("ts_form_blocks", 2, top)  # a value restored for a longer series
        blocks = int(right.slider("Coarse windows per recording", 2, top,
                                  min(value_in_force("ts_form_blocks", 10), top), key="ts_form_blocks",
                                  help="Release the mean of each of this many equal parts of the public length "
                                       f"T = {length} instead of every window."))
    else:
        blocks = top
        right.caption(f"Coarse windows per recording: {blocks} (T = {length} windows)")
    return target, blocks


def forms_panel(c: Ctx, plan_part: Callable[[Ctx, list, float, int], None] | None = None) -> None:
    """Release forms with a small sensitivity per person: what each costs, its expected utility, when it is usable;
    `plan_part(ctx, rows, target dB, coarse windows)` draws the study plan's box under the table (the page passes
    it: ui.plan sits above this package)."""
    from eyedp_core.timeseries import forms

    d = c.series
    eps = float(c.plan.participant_total)
    # One horizontal box, not three columns: fewer blocks re-sent on every move of its slider.
    row = st.container(horizontal=True, gap="medium")
    cols = (row, row, row)
    target, blocks = _form_controls(cols[0], cols[1], d.length)
    # Counted from the table's structure (the main accounting's own count), never from the number of tasks.
    per_person = c.info.n_recordings
    rows = view.form_rows(view.SeriesKey.of(c.keys, d.lo, d.hi), eps, blocks, per_person, c.feature_index, target,
                          d.x, d.recs)
    cols[2].markdown(
        f"At your **ε = {fmt_num(eps)} per person** (the total, whatever the accounting above), one participant "
        f"changed completely (all {per_person} recording{'s' if per_person != 1 else ''}, every feature; the most "
        "any participant has in this table): each value below is a mean of clamped values, so one person moves it "
        "by at most its range R (a recording summary) or R/N (a group mean over N people, each person's recordings "
        "averaged first); the noise per value shrinks with the number of people. **0 dB** means the noise is as "
        "large as the spread between people of the released values (a sample of noisy values then tells people "
        "apart only roughly); +10 dB, a tenth of it in variance.")
    private = badge(PRIVATE_EPS_NOTE, "notdp")
    st.markdown("**" + forms.overall_sentence(rows, target, EPS_RANGE) + "** " + private, unsafe_allow_html=True)
    st.plotly_chart(figs.forms_figure(rows, target, eps, EPS_RANGE), theme=None, config={"displayModeBar": False})
    frame = pd.DataFrame({
        "release form": [r.label for r in rows],
        "values per person": [r.values_per_person for r in rows],
        "Δ₁ (ranges)": [r.l1_sensitivity for r in rows],
        f"noise b of {md_text(c.feature)}": [r.shown_scale for r in rows],  # st.table headers are markdown
        "expected utility (dB)": [r.utility_db for r in rows],
        f"ε for {target:g} dB": [r.crossing_epsilon for r in rows],
    })
    st.table(frame.style.format({"Δ₁ (ranges)": "{:.3g}", f"noise b of {md_text(c.feature)}": "{:.3g}",
                                 "expected utility (dB)": "{:+.1f}", f"ε for {target:g} dB": "{:.3g}"}))
    if plan_part is not None:
        plan_part(c, rows, target, blocks)
    st.markdown(f"Every ε in the column *ε for {target:g} dB* and below is {private}\n\n" +
                "\n".join(f"- {r.sentence}" for r in rows), unsafe_allow_html=True)
    with st.expander("The formulas, and the shown feature's group means (preview)"):
        st.markdown("Values are divided by their range R_f, so one person's whole output has one L1 sensitivity "
                    "Δ₁ and one Laplace scale b = Δ₁/ε (b_f = R_f·b): ε-DP per person for the whole release. Per-"
                    "recording summaries: Δ₁ = recordings per person × coarse windows × features. Group means: "
                    "Δ₁ = coarse windows × features × Σ_tasks 1/N, with N the task's participants (each person's "
                    "recordings of it averaged first). Expected utility = 10·log₁₀(mean_f V_f/(2b_f²)) with "
                    "V_f the variance between recordings of the summaries; it grows 20 dB per decade of ε (and, for "
                    "groups, per decade of N). V_f is computed on the loaded (private) data: the utility is for the "
                    "curator's eyes. docs/PRIVACY_MODEL.md §14.")
        preview_watermark()
        st.table(md_cells(view.form_preview(view.SeriesKey.of(c.keys, d.lo, d.hi), eps, per_person, c.feature_index,
                                            c.setting.seed, d.x, d.recs)).style.format(precision=4))


def ab_panel(c: Ctx) -> None:
    """Two settings side by side: A is the page's setting, B is chosen here; numbers, guarantees, one sentence."""
    from eyedp_core.dp.registry import TIME_SERIES
    from eyedp_core.timeseries.accounting import epsilon_plan
    from eyedp_core.timeseries.compare import difference_sentence, summarise
    from eyedp_core.timeseries.labels import transform_length
    from ui.timeseries import headline
    from ui.widgets import log_slider

    d, s = c.series, c.setting
    # One horizontal box, not three columns: fewer blocks re-sent on every move of B's sliders.
    row = st.container(horizontal=True, gap="medium")
    cols = (row, row, row)
    mech_b = cols[0].selectbox("B: mechanism", list(TIME_SERIES), index=list(TIME_SERIES).index(s.mech),
                               format_func=headline.mech_name, key="ts_b_mech")
    with cols[1]:
        eps_b = log_slider("B: ε (same accounting as A)", 0.001, 10000.0, 10.0, key="ts_b_eps")
    chunk_b = s.chunk if mech_b.info.chunked else None
    if mech_b.info.chunked and chunk_b is None:
        chunk_b = 32
    n_b = transform_length(mech_b, chunk_b, d.length)
    if st.session_state.get("ts_b_k", 1) > max(2, n_b // 2 + 1):  # B's mechanism changed to a shorter transform
        st.session_state["ts_b_k"] = n_b // 2 + 1
    k_b = int(cols[2].slider("B: k", 1, max(2, n_b // 2 + 1), min(s.k, n_b // 2 + 1), key="ts_b_k",
                             disabled=mech_b is Mech.LPA))
    plan_b = epsilon_plan(s.mode, eps_b, mech_b, chunk_b, d.length, len(d.names), c.info.n_recordings)
    dkey = view.data_key(c.token, d.names, d.lo, d.hi, d.length)
    try:
        run_b = view.RunKey(dkey, PreviewSetting(mech=mech_b, chunk=chunk_b, epsilon=plan_b.per_invocation, k=k_b,
                                                 nmse_kind=s.nmse_kind, sensitivity_type=c.sensitivity_type),
                            s.sensitivity_mode, s.seed)
        prev_b = view.preview(run_b, c.feature_index, d.lo, d.hi, d.x,
                              None if s.sensitivity_mode != "empirical" else c.sensitivities)
    except ValueError as err:
        st.error(f"Setting B cannot run: {md_text(err)}")
        return
    label_a, label_b = s.mech.label(s.chunk), mech_b.label(chunk_b)
    a = summarise(label_a + (f", k = {s.k}" if s.mech is not Mech.LPA else ""), c.plan, c.preview, c.row)
    b = summarise(label_b + (f", k = {k_b}" if mech_b is not Mech.LPA else ""), plan_b, prev_b, c.row)
    st.markdown("**" + difference_sentence(a, b) + "**\n\n" + WATERMARK_HTML, unsafe_allow_html=True)
    t, t_title = figs.time_axis(d.length, c.info.step_s)
    left, right = st.columns(2, gap="medium")
    for col, name, summ, prev, lab, chunk in ((left, "A", a, c.preview, label_a, s.chunk),
                                               (right, "B", b, prev_b, label_b, chunk_b)):
        with col:
            if c.row is not None:
                clean = np.clip(d.x[c.row, c.feature_index], *c.bounds_f)
                layout = PreviewLayout(lab, int(d.recs["length"].iloc[c.row]), chunk, None, t_title,
                                       feature_label(c.feature))
                st.image(headline.preview_png(("ab", name, dkey, lab, summ.epsilon_invocation, summ.scale, c.row,
                                               c.feature_index), t, clean, prev.noisy[c.row], None, layout),
                         width="stretch")
            sym = "b" if Mech.parse(lab)[0] is Mech.LPA else "λ"
            # The title under the picture, with the numbers: one element per side.
            st.markdown(
                f"**{name}: {summ.label}**\n\n- ε per person: **{fmt_num(summ.epsilon_person)}** ({fmt_num(summ.epsilon_invocation)} per "
                f"{summ.unit})\n- noise scale {sym} for {md_text(c.feature)}: {fmt_num(summ.scale)}\n"
                f"- utility over all features: {summ.utility_db:+.1f} dB; NMSE of this series {summ.nmse_shown:.3g}\n"
                f"- guarantee: {summ.guarantee}" + ("" if summ.valid else " — " + badge("not a DP guarantee", "notdp")),
                unsafe_allow_html=True)
