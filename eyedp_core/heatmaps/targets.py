"""Targets a user can act on (docs/PRIVACY_MODEL.md §6.7): the "hot spots kept" measure beside CC, the smallest ε
and the number of observers that reach a target, the expected utility of a private choice of the cap m next
to a fixed public m, and the one-sentence difference between two settings.

Every answer is a mean with a 10–90 % band over R seeded noise draws (PREVIEW noise through
`maps.draw_noise`, common random numbers across the grid: one unit-noise field per draw, rescaled to each
grid point's noise std, so a draw's curve is smooth in ε). Each answer says the map it was computed on
(`Basis`): these private data (tuning: the answer itself is not private), public/pilot data, or the planning
model (N observers with maps like the basis map, noise only).
"""
from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from eyedp_core.dp.registry import Family, SelectionMethod
from eyedp_core.heatmaps.calibration import HeatmapSetting, noise_family
from eyedp_core.heatmaps.cap import (
    SelectionSpec,
    cap_score_sensitivity,
    cap_scores,
    noise_std_for_caps,
    selection_probabilities,
)
from eyedp_core.heatmaps.maps import GazeMaps, aggregate, cap_matrix, draw_noise, smooth

__all__ = [
    "DEFAULT_Q",
    "Basis",
    "CapComparison",
    "DrawSpec",
    "Measure",
    "SettingUtility",
    "TargetAnswer",
    "UtilityDraws",
    "cap_choice_utility",
    "difference_sentence",
    "epsilon_for_target",
    "estimate_seconds",
    "hot_spots_kept",
    "observers_by_subsample",
    "observers_for_target",
    "top_cells",
    "utility_at_stds",
]

DEFAULT_Q = 0.05  # the top 5 % of cells are the "hot spots"
EPS_GRID = tuple(float(v) for v in np.geomspace(0.01, 1000.0, 31))  # 6 points per decade
N_GRID = tuple(int(v) for v in np.unique(np.round(np.geomspace(2, 1_000_000, 35))))  # about 6 per decade
BAND = (0.1, 0.9)
# Measured CPU seconds on the 2-core box: smoothing one draw, per cell (CC then costs nothing more), and finding
# one noisy map's hot spots, per cell; the estimate doubles them for a loaded machine.
_SECONDS_PER_CELL_DRAW = 1e-7
_SECONDS_PER_CELL_MAP = 5e-9
_CHUNK_ELEMENTS = 8_000_000  # noisy-map values held at once


class Basis(enum.Enum):
    """The data an answer was computed on."""

    PRIVATE = "private"
    PILOT = "pilot"
    PLANNING = "planning"

    @property
    def words(self) -> str:
        """Plain words for the page."""
        return {Basis.PRIVATE: "computed on these private data: tuning that is not itself private (the answer "
                               "depends on the observers' maps and spends no ε, so it is not covered by the "
                               "guarantee)",
                Basis.PILOT: "computed on public/pilot data (no privacy cost for these observers)",
                Basis.PLANNING: "planning model: N different observers with maps like the basis map, noise "
                                "only"}[self]


class Measure(enum.Enum):
    """The utility measure a target is set on."""

    CC = "cc"
    HOT_SPOTS = "hot_spots"

    @property
    def words(self) -> str:
        """Plain words for the page."""
        return {Measure.CC: "CC", Measure.HOT_SPOTS: "hot spots kept"}[self]


# --------------------------------------------------------------------------------------------
# the measure


def top_cells(map_: np.ndarray, q: float = DEFAULT_Q) -> np.ndarray:
    """Map and share q in (0, 1] in, boolean mask of its top-q cells out: k = ⌈q·r⌉, every cell whose value is
    at least the k-th largest (ties at the threshold all kept, so the set may exceed k), never a cell <= 0
    (an unvisited cell is no hot spot); empty for an all-zero map."""
    if not 0 < q <= 1:
        raise ValueError(f"the top share q must be in (0, 1], got {q!r}")
    a = np.asarray(map_, dtype=float).ravel()
    k = max(1, math.ceil(q * a.size))
    t = np.partition(a, a.size - k)[a.size - k]
    return ((a >= t) & (a > 0)).reshape(np.shape(map_))


