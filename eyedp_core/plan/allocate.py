"""Split the per-person cap across a plan's outputs (docs/PRIVACY_MODEL.md §17).

Rule, for outputs i with priority w_i: pinned outputs keep their ε. Targets are then met in order of priority
(higher first, then the cheaper one) at the ε their model needs at today's n, as long as the plan's total under
the cap's accountant stays within the cap with a reserve for the outputs still without ε. Every unpinned output
then gets ε_i = base_i + t·w_i/Σw (base_i: the ε its met target needs, else 0) with the largest t the cap allows,
so the whole cap is spent and a met target stays met (utility grows with ε). Each output's expected utility,
the ε its target needs at today's n, and the people it needs at its allotted ε come from `plan.models`.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from eyedp_core.dp.accountants import Accountant
from eyedp_core.plan.accounting import PlanTotal, plan_total
from eyedp_core.plan.models import PlanInputs, Utility, epsilon_needed, people_needed, utility_at
from eyedp_core.plan.schema import Cap, HeatmapOutput, OutputKind, PlanOutput, StudyPlan, TargetMeasure

__all__ = ["Allocation", "OutputAllocation", "allocate"]

_RESERVE = 0.02  # share of the cap kept for the outputs without a met target while targets are being met
_ITER = 48


@dataclass(frozen=True)
class OutputAllocation:
    """One output's share: ε (and δ), expected utility with its band, and what would meet its target."""

    output: PlanOutput
    epsilon: float
    delta: float
    pinned: bool
    utility: Utility | None  # None: no model or no data for it
    target_met: bool | None  # None: no target, or no model to judge it
    epsilon_needed: float | None  # at today's n (None: not reachable, or no target / model)
    people_needed: int | None  # at the allotted ε (None: not reachable, met, or no target / model)
    n: int | None  # today's people of this output

    @property
    def label(self) -> str:
        """The output's label."""
        return self.output.label

    def what_would_meet(self) -> str:
        """-> plain words: what meets this output's target (empty when met or without target)."""
        if self.output.target is None or self.target_met is None:
            return "" if self.output.target is None else "no data to judge the target"
        if self.target_met:
            return ""
        who = self.output.unit_words() if not isinstance(self.output, HeatmapOutput) else "observers"
        parts = []
        if self.epsilon_needed is not None:
            parts.append(f"ε = {self.epsilon_needed:.3g} at today's {self.n} {who}")
        elif self.n is not None:
            parts.append(f"no ε ≤ 1000 at today's {self.n} {who}")
        if self.people_needed is not None:
            parts.append(f"{self.people_needed} {who} at its ε = {self.epsilon:.3g}")
        return " or ".join(parts)

    def to_dict(self) -> dict[str, object]:
        """-> a JSON-ready row (the table and the manifest)."""
        u = self.utility
        return {"output": self.label, "kind": self.output.kind.value, "epsilon": self.epsilon, "delta": self.delta,
                "pinned": self.pinned, "measure": None if u is None else u.measure.value,
                "expected": None if u is None else u.value, "band_10_90": None if u is None or u.band is None
                else list(u.band), "model": None if u is None else u.how,
                "target": None if self.output.target is None else self.output.target.to_dict(),
                "target_met": self.target_met, "epsilon_needed": self.epsilon_needed,
                "people_needed": self.people_needed, "n": self.n}


