"""Audit cases: each mechanism as configured, run on two neighbouring inputs built to be worst-case for it, with
the statistic a likelihood-ratio test would threshold (docs/PRIVACY_MODEL.md §18).

A case draws the mechanism's PREVIEW path (numpy Generator): the audit tests the mechanism's law, not a
release, so nothing is charged. The neighbours differ in one observer or participant, changed completely and
at the public bounds; the statistic is the log-likelihood ratio of the noise family (Laplace: Σ(|y−a|−|y−b|)/b;
Gaussian: the projection on the difference), or a sufficient one-dimensional summary where the noise is
rank-one (the Fourier mechanisms with k = 1 keep only the DC coefficient). Every statistic is in units of the
noise scale (a log-likelihood ratio is), so `run_case` can round it to a fixed grid.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd
import scipy.sparse as sp

from eyedp_core.aoi.metrics import AoiMetric, Query, metric_queries, query_epsilons, query_sensitivity
from eyedp_core.aoi.observers import AoiBounds, ObserverTable, clip_rows
from eyedp_core.dp.noise import LaplaceMechanism
from eyedp_core.dp.planar import planar_laplace
from eyedp_core.dp.registry import Family, GaussianMethod, Mech
from eyedp_core.gazestream.kaleido import KaleidoPlan
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap, heatmap_sensitivity
from eyedp_core.heatmaps.maps import GazeMaps, aggregate, privatize
from eyedp_core.timeseries.forms import Form, FormSetting
from eyedp_core.timeseries.forms import release as release_form
from eyedp_core.timeseries.mechanisms import run as run_series
from eyedp_core.timeseries.setting import MechanismSetting

__all__ = ["AoiAudit", "AuditCase", "AuditKind", "FormAudit", "HeatmapAudit", "KaleidoAudit", "SeriesAudit", "aoi_case",
           "form_case", "heatmap_case", "kaleido_case", "series_case"]

Draw = Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
# Noise values a default run draws per case (both neighbours): the five cases at the sample's defaults take about
# 8 s in all on this 2-core machine (the Heatmaps case, 1,000 cells, about 5 s of it).
_VALUE_BUDGET = 2e8
_MAX_DRAWS = 100_000
_MIN_DRAWS = 200  # the estimator needs 20; a grid of a million cells gets 200 within the budget


class AuditKind(StrEnum):
    """The mechanisms the Audit page tests."""

    HEATMAP = "heatmap"
    SERIES = "time series"
    FORM = "release form"
    AOI = "AOI sums"
    KALEIDO = "Kaleido"


@dataclass(frozen=True)
class AuditCase:
    """One mechanism as configured: its claim (ε, δ), the neighbours and a sampler of the test statistic on each."""

    kind: AuditKind
    title: str
    neighbours: str  # what the two inputs are, in words
    epsilon: float  # the ε claimed for one run of the mechanism on these neighbours
    delta: float
    draw: Draw  # (generator, count) -> (statistic on D, statistic on D')
    draws: int  # default draws per neighbour


def _draws_for(values_per_draw: int) -> int:
    """Noise values per draw in, the default draws per neighbour (a fixed budget of noise values) out."""
    return int(min(_MAX_DRAWS, max(_MIN_DRAWS, _VALUE_BUDGET // (2 * max(values_per_draw, 1)))))


def _laplace_lr(y: np.ndarray, a: np.ndarray, b: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
    """Draws y (..., m), the two means and the Laplace scale in, the log-likelihood ratio of D over D' out."""
    return ((np.abs(y - b) - np.abs(y - a)) / scale).sum(axis=-1)


