"""Time series: LPA, FPA, CFPA, DCFPA (Bozkir et al.) and Steil et al.'s mechanism on eye-movement feature signals."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui.share
from eyedp_core.dp.registry import TIME_SERIES, Mech
from eyedp_core.gaze import feature_specs
from eyedp_core.timeseries.accounting import EpsilonPlan, epsilon_plan
from eyedp_core.timeseries.choices import DEFAULT_LENGTH, MAX_LENGTH, KSource, LengthSource, public_length
from eyedp_core.timeseries.labels import STANDARD_CHUNKS, transform_length
from eyedp_core.timeseries.preview import PreviewSetting
from ui import risk_line, runlog, settings, state
from ui.fragment import fragment
from ui.numbers import numbers_html
from ui.plan import series_box
from ui.shell import ensure_shell
from ui.text import html_text, md_text
from ui.timeseries import context, data, figs, headline, panels, risk, view
from ui.timeseries.preview_image import PreviewLayout
from ui.timeseries.steil import steil_panel
from ui.widgets import WATERMARK_HTML, badge, calibration_box, fmt_num, log_slider

ensure_shell()
runlog.note("page")


def forms_view(ctx: context.Ctx) -> None:
    """The release-forms panel with the study plan's box under its table."""
    panels.forms_panel(ctx, series_box.plan_part)


# Each secondary view is a fragment of its own (nested in `budget`): its controls (sweep range, lag, Markov
# states, Steil's window) re-run that view alone; a move of ε, k or R re-runs it with the budget part.
PANEL_VIEWS = {name: fragment(view_fn, name="panel") for name, view_fn in {
    "utility": panels.utility_panel, "k": panels.k_panel, "corr": panels.correlation_panel,
    "acct": panels.accounting_panel, "steil": steil_panel, "table": panels.table_panel,
    "forms": forms_view, "ab": panels.ab_panel}.items()}
PANEL_KEY = "ts_panel"
SENS = {"public": "Public bounds (DP)", "empirical": "Data-derived (as in paper, not a DP guarantee)"}
CHUNKS = [*map(str, STANDARD_CHUNKS), "free"]

st.title("Time series")
st.markdown("**The unit of privacy is one participant.** Everything a participant's recordings contain — every "
            "feature, window and document — changes the chance of any released series by at most a factor e^ε, "
            "where ε is the **total per person** stated under the sliders: it adds up every noisy release made "
            "from that person. With a noise scale derived from the data, as in the paper, there is no such "
            "guarantee, and the page says so.")
st.caption("Publish every participant's eye-movement feature signals with noise added, and see what that guarantee "
           "costs in signal. The mechanisms add Laplace noise to every sample, or to a few Fourier "
           "coefficients of the whole series, of chunks, or of the differences inside chunks (Bozkir et al.'s LPA, "
           "FPA, CFPA, DCFPA, with their errors corrected), plus Steil et al.'s per-feature mechanism. "
           "docs/PRIVACY_MODEL.md §0–§5, §7, §10.")

ds = state.current("features")
try:
    info = data.inspect(ds.token, ds.frame)
except data.SeriesProblem as err:
    st.error(f"{md_text(ds.name)}: {md_text(err)}", icon=":material/error:")
    st.page_link("pages/your_data.py", label="Upload or re-map a feature table", icon=":material/upload_file:")
    st.stop()
data.sync_to_data(ds.token)
for note in info.notes:  # the upload's own warnings already name the file
    st.warning(md_text(note), icon=":material/warning:")
if info.excluded:
    st.warning(f"{md_text(ds.name)}: not usable as time series, left out: " +
               "; ".join(f"'{md_text(k)}' {md_text(v)}" for k, v in info.excluded.items()) + ".",
               icon=":material/warning:")
if len(info.participants) == 1:
    st.info(f"{md_text(ds.name)} holds a single participant ('{md_text(info.participants[0])}'): no participant column was mapped, so "
            "the whole file counts as one person. Everything below runs, but comparisons across participants "
            "(correlation curves, the data-derived sensitivity) need at least 2–3 people.", icon=":material/person:")