@dataclass(frozen=True)
class Allocation:
    """The plan's split of the cap: one row per output, the total under the accountant and the honest sentence."""

    plan: StudyPlan
    cap: Cap
    outputs: tuple[OutputAllocation, ...]
    total: PlanTotal
    sentence: str

    @property
    def within_cap(self) -> bool:
        """Whether the total respects the cap (a release refuses otherwise)."""
        return self.total.within(self.cap) and all(o.epsilon > 0 for o in self.outputs)

    @property
    def all_targets_met(self) -> bool:
        """Whether every output with a target meets it at expectation (a target without data to judge it is not)."""
        return all(o.target_met for o in self.outputs if o.output.target is not None)

    @property
    def remaining_epsilon(self) -> float:
        """The cap left unspent (basic: cap − Σ ε; 0 when all of it is allotted)."""
        return max(0.0, self.cap.epsilon - self.total.epsilon)

    def row(self, label: str) -> OutputAllocation:
        """-> the allocation of the output with this label (KeyError naming the labels when there is none)."""
        for o in self.outputs:
            if o.label == label:
                return o
        raise KeyError(f"no output {label!r} in the plan; its outputs are {', '.join(o.label for o in self.outputs)}")

    def of_kind(self, kind: OutputKind) -> tuple[OutputAllocation, ...]:
        """-> the allocations of every output of one kind."""
        return tuple(o for o in self.outputs if o.output.kind is kind)

    def affordable(self, label: str) -> str:
        """-> what a finder says about one output: its ε, how many outputs of its kind share the cap, the total per
        person against the cap, and the expected utility it affords."""
        r = self.row(label)
        same = self.of_kind(r.output.kind)
        unit = "observer" if r.output.unit_words() == "observers" else "participant"
        head = (f"With {len(same)} {r.output.kind.value.replace('_', ' ')} output{'s' if len(same) > 1 else ''} "
                f"and {len(self.outputs)} output{'s' if len(self.outputs) > 1 else ''} in all under the cap "
                f"ε = {self.cap.epsilon:g} per {unit} (total {self.total.epsilon:.3g}, "
                f"{self.total.accountant.value} accounting), {r.label} can afford ε = {r.epsilon:.3g}")
        u = r.utility
        if u is None:
            return head + "."
        if not u.measure.higher_is_better:  # a half-width: its band is that of the absolute error
            what = _HALF_WIDTH_UNITS[u.measure]
            return (head + f", which gives a 95 % half-width of ± {u.value:.3g} {what} (absolute error 10–90 %: "
                    f"{u.band[0]:.3g}–{u.band[1]:.3g}).")
        band = "" if u.band is None else f" (10–90 %: {_fmt(u.measure, u.band[0])}–{_fmt(u.measure, u.band[1])})"
        return head + f", which gives {u.measure.words} {_fmt(u.measure, u.value)} at expectation{band}."

    def table(self) -> list[dict[str, object]]:
        """-> one row per output: output · ε · expected utility with band · target met? · what would meet it."""
        rows = []
        for o in self.outputs:
            d = o.to_dict()
            d["what_would_meet"] = o.what_would_meet()
            rows.append(d)
        return rows


_HALF_WIDTH_UNITS = {TargetMeasure.DWELL_S: "s of dwell", TargetMeasure.HIT_RATIO_POINTS: "points of hit ratio",
                     TargetMeasure.FIXATIONS: "fixations", TargetMeasure.REVISITS: "revisits"}


def _fmt(m: TargetMeasure, v: float) -> str:
    return f"{100 * v:.0f} %" if m is TargetMeasure.HOT_SPOTS_KEPT else f"{v:.3g}"


def _epsilons(outputs: Sequence[PlanOutput], base: dict[int, float], t: float, weights: float) -> list[float]:
    return [float(o.epsilon) if o.epsilon is not None else base.get(i, 0.0) + t * o.priority / weights
            for i, o in enumerate(outputs)]


def _largest_t(outputs: Sequence[PlanOutput], base: dict[int, float], cap: Cap, weights: float) -> float:
    """-> the largest t >= 0 whose ε keep the total within the cap (0 when even t = 0 does not)."""
    def ok(t: float) -> bool:
        tot = plan_total(outputs, _epsilons(outputs, base, t, weights), cap)
        return tot.epsilon <= cap.epsilon and tot.delta <= cap.delta * (1 + 1e-12)

    if not ok(0.0):
        return 0.0
    lo, hi = 0.0, cap.epsilon
    while ok(hi):
        lo, hi = hi, 2 * hi
        if hi > 1e9:
            return lo
    for _ in range(_ITER):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        if hi - lo <= 1e-7 * max(1.0, hi):
            break
    return lo


def _without_met(plan: StudyPlan, cap: Cap, rows: Sequence[OutputAllocation], inputs: PlanInputs) -> str:
    """-> advice when the met outputs are dropped: their ε goes to the others (empty when it does not help)."""
    met = [r for r in rows if r.target_met]
    rest = tuple(r.output for r in rows if not r.target_met)
    if not met or not rest:
        return ""
    alt = allocate(replace(plan, outputs=rest), cap, inputs)
    if not alt.within_cap:
        return ""
    dropped = ", ".join(r.label for r in met)
    if alt.all_targets_met:
        return f"drop {dropped} (the others then meet their targets)"
    need = [r.people_needed for r in alt.outputs if r.target_met is False]
    if need and all(n is not None for n in need):
        who = " / ".join(sorted({r.output.unit_words() for r in alt.outputs if r.target_met is False}))
        return f"drop {dropped} and recruit about {max(need)} {who}"
    return ""


