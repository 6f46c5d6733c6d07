"""Choosing the per-cell cap m (docs/PRIVACY_MODEL.md §6.5): Liu's Theorem 4.1 expected MSE, Algorithm 1 (which
reads the private maps, so its choice is an unaccounted release) and a differentially private selection
of m from a public candidate list (exponential mechanism or report-noisy-min, drawn by OpenDP), whose ε
is returned so that it can be charged to the ledger.

Maps may be GazeMaps (anything with a `.matrix`), a scipy.sparse matrix (observers × cells) or a dense
array (n, rows, cols) / (n, cells). Everything is computed on the non-zero entries only.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from eyedp_core.dp.registry import Family, GaussianMethod, SelectionMethod
from eyedp_core.dp.release import release_argmin
from eyedp_core.heatmaps.calibration import noise_std

__all__ = [
    "PUBLIC_CAPS",
    "CapCurve",
    "CapSelection",
    "SelectionSpec",
    "bias_term",
    "cap_score_sensitivity",
    "cap_scores",
    "expected_mse",
    "algorithm1_candidates",
    "noise_std_for_caps",
    "optimal_cap",
    "public_candidates",
    "select_cap_private",
    "selection_probabilities",
]

PRIVATE_TUNING_NOTE = (
    "Choosing m this way reads every observer's raw map (and g_max): the chosen m and the noise scale it "
    "implies are a release that the stated (ε, δ) does not cover (docs/PRIVACY_MODEL.md §0.7, §6.5). Use a fixed m, "
    "one chosen on public/pilot data, or the DP selection (select_cap_private), and charge its ε."
)

_CHUNK = 4_000_000  # elements per dense block in the vectorised-over-m computation


def _as_csr(maps) -> sp.csr_matrix:
    if hasattr(maps, "matrix"):
        return maps.matrix.tocsr()
    if sp.issparse(maps):
        return sp.csr_matrix(maps)
    a = np.asarray(maps, dtype=float)
    if a.ndim < 2:
        raise ValueError("per-observer maps need at least 2 dimensions (observers, cells...)")
    return sp.csr_matrix(a.reshape(a.shape[0], -1))


def _excess_sq_sums(mat: sp.csr_matrix, m: np.ndarray, ref_cap: float) -> np.ndarray:
    """Σ_j (Σ_i [min(G_ij, ref) − min(G_ij, m)])² for each m (ref = np.inf: uncapped), vectorised over m."""
    coo = mat.tocoo()
    data, cols = coo.data.astype(float), coo.col
    keep = data > min(float(m.min()), ref_cap)  # other entries contribute 0 for every m
    data, cols = data[keep], cols[keep]
    out = np.zeros(m.shape, dtype=float)
    if data.size == 0:
        return out
    ucols, inv = np.unique(cols, return_inverse=True)
    ind = sp.csr_matrix((np.ones(data.size), (np.arange(data.size), inv)), shape=(data.size, ucols.size))
    ref = np.minimum(data, ref_cap)
    step = max(1, _CHUNK // data.size)
    for s in range(0, m.size, step):
        mm = m[s:s + step]
        diff = ref[None, :] - np.minimum(data[None, :], mm[:, None])
        colsum = np.asarray(diff @ ind)  # (len(mm), U): per-cell summed excess
        out[s:s + step] = (colsum * colsum).sum(axis=1)
    return out


def bias_term(per_observer_maps, m, reference_cap: float | None = None) -> np.ndarray:
    """Maps and cap(s) m in, squared bias (1/r)·Σ_j (G^(m)(j) − G^(ref)(j))² out (ref = uncapped, or
    capped at `reference_cap`); same shape as m."""
    mat = _as_csr(per_observer_maps)
    n, r = mat.shape
    m_arr = np.atleast_1d(np.asarray(m, dtype=float))
    ref = np.inf if reference_cap is None else float(reference_cap)
    out = _excess_sq_sums(mat, m_arr.ravel(), ref).reshape(m_arr.shape) / (n * n * r)
    return out if np.ndim(m) else out[0]


def expected_mse(per_observer_maps, m, sigma_star: float | None = None, noise_std=None):
    """Maps, cap(s) m and noise std per unit cap σ* (noise std m·σ*) — or the std at each m directly via
    `noise_std` — in, Theorem 4.1's E[MSE(m)] = std(m)² + bias(m) out (float, or array shaped like m).

    Valid for any zero-mean noise of that std: for Laplace pass std = √2·b."""
    m_arr = np.asarray(m, dtype=float)
    if noise_std is None:
        if sigma_star is None:
            raise ValueError("give sigma_star (std per unit of cap) or noise_std (std at each m)")
        var = (m_arr * sigma_star) ** 2
    else:
        var = np.asarray(noise_std, dtype=float) ** 2
    return var + bias_term(per_observer_maps, m_arr)


@dataclass(frozen=True, eq=False)
class CapCurve:
    """Algorithm 1's output: E[MSE] curve over m with its bias and variance parts, and the minimiser."""

    m: np.ndarray
    expected_mse: np.ndarray
    bias: np.ndarray
    variance: np.ndarray
    m_opt: float
    mse_opt: float
    g_max: float
    private: bool = False
    note: str = PRIVATE_TUNING_NOTE