# ---- data: features, bounds, public length (the shown feature, task and participant are picked in the view) ---
top = st.columns([1.1, 2.6], gap="medium")
n_chosen = len(st.session_state.get("ts_features", info.features))
with st.expander(f"Features released: {n_chosen} of {len(info.features)}, with their public bounds",
                 expanded=any(not data.has_public_bounds(f) for f in info.features)):
    released = st.multiselect("Features released (each one is perturbed and counts in the budget)", info.features,
                              default=list(info.features), key="ts_features", format_func=data.feature_label)
    undeclared = [f for f in released if not data.has_public_bounds(f)]
    known = tuple(f for f in released if data.has_public_bounds(f))
    bounds = dict(zip(known, zip(*data.public_bounds(known)))) if known else {}
    confirmed = True
    tight: dict[str, tuple[float, float]] = {}
    if undeclared:
        st.markdown(f"**{len(undeclared)} feature(s) have no public bounds in EyeDP's feature definitions.** The "
                    "mechanisms clamp every value to [L, U] and calibrate the noise to U − L, so declare bounds from "
                    "public knowledge (device specs, the feature's definition, a pilot study). The boxes start at "
                    "round numbers around this data's own min/max — that is read from the data, so the page labels "
                    "the result *not a DP guarantee* until you confirm.")
        confirmed = st.checkbox("These bounds are public knowledge, not read from this data", key="ts_bounds_public")
        prefill = data.data_ranges(ds.token, tuple(undeclared), ds.frame)
        grid = st.columns([1.3, 1, 1, 1.3, 1, 1])
        for i, f in enumerate(undeclared):
            j = 3 * (i % 2)
            grid[j].markdown(f"<div style='padding-top:2.1rem'><b>{html_text(f)}</b></div>", unsafe_allow_html=True)
            lo_f = grid[j + 1].number_input(f"L ({md_text(f)})", value=prefill[f][0], key=f"ts_lo_{f}", format="%g")
            hi_f = grid[j + 2].number_input(f"U ({md_text(f)})", value=prefill[f][1], key=f"ts_hi_{f}", format="%g")
            bounds[f] = (lo_f, hi_f)
    if known:
        st.caption(f"{len(known)} feature(s) use public bounds from published eye-movement ranges "
                   "(eyedp_core.gaze.feature_specs; sources in docs/PRIVACY_MODEL.md §13). The per-feature table "
                   "(More views) shows what each bound costs in noise and clips on this data.")
        tight_text = st.text_area(
            "Declare tighter public bounds (optional): one feature per line, 'feature L U'", key="ts_tighter",
            placeholder="sacc_large_ratio 0 0.6", height=80,
            help="Narrower bounds mean less noise (the sensitivity is proportional to U − L) but clip more. Declare "
                 "only ranges known without this data (a protocol, a pilot study); a declared bound may only narrow "
                 "the public one.")
        tight, refused = feature_specs.declare_tighter(tight_text, known)
        for msg in refused:
            st.warning(msg, icon=":material/warning:")
        bounds.update(tight)
if not released:
    st.warning("Choose at least one feature to release.")
    st.stop()
bad = [f for f in released if not bounds[f][1] > bounds[f][0]]
if bad:
    st.error("Each feature needs an upper bound U above its lower bound L; check: " + ", ".join(map(md_text, bad)) + ".")
    st.stop()
names = tuple(released)
kinds = tuple("declared" if f in tight else "public" if data.has_public_bounds(f) else
              ("declared" if confirmed else "pre-filled") for f in names)
lo = np.array([bounds[f][0] for f in names], dtype=float)
hi = np.array([bounds[f][1] for f in names], dtype=float)

declared = int(top[0].number_input("Public length T (windows)", 2, MAX_LENGTH, DEFAULT_LENGTH, key="ts_length",
                                   help="Every recording is cut or padded (repeating its last value) to this length "
                                        "before the mechanism. Declare it from the study protocol: the default "
                                        f"{DEFAULT_LENGTH} is the same for every dataset (docs/PRIVACY_MODEL.md §0.5)."))
from_data = top[0].checkbox(f"Use the longest ({info.data_length})",
                            key="ts_length_from_data",
                            help="Convenient, but T is then read off the private data: the ledger records it as a "
                                 "data-derived parameter and the Report shows the caveat.")
public_t = public_length(LengthSource.DATA if from_data else LengthSource.DECLARED, declared=declared,
                         longest=info.data_length)
