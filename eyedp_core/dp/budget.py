"""A cap on the privacy loss per person: releases that would push anyone over it are refused (§0.6).

The cap is checked against the ledger *with* the candidate releases added, for every person the candidates cover,
under the accountant the charge states (basic composition unless told; zCDP at the δ cap), and a refused batch
adds nothing: several entries of one release go in together or not at all.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger, PersonTotal, Release

__all__ = ["BudgetExceeded", "charge", "covered_total", "refusal"]


class BudgetExceeded(ValueError):
    """A release was refused because it would push a person's total ε (or δ) above the cap."""


def covered_total(ledger: Ledger, releases: Sequence[Release], accountant: Accountant = Accountant.BASIC,
                  delta_cap: float | None = None) -> PersonTotal:
    """Ledger and candidate releases in, the worst total, under the accountant, of the people they cover out
    (everyone when one covers everyone; a person the candidates do not read keeps the total they had)."""
    if any(r.participants is None for r in releases):
        return ledger.worst_case(accountant=accountant, delta_cap=delta_cap)
    people = {p for r in releases for p in (r.participants or ())}
    if not people:  # entries that read nobody's data
        return PersonTotal(Accountant(accountant), 0.0, 0.0, 0.0, 0.0)
    return ledger.worst_case_among(people, accountant=accountant, delta_cap=delta_cap)


def refusal(ledger: Ledger, releases: Sequence[Release], epsilon_cap: float | None,
            delta_cap: float | None = None, accountant: Accountant = Accountant.BASIC) -> str | None:
    """Ledger, candidate releases, caps and accountant in, why they would be refused out (None: they fit).

    zCDP needs the δ cap (its ε is stated at that δ)."""
    if epsilon_cap is None and delta_cap is None:
        return None
    acct = Accountant(accountant)
    before = ledger.releases  # one read (a stored ledger re-reads its file on each access)
    trial = covered_total(Ledger([*before, *releases]), releases, acct, delta_cap)
    now = covered_total(Ledger(before), releases, acct, delta_cap)
    eps, dlt = trial.epsilon, trial.delta
    counted = "" if acct is Accountant.BASIC else (
        f" (counted by {acct.words} at δ = {float(delta_cap):.2g}; basic composition would count "
        f"ε = {trial.basic_epsilon:.4g}, δ = {trial.basic_delta:.2g})")
    if epsilon_cap is not None and eps > float(epsilon_cap):
        what = "∞ (a release without a DP guarantee)" if math.isinf(eps) else f"{eps:.4g}"
        return (f"Refused: this release would raise the worst-case ε per person from {now.epsilon:.4g} to {what}"
                f"{counted}, above the study's cap ε ≤ {float(epsilon_cap):.4g} per person (the Report page changes "
                "it). Nothing was released or charged.")
    if delta_cap is not None and dlt > float(delta_cap):
        return (f"Refused: this release would raise the worst-case δ per person from {now.delta:.2g} to {dlt:.2g}"
                f"{counted}, above the cap δ ≤ {float(delta_cap):.2g}. Nothing was released or charged.")
    return None


def charge(ledger: Ledger, releases: Sequence[Release], epsilon_cap: float | None,
           delta_cap: float | None = None, accountant: Accountant = Accountant.BASIC) -> None:
    """Add the releases to the ledger if every person they cover stays within the caps under the accountant;
    BudgetExceeded otherwise."""
    stored_charge = getattr(ledger, "charge", None)
    if callable(stored_charge):  # a stored ledger checks and inserts in one transaction, atomic across sessions
        stored_charge(list(releases), epsilon_cap, delta_cap, accountant=accountant)
        return
    why = refusal(ledger, releases, epsilon_cap, delta_cap, accountant)
    if why is not None:
        raise BudgetExceeded(why)
    for r in releases:
        ledger.add(r)
    ledger.note_accounting(accountant, delta_cap)
