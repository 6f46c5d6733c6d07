"""The Heatmaps view's secondary panels (only the one chosen in the view switcher runs): ε-curves, the
optimal cap, the noise calculator, the difference attack and study planning."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.dp.registry import Family, GaussianMethod, SelectionMethod
from eyedp_core.heatmaps import attacks, cap, maps, preview, release
from eyedp_core.heatmaps.calibration import noise_std, noise_surface, observers_needed
from eyedp_core.heatmaps.curves import PLANNING_LABEL, summarize_curves
from eyedp_core.heatmaps.maps import grid_for_sigma
from ui import state, theme
from ui.heatmaps import figs, images, targets, view
from ui.heatmaps.release import selection_facts, selection_settings, with_canvas_caveat
from ui.heatmaps.settings import EPS_SPEC, M_KEYS
from ui.text import md_text
from ui.widgets import badge, fmt_num, index_in_force, log_slider, log_values, value_in_force

PANELS = {
    "curves": "ε-curves (Figure 3)",
    "cap": "Optimal cap m",
    "calculator": "Noise calculator",
    "attack": "Difference attack",
    "planning": "Planning",
    "target": "Target finder",
    "compare": "Compare A/B",
}
PANEL_PURPOSES = {  # what each panel answers, in the words of the hint shown while none is chosen
    "curves": "ε-curves (utility versus ε over repeated draws)",
    "cap": "the cap m that minimises the expected error",
    "calculator": "the noise calculator",
    "attack": "the difference attack",
    "planning": "planning for a larger study",
    "target": "the target finder (the smallest ε and number of observers for a utility target)",
    "compare": "Compare A/B (this page's setting beside another)",
}
PANEL_HINT = (f"Choose a panel to compute it: {', '.join(list(PANEL_PURPOSES.values())[:-1])} or "
              f"{list(PANEL_PURPOSES.values())[-1]}. Each is computed when opened and then cached.")
CAP_CHOICE = view.CAP_CHOICE_KEY  # the last CapChoice read off some data (cleared with the ledger)
SELECTION_WORDS = {SelectionMethod.EXPONENTIAL.value: "exponential mechanism",
                   SelectionMethod.REPORT_NOISY_MIN.value: "report noisy min"}
LEDGER_CHANGED = "eyedp_hm_ledger_changed"  # set by a choice of m: re-run the app once (cap slider, sidebar ledger)


def _delta_rule(key: str, ctx: view.Context) -> str:
    """Radio: δ follows the paper's n^-1.5 or stays at the current value."""
    return st.radio("δ for other study sizes", ["n^-1.5", "fixed"], horizontal=True, key=key,
                    index=index_in_force(key, ["n^-1.5", "fixed"]),
                    format_func={"n^-1.5": "δ = n^-1.5 (the paper's levels)",
                                 "fixed": f"fixed δ = {fmt_num(ctx.delta)}"}.get)


# --------------------------------------------------------------------------------------------
# ε-curves


