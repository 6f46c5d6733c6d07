"""What the guarantee allows any attacker on a release, beside what the classifiers measured (PRIVACY_MODEL §16).

A release spends a person's ε over n_p = F·C·R_p mechanism calls (features × chunks × recordings), each
ε_call-DP, so that person's trade-off is `risk.TradeOff.pure(ε_call, n_p)` (optimal composition, exact). The
ceiling of a task is the Bayes-optimal success of any attacker under the largest of those trade-offs:
* two classes (gender): `risk.attribute_inference` with the test set's majority share as the prior;
* K classes (re-identification among n people, document type): a classifier's accuracy Σᵢ πᵢ·Pᵢ(Sᵢ) is at
  most K·max πᵢ times `risk.singling_out(t, K)`, which is the singling-out bound itself when classes balance.
A measured accuracy above its ceiling is a defect (of the mechanism or the measurement) when a one-sided exact
binomial test over the test units rejects "true accuracy ≤ ceiling" at level DEFECT_LEVEL.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy.stats import binom

from eyedp_core.attacks.privatize import ReleasePlan
from eyedp_core.dp import risk

__all__ = ["DEFECT_LEVEL", "add_ceilings", "ceiling", "defect_sentences", "person_calls"]

# Significance of the one-sided exact binomial test that flags a measured accuracy above its ceiling.
DEFECT_LEVEL = 1e-3


def person_calls(plan: ReleasePlan) -> tuple[tuple[int, float], ...]:
    """The plan of a release in, one (calls on one person's data, ε per call) pair per kind of person out.

    Participant accounting: per_call = ε/(F·C·R_p), so a person has ε/per_call calls. Paper accounting gives
    every call ε/F; the person with the most recordings has the most calls (F·C·R_max), which is the worst."""
    if plan.accounting == "paper":
        return ((int(plan.n_features * plan.n_chunks * max(plan.recordings, 1)), float(plan.per_call.max())),)
    out = {}
    for e in np.unique(np.asarray(plan.per_call, dtype=float)):
        out[max(1, round(plan.epsilon / e))] = float(e)
    return tuple(sorted(out.items()))


@functools.lru_cache(maxsize=4096)
def _bound(calls: int, epsilon: float, n_classes: int, chance: float) -> float:
    """One person's calls, ε per call, the classes and the majority share in, that person's ceiling out."""
    t = risk.TradeOff.pure(epsilon, calls)
    if n_classes <= 2:
        prior = min(max(chance, 1e-12), 1.0 - 1e-12)
        return risk.attribute_inference(t, prior)
    return min(1.0, chance * n_classes * risk.singling_out(t, n_classes))


def ceiling(calls: Sequence[Sequence[float]], n_classes: int, chance: float) -> float:
    """(calls, ε per call) of every kind of person, the number of classes and the majority share in, the highest
    accuracy any attacker can have on the release out (NaN when the release or the classes are unknown)."""
    if not calls or n_classes < 2 or not math.isfinite(chance):
        return float("nan")
    return max(_bound(int(m), float(e), int(n_classes), round(float(chance), 12)) for m, e in calls)


def _p_value(accuracy: float, units: int, bound: float) -> float:
    """P(X ≥ hits) for X ~ Binomial(units, bound): how surprising the accuracy is if the truth sits at the bound."""
    if units <= 0 or not math.isfinite(bound) or not math.isfinite(accuracy):
        return float("nan")
    hits = round(accuracy * units)
    return float(binom.sf(hits - 1, units, min(bound, 1.0)))


def add_ceilings(summary: pd.DataFrame) -> pd.DataFrame:
    """Summary (with calls, n_classes, n_units) in, the same with `ceiling`, `above` (the measured mean exceeds
    it), `p_above` (the binomial test's p-value) and `defect` (p_above < DEFECT_LEVEL) out."""
    s = summary.copy()
    if s.empty or "calls" not in s:
        return s.assign(ceiling=np.nan, above=False, p_above=np.nan, defect=False)
    s["ceiling"] = [ceiling(c, int(k or 0), ch) if isinstance(c, (list, tuple)) else float("nan")
                    for c, k, ch in zip(s["calls"], s["n_classes"], s["chance"], strict=True)]
    s["above"] = (s["accuracy"] > s["ceiling"] + 1e-12).fillna(False)
    s["p_above"] = [_p_value(a, int(n or 0), c) if up else float("nan")
                    for a, n, c, up in zip(s["accuracy"], s["n_units"], s["ceiling"], s["above"], strict=True)]
    s["defect"] = s["p_above"] < DEFECT_LEVEL
    return s


def defect_sentences(s: pd.DataFrame, names: dict[str, str] | None = None) -> list[str]:
    """Summary with ceilings in, one sentence per measured accuracy above its ceiling beyond binomial noise."""
    if "defect" not in s:
        return []
    names = names or {}
    out = []
    for r in s[s["defect"]].itertuples():
        out.append(f"{names.get(r.task, r.task)}, {r.mechanism} at ε = {r.epsilon:g} ({r.train_on}): measured "
                   f"{r.accuracy:.3f} over {int(r.n_units)} test units, above the ceiling {r.ceiling:.3f} that the "
                   f"guarantee allows any attacker (one-sided exact binomial test, p = {r.p_above:.1e} < "
                   f"{DEFECT_LEVEL:g})")
    return out