length = public_t.value
secs = f" = {length * info.step_s:g} s" if info.step_s else ""
if public_t.data_derived:
    top[1].caption(f"⚠ T = {length} windows{secs} is the longest recording in this data: the length is read from the data "
               "and released with it, so the ledger marks it as data-derived. Declare T from the study protocol to "
               f"make it public. Shorter recordings ({info.min_length}–{info.data_length} windows here) are padded by "
               "repeating their last value.")
else:
    top[1].caption(f"Public T = {length} windows{secs}, declared (the default {DEFAULT_LENGTH} is the same for every "
               f"dataset; the data's recordings have {info.min_length}–{info.data_length} windows); shorter ones are "
               "padded with their last value, longer ones cut.")
try:
    series = data.series(ds.token, ds.frame, names, lo, hi, length)
except data.SeriesProblem as err:
    st.error(f"{md_text(ds.name)}: {md_text(err)}", icon=":material/error:")
    st.stop()

# ---- mechanism, budget, preview and the views: one fragment, so a slider move re-runs only this part ----------


def more_settings(row: DeltaGenerator) -> tuple[str, str, int, bool]:
    """The settings folded under "More" -> (sensitivity mode, NMSE normaliser, preview seed, zoom to the bounds)."""
    with row.expander("More: sensitivity, NMSE, seed, zoom", width=340):
        sens_mode = st.radio("Sensitivity", list(SENS), format_func=SENS.get, key="ts_sens",
                             help="Public bounds: Δ from [L, U] (a DP guarantee). Data-derived: Bozkir et al.'s "
                                  "Eq. 7, the largest distance between two observed recordings (not DP, "
                                  "docs/PRIVACY_MODEL.md §0.4).")
        nmse_kind = st.radio("NMSE normaliser", ["var", "range"], horizontal=True, key="ts_nmse",
                             format_func={"var": "variance of the series", "range": "(U − L)²"}.get)
        seed = int(st.number_input("Preview seed", 0, 2**31 - 1, 20190625, key="ts_seed"))
        zoom = st.toggle("Zoom the preview to the bounds [L, U]", value=False, key="ts_zoom")
    return sens_mode, nmse_kind, seed, zoom


