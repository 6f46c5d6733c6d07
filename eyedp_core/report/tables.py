"""The ledger as tables a review board can read: plain column names, the unit of each row, totals per person."""
from __future__ import annotations

import math

import pandas as pd

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import EVERYONE, EVERYONE_ELSE, PARTICIPANT_UNITS, Ledger

__all__ = ["BASIC_DELTA", "BASIC_EPSILON", "ZCDP_DELTA", "ZCDP_EPSILON", "person_table", "releases_table"]

# Column labels of a ledger counted under zCDP (its charges were checked under it), basic composition beside it.
ZCDP_EPSILON = "Total ε (zCDP → (ε, δ))"
ZCDP_DELTA = "Total δ (zCDP → (ε, δ))"
BASIC_EPSILON = "ε (basic composition)"
BASIC_DELTA = "δ (basic composition)"


def _who(participants: tuple[str, ...] | None, unit: str) -> str:
    if participants is None:
        return f"every {unit}"
    if len(participants) <= 6:
        return ", ".join(participants)
    return f"{len(participants)} {unit}s"


def releases_table(ledger: Ledger) -> pd.DataFrame:
    """Ledger in, one readable row per release (what, unit, who, ε, δ, count, charged, caveats) out."""
    rows = []
    for i, r in enumerate(ledger.releases, start=1):
        caveats = []
        if r.sensitivity_type == "data-derived":
            caveats.append("sensitivity read off the data")
        if r.tuned_on_private_data:
            caveats.append("tuned on the private data")
        caveats += list(r.data_derived_parameters)
        rows.append({
            "#": i, "View": r.view, "What was released": r.label, "Mechanism": r.mechanism,
            "Protects one": r.unit, "Covers": _who(r.participants, r.unit),
            "ε per invocation": r.epsilon, "δ per invocation": r.delta, "Invocations per person": r.count,
            "ε charged per person": r.epsilon_total, "δ charged per person": r.delta_total,
            "Sensitivity": r.sensitivity_type, "Caveats": "; ".join(caveats) or "none",
            "What ε means": r.meaning or (f"ε for one whole {r.unit} (everything they contributed)"
                                          if r.unit in PARTICIPANT_UNITS else
                                          f"ε per {r.unit}; the person's bound is the sum over their {r.unit}s"),
        })
    return pd.DataFrame(rows, columns=["#", "View", "What was released", "Mechanism", "Protects one", "Covers",
                                       "ε per invocation", "δ per invocation", "Invocations per person",
                                       "ε charged per person", "δ charged per person", "Sensitivity", "Caveats",
                                       "What ε means"])


def protected_as(unit: str) -> str:
    """A release's unit -> who it protects as the ledger charges it: a sub-person unit's ε is summed over all of
    the person's units, so the person is protected, by that sum."""
    if unit in PARTICIPANT_UNITS:
        return unit
    if unit == "w-event":
        return "participant (person-level bound over windows)"
    return f"participant (sum over their {unit}s)"


def person_table(ledger: Ledger, epsilon_cap: float | None = None, *, grouped: bool = True) -> pd.DataFrame:
    """Ledger (and the cap) in, the composed total per person, labelled observer or participant per row, out.

    grouped: people with the same unit and the same totals share one row ("O01 … O40 (40 people)"). The totals are
    under the accountant the ledger's charges were checked under (`Ledger.accounting`): under zCDP the columns say
    so and basic composition stands beside them."""
    accountant, delta_cap = ledger.accounting()
    zcdp = accountant is Accountant.ZCDP
    table = ledger.per_participant(accountant=accountant, delta_cap=delta_cap)
    total_e, total_d = (ZCDP_EPSILON, ZCDP_DELTA) if zcdp else ("Total ε", "Total δ")
    rows = []
    for rec in table.to_dict("records"):
        who = rec["participant"]
        if who == EVERYONE_ELSE:  # covered only by the entries about everyone
            units = sorted({r.unit for r in ledger.releases if r.participants is None})
        else:
            units = sorted({r.unit for r in ledger.releases if who == EVERYONE or r.covers(who)})
        kind = " / ".join(dict.fromkeys(protected_as(u) for u in units)) if units else "participant"
        person = {EVERYONE: f"every {kind}",
                  EVERYONE_ELSE: "everyone else (named by no release)"}.get(who, str(who))
        eps = float(rec["epsilon"])
        row = {"Person": person, "Protected as": kind, total_e: eps, total_d: float(rec["delta"])}
        if zcdp:
            row.update({BASIC_EPSILON: float(rec["basic_epsilon"]), BASIC_DELTA: float(rec["basic_delta"])})
        row.update({"Releases": int(rec["n_releases"]), "Mechanism invocations": int(rec["n_invocations"])})
        if epsilon_cap is not None:
            row["Cap left (ε)"] = (float(epsilon_cap) - eps) if math.isfinite(eps) else -math.inf
        rows.append(row)
    frame = pd.DataFrame(rows)
    if not grouped or frame.empty:
        return frame
    keys = [c for c in frame.columns if c != "Person"]
    out = []
    for _, grp in frame.groupby(keys, sort=False, dropna=False):
        names = list(grp["Person"])
        row = grp.iloc[0].to_dict()
        if len(names) > 1:
            row["Person"] = (", ".join(names) if len(names) <= 4 else
                             f"{names[0]}, {names[1]} … {names[-1]} ({len(names)} people)")
        out.append(row)
    return pd.DataFrame(out, columns=frame.columns).sort_values(total_e, ascending=False, kind="stable")
