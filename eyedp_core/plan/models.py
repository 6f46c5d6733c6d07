"""Expected utility of each plan output at an ε, and what would meet its target: the finders' own models.

* heatmaps: `heatmaps.targets` (seeded noise draws on the clean capped basis map, mean with its 10–90 % band;
  the ε needed at today's n from `epsilon_for_target`, the observers needed at an ε from `observers_for_target`,
  the planning model of N observers with maps like the basis map). The basis map is read off the private data:
  tuning that is not itself private, as on the Heatmaps page.
* AOI metrics: `aoi.planning` (the calibration formula alone: the 95 % half-width Δ1·ln 20 / (n·ε_q); only the
  public n, AOI count and bounds are read). Its band is the 10–90 % of the absolute error |Lap(b)|/n.
* series forms: `timeseries.forms` (analytic: NMSE_f = 2·b_f²/V_f with V_f the person spread, read off the
  private data; no band: the expected NMSE is exact, the dB is of that expectation).
* gaze-sample exports: no model; their ε is pinned or shared by priority.

Every heatmap answer is refined on the same seeded draws it is judged on (a grid crossing interpolated between
grid points is stepped up until the mean meets the target), so "met" means met by the stated expectation.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from eyedp_core.aoi.planning import epsilon_for_half_width, observers_for_half_width
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.heatmaps.targets import (
    BAND,
    Basis,
    DrawSpec,
    Measure,
    epsilon_for_target,
    observers_for_target,
    utility_at_stds,
)
from eyedp_core.plan.schema import (
    AOI_TARGET_METRIC,
    AoiOutput,
    HeatmapOutput,
    PlanOutput,
    SeriesFormOutput,
    TargetMeasure,
)
from eyedp_core.timeseries.forms import FormSetting, calibrate, crossing_epsilon, crossing_people, expected_db

__all__ = ["EPSILON_LIMIT", "HeatmapBasis", "PlanInputs", "SeriesBasis", "Utility", "epsilon_needed",
           "measure_of", "people_needed", "utility_at"]

EPSILON_LIMIT = 1000.0  # the finders' grids end here: a target not reached below is "not reachable at this n"
PEOPLE_LIMIT = 1_000_000
_REFINE = 1.02  # step of the refinement on the judged draws
_HEATMAP_MEASURE = {TargetMeasure.HOT_SPOTS_KEPT: Measure.HOT_SPOTS, TargetMeasure.CC: Measure.CC}
_Z95 = math.log(20.0)


@dataclass(frozen=True, eq=False)
class HeatmapBasis:
    """The basis map of one heatmap output: its clean capped mean map on the output's grid, n and its source."""

    aggregate: np.ndarray  # private unless basis is PILOT: read off the data, never released as is
    n: int  # observers (public under replace-one)
    basis: Basis = Basis.PRIVATE


@dataclass(frozen=True, eq=False)
class SeriesBasis:
    """What a series form's model needs: V_f per feature (private), the public bounds and participants per group."""

    spread: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    group_sizes: tuple[int, ...] = ()


@dataclass(frozen=True, eq=False)
class PlanInputs:
    """The data the models read, keyed by output label: heatmap basis maps, observers per stimulus (public),
    series spreads. An output without its input is still allocated ε, but its utility is unknown."""

    heatmaps: Mapping[str, HeatmapBasis] = field(default_factory=dict)
    observers: Mapping[str | None, int] = field(default_factory=dict)  # n per stimulus (None: the whole table)
    series: Mapping[str, SeriesBasis] = field(default_factory=dict)
    stimuli: tuple[str, ...] = ()
    R: int = 200  # noise draws per heatmap answer
    seed: int = 20240611  # fixed: the same plan and data give the same answers

    def n_for(self, output: PlanOutput) -> int | None:
        """-> today's number of people of this output (None when unknown)."""
        if isinstance(output, HeatmapOutput):
            b = self.heatmaps.get(output.label)
            return None if b is None else b.n
        if isinstance(output, AoiOutput):
            return self.observers.get(output.stimulus, self.observers.get(None))
        if isinstance(output, SeriesFormOutput):
            b = self.series.get(output.label)
            return None if b is None or not b.group_sizes else int(min(b.group_sizes))
        return None


