"""AOI metrics, clean and private (docs/PRIVACY_MODEL.md §15).

Every private metric is built from noisy SUMS over observers of clipped per-observer contributions (one
`Query` each, a vector over the AOIs), released with the Laplace mechanism at b = Δ1/ε_q. Under the
replace-one-observer relation n is public, so a per-observer mean is a noisy sum / n; the mean time to first
fixation is a ratio of two noisy sums (TTFF sum over lookers / looker count). The budget ε is split equally
over the queries the chosen metrics need and composes sequentially to ε per observer.
Preview noise comes from the numpy Generator passed in; a release passes a `ReleaseSource` (OpenDP, values
rounded to the lattice first, scale inflated as in §11.2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np

from eyedp_core.aoi.intervals import ratio_interval
from eyedp_core.aoi.observers import ObserverTable
from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.noise import LaplaceMechanism
from eyedp_core.dp.release_source import ReleaseSource

__all__ = ["CONFIDENCE", "NO_DURATIONS", "NO_TIMES", "AoiMetric", "MetricResult", "Query", "QueryNoise",
           "check_supported", "clean_metrics", "laplace_half_width", "linearised_half_width", "metric_queries",
           "private_metrics", "query_epsilons", "query_sensitivity", "unsupported_metrics"]

CONFIDENCE = 0.95


class AoiMetric(str, Enum):
    """A metric per AOI the view reports."""

    HIT_RATIO = "hit ratio"
    FIXATIONS = "fixation count"
    DWELL = "dwell time"
    TTFF = "time to first fixation"
    REVISITS = "revisits"
    TRANSITIONS = "transitions"

    @property
    def unit(self) -> str:
        """The unit values of this metric are given in."""
        return _UNITS[self]


_UNITS = {AoiMetric.HIT_RATIO: "share of observers", AoiMetric.FIXATIONS: "fixations per observer",
          AoiMetric.DWELL: "s per observer", AoiMetric.TTFF: "s (observers who looked)",
          AoiMetric.REVISITS: "revisits per observer", AoiMetric.TRANSITIONS: "transitions per observer"}


class Query(str, Enum):
    """A noisy sum over observers: one vector released with one Laplace invocation."""

    HITS = "observers who looked"
    FIXATIONS = "fixation count sum"
    DWELL = "dwell time sum"
    TTFF = "time to first fixation sum"
    REVISITS = "revisit sum"
    TRANSITIONS = "transition counts"


_NEEDS = {AoiMetric.HIT_RATIO: (Query.HITS,), AoiMetric.FIXATIONS: (Query.FIXATIONS,),
          AoiMetric.DWELL: (Query.DWELL,), AoiMetric.TTFF: (Query.HITS, Query.TTFF),
          AoiMetric.REVISITS: (Query.REVISITS,), AoiMetric.TRANSITIONS: (Query.TRANSITIONS,)}


# Why a metric is not offered on a table whose columns cannot give it (words for the page).
NO_DURATIONS = ("dwell time is the sum of fixation durations, and this fixation table has no durations: it would be "
                "0 for every AOI and still cost ε")
NO_TIMES = ("time to first fixation needs fixation start times, or durations to place the fixations one after the "
            "other, and this fixation table has neither: it would be 0 for every AOI and still cost ε")


def unsupported_metrics(has_durations: bool, has_starts: bool) -> dict[AoiMetric, str]:
    """What a fixation table holds (durations, start times) in, the metrics it cannot give out, each with why."""
    out: dict[AoiMetric, str] = {}
    if not has_durations:
        out[AoiMetric.DWELL] = NO_DURATIONS
        if not has_starts:
            out[AoiMetric.TTFF] = NO_TIMES
    return out


def check_supported(table: ObserverTable, metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> None:
    """Refuse (ValueError) metrics the table's columns cannot give: nothing is computed or charged for them."""
    bad = unsupported_metrics(table.has_durations, table.has_starts)
    for m in metrics:
        if AoiMetric(m) in bad:
            raise ValueError(f"{AoiMetric(m).value} cannot be released: {bad[AoiMetric(m)]}")