@fragment(name="view")
def mechanism_view(ds_token: str, info: data.TableInfo, series: data.Series, public_t, names: tuple[str, ...],
                   kinds: tuple[str, ...]) -> None:
    """The shown feature and person, the mechanism and its structural settings; the budget part is nested."""
    length = series.length
    # The pickers live inside the fragment: choosing another feature or person re-runs this part only.
    pick = st.columns([1.5, 1, 1], gap="medium")
    feature = pick[0].selectbox("Feature shown", names, index=names.index(data.default_feature(names)),
                                key="ts_feature", format_func=data.feature_label)
    task = pick[1].selectbox("Task (document)", info.tasks, key="ts_task") if info.tasks else None
    participant = pick[2].selectbox("Participant", info.participants, key="ts_participant")
    with st.container(border=True):
        mech = st.segmented_control("Mechanism previewed", list(TIME_SERIES), format_func=headline.mech_name,
                                    default=Mech.CFPA, required=True, key="ts_mech")
        chunked = mech.info.chunked
        # One wrapping row: each control as wide as its options (fixed columns cut "Manual" off at 1280 px).
        row = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
        # The free size is a slider of the budget part: moving it re-runs that part alone.
        choice = row.segmented_control("Chunk size (windows)", CHUNKS, default="32", required=True, key="ts_chunk",
                                       disabled=not chunked, help="Bozkir et al. use 32, 64 and 128 windows; 'free': "
                                                                  "a slider next to ε.")
        k_src = row.segmented_control("Choice of k", list(context.K_SOURCES), format_func=context.K_SOURCES.get,
                                      default=KSource.RULE, required=True, key="ts_k_src", disabled=mech is Mech.LPA,
                                      help="Rule: a public, data-free rule (timeseries.k.public_k). Analytic: the "
                                           "minimum of the expected-error curve. Paper's optimal: Bozkir et al.'s "
                                           "search over noisy runs. Both read the private data: " + context.TUNED_NOTE
                                           + ". Manual: the k slider below.")
        sens_mode, nmse_kind, seed, zoom = more_settings(row)
    # The accounting changes the meaning of the ε slider, not its value: drawn here, it is not re-sent on a move.
    mode = st.radio("Accounting", list(headline.MODES), format_func=headline.MODES.get, horizontal=True,
                    key="ts_mode",
                    help="Total ε per person (the default): the slider is the whole participant's budget, split over "
                         "features × chunks × recordings. As in the paper: the slider is ε per chunk (CFPA/DCFPA) or "
                         "per feature series (LPA/FPA), as Bozkir et al. state it.")
    # The budget part first (in `body`); then, under it, the controls that do not depend on ε, k or R, drawn
    # here so that a move of those sliders does not re-send them: the ledger button and the preview's switches,
    # the More-views selector and the share switch. The budget part fills the formula, the chosen view and the
    # open share box into the containers laid out for them.
    body, actions, formula, chooser = st.container(), st.container(), st.container(), st.container()
    below = Below(formula=formula, panel=st.container(), share_switch=st.container(), share=st.container())
    with body:
        ctx = budget_view(context.BudgetViewSpec(
            token=ds_token, info=info, series=series, public_t=public_t, names=names, kinds=kinds, feature=feature,
            task=task, participant=participant, mech=mech, chunk_choice=choice if chunked else None,
            k_source=KSource(k_src), mode=mode, sensitivity_mode=sens_mode, nmse_kind=nmse_kind, seed=seed, zoom=zoom,
            data_key=view.data_key(ds_token, names, series.lo, series.hi, length)), below)
    with actions:
        record_row(ctx)
    with chooser:
        st.segmented_control("More views (each computes when opened, then stays cached)", list(panels.PANELS),
                             format_func=panels.PANELS.get, default=None, key=PANEL_KEY,
                             help="Utility against ε for every mechanism, the choice of k, correlation over "
                                  "time, the accounting at every scope, Steil et al.'s mechanism, the "
                                  "per-feature table (bounds, what they clip and cost), release forms with a "
                                  "small sensitivity per person, or two settings side by side.")
    with below.share_switch:
        ui.share.share_toggle()


def structure(v: context.BudgetViewSpec, box: DeltaGenerator) -> context.BudgetViewSpec:
    """The spec with its chunk size (the free size's slider drawn in `box`) and its sensitivities resolved."""
    length, chunk, sens_mode, sens = v.series.length, None, v.sensitivity_mode, None
    if v.chunk_choice == "free":
        top = max(8, min(length, 512))
        settings.clamp("ts_chunk_free", 4, top)  # a free chunk size restored for a longer series
        chunk = int(box.slider("Free chunk size (windows)", 4, top, min(48, top), key="ts_chunk_free"))
    elif v.chunk_choice is not None:
        chunk = int(v.chunk_choice)
    if sens_mode == "empirical":
        try:
            sens = view.empirical(v.token, v.names, length, v.mech, chunk, v.series.x)
        except ValueError as err:
            st.warning(f"{md_text(err)}; using the public bounds instead.")
            sens_mode = "public"
    return replace(v, chunk=chunk, sensitivity_mode=sens_mode, sensitivities=sens)