@dataclass(frozen=True)
class Utility:
    """Expected utility of one output at one ε: the measure's value and its 10–90 % band (None: exact)."""

    measure: TargetMeasure
    value: float
    band: tuple[float, float] | None
    how: str  # the model, in words


def measure_of(output: PlanOutput) -> TargetMeasure | None:
    """-> the measure this output's utility is stated in (its target's, else its kind's first), None if none."""
    if output.target is not None:
        return output.target.measure
    if isinstance(output, HeatmapOutput):
        return TargetMeasure.HOT_SPOTS_KEPT
    if isinstance(output, AoiOutput):
        for m, metric in AOI_TARGET_METRIC.items():
            if metric in output.metrics:
                return m
        return None
    if isinstance(output, SeriesFormOutput):
        return TargetMeasure.DB
    return None


# --------------------------------------------------------------------------------------------
# heatmaps


def _setting(o: HeatmapOutput, epsilon: float) -> HeatmapSetting:
    return HeatmapSetting(epsilon, o.delta, o.mechanism, o.method, o.cap_m, o.cap_total, o.cell_px, o.sigma_px)


def _heatmap_draws(o: HeatmapOutput, b: HeatmapBasis, m: TargetMeasure, std: float, inputs: PlanInputs) -> np.ndarray:
    d = utility_at_stds(b.aggregate, [std], np.random.default_rng(inputs.seed), _setting(o, 1.0),
                        DrawSpec(R=inputs.R, q=o.q), measures=(_HEATMAP_MEASURE[m],))
    return d.values(_HEATMAP_MEASURE[m])[0]


def _heatmap_utility(o: HeatmapOutput, b: HeatmapBasis, m: TargetMeasure, std: float, inputs: PlanInputs,
                     n: int) -> Utility:
    v = _heatmap_draws(o, b, m, std, inputs)
    lo, hi = (float(x) for x in np.nanquantile(v, BAND))
    return Utility(m, float(np.nanmean(v)), (lo, hi), f"mean of {inputs.R} seeded noise draws on the basis map "
                   f"({n} observers; {b.basis.words})")


# --------------------------------------------------------------------------------------------
# AOI metrics


def _aoi_unit(o: AoiOutput, m: TargetMeasure, n: int) -> float:
    """-> c with 95 % half-width = c/ε in the target's units (hit ratio in percentage points)."""
    c = epsilon_for_half_width(AOI_TARGET_METRIC[m], 1.0, n=n, k=o.k, bounds=o.bounds, metrics=o.metrics)
    return 100.0 * c if m is TargetMeasure.HIT_RATIO_POINTS else c


# --------------------------------------------------------------------------------------------
# the three questions


def utility_at(output: PlanOutput, epsilon: float, inputs: PlanInputs) -> Utility | None:
    """Output, its ε per person and the inputs in, its expected utility out (None: no model or no input)."""
    m = measure_of(output)
    if m is None or not epsilon > 0:
        return None
    n = inputs.n_for(output)
    if isinstance(output, HeatmapOutput):
        b = inputs.heatmaps.get(output.label)
        if b is None:
            return None
        std = _setting(output, epsilon).std(b.n, b.aggregate.size)
        return _heatmap_utility(output, b, m, std, inputs, b.n)
    if isinstance(output, AoiOutput) and n is not None:
        hw = _aoi_unit(output, m, n) / epsilon
        return Utility(m, hw, (hw * math.log(1 / 0.9) / _Z95, hw * math.log(10.0) / _Z95),
                       f"calibration formula: 95 % half-width Δ1·ln 20/(n·ε_q) with n = {n} (public); band: "
                       "10–90 % of the absolute error")
    if isinstance(output, SeriesFormOutput):
        s = inputs.series.get(output.label)
        if s is None:
            return None
        cal = calibrate(_form(output, epsilon), s.lo, s.hi, s.group_sizes)
        return Utility(m, float(expected_db(cal, s.spread)), None,
                       "analytic: NMSE_f = 2·b_f²/V_f (V_f read off the private data), exact expectation")
    return None


