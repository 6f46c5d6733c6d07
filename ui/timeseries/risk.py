"""Time series: what the per-person total allows an attacker (the risk line in the verdict box), and ε calibrated
to a risk target instead of set on its slider (docs/PRIVACY_MODEL.md §16).

One mechanism call is Laplace noise (scale b or λ) on a query of L1 sensitivity Δ₁ = λ·ε, so its trade-off is the
Laplace curve with ε per call, read off the calibration the preview was drawn with; a participant's total composes
the calls (features × chunks × recordings)."""
from __future__ import annotations

from eyedp_core.dp.registry import Mech
from eyedp_core.dp.risk import TradeOff
from eyedp_core.dp.risk_views import RiskTarget
from eyedp_core.timeseries.accounting import epsilon_plan
from ui import risk_line
from ui.timeseries.context import Ctx

PREFIX = "ts"
EPS_RANGE = (0.001, 10000.0)  # the ε slider's range


def call_trade_off(ctx: Ctx) -> TradeOff:
    """Context -> the trade-off of one mechanism call, from the calibration the shown feature was drawn with.

    The calibration's Δ is the series' sensitivity (L2 for the Fourier forms), not the L1 sensitivity of the
    noised coefficients: that one is λ·ε by construction (λ = Δ₁/ε), so the call's Laplace curve has ε = ε per
    call. Reading Δ/λ instead would understate the risk by the factor c·√(k·n) that turns Δ₂ into Δ₁."""
    cal = ctx.preview.shown[0].calibration
    return TradeOff.laplace(cal.epsilon * cal.scale, cal.scale)


def risk_markdown(ctx: Ctx) -> str:
    """Context -> the risk line for one participant's total (markdown), or why no ceiling holds."""
    if not ctx.plan.has_guarantee:
        return risk_line.no_bound_line("this mechanism has no finite ε")
    if ctx.sensitivity_type == "data-derived":
        return risk_line.no_bound_line("the noise scale is read from the private data, so ε is not a guarantee")
    calls = ctx.plan.invocations
    t = risk_line.person_total(call_trade_off(ctx), calls)
    scope = (f"These figures are for a participant's total over {calls:,} mechanism calls."
             if calls > 1 else "")
    return risk_line.line(t, len(ctx.info.participants), "participant", scope)


def _forward(mode: str, mech: Mech, chunk: int | None, length: int, n_features: int, n_recordings: int):
    """The page's structure -> ε on the slider ↦ a participant's composed trade-off (Laplace calls of ε each)."""
    def forward(eps: float) -> TradeOff:
        plan = epsilon_plan(mode, eps, mech, chunk, length, n_features, n_recordings)
        return risk_line.person_total(TradeOff.laplace(1.0, 1.0 / plan.per_invocation), plan.invocations)
    return forward


def target_epsilon(target: tuple[RiskTarget, float], n: int, mode: str, mech: Mech, chunk: int | None, length: int,
                   n_features: int, n_recordings: int) -> float | None:
    """A risk target, the roster size and the page's structure -> the largest slider ε that keeps to it."""
    key = ("ts", mode, mech, chunk, length, n_features, n_recordings)
    return risk_line.calibrated_epsilon(key, *target, n, *EPS_RANGE,
                                        _forward(mode, mech, chunk, length, n_features, n_recordings))
