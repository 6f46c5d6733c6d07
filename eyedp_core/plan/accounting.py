"""The per-person total of a plan's releases under each accountant (docs/PRIVACY_MODEL.md §17).

Every output of a plan reads the same people (an observer's fixations feed each stimulus' heatmap and the AOI
table; a participant's series feed each form), so they compose sequentially, never in parallel.

* basic: ε = Σ ε_i and δ = Σ δ_i (valid for every mechanism).
* zCDP: a Gaussian release with std σ and L2 sensitivity Δ2 is ρ-zCDP with ρ = Δ2²/(2σ²) (Bun–Steinke 2016;
  σ/Δ2 depends only on (ε_i, δ_i) and the calibration method); a pure ε-DP release is ε²/2-zCDP. ρ adds up and
  is converted to (ε, δ_cap)-DP (Canonne–Kamath–Steinke 2020, dp.accounting.zcdp_to_dp). Basic composition is
  also a valid (Σ ε_i, Σ δ_i) statement when Σ δ_i ≤ δ_cap, so the stated total is the smaller of the two.

The total is the ledger's own count (dp.accounting.compose) of the plan's entries, each carrying `release_rho`, so
the plan states exactly what a release of it is charged and checked at.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Release, compose, gaussian_rho
from eyedp_core.dp.registry import GaussianMethod
from eyedp_core.plan.schema import Cap, HeatmapOutput, PlanOutput

__all__ = ["PlanTotal", "plan_total", "planned_release", "release_rho"]


@dataclass(frozen=True)
class PlanTotal:
    """The per-person total of a plan under the cap's accountant, with basic composition beside it."""

    accountant: Accountant
    epsilon: float
    delta: float
    basic_epsilon: float
    basic_delta: float
    rho: float | None  # zCDP only
    zcdp_epsilon: float | None = None  # zCDP's own count, before the smaller of it and basic is stated

    def within(self, cap: Cap) -> bool:
        """Whether this total respects the cap (ε and δ)."""
        # A relative 1e-12 absorbs the rounding of a sum of pins that add up to the cap exactly (3.3 + 3.3 + 3.4).
        return self.epsilon <= cap.epsilon * (1 + 1e-12) and self.delta <= cap.delta * (1 + 1e-12)

    def to_dict(self) -> dict[str, object]:
        """-> the manifest's `total_per_person`."""
        return {"epsilon": self.epsilon, "delta": self.delta, "accountant": self.accountant.value,
                "accountant_words": self.accountant.words,
                "basic_composition": {"epsilon": self.basic_epsilon, "delta": self.basic_delta},
                **({"rho": self.rho} if self.rho is not None else {}),
                **({"zcdp_epsilon": self.zcdp_epsilon} if self.zcdp_epsilon is not None else {})}


def release_rho(output: PlanOutput, epsilon: float) -> float:
    """Output and its ε in, the zCDP ρ of its release out (Gaussian: from the calibrated σ per unit Δ2)."""
    if epsilon <= 0:
        return 0.0
    if isinstance(output, HeatmapOutput) and output.gaussian:
        method = output.method if output.method in (GaussianMethod.ANALYTIC, GaussianMethod.CLASSICAL) \
            else GaussianMethod.ANALYTIC
        if method is GaussianMethod.CLASSICAL and epsilon >= 1:
            method = GaussianMethod.ANALYTIC  # the page's rule (heatmaps.preview.gaussian_method)
        return gaussian_rho(epsilon, output.delta, method)
    return epsilon * epsilon / 2.0


def planned_release(output: PlanOutput, epsilon: float) -> Release:
    """Output and its ε in, the one ledger entry that stands for its release in the plan's total (its ρ set)."""
    e = float(epsilon)
    return Release(view="plan", label=output.label, unit="participant", mechanism=output.kind.value,
                   sensitivity_type="public", epsilon=e, delta=output.release_delta if e > 0 else 0.0,
                   rho=release_rho(output, e))


def plan_total(outputs: Sequence[PlanOutput], epsilons: Sequence[float], cap: Cap) -> PlanTotal:
    """Outputs, their ε per person and the cap in, the total per person under the cap's accountant out."""
    t = compose([planned_release(o, e) for o, e in zip(outputs, epsilons)], cap.accountant, cap.delta)
    return PlanTotal(t.accountant, t.epsilon, t.delta, t.basic_epsilon, t.basic_delta,
                     None if t.accountant is Accountant.BASIC else (t.rho or 0.0), t.zcdp_epsilon)
