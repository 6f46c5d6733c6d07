"""Target finder for AOI releases: public planning from the calibration formula alone (no data is read).

Half-widths are those of `metrics`: a per-observer mean's 95 % half-width is b·ln 20 / n with b = Δ1/ε_q, and
ε_q = ε / (number of queries). Solving for ε or n gives the smallest ε (or fewest observers) for a target.
"""
from __future__ import annotations

import math

from eyedp_core.aoi.metrics import CONFIDENCE, AoiMetric, Query, metric_queries
from eyedp_core.aoi.observers import AoiBounds

__all__ = ["ERROR_BAND", "epsilon_for_half_width", "expected_absolute_error", "observers_for_half_width",
           "sensitivity_for"]

ERROR_BAND = (0.1, 0.9)  # the quantiles of a single draw's absolute error the page states

_QUERY = {AoiMetric.HIT_RATIO: Query.HITS, AoiMetric.FIXATIONS: Query.FIXATIONS, AoiMetric.DWELL: Query.DWELL,
          AoiMetric.REVISITS: Query.REVISITS}


def sensitivity_for(metric: AoiMetric, k: int, bounds: AoiBounds) -> float:
    """Metric with a per-observer mean, AOI count and bounds in, the L1 sensitivity of its sums out."""
    b = bounds
    per = {Query.HITS: 1.0, Query.FIXATIONS: float(b.max_fixations), Query.DWELL: float(b.max_dwell_s),
           Query.REVISITS: float(b.max_revisits)}
    total = {Query.FIXATIONS: b.max_total_fixations, Query.DWELL: b.max_total_dwell_s}
    q = _QUERY[AoiMetric(metric)]
    s = k * per[q]
    t = total.get(q)
    return s if t is None else min(s, 2.0 * float(t))


def _share(metric: AoiMetric, metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> float:
    chosen = tuple(metrics) if AoiMetric(metric) in tuple(metrics) else (*metrics, AoiMetric(metric))
    return 1.0 / len(metric_queries(chosen))


def epsilon_for_half_width(metric: AoiMetric, half_width: float, *, n: int, k: int, bounds: AoiBounds,
                           metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> float:
    """Target 95 % half-width (metric units), observers, AOIs, bounds and the metrics released together in,
    the smallest total ε per observer that reaches it out: ε = Δ1·ln 20 / (n·h·share)."""
    if not (half_width > 0 and n >= 1):
        raise ValueError("a target needs a half-width > 0 and at least one observer")
    z = math.log(1.0 / (1.0 - CONFIDENCE))
    return sensitivity_for(metric, k, bounds) * z / (n * half_width * _share(metric, metrics))


def observers_for_half_width(metric: AoiMetric, half_width: float, *, epsilon: float, k: int, bounds: AoiBounds,
                             metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> int:
    """Target 95 % half-width, total ε, AOIs, bounds and metrics released together in, the fewest observers
    that reach it out: n = ⌈Δ1·ln 20 / (ε·share·h)⌉."""
    if not (half_width > 0 and epsilon > 0):
        raise ValueError("a target needs a half-width > 0 and ε > 0")
    z = math.log(1.0 / (1.0 - CONFIDENCE))
    return math.ceil(sensitivity_for(metric, k, bounds) * z / (epsilon * _share(metric, metrics) * half_width))


def expected_absolute_error(metric: AoiMetric, *, epsilon: float, n: int, k: int, bounds: AoiBounds,
                            metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> tuple[float, float, float]:
    """Metric with a per-observer mean, total ε, observers, AOIs, bounds and the metrics released together in,
    (expected, 10 %, 90 %) of one AOI value's absolute error out, in the metric's units, before any clipping.

    The mean's noise is Lap(b)/n with b = Δ1/ε_q, and |Lap(b)| is exponential with mean b: E|error| = b/n, its
    quantile p is −ln(1 − p)·b/n (the 95 % half-width is ln 20·b/n, the same model)."""
    if not (epsilon > 0 and n >= 1):
        raise ValueError("an expected error needs ε > 0 and at least one observer")
    scale = sensitivity_for(metric, k, bounds) / (epsilon * _share(metric, metrics) * n)
    lo, hi = (-math.log(1.0 - p) * scale for p in ERROR_BAND)
    return scale, lo, hi