def budget_controls(v: context.BudgetViewSpec) -> tuple[context.BudgetViewSpec, view.Setting, EpsilonPlan, int]:
    """The free chunk size, ε, k and R sliders -> the resolved spec, the setting they make, its ε plan and the FFT
    length n."""
    target_box = st.container()
    # One horizontal box for the sliders, no inner columns: every block is re-sent on each move.
    box = st.container(border=True, horizontal=True, gap="medium")
    v = structure(v, box)
    lo, hi, length = v.series.lo, v.series.hi, v.series.length
    f_idx, mech, chunk, mode = v.feature_index, v.mech, v.chunk, v.mode
    chunked = mech.info.chunked
    with target_box:  # above the sliders: a risk target, when set, replaces the ε slider's value
        target = risk_line.target_controls(risk.PREFIX, len(v.info.participants))
        eps_target = None if target is None else risk.target_epsilon(
            target, len(v.info.participants), mode, mech, chunk, length, len(v.names), v.info.n_recordings)
        if target is not None:
            st.markdown(risk_line.calibrated_words(eps_target, *target, "person" if mode == "participant"
                                                   else "chunk / series"))
    with box:
        eps_label = "ε total per person" if mode == "participant" else "ε per chunk / series (as in the paper)"
        eps = log_slider(eps_label, *risk.EPS_RANGE, 1.0, key="ts_eps", disabled=eps_target is not None,
                         help="Log scale. Smaller ε = stronger privacy = more noise.")
    eps = eps if eps_target is None else eps_target
    n = transform_length(mech, chunk, length)
    plan = epsilon_plan(mode, eps, mech, chunk, length, len(v.names), v.info.n_recordings)
    sens_f = None if v.sensitivities is None else v.sensitivities[f_idx]
    # R is drawn further along; its current value comes from the session.
    query = view.KQuery(v.token, v.names, length, f_idx, (float(lo[f_idx]), float(hi[f_idx])), mech, chunk,
                        plan.per_invocation, v.sensitivity_mode)
    k_choice = view.k_choice(query, n, v.k_source, int(st.session_state.get("ts_k", 1)),
                             int(st.session_state.get("ts_runs", 10)), v.seed, v.series.x[:, f_idx, :], sens_f)
    st.session_state["ts_k"] = k_choice.k
    k = box.slider("k — Fourier coefficients kept per chunk" if chunked else "k — Fourier coefficients kept",
                   1, max(k_choice.k_max, 2), key="ts_k",
                   disabled=mech is Mech.LPA or k_choice.source is not KSource.MANUAL,
                   help=f"1 … ⌊n/2⌋+1 = {k_choice.k_max} for n = {n}. Set by the choice of k unless it is "
                        "'Manual'.")
    runs = box.slider("Draws R (utility sweep, paper's search)", 5, 100, 10, 5, key="ts_runs",
                      help="Monte Carlo draws per ε: more draws narrow the bands and lengthen the wait.")
    setting = view.Setting(mech=mech, chunk=chunk, mode=mode, epsilon=eps, k=int(k), k_source=k_choice.source,
                           sensitivity_mode=v.sensitivity_mode, nmse_kind=v.nmse_kind, runs=int(runs), seed=v.seed,
                           tuned=k_choice.tuned_on_private_data)
    if chunk is not None and chunk >= length:
        st.caption("Chunk ≥ T: a single chunk, the same as FPA on the whole series.")
    return v, setting, plan, n


def verdict_box(ctx: context.Ctx) -> None:
    """The verdict in words and the accounting sentence (and, for a setting already recorded, what recording it
    again charges), then the numbers and the preview's heading: two elements, re-sent on every move."""
    kind, sentence = headline.verdict(ctx)
    sentence += ("\n\n" + context.accounting_line(ctx) + context.already_note(ctx) + "\n\n"
                 + risk.risk_markdown(ctx))
    (st.warning if kind == "useless" else st.info)(sentence, icon=":material/warning:" if kind == "useless"
                                                   else ":material/info:")
    st.markdown(f"{numbers_html(headline.numbers(ctx))}\n\n### Preview: one participant's clean and noisy series\n\n"
                f"{WATERMARK_HTML}", unsafe_allow_html=True)


def record_row(ctx: context.Ctx | None) -> None:
    """Under the preview, outside the budget part (a move of ε, k or R does not re-send them): the button that
    records the setting in the ledger, the preview's two switches, the note on charging twice."""
    row = st.container(horizontal=True, gap="medium", vertical_alignment="center")
    clicked = row.button("Record in the privacy ledger", key="ts_record", icon=":material/receipt_long:",
                         help="Previews use seeded noise and are not releases (the release-mode export is under "
                              "*Share and reproduce* at the end of the page): record the setting you would publish. "
                              "Every recording is a release of its own and adds to the ledger; the Report page "
                              "composes all of them per person.")
    # Read by the budget part (drawn above) from the session: switching re-runs this part and the budget part.
    row.toggle("Interactive chart (hover, zoom; slower)", key="ts_interactive")
    row.toggle("Show how the noise scale is computed", key="ts_formula")
    st.caption(context.RECORD_NOTE)
    if clicked and ctx is not None:
        context.record(context.main_releases(ctx))
        label = ctx.setting.mech.label(ctx.setting.chunk)
        st.session_state["ts_recorded_msg"] = (f"Recorded {label} with a total of ε = "
                                               f"{ctx.plan.participant_total:.4g} per person.")
        st.rerun()
    elif clicked:
        st.warning("Nothing recorded: the mechanism cannot run with these settings.")
    if msg := st.session_state.pop("ts_recorded_msg", None):
        st.success(msg, icon=":material/check:")
    state.outcome_here("time_series")  # a refused recording, next to the button that was pressed


