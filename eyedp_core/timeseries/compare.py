"""Two time-series settings side by side (A/B): their numbers and guarantees, and the difference in one sentence."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from eyedp_core.timeseries.accounting import EpsilonPlan
from eyedp_core.timeseries.preview import Preview

__all__ = ["SettingSummary", "summarise", "difference_sentence"]


@dataclass(frozen=True)
class SettingSummary:
    """What one setting releases and costs: label, ε per person and per invocation, noise scale, utility, guarantee."""

    label: str
    epsilon_person: float
    epsilon_invocation: float
    unit: str              # what one invocation protects: "chunk" or "record"
    scale: float           # Laplace scale of the shown feature (b per sample for LPA, λ per kept coefficient)
    utility_db: float      # 10·log10(mean over features of 1/NMSE), one seeded run
    nmse_shown: float      # NMSE of the shown feature for the shown recording
    guarantee: str
    valid: bool


def summarise(label: str, plan: EpsilonPlan, preview: Preview, row: int | None) -> SettingSummary:
    """Label, the budget plan and the seeded preview of a setting, the shown recording in, its summary out."""
    cal = preview.shown[0].calibration
    util = float(np.mean(1.0 / np.asarray(preview.nmse_feature, float)))
    return SettingSummary(
        label=label, epsilon_person=float(plan.participant_total), epsilon_invocation=float(plan.per_invocation),
        unit=plan.unit, scale=float(cal.scale), utility_db=float(10.0 * math.log10(util)) if util > 0 else -math.inf,
        nmse_shown=float(preview.nmse_series[row]) if row is not None else math.nan,
        guarantee=cal.guarantee if plan.has_guarantee else "none", valid=bool(cal.valid and plan.has_guarantee))


def _times(r: float) -> str:
    return f"{r:.3g}×"


def difference_sentence(a: SettingSummary, b: SettingSummary) -> str:
    """-> one sentence: how B differs from A in privacy (ε per person) and in utility (dB)."""
    d_db = b.utility_db - a.utility_db
    ratio = b.epsilon_person / a.epsilon_person
    if math.isclose(ratio, 1.0, rel_tol=1e-9):
        privacy = f"at the same ε = {a.epsilon_person:.3g} per person"
    elif ratio > 1:
        privacy = (f"for {_times(ratio)} A's ε per person ({b.epsilon_person:.3g} against {a.epsilon_person:.3g}: "
                   "weaker privacy)")
    else:
        privacy = (f"for {_times(ratio)} A's ε per person ({b.epsilon_person:.3g} against {a.epsilon_person:.3g}: "
                   "stronger privacy)")
    if abs(d_db) < 0.05:
        util = "the same utility"
    else:
        util = f"{abs(d_db):.1f} dB {'more' if d_db > 0 else 'less'} utility"
    caveat = ""
    if a.valid != b.valid:
        caveat = f"; only {'A' if a.valid else 'B'} carries a DP guarantee"
    return f"B ({b.label}) gives {util} than A ({a.label}) {privacy}{caveat}."