def metric_queries(metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> tuple[Query, ...]:
    """Chosen metrics in, the distinct queries they need out, in Query order (TTFF reuses the looker counts)."""
    need = {q for m in metrics for q in _NEEDS[AoiMetric(m)]}
    return tuple(q for q in Query if q in need)


def query_epsilons(metrics: tuple[AoiMetric, ...] | list[AoiMetric], epsilon: float) -> dict[Query, float]:
    """Chosen metrics and total ε per observer in, ε of each query out: an equal split (they add up to ε)."""
    qs = metric_queries(metrics)
    if not qs:
        return {}
    return {q: float(epsilon) / len(qs) for q in qs}


def query_sensitivity(query: Query, table: ObserverTable) -> float:
    """Query and observer table (for K and the bounds) in, the L1 sensitivity of its vector out: replacing one
    observer changes each of the K AOI sums by at most that observer's clip, and all K at once."""
    b, k = table.bounds, table.k
    return {Query.HITS: float(k), Query.FIXATIONS: _capped(k * float(b.max_fixations), b.max_total_fixations),
            Query.DWELL: _capped(k * float(b.max_dwell_s), b.max_total_dwell_s),
            Query.TTFF: k * float(b.max_ttff_s), Query.REVISITS: k * float(b.max_revisits),
            # Non-negative counts with at most T per observer: two observers' matrices differ by at most 2T in L1.
            Query.TRANSITIONS: 2.0 * float(b.max_transitions)}[query]


def _capped(per_aoi_total: float, total: float | None) -> float:
    """K·cap and the optional total cap C in, min(K·cap, 2·C) out (two non-negative rows of L1 norm <= C)."""
    return per_aoi_total if total is None else min(per_aoi_total, 2.0 * float(total))


def _sums(query: Query, table: ObserverTable) -> np.ndarray:
    """Query and table in, the clean sum over observers out (K values; transitions flattened)."""
    arr = {Query.HITS: table.hit, Query.FIXATIONS: table.fixations, Query.DWELL: table.dwell_s,
           Query.TTFF: table.ttff_s, Query.REVISITS: table.revisits, Query.TRANSITIONS: table.transitions}[query]
    return arr.sum(axis=0).ravel()


def laplace_half_width(scale: float, confidence: float = CONFIDENCE) -> float:
    """Laplace scale b in, the exact half-width t of P(|Lap(b)| <= t) = confidence out: b·ln(1/(1 − confidence))."""
    return float(scale) * math.log(1.0 / (1.0 - confidence))


def _tail_two_laplace(t: float, a: float, c: float) -> float:
    """P(|a·L1 + c·L2| > t) for independent Lap(1) L1, L2 and a, c >= 0."""
    a, c = max(a, c), min(a, c)
    if c <= 1e-12 * a:
        return math.exp(-t / a)
    if abs(a - c) <= 1e-9 * a:
        return math.exp(-t / a) * (1.0 + t / (2.0 * a))
    return (a * a * math.exp(-t / a) - c * c * math.exp(-t / c)) / (a * a - c * c)


def linearised_half_width(a: float, c: float, confidence: float = CONFIDENCE) -> float:
    """Scales a, c >= 0 in, the exact half-width t with P(|a·L1 + c·L2| <= t) = confidence out (bisection)."""
    if a <= 0 and c <= 0:
        return 0.0
    alpha = 1.0 - confidence
    lo, hi = 0.0, (a + c) * math.log(2.0 / alpha) * 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _tail_two_laplace(mid, a, c) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


@dataclass(frozen=True)
class QueryNoise:
    """One query as released: ε, the L1 sensitivity, the calibration and the scale actually drawn (the
    lattice-inflated one in a release), the lattice exponent (None in a preview) and the noisy sums."""

    query: Query
    epsilon: float
    sensitivity: float
    calibration: Calibration
    scale: float
    lattice_k: int | None
    noisy: np.ndarray


@dataclass(frozen=True)
class MetricResult:
    """One metric per AOI: clean value, private value and its 95 % interval (same units): private ± half_width, or
    [low, high] where the value and interval were clipped to the metric's public range (hit ratio: [0, 1],
    half_width the unclipped one) or are not symmetric (mean time to first fixation in [0, t]: half_width is half
    the interval's length). NaN in low and high: no interval."""

    metric: AoiMetric
    names: tuple[str, ...]
    clean: np.ndarray
    private: np.ndarray
    half_width: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    @property
    def lower(self) -> np.ndarray:
        """The interval's lower ends."""
        return np.asarray(self.private) - np.asarray(self.half_width) if self.low is None else self.low

    @property
    def upper(self) -> np.ndarray:
        """The interval's upper ends."""
        return np.asarray(self.private) + np.asarray(self.half_width) if self.high is None else self.high


def clean_metrics(table: ObserverTable, metrics: tuple[AoiMetric, ...] | list[AoiMetric]) -> dict[AoiMetric, np.ndarray]:
    """Observer table and metrics in, the clean (clipped) value of each metric per AOI out (transitions: a
    (K+1) x (K+1) matrix per observer)."""
    n = max(table.n, 1)
    out: dict[AoiMetric, np.ndarray] = {}
    hits = _sums(Query.HITS, table)
    for m in metrics:
        m = AoiMetric(m)
        if m is AoiMetric.TTFF:
            with np.errstate(invalid="ignore", divide="ignore"):
                out[m] = np.where(hits > 0, _sums(Query.TTFF, table) / np.maximum(hits, 1), np.nan)
        elif m is AoiMetric.TRANSITIONS:
            out[m] = _sums(Query.TRANSITIONS, table).reshape(table.k + 1, table.k + 1) / n
        else:
            out[m] = _sums(_NEEDS[m][0], table) / n
    return out


def _noisy(query: Query, table: ObserverTable, epsilon: float, rng: np.random.Generator | ReleaseSource) -> QueryNoise:
    """Query, table, ε and a noise source in, the query's noisy sums with their calibration out."""
    sens = query_sensitivity(query, table)
    mech = LaplaceMechanism(epsilon=epsilon, sensitivity=sens)
    values = _sums(query, table)
    if isinstance(rng, ReleaseSource):
        lat = mech.release_lattice(values.size)
        noisy = rng.perturb(mech.family, values, lat.scale, lat.k)
        return QueryNoise(query, epsilon, sens, mech.calibration, lat.scale, lat.k, noisy)
    return QueryNoise(query, epsilon, sens, mech.calibration, mech.scale, None, mech.randomise(values, rng))


def _ttff(table: ObserverTable, s: QueryNoise, h: QueryNoise, clean: np.ndarray) -> MetricResult:
    """The noisy TTFF and looker sums in, the mean TTFF per AOI out: S̃/H̃ clipped to the public range [0, t]
    (post-processing; none below one noisy looker) with the exact 95 % interval of `intervals.ratio_interval`."""
    t = float(table.bounds.max_ttff_s)
    looked = h.noisy >= 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(looked, np.clip(s.noisy / np.where(looked, h.noisy, 1.0), 0.0, t), np.nan)
    low, high = ratio_interval(s.noisy, h.noisy, s.scale, h.scale, t, CONFIDENCE)
    return MetricResult(AoiMetric.TTFF, table.aoi_names, clean, ratio, (high - low) / 2.0, low, high)


def private_metrics(table: ObserverTable, metrics: tuple[AoiMetric, ...] | list[AoiMetric], epsilon: float,
                    rng: np.random.Generator | ReleaseSource) -> tuple[dict[AoiMetric, MetricResult], dict[Query, QueryNoise]]:
    """Observer table, chosen metrics, total ε per observer and a noise source (Generator: preview;
    ReleaseSource: release) in, each metric clean and private with 95 % half-widths, and the noisy queries out.

    Intervals: a sum / n has the exact Laplace half-width b·ln 20 / n. The TTFF mean S/H has the exact 95 %
    interval of the ratio of the two noisy sums (Fieller's construction with the Laplace law, inside the public
    range [0, t]: `intervals.ratio_interval`)."""
    metrics = tuple(AoiMetric(m) for m in metrics)
    check_supported(table, metrics)
    eps = query_epsilons(metrics, epsilon)
    noise = {q: _noisy(q, table, e, rng) for q, e in eps.items()}
    clean = clean_metrics(table, metrics)
    n = max(table.n, 1)
    names = table.aoi_names
    out: dict[AoiMetric, MetricResult] = {}
    for m in metrics:
        if m is AoiMetric.TTFF:
            out[m] = _ttff(table, noise[Query.TTFF], noise[Query.HITS], clean[m])
            continue
        q = noise[_NEEDS[m][0]]
        private = q.noisy / n
        hw = np.full(private.shape, laplace_half_width(q.scale) / n)
        if m is AoiMetric.HIT_RATIO:
            # A share lies in [0, 1]: the value and its interval are clipped to it (post-processing; the clipped
            # interval holds the true share exactly when the unclipped one does).
            out[m] = MetricResult(m, names, clean[m], np.clip(private, 0.0, 1.0), hw,
                                  np.clip(private - hw, 0.0, 1.0), np.clip(private + hw, 0.0, 1.0))
        elif m is AoiMetric.TRANSITIONS:
            labels = names + ("elsewhere",)
            out[m] = MetricResult(m, labels, clean[m], private.reshape(table.k + 1, table.k + 1),
                                  hw.reshape(table.k + 1, table.k + 1))
        else:
            out[m] = MetricResult(m, names, clean[m], private, hw)
    return out, noise
