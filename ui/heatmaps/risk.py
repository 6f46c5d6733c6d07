"""Heatmaps: what the shown guarantee allows an attacker (the risk line under the lead), and ε calibrated to a
risk target instead of set on its slider (docs/PRIVACY_MODEL.md §16).

The trade-off is read off the calibration the page shows (Gaussian: Δ₂ and σ; Laplace: Δ₁ and b) and composed
over the stimuli released from the same observers and the private choices of m charged to them."""
from __future__ import annotations

import dataclasses

import streamlit as st

from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.dp.risk import TradeOff
from eyedp_core.dp.risk_views import RiskTarget
from eyedp_core.heatmaps import preview
from eyedp_core.heatmaps.calibration import HeatmapSensitivity, calibrate_heatmap
from ui import risk_line
from ui.heatmaps import release, view
from ui.heatmaps.settings import EPS_SPEC, Settings, read_settings

PREFIX = "hm"


def release_trade_off(cal: Calibration, sens: HeatmapSensitivity) -> TradeOff:
    """The calibration a map is drawn with and its sensitivities -> the trade-off of one stimulus' map."""
    if cal.mechanism is Family.LAPLACE:
        return TradeOff.laplace(sens.l1, cal.scale)
    return TradeOff.gaussian(sens.l2, cal.std, cal.epsilon, cal.delta)


def _stimuli() -> int:
    """Stimuli released from these observers (the accounting's input)."""
    return int(st.session_state.get(release.STIMULI_KEY, 1))


def person(ctx: view.Context) -> TradeOff:
    """Context -> one observer's total: this map's trade-off over the stimuli and the private choices of m."""
    t = release_trade_off(ctx.preview.calibration, ctx.sensitivity)
    return risk_line.person_total(t, _stimuli(), tuple(release.selection_charges(ctx)))


def risk_markdown(ctx: view.Context) -> str:
    """Context -> the risk line under the guarantee (markdown, one paragraph)."""
    k = _stimuli()
    scope = (f"These figures are for an observer's total over the {k} stimuli released from them"
             if k > 1 else "")
    return risk_line.line(person(ctx), ctx.n_observers, "observer", scope + "." if scope else "")


def _requested_method() -> GaussianMethod:
    """The Gaussian calibration chosen on the page (before the classical one falls back for ε ≥ 1)."""
    return GaussianMethod(st.session_state.get("hm_method", GaussianMethod.ANALYTIC.value))


def settings_at(s: Settings, eps: float) -> Settings:
    """Settings and an ε -> the same settings at that ε (the Gaussian calibration resolved again for it)."""
    method = s.method
    if s.mechanism is Family.GAUSSIAN:
        method = preview.gaussian_method(_requested_method(), eps)
    return dataclasses.replace(s, epsilon=eps, method=method)


def read_target(n: int) -> tuple[RiskTarget, float] | None:
    """The risk target the page's controls hold (read before they are drawn), None while ε is set by hand."""
    ss = st.session_state
    if not ss.get(f"{PREFIX}_risk_on", False):
        return None
    kind = RiskTarget(ss.get(f"{PREFIX}_risk_kind") or RiskTarget.TPR)
    lo, hi, start = risk_line.TARGET_RANGE[kind]
    if kind is RiskTarget.SINGLING_OUT:
        lo = max(lo, int(100 / n) + 1)
    pct = min(max(ss.get(f"{PREFIX}_risk_{kind.name.lower()}", max(start, lo)), lo), hi)
    return kind, pct / 100.0


def target_epsilon(ctx: view.Context, s: Settings) -> float | None:
    """Context at the slider's ε and its settings -> the ε the risk target sets (None: set by hand, or no ε meets
    the target)."""
    target = read_target(ctx.n_observers)
    if target is None:
        return None
    sens, k, choices = ctx.sensitivity, _stimuli(), tuple(release.selection_charges(ctx))

    def forward(eps: float) -> TradeOff:
        at = settings_at(s, eps)
        cal = calibrate_heatmap(sens, eps, at.delta, at.mechanism, at.method)
        return risk_line.person_total(release_trade_off(cal, sens), k, choices)

    key = (s.mechanism, _requested_method(), s.delta, sens.l1, sens.l2, sens.r, k, choices)
    return risk_line.calibrated_epsilon(key, *target, ctx.n_observers, EPS_SPEC.lo, EPS_SPEC.hi, forward)


def target_epsilon_of(ctx: view.Context) -> float | None:
    """Context -> the ε the risk target sets, at the settings the controls hold (memoised: no new bisection)."""
    return target_epsilon(ctx, read_settings(ctx.n_observers, ctx.weight))


def controls(n: int, eps: float | None) -> bool:
    """Roster size and the calibrated ε -> the toggle, its target and the calibrated ε in words; whether the ε
    slider is in use (False while a target sets ε)."""
    target = risk_line.target_controls(PREFIX, n)
    if target is None:
        return True
    st.markdown(risk_line.calibrated_words(eps, *target, "observer and stimulus"))
    return eps is None