def curves_panel(ctx: view.Context) -> None:
    """CC and MSE versus ε for Gaussian and Laplace noise with ±1 sd bands over R draws (Liu Figure 3)."""
    st.markdown("Each point is the mean over **R** seeded noisy heatmaps at that ε (band: ±1 standard "
                "deviation), compared with the clean heatmap after the same smoothing: CC (solid) and the share "
                "of hot spots kept (dashed: the clean map's top cells still among the noisy map's top cells). δ, "
                "the caps, the grid and the kernel are the ones chosen above; the dotted line marks the current ε.")
    R = st.columns([1, 2])[0].slider("Repeated draws R per ε", 10, 300, value_in_force("hm_R", 100), 10, key="hm_R",
                                     help="More draws give smoother bands and take longer (computed once, then "
                                          "cached).")
    # The curves span the ε slider's whole range, so the dotted marker of the current ε is always on them.
    eps_list = tuple(log_values(EPS_SPEC.lo, EPS_SPEC.hi, 3))
    bar = st.progress(0.0, text=f"Drawing {R} noisy heatmaps at each of {len(eps_list)} ε values…")
    q = targets.q_value()
    df, notes = view.curve_table(ctx, eps_list, R, q,
                                 progress=lambda done: bar.progress(min(max(float(done), 0.0), 1.0),
                                                                    text=f"Drawing noisy heatmaps… {done:.0%}"))
    bar.empty()
    summary, fig = _curves_figure(ctx, eps_list, R, q, df)
    st.plotly_chart(figs.move_eps_marker(fig, ctx.epsilon), key="hm_curves_chart", theme=None)
    st.caption(f"Gaussian: {ctx.method} calibration; Laplace: scale b = Δ₁/ε. {len(eps_list)} ε values × R = "
               f"{R} draws per mechanism; δ = {fmt_num(ctx.delta)}. Unlike the paper's Figure 3 (5 observers "
               f"replicated to 50 000, which gives them no privacy), these curves use the real n = "
               f"{ctx.n_observers}. Hot spots: the top {100 * q:g} % of cells (q is set in the Target finder), over R "
               "further draws.")
    for note in notes:
        st.caption(note)
    with st.expander("Table of the curves"):
        show = summary.rename(columns={"std": "noise std"}).round(5)
        st.dataframe(show, hide_index=True)


CURVES_FIG = "eyedp_hm_curves_figure"  # this session's last ε-curves figure (not an hm_ key: not a setting)


def _curves_figure(ctx: view.Context, eps_list: tuple[float, ...], R: int, q: float,
                   df: pd.DataFrame) -> tuple[pd.DataFrame, "figs.go.Figure"]:
    """The ε-curves summary and figure, kept per session for the curve parameters: an ε move only moves the
    figure's marker (figs.move_eps_marker) instead of rebuilding subplots and bands."""
    k = (ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px, eps_list, ctx.delta, ctx.method, R,
         ctx.preview_seed, ctx.short_unit, q)
    held = st.session_state.get(CURVES_FIG)
    if held is None or held[0] != k:
        summary = summarize_curves(df)
        held = (k, summary, figs.curves_figure(summary, ctx.epsilon, ctx.short_unit))
        st.session_state[CURVES_FIG] = held
    return held[1], held[2]


# --------------------------------------------------------------------------------------------
# optimal cap


def _set_cap(weight: str, choice: release.CapChoice) -> None:
    """Put a cap read off the data into the cap slider and remember how it was chosen."""
    st.session_state[M_KEYS[weight]] = int(choice.m) if weight == "count" else float(choice.m)
    st.session_state[CAP_CHOICE] = choice


def _use_algorithm1(ctx: view.Context, m: float) -> None:
    """Callback: use Algorithm 1's cap (flags the releases as tuned on private data); the app re-runs once (the
    cap slider is in the map controls' fragment, outside the panel's)."""
    _set_cap(ctx.weight, release.algorithm1_choice(m, ctx.weight, ctx.source))
    st.session_state[LEDGER_CHANGED] = True


def _select_private(ctx: view.Context, bound: float, eps_sel: float, method: SelectionMethod) -> None:
    """Callback: choose m by the DP selection (OpenDP, no seed) and charge its ε to the observers it read."""
    choice = release.choose_cap_privately(ctx.gaze_maps, ctx.source, weight=ctx.weight,
                                          selection=cap.SelectionSpec(bound, eps_sel, method), setting=ctx.setting)
    entry = with_canvas_caveat(release.selection_release(choice), ctx)
    if state.charge([entry], page="heatmaps", place="hm_select_private",  # refused over the cap: m unchanged
                    facts=selection_facts(choice, ctx, bound),
                    settings_used=selection_settings(ctx, bound, eps_sel, method)):
        _set_cap(ctx.weight, choice)
    st.session_state[LEDGER_CHANGED] = True  # the sidebar (ledger summary or refusal) is outside the page's fragment