def optimal_cap(per_observer_maps, sigma_star: float | None = None, m_values=None,
                noise_std: np.ndarray | Callable[[np.ndarray], np.ndarray] | None = None,
                m_max: int = 1000) -> CapCurve:
    """Maps, σ* (or the noise std per m as array/function) and candidate caps (default 1..⌈g_max⌉) in,
    CapCurve out (Liu's Algorithm 1 — NOT private, see `note`)."""
    mat = _as_csr(per_observer_maps)
    g_max = float(mat.data.max()) if mat.nnz else 0.0
    if m_values is None:
        m_values = np.arange(1, min(max(int(np.ceil(g_max)), 1), m_max) + 1, dtype=float)
    m_arr = np.asarray(m_values, dtype=float)
    if callable(noise_std):
        std = np.asarray(noise_std(m_arr), dtype=float)
    elif noise_std is not None:
        std = np.asarray(noise_std, dtype=float)
    elif sigma_star is not None:
        std = m_arr * sigma_star
    else:
        raise ValueError("give sigma_star or noise_std")
    bias = bias_term(mat, m_arr)
    var = std ** 2
    mse = var + bias
    i = int(np.argmin(mse))
    return CapCurve(m_arr, mse, bias, var, float(m_arr[i]), float(mse[i]), g_max)


# --------------------------------------------------------------------------------------------
# DP selection of m


def _bounded(mat: sp.csr_matrix, raw_bound: float, raw_total_bound: float | None) -> sp.csr_matrix:
    out = mat.copy().astype(float)
    np.minimum(out.data, raw_bound, out=out.data)
    if raw_total_bound is not None:
        tot = np.asarray(out.sum(axis=1)).ravel()
        out = sp.csr_matrix(sp.diags(np.minimum(1.0, raw_total_bound / np.maximum(tot, 1e-300))) @ out)
    return out


def cap_score_sensitivity(candidates, raw_bound: float, n: int, r: int,
                          raw_total_bound: float | None = None) -> float:
    """Candidate caps, public raw bound B, n, r and optional public total bound C in, the L∞ sensitivity
    of the score vector (bias vs the B-clipped reference) under replace-one-observer out.

    Per cell the mean excess d_j ∈ [0, B−m] moves by t_j <= (B−m)/n, so |Δ d_j²| <= t_j(2(B−m) − t_j)
    <= (B−m)²(2n−1)/n²; with totals <= C also Σ_j t_j <= 2C/n, so Δ <= 4(B−m)C/(n r)."""
    c = np.asarray(candidates, dtype=float)
    if np.any(c > raw_bound) or np.any(c <= 0):
        raise ValueError("candidates must lie in (0, raw_bound]")
    gap = raw_bound - c
    per = gap ** 2 * (2 * n - 1) / n ** 2
    if raw_total_bound is not None:
        per = np.minimum(per, 4.0 * gap * raw_total_bound / (n * r))
    return float(per.max())


def cap_scores(per_observer_maps, candidates, raw_bound: float, noise_std,
               raw_total_bound: float | None = None) -> np.ndarray:
    """Maps, candidate caps, public raw bound B, noise std at each candidate (public) and optional total
    bound in, the (private) scores std(m)² + bias_B(m) out: bias against the map clipped at B."""
    mat = _bounded(_as_csr(per_observer_maps), raw_bound, raw_total_bound)
    c = np.asarray(candidates, dtype=float)
    return np.asarray(noise_std, dtype=float) ** 2 + bias_term(mat, c, reference_cap=raw_bound)


def selection_probabilities(scores, epsilon: float, sensitivity: float) -> np.ndarray:
    """Scores (lower is better), ε and score sensitivity in, exponential-mechanism probabilities
    ∝ exp(−ε·score/(2Δ)) out."""
    s = np.asarray(scores, dtype=float)
    if sensitivity <= 0:
        p = (s == s.min()).astype(float)
        return p / p.sum()
    logits = -epsilon * (s - s.min()) / (2.0 * sensitivity)
    p = np.exp(logits)
    return p / p.sum()


