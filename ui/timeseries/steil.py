"""Time-series view, Steil et al. panel: the provable Laplace form, and the published sampler under a red banner."""
from __future__ import annotations

import numpy as np
import streamlit as st

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import steil
from eyedp_core.timeseries.accounting import epsilon_plan, plan_releases
from eyedp_core.timeseries.mechanisms import run
from eyedp_core.timeseries.setting import MechanismSetting
from ui import state, theme
from ui.text import html_text
from ui.timeseries import figs, view
from ui.timeseries.context import VIEW, Ctx, record
from ui.timeseries.data import feature_label
from ui.widgets import badge, calibration_box, fmt_num, value_in_force


def steil_panel(c: Ctx) -> None:
    """Steil's per-feature mechanism on the shown series: faithful Laplace form and, on request, as published."""
    if c.row is None:
        st.info("Choose a participant and task with a recording to see Steil et al.'s mechanism.")
        return
    # One horizontal box, not two columns: fewer blocks re-sent on every move of w.
    a = b = st.container(horizontal=True, gap="medium", vertical_alignment="center")
    w = a.slider("Subsampling window w (one random sample kept per w windows)", 1, 20, value_in_force("ts_steil_w", 10), key="ts_steil_w",
                 help="Steil et al. use w = 10; the positions are drawn independently of the data.")
    shown = b.toggle("Also show the sampler as published (not differentially private)", value=False,
                     key="ts_steil_published")
    t_len, n_feat, n_rec = c.series.length, len(c.series.names), c.plan.n_recordings
    plan = epsilon_plan(c.setting.mode, c.setting.epsilon, Mech.STEIL, None, t_len, n_feat, n_rec)
    eps_i = plan.per_invocation
    lo, hi = c.bounds_f
    series = np.asarray(c.series.x[c.row, c.feature_index, :])
    setting = MechanismSetting(mech=Mech.STEIL, epsilon=eps_i, w=w, sensitivity_type=c.sensitivity_type)
    drawn = run(series, setting, rng=np.random.default_rng([c.setting.seed, 10]), bounds=(lo, hi))
    t, t_title = figs.time_axis(t_len, c.info.step_s)
    clean = np.clip(series, lo, hi)
    y_title = html_text(feature_label(c.feature))  # Plotly text
    released = steil.subsampled_length(t_len, w)
    left, right = st.columns([2, 1], gap="medium")
    with left:
        axes = figs.TimeAxes(t, t_title, y_title, f"{html_text(c.feature)} — {html_text(c.participant)}"
                             f"{', ' + html_text(c.task) if c.task else ''}: Steil et al., provable Laplace form")
        st.plotly_chart(figs.steil_figure(axes, clean, drawn.positions, drawn.values,
                                          f"Steil, Laplace form (ε_i = {fmt_num(eps_i)})",
                                          theme.color_for("Steil (faithful)")), theme=None)
    with right:
        # The calibration the noise above was drawn with (one series, one calibration).
        calibration_box(drawn.calibrations[0], "Steil et al., faithful replacement (§7.3)")
    st.markdown(
        f"Each released sample gets i.i.d. Laplace noise of scale b = T′·R/ε_i with T′ = ⌈T/w⌉ = {released}. Budget: "
        f"ε_i = {fmt_num(eps_i)} per feature series "
        f"({'as you set it' if c.setting.mode == 'paper' else 'your total split'}), "
        f"so each participant gets **ε = {fmt_num(plan.participant_total)}** over {n_feat} features × {n_rec} "
        f"recordings (Steil et al. count Σ_i ε_i = {fmt_num(plan.paper_total)}, one recording).")
    releases = plan_releases(plan, view=VIEW, sensitivity_type=c.sensitivity_type,
                             label=f"Steil (Laplace form), w = {w}, T′ = {released}: {n_feat} features × {n_rec} "
                                   f"recordings, ε_i = {eps_i:.4g}", data_derived_parameters=c.length.caveats)
    if shown:
        _published(c, series, w, eps_i, t, t_title, y_title)
        pub = epsilon_plan(c.setting.mode, c.setting.epsilon, Mech.STEIL_PUBLISHED, None, t_len, n_feat, n_rec)
        releases += plan_releases(pub, view=VIEW, sensitivity_type="data-derived",
                                  label=f"{steil.PUBLISHED_LABEL}, w = {w}, nominal ε_i = {eps_i:.4g}",
                                  data_derived_parameters=c.length.caveats)
    if st.button("Record the Steil release in the privacy ledger", key="ts_steil_record"):
        record(releases, place="ts_steil_record")
        st.session_state["ts_recorded_msg"] = ("Recorded: " + "; ".join(
            f"{r.mechanism} (ε = {'∞' if np.isinf(r.epsilon) else fmt_num(r.epsilon)} × {r.count})" for r in releases))
        st.rerun()
    state.outcome_here("ts_steil_record")  # a refusal, next to the button that was pressed


def _published(c: Ctx, series: np.ndarray, w: int, eps_i: float, t: np.ndarray, t_title: str, y_title: str) -> None:
    """The published sampler under its red banner: output, nominal ε and how far from ε-DP it is."""
    st.error("**As published — not differentially private.** Shown for reproduction only: every sample moves by "
             "the same random magnitude (a degenerate support), the score favours outputs far from the data, and the "
             "range δ_i is read from the data (docs/PRIVACY_MODEL.md §7.2). No privacy claim can be made; the ledger "
             "records it with ε = ∞.", icon=":material/dangerous:")
    delta_i = float(steil.published_range(c.series.x[:, c.feature_index, :]))
    if delta_i <= 0:
        st.info("This feature is constant in the data, so the published range δ_i is 0 and the sampler is undefined.")
        return
    drawn = steil.published(series, epsilon=eps_i, value_range=delta_i, w=w,
                            rng=np.random.default_rng([c.setting.seed, 11]))
    out, pos = drawn.values, drawn.positions
    moves = np.abs(out - np.take_along_axis(series, pos, axis=-1))
    left, right = st.columns([2, 1], gap="medium")
    with left:
        axes = figs.TimeAxes(t, t_title, y_title, "Steil et al.'s sampler as published — NOT differentially private")
        st.plotly_chart(figs.steil_figure(axes, series, pos, out, f"as published (nominal ε_i = {fmt_num(eps_i)})",
                                          theme.color_for("Steil (as published)"),
                                          clean_name="clean (not clamped: the sampler does not clamp)"), theme=None)
    with right:
        worst = view.steil_worst_ratio(eps_i, delta_i)
        st.markdown(f"{badge('not DP', 'notdp')} nominal ε_i = {fmt_num(eps_i)}, data-derived δ_i = "
                    f"{fmt_num(delta_i)}", unsafe_allow_html=True)
        st.metric("Privacy loss of the released series", "∞" if moves.size >= 2 else f"{worst:.3g}",
                  help="For two or more released values every sample moves by the same distance, so an output "
                       "possible under one input is impossible under almost every other: no finite ε (§7.2, "
                       "V-STEIL-2).")
        verdict = "above" if worst > eps_i else "below"
        st.caption(f"One released value alone (T = 1): worst log density ratio {worst:.3g}, {verdict} the nominal "
                   f"ε_i = {fmt_num(eps_i)} (V-STEIL-3: 1.07 at ε = 1, δ = 1).")
        same = np.unique(np.round(moves, 9)).size
        st.caption(f"All {moves.size} released samples moved by the same distance |shift| = "
                   f"{fmt_num(float(moves[0]))} ({same} distinct value{'s' if same > 1 else ''}): seeing one shift reveals all the others.")