def cap_panel(ctx: view.Context) -> None:
    """Liu's Algorithm 1 curve (not private) and the differentially private choice of m."""
    cands = cap.algorithm1_candidates(ctx.weight, ctx.gaze_maps.g_max())
    curve = view.cap_curve(ctx.maps_key, ctx.cap_total, ctx.epsilon, ctx.delta, ctx.mechanism, ctx.method, cands,
                           ctx.gaze_maps)
    st.plotly_chart(figs.cap_figure(curve.m, curve.expected_mse, curve.bias, curve.variance, curve.m_opt, ctx.cap_m,
                                    ctx.short_unit), key="hm_cap_chart", theme=None)
    total = f", total cap C = {fmt_num(ctx.cap_total)}" if ctx.cap_total else ""
    st.caption(f"Noise variance at each m for the current {figs.MECH_LABEL[ctx.mechanism]} setting "
               f"(ε = {fmt_num(ctx.epsilon)}, δ = {fmt_num(ctx.delta_used)}{total}); "
               "squared bias = mean over cells of (capped − uncapped aggregate)². Both are per cell, before "
               "smoothing. Largest value of any observer in any cell: g_max = "
               f"{fmt_num(curve.g_max)} {ctx.short_unit}.")
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(f"**Algorithm 1 (as in the paper)** {badge('spends privacy', 'notdp')}",
                    unsafe_allow_html=True)
        st.metric("m minimising E[MSE]", f"{curve.m_opt:g} {ctx.short_unit}")
        st.warning(curve.note, icon=":material/warning:")
        st.button(f"Use m = {curve.m_opt:g} (marks the release as tuned on private data)", key="hm_use_mopt",
                  on_click=_use_algorithm1, args=(ctx, curve.m_opt))
    with right:
        st.markdown(f"**Private choice of m** {badge('ε charged to the ledger', 'dp')}", unsafe_allow_html=True)
        default_b = 10.0 if ctx.weight == "count" else 5.0
        bound = st.number_input(f"Public upper bound B on any observer's value in one cell ({ctx.short_unit})",
                                min_value=float(min(cap.PUBLIC_CAPS[ctx.weight])), max_value=1000.0,
                                value=value_in_force(f"hm_sel_bound_{ctx.weight}", default_b), key=f"hm_sel_bound_{ctx.weight}",
                                help="Fixed before looking at the data (e.g. from the trial length); values above "
                                     "B are clipped when the candidates are scored.")
        c1, c2 = st.columns(2)
        with c1:
            eps_sel = log_slider("ε for choosing m", 0.01, 2.0, 0.1, "hm_sel_eps", per_decade=4)
        with c2:
            method = SelectionMethod(st.radio("Selection", list(SELECTION_WORDS), key="hm_sel_method",
                                              index=index_in_force("hm_sel_method", list(SELECTION_WORDS)),
                                              format_func=SELECTION_WORDS.get))
        usable = cap.public_candidates(ctx.weight, float(bound))
        st.caption(f"Candidates (public, fixed in advance — never read off the data): "
                   f"{', '.join(f'{v:g}' for v in usable)} {ctx.short_unit}. Drawn by OpenDP from a cryptographic "
                   "source; the choice's ε is charged to the ledger when you press the button.")
        st.button("Choose m privately", key="hm_select_private", disabled=not usable, on_click=_select_private,
                  args=(ctx, float(bound), eps_sel, method))
        state.outcome_here("hm_select_private")  # a refusal, next to the button that was pressed
        choice = ctx.cap_choice
        if ctx.selection_epsilon:
            st.success(f"m = {choice.m:g} chosen privately. {choice.note}", icon=":material/check:")
        elif choice and choice.how == "dp" and choice.is_value(ctx.weight, ctx.cap_m):
            st.info(f"m = {choice.m:g} was chosen privately on other data ('{md_text(choice.source.stimulus_name)}'); its "
                    "ε was charged to the observers it read, not to these.", icon=":material/info:")
    fixed = st.select_slider(f"Fixed public m the private choice competes with ({ctx.short_unit})",
                             cap.PUBLIC_CAPS[ctx.weight], key=f"hm_fixed_m_{ctx.weight}",
                             value=value_in_force(f"hm_fixed_m_{ctx.weight}", cap.PUBLIC_CAPS[ctx.weight][0]
                                                  if ctx.weight == "count" else 0.5))
    targets.cap_comparison_block(ctx, float(bound), float(eps_sel), method, float(fixed))
    if st.session_state.pop(LEDGER_CHANGED, False):
        st.rerun()  # a full run, so that the sidebar's "Privacy spent" shows the new entry