def _pair(cap: float, total: float | None, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item cap, optional total cap and size in, two raw contributions far above the caps whose capped forms
    are furthest apart: everything against nothing, or two disjoint supports each at the total."""
    raw = 10.0 * cap  # above the cap: the project's clipping must bring it down
    x0, x1 = np.zeros(size), np.zeros(size)
    if total is None or cap * size <= total:
        x0[:] = raw
        return x0, x1
    j = max(1, math.ceil(total / cap))
    if 2 * j <= size:
        x0[:j], x1[j:2 * j] = raw, raw
    else:
        x0[: size // 2], x1[size // 2:] = raw, raw
    return x0, x1


# --------------------------------------------------------------------------------------------
# heatmaps


@dataclass(frozen=True)
class HeatmapAudit:
    """The Heatmaps page's mechanism: noise family and Gaussian method, (ε, δ), observers, grid and caps."""

    family: Family
    method: GaussianMethod
    epsilon: float
    delta: float
    observers: int
    rows: int
    cols: int
    cap_m: float
    cap_total: float | None


def _gaze_maps(target: np.ndarray, s: HeatmapAudit, rng: np.random.Generator) -> GazeMaps:
    """The target's raw map and n − 1 background observers (a few fixations each, sparse) as GazeMaps."""
    r = s.rows * s.cols
    per = 30  # fixations per background observer
    rows = np.repeat(np.arange(1, s.observers), per)
    cells = rng.integers(0, r, size=rows.size)
    background = sp.csr_matrix((np.ones(rows.size), (rows, cells)), shape=(s.observers, r))  # duplicates add up
    mat = sp.csr_matrix(sp.vstack([sp.csr_matrix(target[None, :]), background[1:]]))
    ids = np.array([f"O{i:03d}" for i in range(s.observers)])
    return GazeMaps(mat, (s.rows, s.cols), ids, 1, s.cols, s.rows, "count")


def heatmap_case(s: HeatmapAudit) -> AuditCase:
    """Heatmap setting in, its audit case out: one observer's whole map at the cap in every cell (or two
    disjoint maps at the total cap C) against the other, the rest of the observers the same."""
    r = s.rows * s.cols
    x0, x1 = _pair(s.cap_m, s.cap_total, r)
    bg = np.random.default_rng(0)
    a0 = aggregate(_gaze_maps(x0, s, bg), s.cap_m, s.cap_total).ravel()
    a1 = aggregate(_gaze_maps(x1, s, np.random.default_rng(0)), s.cap_m, s.cap_total).ravel()
    sens = heatmap_sensitivity(r, s.observers, s.cap_m, s.cap_total)
    cal = calibrate_heatmap(sens, s.epsilon, s.delta, s.family, s.method)
    gaussian = cal.mechanism is Family.GAUSSIAN
    moved = np.flatnonzero(a0 != a1)
    d = a1[moved] - a0[moved]

    def stat(y: np.ndarray) -> float:
        ym = y.ravel()[moved]
        if gaussian:
            return -float((ym - a0[moved]) @ d) / cal.scale ** 2  # the log-likelihood ratio of D over D', up to a constant
        return float(_laplace_lr(ym, a0[moved], a1[moved], cal.scale))

    def draw(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        out = []
        setting = HeatmapSetting(s.epsilon, s.delta, cal.mechanism, s.method)
        for a in (a0, a1):
            agg = a.reshape(s.rows, s.cols)
            # One map at a time: a grid of a million cells is 8 MB a draw, never a stack of them.
            out.append(np.array([stat(privatize(agg, setting, sens, rng, calibration=cal,
                                                dtype=np.float64).map) for _ in range(count)]))
        return out[0], out[1]

    caps = f"m = {s.cap_m:g}" + (f", C = {s.cap_total:g}" if s.cap_total is not None else "")
    return AuditCase(AuditKind.HEATMAP, f"Heatmap, {cal.mechanism} ({cal.method}), {s.rows}×{s.cols} cells, {caps}",
                     f"{s.observers} observers; one observer's map at the cap against a map it does not share "
                     "(raw values 10× the cap, capped by the page's code)",
                     s.epsilon, s.delta if gaussian else 0.0, draw, _draws_for(r))


# --------------------------------------------------------------------------------------------
# time series


@dataclass(frozen=True)
class SeriesAudit:
    """One invocation of the Time series mechanism: mechanism, its ε, k, chunk, series length and bounds."""

    mech: Mech
    epsilon: float  # per invocation (one chunk or one series of one feature)
    k: int
    chunk: int | None
    length: int
    bounds: tuple[float, float] = (0.0, 1.0)


def series_case(s: SeriesAudit) -> AuditCase:
    """Series setting in, the audit case of one invocation out: the participant's chunk at the lower bound
    against the same chunk at the upper bound."""
    n = s.length if s.chunk is None or s.mech in (Mech.LPA, Mech.FPA) else min(s.chunk, s.length)
    lo, hi = s.bounds
    x0, x1 = np.full(n, float(lo)), np.full(n, float(hi))
    chunk = None if s.mech in (Mech.LPA, Mech.FPA) else n
    scale = [0.0]

    def once(x: np.ndarray, rng: np.random.Generator, count: int) -> np.ndarray:
        setting = MechanismSetting(mech=s.mech, epsilon=s.epsilon, k=s.k, chunk=chunk)
        out = run_series(np.broadcast_to(x, (count, n)).copy(), setting, rng=rng, bounds=s.bounds)
        scale[0] = float(out.calibrations[0].scale)
        return out.values

    def draw(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        y0, y1 = once(x0, rng, count), once(x1, rng, count)
        if s.mech is Mech.LPA:
            return _laplace_lr(y0, x0, x1, scale[0]), _laplace_lr(y1, x0, x1, scale[0])
        # The DC coefficient (the sum, under numpy's backward norm), where a shift by a constant lives, in units
        # of its Laplace scale λ.
        return y0.sum(axis=-1) / scale[0], y1.sum(axis=-1) / scale[0]

    what = s.mech.value + (f", chunk {n}" if chunk else "") + ("" if s.mech is Mech.LPA else f", k = {s.k}")
    return AuditCase(AuditKind.SERIES, f"Time series, {what}, one invocation",
                     f"one participant's series of {n} samples at the lower bound {lo:g} against the upper {hi:g}",
                     s.epsilon, 0.0, draw, _draws_for(2 * n))


@dataclass(frozen=True)
class FormAudit:
    """The Time series page's per-recording release form: ε per person, coarse windows, recordings per person."""

    epsilon: float
    blocks: int
    recordings: int
    features: int = 1
    bounds: tuple[float, float] = (0.0, 1.0)


def form_case(s: FormAudit) -> AuditCase:
    """Form setting in, the audit case of one person's per-recording summaries out: every recording of the person
    at the lower bound against the upper one (each summary moves by the range R_f)."""
    lo, hi = (np.full(s.features, float(v)) for v in s.bounds)
    setting = FormSetting(Form.RECORDING, s.epsilon, s.blocks, s.recordings)
    per_person = s.recordings * s.features * s.blocks
    scale = [0.0]

    def side(value: float, rng: np.random.Generator, count: int) -> np.ndarray:
        # `count` people with the same series: the form noises every unit independently, so each person's
        # summaries are one draw of the target's (and the release's own calibration covers `recordings` each).
        recs = pd.DataFrame({"participant": np.repeat(np.arange(count), s.recordings)})
        x = np.full((count * s.recordings, s.features, s.blocks), value)
        out = release_form(setting, x, lo, hi, recs, rng)
        scale[0] = float(out.calibration.scale)
        return out.noisy.reshape(count, per_person)

    def draw(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        y0, y1 = side(s.bounds[0], rng, count), side(s.bounds[1], rng, count)
        r = s.bounds[1] - s.bounds[0]
        b = scale[0] * r
        return (_laplace_lr(y0, np.full(per_person, s.bounds[0]), np.full(per_person, s.bounds[1]), b),
                _laplace_lr(y1, np.full(per_person, s.bounds[0]), np.full(per_person, s.bounds[1]), b))

    return AuditCase(AuditKind.FORM, f"Time series release form: per-recording summaries, {s.blocks} coarse "
                     f"window(s), {s.features} feature(s), {s.recordings} recording(s) per person",
                     "one participant's recordings at the lower bound against the upper", s.epsilon, 0.0, draw,
                     _draws_for(4 * per_person))


# --------------------------------------------------------------------------------------------
# AOI sums


@dataclass(frozen=True)
class AoiAudit:
    """The AOI page's release: ε per observer (split over the queries), the metrics, number of AOIs, bounds."""

    epsilon: float
    metrics: tuple[AoiMetric, ...]
    aois: int
    bounds: AoiBounds


def _query_pair(q: Query, k: int, b: AoiBounds) -> tuple[np.ndarray, np.ndarray]:
    """A query, K and the bounds in, two observers' clipped contributions furthest apart out."""
    per, total, size = {
        Query.HITS: (1.0, None, k), Query.FIXATIONS: (float(b.max_fixations), b.max_total_fixations, k),
        Query.DWELL: (float(b.max_dwell_s), b.max_total_dwell_s, k), Query.TTFF: (float(b.max_ttff_s), None, k),
        Query.REVISITS: (float(b.max_revisits), None, k),
        Query.TRANSITIONS: (float(b.max_transitions), float(b.max_transitions), (k + 1) ** 2)}[q]
    x0, x1 = _pair(per, total, size)
    return tuple(clip_rows(x[None, :], per, total)[0] for x in (x0, x1))


def _bounds_table(k: int, bounds: AoiBounds) -> ObserverTable:
    """An empty one-observer table: what query_sensitivity reads (K and the bounds)."""
    z = np.zeros((1, k))
    return ObserverTable(("target",), tuple(f"A{i}" for i in range(k)), z, z, z, z, z, np.zeros((1, k + 1, k + 1)),
                         bounds, np.zeros(1))


def aoi_case(s: AoiAudit) -> AuditCase:
    """AOI setting in, the audit case of its whole release (every query, ε split as the page splits it) out."""
    table = _bounds_table(s.aois, s.bounds)
    parts = []
    for q, eps in query_epsilons(s.metrics, s.epsilon).items():
        mech = LaplaceMechanism(epsilon=eps, sensitivity=query_sensitivity(q, table))
        parts.append((mech, *_query_pair(q, s.aois, s.bounds)))

    def draw(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for side in (0, 1):
            total = np.zeros(count)
            for mech, c0, c1 in parts:
                y = mech.randomise(np.broadcast_to((c0, c1)[side], (count, c0.size)), rng)
                total += _laplace_lr(y, c0, c1, mech.scale)
            out.append(total)
        return out[0], out[1]

    names = ", ".join(q.value for q in metric_queries(s.metrics))
    values = sum(c0.size for _, c0, _ in parts)
    return AuditCase(AuditKind.AOI, f"AOI sums on {s.aois} AOIs ({names})",
                     "one observer at every per-AOI bound (or on disjoint AOIs at the total caps) against one "
                     "who looked elsewhere", s.epsilon, 0.0, draw, _draws_for(values))


# --------------------------------------------------------------------------------------------
# Kaleido


@dataclass(frozen=True)
class KaleidoAudit:
    """Kaleido's plan: the first publication of a window spends (ε − ε/h)/2 on planar Laplace of radius r."""

    plan: KaleidoPlan


def kaleido_case(s: KaleidoAudit) -> AuditCase:
    """Kaleido plan in, the audit case of one publication out: two gaze points r apart (geo-indistinguishability
    promises ε_pub between them)."""
    p = s.plan
    eps_pub = p.pub_budget / 2.0
    g0, g1 = np.array([0.0, 0.0]), np.array([p.r, 0.0])

    def draw(rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        out = []
        for g in (g0, g1):
            z = planar_laplace(np.broadcast_to(g, (count, 2)).copy(), eps_pub / p.r, rng)
            # The log-likelihood ratio of g0 over g1: ε'·(‖z − g1‖ − ‖z − g0‖).
            out.append((np.linalg.norm(z - g1, axis=1) - np.linalg.norm(z - g0, axis=1)) * eps_pub / p.r)
        return out[0], out[1]

    return AuditCase(AuditKind.KALEIDO, f"Kaleido, one publication (planar Laplace, r = {p.r:g} px)",
                     f"one gaze point against another {p.r:g} px away", eps_pub, 0.0, draw, _MAX_DRAWS)
