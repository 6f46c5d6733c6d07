"""The Heatmaps page in words: the per-observer guarantee, the noise scale as one sentence with the core's
numbers, and the derivation (formulas, Liu's calibration as in the paper) behind an expander."""
from __future__ import annotations

import math

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps.calibration import calibration_table
from ui.heatmaps import figs, view
from ui.numbers import Number, numbers_html
from ui.text import md_text
from ui.widgets import badge, calibration_box, fmt_num


def odds_words(eps: float) -> str:
    """ε -> the bound e^ε on how much an attacker's odds can move, in bounded words."""
    f = math.exp(eps)
    if f >= 1e6:
        return "more than a million times"
    if f >= 100:
        return f"about {f:,.0f} times"
    return f"at most ×{f:.3g}"


def guarantee_markdown(ctx: view.Context) -> str:
    """Context -> the page's lead: who is protected, with which (ε, δ), in plain words."""
    d = ctx.delta_used
    slack = ("no exceptions (Laplace noise: pure ε-DP)" if d == 0
             else f"except with probability δ = {fmt_num(d)}")
    return (f"**Each observer is protected with ε = {fmt_num(ctx.epsilon)}"
            f"{'' if d == 0 else f', δ = {fmt_num(d)}'} for the stimulus '{md_text(ctx.stimulus.name)}'.** Whatever "
            f"anyone believed about one observer's gaze on it, a heatmap published with these settings changes "
            f"their odds {odds_words(ctx.epsilon)} (e^ε), {slack}. The unit is one observer's whole gaze map "
            f"(n = {ctx.n_observers} observers); heatmaps of several stimuli from the same people add up "
            "(see Privacy accounting).")


def liu_note_kind(selected_method: GaussianMethod, liu_valid: bool) -> str | None:
    """Which box Liu's Theorem 3.4 note gets: a warning only when Liu's σ is the one in use and it does not
    give the guarantee; a neutral caption when it is only shown for comparison; None when it is fine."""
    if liu_valid:
        return None
    return "warning" if selected_method == GaussianMethod.LIU_THM_34 else "caption"


def noise_sentence(ctx: view.Context) -> str:
    """Context -> one sentence: the noise added per cell, from which sensitivity and (ε, δ), numbers plugged in."""
    cal, sens = ctx.preview.calibration, ctx.sensitivity
    caps = f"m = {ctx.cap_m:g} {ctx.short_unit} per cell" + (
        f" and C = {fmt_num(ctx.cap_total)} {ctx.short_unit} in total" if ctx.cap_total else "")
    if ctx.mechanism is Family.LAPLACE:
        what = (f"Laplace noise with scale b = {fmt_num(cal.scale)} (standard deviation {fmt_num(cal.std)}) "
                f"= Δ₁/ε = {fmt_num(sens.l1)}/{fmt_num(ctx.epsilon)}")
    else:
        what = (f"Gaussian noise with standard deviation σ = {fmt_num(cal.std)} ({cal.method} calibration for "
                f"Δ₂ = {fmt_num(sens.l2)}, ε = {fmt_num(ctx.epsilon)}, δ = {fmt_num(ctx.delta_used)})")
    return (f"**Every cell of the average map gets {what}.** One observer can move the average map by at most "
            f"Δ₂ = {fmt_num(sens.l2)} (L2) or Δ₁ = {fmt_num(sens.l1)} (L1), because each map is capped at {caps} "
            f"and divided by n = {ctx.n_observers}.")


def derivation_expander() -> DeltaGenerator:
    """The (lazy) expander of the derivation: its content (derivation) is drawn only while it is open."""
    return st.expander("How the noise scale is derived (formulas, and Liu et al.'s calibration as in the paper)",
                       key="hm_derivation", on_change="rerun")