# --------------------------------------------------------------------------------------------
# noise calculator


@st.cache_data(show_spinner=False, max_entries=32)
def _surface(eps: float, rule: str, delta: float, m: float, cap_total: float | None, mechanism: Family,
             method: GaussianMethod) -> pd.DataFrame:
    """Privacy settings and caps -> noise_surface over n = 5..10^5 and √r = 5..1000 (public numbers only)."""
    n_values = np.unique(np.geomspace(5, 1e5, 48).astype(int))
    return noise_surface(n_values, np.linspace(5, 1000, 48), eps, preview.delta_for_sizes(rule, delta), m, cap_total,
                         mechanism, method)


def calculator_panel(ctx: view.Context) -> None:
    """Noise std versus n and √r (Liu Figure 2a/2b), observers needed and the finest grid for a target σ."""
    std_now = ctx.preview.calibration.std
    c1, c2 = st.columns([1, 2])
    with c1:
        target = st.number_input("Target noise std per cell", min_value=1e-9,
                                 value=value_in_force("hm_target_std", float(f"{std_now / 2:.2g}")),
                                 format="%.4g", key="hm_target_std",
                                 help="The per-cell noise standard deviation you find acceptable (Laplace: √2·b).")
    with c2:
        rule = _delta_rule("hm_calc_delta", ctx)
    dl = preview.delta_for_sizes(rule, ctx.delta)
    surf = _surface(ctx.epsilon, rule, ctx.delta, ctx.cap_m, ctx.cap_total, ctx.mechanism, ctx.method)
    r = ctx.gaze_maps.n_cells
    sqrt_r = math.sqrt(r)
    n_now = ctx.n_observers
    left, right = st.columns(2, gap="medium")
    with left:
        st.plotly_chart(figs.calculator_contour(surf, target, n_now, min(sqrt_r, 1000.0)), key="hm_calc_contour", theme=None)
    n_axis = np.unique(np.geomspace(5, 1e5, 80).astype(int))
    setting = (ctx.epsilon, dl, ctx.cap_m, ctx.cap_total)
    series = {
        f"Gaussian, analytic (ε = {fmt_num(ctx.epsilon)})":
            (noise_std(n_axis, r, *setting, Family.GAUSSIAN, GaussianMethod.ANALYTIC), theme.color_for("Gaussian"), None),
        "Gaussian, Liu Thm 3.4 (as in the paper)":
            (noise_std(n_axis, r, *setting, Family.GAUSSIAN, GaussianMethod.LIU_THM_34), theme.color_for("Gaussian"), "dash"),
        "Laplace, std √2·b (= Liu's 'noise level' σ_L)":
            (noise_std(n_axis, r, *setting, Family.LAPLACE), theme.color_for("Laplace"), None),
    }
    with right:
        st.plotly_chart(figs.calculator_slice(n_axis, series, target, n_now, sqrt_r), key="hm_calc_slice", theme=None)
    needed = observers_needed(target, r, ctx.setting, delta_of_n=dl)
    grid = grid_for_sigma(target, n_now, ctx.width, ctx.height, ctx.setting, delta_of_n=dl)
    a, b, c = st.columns(3)
    a.metric("Noise std now", fmt_num(std_now), help=f"{ctx.mechanism}, n = {n_now}, r = {r:,} cells")
    b.metric(f"Observers needed at r = {r:,} cells", "not reachable" if needed is None else f"{needed:,}")
    c.metric(f"Finest grid for n = {n_now}", "none" if grid is None else
             f"{grid.cell} px cells ({grid.grid_shape[0]}×{grid.grid_shape[1]})")
    gaussian = ctx.mechanism is Family.GAUSSIAN
    how = figs.MECH_LABEL[ctx.mechanism] + (f", {ctx.method}" if gaussian else "")
    caps = f"cap m = {ctx.cap_m:g}" + (f", C = {fmt_num(ctx.cap_total)}" if ctx.cap_total else "")
    st.caption(f"Contour: the current mechanism ({how}), ε = {fmt_num(ctx.epsilon)}, {caps}. "
               "Liu's Theorem 3.4 σ (dashed) is what the paper's Figure 2 plots; it is not a proof in general "
               "(too small when r < r*) and larger than needed otherwise. Laplace noise grows with r, not √r.")