def hot_spots_kept(clean: np.ndarray, noisy: np.ndarray, q: float = DEFAULT_Q) -> np.ndarray | float:
    """Clean map (…shape) and noisy map(s) (…, same shape; leading axes are draws) and q in, the share of the
    clean map's top-q cells (`top_cells`) that are among the noisy map's top |T| cells out.

    The noisy top set has the same size |T| as the clean one; noisy ties at its threshold are broken
    uniformly at random and counted by their expectation, so the measure is exact and deterministic. nan when
    the clean map has no hot spot."""
    c = np.asarray(clean, dtype=float)
    x = np.asarray(noisy)
    lead = x.shape[:x.ndim - c.ndim]
    out = _kept_rows(top_cells(c, q).ravel(), x.reshape((-1, c.size)))
    return float(out[0]) if not lead else out.reshape(lead)


def _kept_rows(hot: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Hot-spot mask (r,) and noisy maps (rows, r) in, hot spots kept per row out (ties by expectation)."""
    size = int(hot.sum())
    if size == 0:
        return np.full(x.shape[0], np.nan)
    r = hot.size
    t = np.partition(x, r - size, axis=1)[:, r - size][:, None]
    above, at = x > t, x == t
    take = (size - above.sum(axis=1)) / at.sum(axis=1)  # share of the tied cells that enter the top set
    return ((above & hot).sum(axis=1) + take * (at & hot).sum(axis=1)) / size


# --------------------------------------------------------------------------------------------
# draws over a grid of noise levels


@dataclass(frozen=True, eq=False)
class UtilityDraws:
    """CC and hot spots kept of R noisy maps at each grid point (noise std per point)."""

    grid: np.ndarray  # ε or N per point
    std: np.ndarray  # per-cell noise std per point
    cc: np.ndarray  # (points, R)
    kept: np.ndarray  # (points, R)

    def values(self, measure: Measure) -> np.ndarray:
        """Measure in, its (points, R) draws out."""
        return self.cc if measure is Measure.CC else self.kept


@dataclass(frozen=True)
class DrawSpec:
    """How an answer is estimated: R seeded noise draws, the top share q whose cells are the hot spots, and the
    grid of ε or N values an answer is searched on (None: EPS_GRID for ε, N_GRID for N)."""

    R: int = 100
    q: float = DEFAULT_Q
    grid: tuple[float, ...] | None = None


def estimate_seconds(cells: int, points: int, R: int, measure: Measure = Measure.CC, calls: int = 2) -> float:
    """Cells r, grid points, draws R, measure and the number of grids in, the expected seconds of that many
    `utility_at_stds` calls (for a notice before a long computation)."""
    per_call = _SECONDS_PER_CELL_DRAW * cells * R
    if measure is Measure.HOT_SPOTS:
        per_call += _SECONDS_PER_CELL_MAP * cells * points / calls * R
    return 2.0 * calls * per_call + 0.05


def utility_at_stds(clean_agg: np.ndarray, stds: Sequence[float], rng: np.random.Generator,
                    setting: HeatmapSetting = HeatmapSetting(), draws: DrawSpec = DrawSpec(), *,
                    reference: np.ndarray | None = None, grid: Sequence[float] | None = None,
                    measures: Sequence[Measure] = (Measure.CC, Measure.HOT_SPOTS)) -> UtilityDraws:
    """Clean (capped) aggregate, per-cell noise stds, generator, the setting (its noise family, cell size and
    kernel), draws R and top share q, reference map (default: the clean aggregate), grid labels of the stds and
    the measures wanted in, UtilityDraws out: CC and hot spots kept of the smoothed noisy map against the smoothed
    reference for every (std, draw) (nan for a measure not asked for).

    Smoothing is linear, so smoothed noisy = K·clean + std·K·Z: each unit-variance draw Z is smoothed once and
    serves every std (common random numbers). CC needs only four dot products per draw (exact); hot spots kept
    needs each noisy map's top-|T| threshold, found in float32."""
    R, q, cell = draws.R, draws.q, setting.cell_px
    clean = np.asarray(clean_agg, dtype=float)
    s = np.asarray(stds, dtype=float)
    ref = clean if reference is None else np.asarray(reference, dtype=float)
    ks = float(setting.sigma_px)
    cs = smooth(clean, ks, cell).ravel()
    rs = smooth(ref, ks, cell).ravel()
    hot = top_cells(rs, q).ravel()
    want_kept = Measure.HOT_SPOTS in measures and hot.any()
    fam = setting.mechanism
    unit = 1.0 if fam is Family.GAUSSIAN else 1.0 / math.sqrt(2.0)  # unit variance: Laplace b = 1/√2
    r, E = clean.size, s.size
    ac, bc = rs - rs.mean(), cs - cs.mean()
    ref_var, b0a, b0b0 = float(ac @ ac), float(bc @ ac), float(bc @ bc)
    cc = np.full((E, R), np.nan)
    kept = np.full((E, R), np.nan)
    cs32 = cs.astype(np.float32)
    step = max(1, _CHUNK_ELEMENTS // max(1, r))
    for a in range(0, R, step):
        b = min(R, a + step)
        z = draw_noise(rng, fam, unit, (b - a,) + clean.shape, np.float64)
        kz = smooth(z, ks, cell).reshape(b - a, r)
        if Measure.CC in measures:
            kzc = kz - kz.mean(axis=1, keepdims=True)
            za, zb, zz = kzc @ ac, kzc @ bc, np.einsum("ij,ij->i", kzc, kzc)
            cov = b0a + s[:, None] * za[None, :]
            var = b0b0 + 2 * s[:, None] * zb[None, :] + (s * s)[:, None] * zz[None, :]
            with np.errstate(invalid="ignore", divide="ignore"):
                cc[:, a:b] = np.clip(cov / np.sqrt(ref_var * var), -1.0, 1.0)
            cc[:, a:b][~(var > 1e-24 * max(b0b0, 1e-300)) | (ref_var <= 0)] = np.nan  # a constant map has no CC
        if want_kept:
            kz32 = kz.astype(np.float32)
            for i in range(E):
                kept[i, a:b] = _kept_rows(hot, cs32[None, :] + np.float32(s[i]) * kz32)
    return UtilityDraws(np.asarray(grid if grid is not None else s, dtype=float), s, cc, kept)


# --------------------------------------------------------------------------------------------
# answers


@dataclass(frozen=True, eq=False)
class TargetAnswer:
    """The smallest grid value (ε or N) at which a measure reaches a target: for the mean over draws, with the
    10–90 % band of the per-draw answers, and the expected measure there."""

    measure: Measure
    target: float
    basis: Basis
    what: str  # "ε" or "N"
    value: float | None  # None: not reached on the grid
    low: float | None  # 10 % of draws reach the target at this value (None: within no grid point)
    high: float | None  # 90 % of draws reach it here (None: not on the grid)
    expected: float | None  # mean measure at `value`
    expected_band: tuple[float, float] | None  # its 10–90 % band over the draws
    draws: UtilityDraws
    q: float

    @property
    def reached(self) -> bool:
        """Whether the mean reaches the target on the grid."""
        return self.value is not None

    def curve(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(grid, mean, 10 % quantile, 90 % quantile) of the measure along the grid."""
        v = self.draws.values(self.measure)
        lo, hi = np.nanquantile(v, BAND, axis=1)
        return self.draws.grid, np.nanmean(v, axis=1), lo, hi


def _first_stays(ok: np.ndarray) -> np.ndarray:
    """Boolean (points, …) in, index of the first point from which every later point is True out (points when
    none): a crossing that is not undone further up the grid."""
    tail_ok = np.flip(np.logical_and.accumulate(np.flip(ok, 0), axis=0), 0)
    first = np.argmax(tail_ok, axis=0)
    return np.where(tail_ok.any(axis=0), first, ok.shape[0])


def _crossings(grid: np.ndarray, curves: np.ndarray, target: float) -> np.ndarray:
    """Grid (points,), curves on it (points, D) and a target in, per curve the grid value where it crosses the
    target for good, log-linearly interpolated between the two grid points around the crossing (inf: never)."""
    idx = _first_stays(curves >= target)
    cols = np.arange(curves.shape[1])
    i1 = np.minimum(idx, grid.size - 1)
    i0 = np.maximum(i1 - 1, 0)
    y0, y1 = curves[i0, cols], curves[i1, cols]
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(y1 > y0, np.clip((target - y0) / (y1 - y0), 0.0, 1.0), 1.0)
    lg = np.log(grid)
    x = np.exp(lg[i0] + f * (lg[i1] - lg[i0]))
    x = np.where(idx == 0, grid[0], x)
    return np.where(idx >= grid.size, np.inf, x)


def _answer(draws: UtilityDraws, measure: Measure, target: float, basis: Basis, what: str, q: float,
            at_value) -> TargetAnswer:
    """Draws on a grid in, the TargetAnswer (mean crossing, band of per-draw crossings, expected value there)."""
    v = draws.values(measure)
    grid = draws.grid
    mean = np.nanmean(v, axis=1)
    value = float(_crossings(grid, mean[:, None], target)[0])
    per = _crossings(grid, np.where(np.isnan(v), -np.inf, v), target)
    lo, hi = np.quantile(np.minimum(per, 1e300), BAND)  # a never-crossing draw counts as beyond the grid
    lo, hi = (x if x <= grid[-1] else np.inf for x in (lo, hi))
    if what == "N":  # whole observers: the smallest N at or above the crossing
        value, lo, hi = (math.ceil(x) if np.isfinite(x) else x for x in (value, lo, hi))
    exp_value, band = None, None
    if np.isfinite(value):
        at = at_value(value)
        exp_value = float(np.nanmean(at))
        band = tuple(float(x) for x in np.nanquantile(at, BAND))
    return TargetAnswer(measure=measure, target=float(target), basis=basis, what=what,
                        value=float(value) if np.isfinite(value) else None,
                        low=float(lo) if np.isfinite(lo) else None, high=float(hi) if np.isfinite(hi) else None,
                        expected=exp_value, expected_band=band, draws=draws, q=q)


def _stds_over_eps(s: HeatmapSetting, n: int, r: int, eps_grid: Sequence[float]) -> np.ndarray:
    """Setting, n, r and an ε grid in, the noise std at each ε out."""
    return np.array([s.with_epsilon(e).std(n, r) for e in eps_grid])


def _stds_over_n(s: HeatmapSetting, r: int, n_grid: Sequence[int]) -> np.ndarray:
    """Setting, r and a grid of study sizes N in, the noise std at each N out."""
    return np.array([s.std(int(n), r) for n in n_grid])


def epsilon_for_target(clean_agg: np.ndarray, n: int, setting: HeatmapSetting, measure: Measure, target: float,
                       rng: np.random.Generator, *, basis: Basis, draws: DrawSpec = DrawSpec()) -> TargetAnswer:
    """Basis map (capped aggregate), its n, the setting (ε is varied; its cell size and kernel), measure, target,
    generator, basis and the draws (R, q, ε grid) in, the smallest ε per observer whose mean measure reaches the
    target out."""
    grid = np.asarray(EPS_GRID if draws.grid is None else draws.grid, dtype=float)
    stds = _stds_over_eps(setting, n, np.asarray(clean_agg).size, grid)
    got = utility_at_stds(clean_agg, stds, rng, setting, draws, grid=grid, measures=(measure,))
    seed = int(rng.integers(2**31))  # fresh draws at the answer itself

    def at_value(eps: float) -> np.ndarray:
        std = _stds_over_eps(setting, n, np.asarray(clean_agg).size, [eps])
        d = utility_at_stds(clean_agg, std, np.random.default_rng(seed), setting, draws, measures=(measure,))
        return d.values(measure)[0]

    return _answer(got, measure, target, basis, "ε", draws.q, at_value)


def observers_for_target(clean_agg: np.ndarray, setting: HeatmapSetting, measure: Measure, target: float,
                         rng: np.random.Generator, *, basis: Basis, draws: DrawSpec = DrawSpec()) -> TargetAnswer:
    """Basis map, the setting (its ε, cell size and kernel), measure, target, generator, basis and the draws (R, q,
    grid of N) in, the number of observers N (planning model: N observers with maps like the basis map) whose
    mean measure reaches the target at this ε out."""
    grid = np.asarray(N_GRID if draws.grid is None else draws.grid, dtype=float)
    r = np.asarray(clean_agg).size
    stds = _stds_over_n(setting, r, grid.astype(int))
    got = utility_at_stds(clean_agg, stds, rng, setting, draws, grid=grid, measures=(measure,))
    seed = int(rng.integers(2**31))  # fresh draws at the answer itself

    def at_value(N: float) -> np.ndarray:
        std = _stds_over_n(setting, r, [int(math.ceil(N))])
        d = utility_at_stds(clean_agg, std, np.random.default_rng(seed), setting, draws, measures=(measure,))
        return d.values(measure)[0]

    return _answer(got, measure, target, basis, "N", draws.q, at_value)


SUBSAMPLE_CELLS = 200_000  # subsample answers smooth R maps per study size: only on grids up to this size


def _subsample_draws(gm: GazeMaps, setting: HeatmapSetting, sizes: np.ndarray, rng: np.random.Generator,
                     draws: DrawSpec, measure: Measure) -> tuple[np.ndarray, np.ndarray]:
    """Gaze maps, setting (its kernel), study sizes N, generator, draws (R, q) and measure in, (noise std per N,
    measure per (N, draw)) out: each draw averages N observers drawn without replacement, adds the noise for N
    observers and is compared with the smoothed clean map of all n."""
    R, q, sigma_px = draws.R, draws.q, setting.sigma_px
    n, r = gm.n_observers, gm.n_cells
    capped = cap_matrix(gm, setting.cap_m, setting.cap_total)
    rs = smooth(aggregate(gm, setting.cap_m, setting.cap_total), sigma_px, gm.cell).ravel()
    hot = top_cells(rs, q)
    ac = rs - rs.mean()
    fam = noise_family(setting.mechanism)
    unit = 1.0 if fam is Family.GAUSSIAN else 1.0 / math.sqrt(2.0)
    stds = _stds_over_n(setting, r, sizes)
    out = np.full((sizes.size, R), np.nan)
    for i, N in enumerate(sizes):
        pick = np.argsort(rng.random((R, n)), axis=1)[:, :N]  # R subsets of N observers, without replacement
        sel = sp.csr_matrix((np.full(R * N, 1.0 / N), (np.repeat(np.arange(R), N), pick.ravel())), shape=(R, n))
        means = (sel @ capped).toarray()
        noisy = means + stds[i] * draw_noise(rng, fam, unit, (R, r), np.float64)
        sm = smooth(noisy.reshape((R,) + gm.grid_shape), sigma_px, gm.cell).reshape(R, r)
        if measure is Measure.CC:
            c = sm - sm.mean(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[i] = (c @ ac) / np.sqrt(np.einsum("ij,ij->i", c, c) * float(ac @ ac))
        elif hot.any():
            out[i] = _kept_rows(hot.ravel(), sm)
    return stds, out


def observers_by_subsample(gm: GazeMaps, setting: HeatmapSetting, measure: Measure, target: float,
                           rng: np.random.Generator, *, basis: Basis, draws: DrawSpec = DrawSpec(),
                           points: int = 12) -> TargetAnswer:
    """Per-observer gaze maps (the basis), the setting (its ε and kernel), measure, target, generator, basis, draws
    (R, q) and the number of study sizes in, the smallest N <= n whose mean measure reaches the target when N of
    these observers are drawn without replacement (sampling error and noise; reference: the clean map of all n)
    out; value None when even all n do not reach it."""
    n = gm.n_observers
    sizes = np.unique(np.round(np.geomspace(2, n, max(2, min(points, n - 1)))).astype(int))
    stds, vals = _subsample_draws(gm, setting, sizes, rng, draws, measure)
    cc, kept = (vals, np.full_like(vals, np.nan)) if measure is Measure.CC else (np.full_like(vals, np.nan), vals)
    got = UtilityDraws(sizes.astype(float), stds, cc, kept)
    seed = int(rng.integers(2**31))

    def at_value(N: float) -> np.ndarray:
        size = np.array([min(n, int(math.ceil(N)))])
        return _subsample_draws(gm, setting, size, np.random.default_rng(seed), draws, measure)[1][0]

    return _answer(got, measure, target, basis, "N", draws.q, at_value)


# --------------------------------------------------------------------------------------------
# the private choice of m next to a fixed public m


@dataclass(frozen=True, eq=False)
class CapComparison:
    """Expected utility of a fixed public m and of the DP choice of m over public candidates (same ε for the map)."""

    fixed_m: float
    candidates: np.ndarray
    probabilities: np.ndarray  # P(the selection picks each candidate), on the basis map
    cc: np.ndarray  # (candidates, R): CC at each candidate m
    kept: np.ndarray  # (candidates, R)
    fixed_cc: np.ndarray  # (R,)
    fixed_kept: np.ndarray  # (R,)
    selection_epsilon: float
    epsilon: float
    basis: Basis

    def summary(self, measure: Measure) -> dict[str, tuple[float, float, float]]:
        """Measure in, {"fixed": (mean, 10 %, 90 %), "private": (mean, 10 %, 90 %)} out; the private choice's
        values are the mixture over its probabilities."""
        fixed = self.fixed_cc if measure is Measure.CC else self.fixed_kept
        per = self.cc if measure is Measure.CC else self.kept
        vals = per.ravel()
        w = np.repeat(self.probabilities / per.shape[1], per.shape[1])
        ok = np.isfinite(vals)
        vals, w = vals[ok], w[ok]
        order = np.argsort(vals)
        cw = np.cumsum(w[order]) / w.sum()
        qlo, qhi = (float(vals[order][min(np.searchsorted(cw, p), vals.size - 1)]) for p in BAND)
        lo, hi = np.nanquantile(fixed, BAND)
        return {"fixed": (float(np.nanmean(fixed)), float(lo), float(hi)),
                "private": (float((w * vals).sum() / w.sum()), qlo, qhi)}


def cap_choice_utility(gm: GazeMaps, *, fixed_m: float, candidates: Sequence[float], selection: SelectionSpec,
                       setting: HeatmapSetting, rng: np.random.Generator, basis: Basis,
                       draws: DrawSpec = DrawSpec(R=50)) -> CapComparison:
    """Per-observer gaze maps (the basis), the fixed public m, the public candidates, the selection (bound B, ε,
    method), the map's setting (ε, δ, noise, C, kernel), generator, basis and draws (R, q) in, CapComparison out:
    CC and hot spots kept against the uncapped clean map (the common reference) for every candidate m and for the
    fixed m, and the probability that the DP selection picks each candidate.

    Report-noisy-min's probabilities are estimated from 20,000 simulated selections (planning only)."""
    raw_bound, selection_epsilon = selection.raw_bound, selection.epsilon
    on_grid = replace(setting, cell_px=gm.cell)
    R = draws.R
    cands = np.asarray(candidates, dtype=float)
    n, r = gm.n_observers, gm.n_cells
    stds = noise_std_for_caps(n, r, cands, setting.epsilon, setting.delta, setting.mechanism, setting.method,
                              setting.cap_total)
    sens = cap_score_sensitivity(cands, raw_bound, n, r, setting.cap_total)
    scores = cap_scores(gm, cands, raw_bound, stds, setting.cap_total)
    if selection.method == SelectionMethod.EXPONENTIAL:
        probs = selection_probabilities(scores, selection_epsilon, sens)
    else:  # exponential noise of scale 2Δ/ε on each score, the smallest noisy score wins (dp.release_argmin)
        sim = np.random.default_rng(12345)
        noisy = scores[None, :] - sim.exponential(2.0 * sens / selection_epsilon, (20_000, cands.size))
        probs = np.bincount(np.argmin(noisy, axis=1), minlength=cands.size) / 20_000.0
    reference = aggregate(gm, None, None).reshape(gm.grid_shape)
    cc = np.empty((cands.size, R))
    kept = np.empty((cands.size, R))
    seed = int(rng.integers(2**31))
    for j, m in enumerate(cands):  # same noise fields for every m (common random numbers)
        d = utility_at_stds(aggregate(gm, m, setting.cap_total), [stds[j]], np.random.default_rng(seed), on_grid,
                            draws, reference=reference)
        cc[j], kept[j] = d.cc[0], d.kept[0]
    fixed_std = noise_std_for_caps(n, r, [fixed_m], setting.epsilon, setting.delta, setting.mechanism,
                                   setting.method, setting.cap_total)
    d = utility_at_stds(aggregate(gm, fixed_m, setting.cap_total), fixed_std, np.random.default_rng(seed), on_grid,
                        draws, reference=reference)
    return CapComparison(float(fixed_m), cands, probs, cc, kept, d.cc[0], d.kept[0], float(selection_epsilon),
                         float(setting.epsilon), basis)


# --------------------------------------------------------------------------------------------
# two settings side by side


@dataclass(frozen=True)
class SettingUtility:
    """One side of an A/B comparison: ε per observer, noise std and the expected CC and hot spots kept."""

    label: str
    epsilon_per_observer: float
    delta: float
    std: float
    cc: float
    kept: float


def difference_sentence(a: SettingUtility, b: SettingUtility) -> str:
    """Two sides in, the difference in one sentence (B against A)."""
    ratio = b.std / a.std if a.std > 0 else math.inf
    noise = ("the same noise" if math.isclose(ratio, 1.0, rel_tol=0.005) else
             f"{ratio:.2g}× the noise of {a.label}" if ratio > 1 else f"{1 / ratio:.2g}× less noise than {a.label}")
    eps = ("the same ε per observer" if math.isclose(a.epsilon_per_observer, b.epsilon_per_observer, rel_tol=1e-9)
           else f"ε = {b.epsilon_per_observer:.3g} per observer instead of {a.epsilon_per_observer:.3g}")
    dcc = b.cc - a.cc
    dk = 100 * (b.kept - a.kept)
    cc_words = "the same CC" if abs(dcc) < 0.005 else f"a CC {abs(dcc):.2f} {'higher' if dcc > 0 else 'lower'}"
    kept_words = ("keeps as many hot spots" if abs(dk) < 0.5 else
                  f"keeps {abs(dk):.0f} percentage points {'more' if dk > 0 else 'fewer'} of the hot spots")
    return (f"{b.label} spends {eps} and adds {noise} (σ {b.std:.3g} vs {a.std:.3g}): expect {cc_words} "
            f"({b.cc:.2f} vs {a.cc:.2f}), and it {kept_words} ({100 * b.kept:.0f} % vs {100 * a.kept:.0f} %).")