@dataclass(frozen=True)
class SelectionSpec:
    """How m is chosen privately: the public bound B on the raw values, the selection's ε and its method."""

    raw_bound: float
    epsilon: float
    method: SelectionMethod = SelectionMethod.EXPONENTIAL

    def __post_init__(self) -> None:
        # Settings and tests hand in names: parse them once, refusing unknown ones.
        object.__setattr__(self, "method", SelectionMethod(self.method))


@dataclass(frozen=True)
class CapSelection:
    """A DP choice of m: the cap, the candidates, the ε it spends (pure DP) and how it was made."""

    m: float
    candidates: tuple[float, ...]
    epsilon: float
    score_sensitivity: float
    method: SelectionMethod
    raw_bound: float
    note: str


def select_cap_private(per_observer_maps, candidates, raw_bound: float, noise_std, epsilon: float,
                       method: SelectionMethod = SelectionMethod.EXPONENTIAL,
                       raw_total_bound: float | None = None) -> CapSelection:
    """Maps, public candidate caps, public raw bound B, noise std per candidate, selection ε and method
    ("exponential" | "report-noisy-min") in, CapSelection (ε-DP choice of m) out.

    A release: OpenDP draws the choice from a cryptographic RNG, so there is no seed or generator argument
    (docs/PRIVACY_MODEL.md §0.7, §11). Charge `epsilon` to the ledger in addition to the heatmap's own
    (ε, δ) (sequential composition)."""
    mat = _as_csr(per_observer_maps)
    n, r = mat.shape
    c = np.asarray(candidates, dtype=float)
    delta_s = cap_score_sensitivity(c, raw_bound, n, r, raw_total_bound)
    scores = cap_scores(mat, c, raw_bound, noise_std, raw_total_bound)
    i, _ = release_argmin(scores, sensitivity=delta_s, epsilon=epsilon, method=method)
    note = (f"m chosen with the {method} mechanism over {c.size} public candidates, score = noise variance + "
            f"squared bias against the map clipped at the public bound B = {raw_bound:g} (sensitivity "
            f"{delta_s:.3g}); this choice is {epsilon:g}-DP and adds ε = {epsilon:g} to the ledger.")
    return CapSelection(float(c[i]), tuple(float(v) for v in c), float(epsilon), delta_s, method,
                        float(raw_bound), note)


# --------------------------------------------------------------------------------------------
# candidate lists


# Fixed in advance, never read off the data (docs/PRIVACY_MODEL.md §0.7): a DP selection over a list that
# depends on an observer's counts (e.g. 1..⌈g_max⌉) leaks those counts with unbounded loss.
PUBLIC_CAPS: dict[str, tuple[float, ...]] = {
    "count": (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0),
    "duration": (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0),
}


def public_candidates(weight: str, raw_bound: float) -> tuple[float, ...]:
    """Map weighting ("count" | "duration") and the public raw bound B in, the public candidate caps <= B
    for the DP selection of m out (public inputs only, so neighbouring datasets get the same list)."""
    if weight not in PUBLIC_CAPS:
        raise ValueError(f"weight must be one of {tuple(PUBLIC_CAPS)}, got {weight!r}")
    return tuple(v for v in PUBLIC_CAPS[weight] if v <= raw_bound)


def algorithm1_candidates(weight: str, g_max: float, limit: int = 20) -> tuple[float, ...]:
    """Weighting and g_max in, the caps Liu's Algorithm 1 evaluates out: the public grid plus 1..⌈g_max⌉
    (up to `limit`) for counts. Reads the data: for the NOT private Algorithm 1 only."""
    base = set(PUBLIC_CAPS[weight])
    if weight == "count":
        base |= {float(v) for v in range(1, min(int(np.ceil(g_max)), limit) + 1)}
    return tuple(sorted(base))


def noise_std_for_caps(n: int, r: int, m_values, epsilon: float, delta: float, mechanism: Family,
                       method: GaussianMethod = GaussianMethod.ANALYTIC,
                       cap_total: float | None = None) -> np.ndarray:
    """Observers n, cells r (both public), candidate caps, privacy settings and total cap in, the noise std
    each cap would need out (public numbers: they depend on no observer's map)."""
    m = np.asarray(m_values, dtype=float)
    return np.broadcast_to(noise_std(n, r, epsilon, delta, m, cap_total, mechanism, method), m.shape).astype(float)