# --------------------------------------------------------------------------------------------
# difference attack


def attack_panel(ctx: view.Context) -> None:
    """The adversary of the DP definition: everybody's map but the target's, plus the released map."""
    st.markdown("The attacker knows every observer's map except the target's and sees the released map. "
                "For the noise-free mean, **n × released − (sum of the others)** is exactly the target's map; "
                "random selection of observers is broken by a covering argument; with DP noise the same "
                "subtraction returns n × the noise.")
    gm = ctx.gaze_maps
    ids = [str(o) for o in gm.observers]
    target = st.columns([1, 3])[0].selectbox("Target observer", ids, key="hm_target",
                                             index=index_in_force("hm_target", list(ids)))
    i = gm.index_of(gm.observers[ids.index(target)])
    table = view.attack_table(ctx.maps_key, i, ctx.setting, ctx.preview_seed, gm)
    nf = attacks.difference_attack(ctx.clean.agg, gm, i, ctx.cap_m, ctx.cap_total, "noise-free")
    noisy = attacks.difference_attack(ctx.preview.noisy, gm, i, ctx.cap_m, ctx.cap_total, ctx.mechanism)
    truth_s = maps.smooth(nf.truth, ctx.sigma_px, ctx.cell_px)
    vmax = float(truth_s.max()) if truth_s.max() > 0 else 1.0
    mech = figs.MECH_LABEL[ctx.mechanism]
    cols = st.columns(3)
    shown = [(truth_s, f"Target {target}: true capped map"),
             (maps.smooth(nf.recovered, ctx.sigma_px, ctx.cell_px), "Recovered from the noise-free mean"),
             (maps.smooth(noisy.recovered, ctx.sigma_px, ctx.cell_px), f"Recovered from the {mech} release")]
    for j, (col, (mp, title)) in enumerate(zip(cols, shown)):
        col.plotly_chart(images.overlay_figure(ctx, mp, vmax, title, 230, unit=f"{ctx.short_unit} / cell (one observer)"),
                         key=f"hm_attack_map_{j}", theme=None)
    # The table and the bar draw their own noise (every mechanism from one generator): the caption quotes the
    # table's row, so one number stands for one draw, and the expectation n²·σ² beside it.
    row = table.loc[table["mechanism"] == ctx.mechanism.value]
    drawn = float(row["mse"].iloc[0]) if len(row) else noisy.mse
    expected = (ctx.n_observers * ctx.preview.calibration.std) ** 2
    st.caption(f"Same colour scale (from the target's true map), smoothed with the page's kernel. Noise-free: "
               f"{'exact recovery' if nf.exact else f'MSE {nf.mse:.3g}'}; {mech} (ε = {fmt_num(ctx.epsilon)}): MSE "
               f"{drawn:.3g} per cell in the table's draw (expected n²·σ² = {ctx.n_observers}² × "
               f"{ctx.preview.calibration.std:.3g}² = {expected:.3g}), i.e. the recovered map is the target's map "
               f"plus {ctx.n_observers} × the noise. The third picture shows the page's preview draw.")
    st.plotly_chart(figs.attack_figure(table), key="hm_attack_bar", theme=None)
    show = table[["label", "privacy", "exact_recovery", "mse", "max_abs_error", "target_drawn"]].rename(
        columns={"label": "mechanism", "exact_recovery": "exact recovery", "mse": "MSE per cell",
                 "max_abs_error": "max |error|", "target_drawn": "target drawn?"})
    # Short headers with the detail in their help: the six columns fit the main area at 1280 px.
    st.dataframe(show, hide_index=True, column_config={
        "mechanism": st.column_config.TextColumn(width=245),
        "privacy": st.column_config.TextColumn(width=210),
        "exact recovery": st.column_config.CheckboxColumn(width=100),
        "MSE per cell": st.column_config.NumberColumn(format="%.3g", width=90),
        "max |error|": st.column_config.NumberColumn(format="%.3g", width=75),
        "target drawn?": st.column_config.CheckboxColumn(
            width=95, help="Random selection only: whether the target's map was among the drawn ones")})
    st.caption("Noise-free mean and random selection are NOT differentially private: shown only to demonstrate "
               "the attack (docs/PRIVACY_MODEL.md §6.4), never offered as privacy options.")


