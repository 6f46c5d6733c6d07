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


def risk_markdown(eq: dict[Query, float], table: ObserverTable) -> str:
    """ε of each sum and the observer table (K, bounds, n) -> the risk line for one observer's total (markdown)."""
    parts = []
    for q, e in eq.items():
        sens = query_sensitivity(q, table)
        parts.append(TradeOff.laplace(sens, calibrate_laplace(sens, e).scale))
    scope = f"These figures are for an observer's total over the {len(parts)} noisy sums." if len(parts) > 1 else ""
    return risk_line.line(combined(parts), table.n, "observer", scope)
