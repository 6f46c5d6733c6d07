"""A cap on the privacy loss per person: releases that would push anyone over it are refused (§0.6).

The cap is checked against the ledger *with* the candidate releases added (basic composition per person),
and a refused batch adds nothing: several entries of one release go in together or not at all.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from eyedp_core.dp.accounting import Ledger, Release

__all__ = ["BudgetExceeded", "charge", "refusal"]


class BudgetExceeded(ValueError):
    """A release was refused because it would push a person's total ε (or δ) above the cap."""


def refusal(ledger: Ledger, releases: Sequence[Release], epsilon_cap: float | None,
            delta_cap: float | None = None) -> str | None:
    """Ledger, candidate releases and caps in, why they would be refused out (None: they fit under the caps)."""
    if epsilon_cap is None and delta_cap is None:
        return None
    trial = Ledger([*ledger.releases, *releases])
    eps, dlt = trial.total()
    now_eps, now_dlt = ledger.total()
    if epsilon_cap is not None and eps > float(epsilon_cap):
        what = "∞ (a release without a DP guarantee)" if math.isinf(eps) else f"{eps:.4g}"
        return (f"Refused: this release would raise the worst-case ε per person from {now_eps:.4g} to {what}, "
                f"above the study's cap ε ≤ {float(epsilon_cap):.4g} per person (the Report page changes it). "
                "Nothing was released or charged.")
    if delta_cap is not None and dlt > float(delta_cap):
        return (f"Refused: this release would raise the worst-case δ per person from {now_dlt:.2g} to {dlt:.2g}, "
                f"above the cap δ ≤ {float(delta_cap):.2g}. Nothing was released or charged.")
    return None


def charge(ledger: Ledger, releases: Sequence[Release], epsilon_cap: float | None,
           delta_cap: float | None = None) -> None:
    """Add the releases to the ledger if every person stays within the caps; BudgetExceeded otherwise."""
    stored_charge = getattr(ledger, "charge", None)
    if callable(stored_charge):  # a stored ledger checks and inserts in one transaction, atomic across sessions
        stored_charge(list(releases), epsilon_cap, delta_cap)
        return
    why = refusal(ledger, releases, epsilon_cap, delta_cap)
    if why is not None:
        raise BudgetExceeded(why)
    for r in releases:
        ledger.add(r)