def noise_markdown(ctx: view.Context) -> str:
    """Context -> the "Noise scale" heading, its sentence and its numbers (markdown with HTML, appended to the
    numbers under the overlays: one element per move); the derivation is behind derivation_expander."""
    cal, sens = ctx.preview.calibration, ctx.sensitivity
    if ctx.mechanism is Family.GAUSSIAN:
        shown = [("Noise σ per cell", cal.std), ("Δ₂ (L2 sensitivity)", sens.l2), ("Δ₁ (L1 sensitivity)", sens.l1)]
    else:
        shown = [("Laplace scale b", cal.scale), ("Noise std √2·b", cal.std), ("Δ₁ (L1 sensitivity)", sens.l1),
                 ("Δ₂ (L2 sensitivity)", sens.l2)]
    return ("\n\n### Noise scale\n\n" + noise_sentence(ctx) + "\n\n"
            + numbers_html([Number(label, f"{value:.6g}") for label, value in shown]))


def derivation(ctx: view.Context) -> None:
    """Sensitivity formulas with the numbers, the calibration used, and the paper's calibration beside it."""
    cal, sens = ctx.preview.calibration, ctx.sensitivity
    st.markdown(f"**Sensitivity of the capped mean map** — neighbours replace one observer's whole map, n = "
                f"{ctx.n_observers} is public (Δ₂ is set by the {sens.binding}).")
    s1, s2 = st.columns(2, gap="large")
    s1.latex(sens.l2_tex)
    s1.latex(sens.l2_plugged)
    s2.latex(sens.l1_tex)
    s2.latex(sens.l1_plugged)
    table = calibration_table(sens, ctx.epsilon, ctx.delta)
    liu = next(c for c in table if c.method is GaussianMethod.LIU_THM_34)
    gaussian = ctx.mechanism is Family.GAUSSIAN
    # One above the other: the analytic formula is too wide for half a column at 1280 px.
    calibration_box(cal, f"{figs.MECH_LABEL[ctx.mechanism]} noise used here"
                         + (f" — {cal.method} calibration" if gaussian else ""))
    with st.container():
        if gaussian:
            _liu_box(liu, cal, ctx.method)
        else:
            st.markdown("**As in the paper: Liu et al. Theorem 3.5** " + badge("σ_L is a standard deviation",
                                                                              "paper"), unsafe_allow_html=True)
            st.latex(rf"\sigma_L = \sqrt{{2}}\,b = \sqrt{{2}}\,\frac{{\Delta_1}}{{\varepsilon}} = {cal.std:.6g}")
            st.caption(f"Liu's 'noise level' σ_L is the standard deviation √2·b. Passing σ_L as numpy's Laplace "
                       f"*scale* adds √2× too much noise; passing b = {fmt_num(cal.scale)} where a standard "
                       "deviation is expected adds too little (unsafe). The paper has Δ₁ = m·r/n; with the total "
                       "cap C, Δ₁ = min(m·r, 2C)/n.")
    st.markdown("**All calibrations side by side**")
    st.dataframe([{"mechanism": str(c.mechanism), "calibration": str(c.method), "scale (σ or b)": c.scale, "std": c.std,
                   "guarantee": c.guarantee if c.valid else "NOT the stated guarantee", "note": c.note}
                  for c in table], hide_index=True)


def _liu_box(liu, cal, selected_method: GaussianMethod) -> None:
    """Liu's Theorem 3.4 σ for comparison: a neutral badge, its formula, and its note where it applies."""
    st.markdown("**As in the paper: Liu et al. Theorem 3.4** "
                + badge("as in the paper — not a proof in general", "paper"), unsafe_allow_html=True)
    st.latex(liu.formula_tex)
    st.latex(liu.plugged_tex)
    st.caption(f"Liu's σ = {fmt_num(liu.std)} is {liu.std / cal.std:.2f}× the {cal.method} σ = {fmt_num(cal.std)} "
               "used here. Theorem 3.4's proof is wrong in general (docs/PRIVACY_MODEL.md §6.2): its σ is enough "
               "only when r ≥ r*, and then it adds more noise than needed.")
    kind = liu_note_kind(selected_method, liu.valid)
    if kind == "warning":
        st.warning(liu.note, icon=":material/warning:")
    elif kind == "caption":
        st.caption("At these settings Liu's σ would not be enough (r < r*), which is why this page does not use "
                   "it: " + liu.note.removeprefix("WARNING: "))
    elif liu.note:
        st.caption(liu.note)