def _sentence(plan: StudyPlan, cap: Cap, rows: Sequence[OutputAllocation], total: PlanTotal,
              inputs: PlanInputs) -> str:
    pinned = sum(r.epsilon for r in rows if r.pinned)
    deltas = sum(r.output.release_delta for r in rows)
    if total.accountant is Accountant.BASIC and deltas > cap.delta * (1 + 1e-12):
        return (f"The plan does not fit its cap δ = {cap.delta:g}: its outputs' δ add up to {deltas:.3g} under basic "
                "composition. Lower the outputs' δ, raise the cap's δ, or use the zCDP accountant.")
    if not total.within(cap) or any(r.epsilon <= 0 for r in rows):
        left = [r.label for r in rows if r.epsilon <= 0]
        return (f"The plan does not fit its cap ε = {cap.epsilon:g}: the pinned outputs alone spend ε = {pinned:.3g}"
                f" per person ({total.accountant.value} accounting)"
                + (f", leaving nothing for {', '.join(left)}" if left else "")
                + ". Unpin or lower a pinned ε, or drop an output.")
    unmet = [r for r in rows if r.target_met is False]
    unjudged = [r.label for r in rows if r.output.target is not None and r.target_met is None]
    with_target = [r for r in rows if r.target_met is not None]
    blind = (f" The targets of {', '.join(unjudged)} are not judged: their model has no data here."
             if unjudged else "")
    if not unmet:
        if not with_target:
            return f"The cap ε = {cap.epsilon:g} per person is split over {len(rows)} outputs by priority." + blind
        return (f"Every target is met at expectation under the cap ε = {cap.epsilon:g} per person "
                f"({total.accountant.value} accounting, total ε = {total.epsilon:.3g})." + blind)
    met = [r for r in with_target if r.target_met]
    head = (f"No allocation under the cap ε = {cap.epsilon:g} per person meets every target: "
            f"{len(met)} of {len(with_target)} targets are met. ")
    parts = []
    for r in unmet:
        u = r.utility
        got = "" if u is None else f" (expected {_fmt(u.measure, u.value)} against the target " \
                                   f"{_fmt(u.measure, r.output.target.value)})"
        parts.append(f"{r.label} at ε = {r.epsilon:.3g}{got} needs {r.what_would_meet() or 'more than a plan offers'}")
    recruit = [r.people_needed for r in unmet if r.people_needed is not None]
    advice = []
    if len(recruit) == len(unmet) and recruit:
        who = {r.output.unit_words() for r in unmet}
        advice.append(f"recruit about {max(recruit)} {' / '.join(sorted(who))}")
    if met:
        alt = _without_met(plan, cap, rows, inputs)
        if alt:
            advice.append(alt)
        advice.append(f"release only {', '.join(r.label for r in met)} (drop {', '.join(r.label for r in unmet)})")
    elif len(unmet) > 1:
        cheapest = min((r for r in unmet if r.epsilon_needed is not None), key=lambda r: r.epsilon_needed,
                       default=None)
        if cheapest is not None and cheapest.epsilon_needed <= cap.epsilon:
            advice.append(f"release only {cheapest.label}")
    tail = ("To meet them: " + ", or ".join(advice) + ".") if advice else ""
    return (head + "; ".join(parts) + ". " + tail + blind).strip()


def allocate(plan: StudyPlan, cap: Cap | float | None = None, inputs: PlanInputs | None = None) -> Allocation:
    """Plan, the per-person cap (a Cap, an ε under the plan's accountant and δ, or None: the plan's own) and the
    inputs the models read in, the Allocation out. Heatmap outputs on stimulus '*' are expanded to the inputs'
    stimuli first."""
    cap = plan.cap if cap is None else cap if isinstance(cap, Cap) else Cap(float(cap), plan.cap.delta,
                                                                              plan.cap.accountant)
    inputs = inputs or PlanInputs()
    if inputs.stimuli:
        plan = plan.expanded(inputs.stimuli)
    outs = plan.outputs
    free = [i for i, o in enumerate(outs) if o.epsilon is None]
    weights = sum(outs[i].priority for i in free) or 1.0
    needed = {i: epsilon_needed(outs[i], inputs) for i in free if outs[i].target is not None}
    order = sorted((i for i in needed if needed[i] is not None), key=lambda i: (-outs[i].priority, needed[i], i))
    base: dict[int, float] = {}
    for i in order:
        trial = {**base, i: needed[i]}
        reserve = _RESERVE * cap.epsilon if any(j not in trial for j in free) else 0.0
        if plan_total(outs, _epsilons(outs, trial, reserve, weights), cap).within(cap):
            base = trial
    t = _largest_t(outs, base, cap, weights) if free else 0.0
    eps = _epsilons(outs, base, t, weights)
    rows = []
    for i, (o, e) in enumerate(zip(outs, eps)):
        u = utility_at(o, e, inputs) if e > 0 else None
        met = None if o.target is None or (u is None and e > 0) else (u is not None and o.target.met_by(u.value))
        need = needed.get(i) if o.epsilon is None else epsilon_needed(o, inputs)
        people = people_needed(o, e, inputs) if met is False and e > 0 else None
        rows.append(OutputAllocation(o, e, o.release_delta if e > 0 else 0.0, o.epsilon is not None, u, met, need,
                                     people, inputs.n_for(o)))
    total = plan_total(outs, eps, cap)
    return Allocation(plan, cap, tuple(rows), total, _sentence(plan, cap, rows, total, inputs))