def _form(o: SeriesFormOutput, epsilon: float) -> FormSetting:
    return FormSetting(o.form, epsilon, o.blocks, o.recordings_per_person, o.by_task)


def epsilon_needed(output: PlanOutput, inputs: PlanInputs) -> float | None:
    """Output with a target and the inputs in, the smallest ε per person meeting it at today's n out (None: no
    target, no input, or not reachable at ε ≤ EPSILON_LIMIT)."""
    t = output.target
    if t is None:
        return None
    if isinstance(output, HeatmapOutput):
        b = inputs.heatmaps.get(output.label)
        if b is None:
            return None
        ans = epsilon_for_target(b.aggregate, b.n, _setting(output, 1.0), _HEATMAP_MEASURE[t.measure], t.value,
                                 np.random.default_rng(inputs.seed), basis=b.basis,
                                 draws=DrawSpec(R=inputs.R, q=output.q))
        if ans.value is None:
            return None
        return _refine(ans.value, lambda e: utility_at(output, e, inputs), t.met_by, EPSILON_LIMIT)
    n = inputs.n_for(output)
    if isinstance(output, AoiOutput) and n is not None:
        eps = _aoi_unit(output, t.measure, n) / t.value
        return eps if eps <= EPSILON_LIMIT else None
    if isinstance(output, SeriesFormOutput):
        s = inputs.series.get(output.label)
        if s is None:
            return None
        eps = crossing_epsilon(calibrate(_form(output, 1.0), s.lo, s.hi, s.group_sizes), s.spread, t.value)
        return eps if math.isfinite(eps) and eps <= EPSILON_LIMIT else None
    return None


def people_needed(output: PlanOutput, epsilon: float, inputs: PlanInputs) -> int | None:
    """Output with a target, its ε and the inputs in, the observers (heatmaps, AOI) or participants per group
    (series group means) that meet the target at that ε out (None: no target or input, or not reachable)."""
    t = output.target
    if t is None or not epsilon > 0:
        return None
    if isinstance(output, HeatmapOutput):
        b = inputs.heatmaps.get(output.label)
        if b is None:
            return None
        ans = observers_for_target(b.aggregate, _setting(output, epsilon), _HEATMAP_MEASURE[t.measure], t.value,
                                   np.random.default_rng(inputs.seed), basis=Basis.PLANNING,
                                   draws=DrawSpec(R=inputs.R, q=output.q))
        if ans.value is None:
            return None

        def at(n: float) -> Utility:
            std = _setting(output, epsilon).std(int(math.ceil(n)), b.aggregate.size)
            return _heatmap_utility(output, b, t.measure, std, inputs, int(math.ceil(n)))

        found = _refine(ans.value, at, t.met_by, PEOPLE_LIMIT)
        return None if found is None else int(math.ceil(found))
    if isinstance(output, AoiOutput):
        metric = AOI_TARGET_METRIC[t.measure]
        h = t.value / 100.0 if t.measure is TargetMeasure.HIT_RATIO_POINTS else t.value
        n = observers_for_half_width(metric, h, epsilon=epsilon, k=output.k, bounds=output.bounds,
                                     metrics=output.metrics)
        return n if n <= PEOPLE_LIMIT else None
    if isinstance(output, SeriesFormOutput):
        s = inputs.series.get(output.label)
        if s is None:
            return None
        n = crossing_people(calibrate(_form(output, epsilon), s.lo, s.hi, s.group_sizes), s.spread, t.value)
        return int(math.ceil(n)) if math.isfinite(n) and n <= PEOPLE_LIMIT else None
    return None


def _refine(start: float, utility, met, limit: float) -> float | None:
    """A grid answer in, the first value from it (steps of 2 %) whose stated expectation meets the target."""
    x = float(start)
    for _ in range(200):
        u = utility(x)
        if u is not None and met(u.value):
            return x
        x *= _REFINE
        if x > limit:
            return None
    return None
