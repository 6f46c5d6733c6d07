"""Areas of interest: what ε per observer allows an attacker, under the summary of the private tables
(docs/PRIVACY_MODEL.md §16).

Each noisy sum is Laplace noise of scale b = Δ₁/ε_q on a vector of L1 sensitivity Δ₁ (the calibration the
formulas show), so its trade-off is the Laplace curve; an observer's total composes the sums."""
from __future__ import annotations

from eyedp_core.aoi.metrics import Query, query_sensitivity
from eyedp_core.aoi.observers import ObserverTable
from eyedp_core.dp.calibration import calibrate_laplace
from eyedp_core.dp.risk import TradeOff
from eyedp_core.dp.risk_views import combined
from ui import risk_line


def person(eq: dict[Query, float], table: ObserverTable) -> TradeOff:
    """ε of each sum and the observer table (K, bounds) -> one observer's total over the sums."""
    parts = []
    for q, e in eq.items():
        sens = query_sensitivity(q, table)
        parts.append(TradeOff.laplace(sens, calibrate_laplace(sens, e).scale))
    return combined(parts)


def risk_markdown(eq: dict[Query, float], table: ObserverTable) -> str:
    """ε of each sum and the observer table (K, bounds, n) -> the risk line for one observer's total (markdown)."""
    scope = f"These figures are for an observer's total over the {len(eq)} noisy sums." if len(eq) > 1 else ""
    return risk_line.line(person(eq, table), table.n, "observer", scope)