def preview_chart(v: context.BudgetViewSpec, ctx: context.Ctx, pkey: tuple) -> None:
    """One participant's clean and noisy series (a PNG, or Plotly on request) with one caption under it: the
    title, the legend, the error and the noise scale the series was drawn with."""
    mech, chunk, row, task, feature, prev = v.mech, v.chunk, ctx.row, v.task, v.feature, ctx.preview
    if row is None:
        st.info(f"{md_text(v.participant)} has no recording for task '{md_text(task)}'. Choose another task or "
                "participant.")
        return
    lo, hi, f_idx, series, length = v.series.lo, v.series.hi, v.feature_index, v.series, v.series.length
    label, k, eps_inv = mech.label(chunk), ctx.setting.k, ctx.plan.per_invocation
    unit = "chunk" if mech.info.chunked else "series"
    t, t_title = figs.time_axis(length, v.info.step_s)
    true_len = int(series.recs["length"].iloc[row])
    clean = np.clip(series.x[row, f_idx], lo[f_idx], hi[f_idx])
    # The same title twice: escaped for Plotly's HTML-like text and for the markdown caption.
    settings_words = (f": clean vs {label} (ε = {fmt_num(eps_inv)} per {unit}"
                      f"{', k = ' + str(k) if mech is not Mech.LPA else ''})")
    title = (f"{html_text(feature)} — {html_text(v.participant)}{', ' + html_text(task) if task else ''}"
             f"{settings_words}")
    title_md = f"{md_text(feature)} — {md_text(v.participant)}{', ' + md_text(task) if task else ''}{settings_words}"
    paper = prev.paper[row] if prev.paper is not None else None
    y_range = (float(lo[f_idx]), float(hi[f_idx])) if v.zoom else None
    if st.session_state.get("ts_interactive", False):  # the switch sits under the preview (record_row)
        axes = figs.TimeAxes(t, t_title, html_text(data.feature_label(feature)), title)
        st.plotly_chart(headline.preview_figure(axes, clean, prev.noisy[row], paper, label, true_len, chunk, y_range),
            # The EyeDP template is already in the figure: no Streamlit theme merge, no mode bar.
            theme=None, config={"displayModeBar": False})
    else:
        # A PNG at display size: the browser swaps one image instead of redrawing a Plotly chart.
        layout = PreviewLayout(label, true_len, chunk, y_range, t_title, data.feature_label(feature))
        st.image(headline.preview_png((*pkey, row), t, clean, prev.noisy[row], paper, layout), width="stretch")
    paper_note = (" The thin red line reconstructs DCFPA with the two-term formula printed in the paper "
                  "(x̃ₜ = d̃ₜ + d̃ₜ₋₁), which is not the inverse of differencing (it returns xₜ − xₜ₋₂ on clean "
                  "data, docs/PRIVACY_MODEL.md §4); the product uses the cumulative sum."
                  ) if prev.paper is not None else ""
    # The noise scale the series was drawn with, in words, with its caveats first.
    shown, sym = prev.shown[0], "b" if mech is Mech.LPA else "λ"
    badges = badge("as in paper, not a DP guarantee", "notdp") + " " if ctx.sensitivity_type == "data-derived" else ""
    if ctx.setting.tuned:
        badges += badge(context.TUNED_NOTE, "notdp")
    st.caption(f"**{title_md}**<br>{headline.legend_html(label, prev.paper is not None)}<br>"
               f"NMSE of this series: {prev.nmse_series[row]:.3g} ({md_text(v.nmse_kind)}); seed {v.seed}. One seeded run of "
               f"{label} over all {series.x.shape[0]} recordings × {len(v.names)} features took "
               f"{1000 * prev.seconds:.0f} ms (cached for this setting).{paper_note}<br>{badges} The noise for "
               f"**{md_text(feature)}** was drawn with Laplace scale {sym} = {headline.sci(shown.calibration.scale)} "
               f"per {'sample' if mech is Mech.LPA else 'kept coefficient'}, from its sensitivity "
               f"{headline.sci(shown.calibration.sensitivity)} and ε = {eps_inv:.3g} per {unit}.",
               unsafe_allow_html=True)