# --------------------------------------------------------------------------------------------
# planning


def planning_panel(ctx: view.Context) -> None:
    """What-if for a larger study with maps like these — planning only, labelled as such."""
    st.warning(f"**{PLANNING_LABEL.split(':')[0]}:**{PLANNING_LABEL.split(':', 1)[1]}", icon=":material/warning:")
    c1, c2, c3 = st.columns([2, 1.3, 1])
    n_now = ctx.n_observers
    choices = sorted({n_now, 50, 100, 300, 1000, 3000, 10000, 50000, 100000})
    with c1:
        ns = st.multiselect("Hypothetical numbers of observers N", choices,
                            default=[v for v in choices
                                     if v in value_in_force("hm_plan_n", (n_now, 100, 300, 1000, 3000, 10000, 50000))],
                            key="hm_plan_n")
    with c2:
        rule = _delta_rule("hm_plan_delta", ctx)
    with c3:
        R = st.slider("Draws per N", 10, 200, value_in_force("hm_plan_R", 50), 10, key="hm_plan_R")
    if not ns:
        st.info("Choose at least one study size N.")
        return
    plan = view.planning(ctx.maps_key, ctx.setting, tuple(sorted(ns)), rule, R, ctx.preview_seed, ctx.clean)
    st.plotly_chart(figs.plan_figure(plan, n_now), key="hm_plan_chart", theme=None)
    show = plan[["N", "delta", "std", "expected_mse", "cc_mean", "cc_sd", "label"]].rename(
        columns={"delta": "δ", "std": "noise std", "expected_mse": "E[MSE]", "cc_mean": "CC mean",
                 "cc_sd": "CC sd", "label": "status"})
    show["status"] = show["status"].str.split(":").str[0]
    fmt = st.column_config.NumberColumn(format="%.3g")
    st.dataframe(show, hide_index=True,
                 column_config={c: fmt for c in ("δ", "noise std", "E[MSE]", "CC mean", "CC sd")})


RUNNERS = {"curves": curves_panel, "cap": cap_panel, "calculator": calculator_panel, "attack": attack_panel,
           "planning": planning_panel, "target": targets.target_panel, "compare": targets.compare_panel}