def formula(v: context.BudgetViewSpec, ctx: context.Ctx) -> None:
    """How the noise scale is computed: the formula with the numbers plugged in (drawn only when switched on)."""
    feature, sens = v.feature, v.sensitivities
    unit = "chunk" if v.mech.info.chunked else "series"
    calibration_box(view.stacked(ctx.preview.shown[0].calibration), context.calibration_title(ctx))
    if note := context.calibration_note(ctx):
        st.caption(note)  # built from numbers and mechanism names
    if ctx.sensitivity_type == "public" and ctx.plan.has_guarantee:
        risk_line.draw_formulas(risk_line.person_total(risk.call_trade_off(ctx), ctx.plan.invocations),
                                len(ctx.info.participants))
    if sens is not None:
        sens_f = sens[v.feature_index]
        lo_s, hi_s = fmt_num(float(np.min(sens_f))), fmt_num(float(np.max(sens_f)))
        st.caption(f"Data-derived Δ of '{md_text(feature)}' per {unit}: {lo_s if lo_s == hi_s else lo_s + ' – ' + hi_s} "
                   "(Bozkir Eq. 7: the largest distance between two observed recordings). An outlier sets the "
                   "noise level, and the noise level is visible.")


@dataclass(frozen=True, eq=False)
class Below:
    """The containers under the budget part that it fills: the formula (when switched on), the chosen view, the
    share switch (drawn by `view`) and the open share box."""

    formula: DeltaGenerator
    panel: DeltaGenerator
    share_switch: DeltaGenerator
    share: DeltaGenerator


@fragment(name="budget")
def budget_view(v: context.BudgetViewSpec, below: Below) -> context.Ctx | None:
    """ε, k and R with everything they move: the per-person verdict and numbers, the preview, the formula, the
    chosen view and the open share box (in `below`). Nested in `view`, so a move of these sliders re-runs this
    part alone. Returns the context the ledger button records (None when the mechanism cannot run)."""
    v, setting, plan, n = budget_controls(v)
    f_idx, lo, hi = v.feature_index, v.series.lo, v.series.hi
    sens_type = "data-derived" if v.sensitivity_mode == "empirical" or "pre-filled" in v.kinds else "public"
    try:
        run = view.RunKey(v.data_key, PreviewSetting(mech=v.mech, chunk=v.chunk, epsilon=plan.per_invocation,
                                                     k=setting.k, nmse_kind=v.nmse_kind, sensitivity_type=sens_type),
                          v.sensitivity_mode, v.seed)
        prev = view.preview(run, f_idx, lo, hi, v.series.x, v.sensitivities)
    except ValueError as err:
        st.error(f"The mechanism cannot run with these settings: {md_text(err)}")
        return None
    ctx = context.Ctx(token=v.token, info=v.info, series=v.series, length=v.public_t, setting=setting, plan=plan,
                      feature_index=f_idx, task=v.task, participant=v.participant,
                      row=v.series.row(v.participant, v.task), transform_length=n, sensitivities=v.sensitivities,
                      sensitivity_type=sens_type, bounds_kind=v.kinds, preview=prev)

    # ---- the guarantee for a person first, then what it buys -------------------------------------------------
    verdict_box(ctx)
    preview_chart(v, ctx, (repr(run), f_idx))  # a short key: hashing the RunKey costs more
    if st.session_state.get("ts_formula", False):  # the switch sits under the preview (record_row)
        with below.formula:
            formula(v, ctx)

    # ---- secondary views: nothing computes until one is opened (its selector is drawn by `view`) ---------------
    panel = st.session_state.get(PANEL_KEY)
    if panel is not None:
        with below.panel:
            PANEL_VIEWS[panel](ctx)
    ui.share.remember("time_series", ctx)  # what the report and the share box keep of this view
    if st.session_state.get(ui.share.OPEN_KEY, False):
        with below.share:
            ui.share.share_box("time_series", ctx)  # settings JSON, release export, script
    return ctx


mechanism_view(ds.token, info, series, public_t, names, kinds)
