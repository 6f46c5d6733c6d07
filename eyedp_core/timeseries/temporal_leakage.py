"""Temporal privacy leakage under a Markov model (Cao et al. 2017/2019) for sub-participant units.

docs/PRIVACY_MODEL.md §10.2. When the protected unit is smaller than a participant (a chunk, a sample), an
adversary who knows how consecutive units are correlated learns more than the per-unit ε. Cao et
al. bound this for a Markov chain with backward matrix P^B[a, b] = Pr(prev = b | now = a) and
forward matrix P^F[a, b] = Pr(next = b | now = a). This is a MODEL-BASED ESTIMATE: it is only as good
as the matrices, which must come from public data (estimating them on the private data is a release).
The rigorous bound for a whole participant stays the group/sequential total C·ε (timeseries.accounting).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "backward_leakage",
    "discretise",
    "forward_leakage",
    "leakage_loss",
    "temporal_leakage",
    "transition_matrices",
]


def _check_stochastic(matrix: np.ndarray) -> np.ndarray:
    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 1:
        raise ValueError(f"a transition matrix must be square, got shape {m.shape}")
    if np.any(m < 0) or not np.allclose(m.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("a transition matrix needs non-negative rows that sum to 1")
    return m


def leakage_loss(matrix: np.ndarray, alpha: float | np.ndarray) -> np.ndarray | float:
    """Transition matrix M (s × s) and leakage α (scalar or array) in, L_M(α) of Cao et al. out.

    L_M(α) = max over row pairs (q, d) and state sets J of ln[(q_J(e^α−1)+1)/(d_J(e^α−1)+1)]. For a
    fixed pair the maximising J is a prefix of the states sorted by q_j/d_j descending, so all pairs
    and all prefixes are evaluated in one sort: O(s³ log s) work, no search over 2^s subsets.
    """
    m = _check_stochastic(matrix)
    a = np.asarray(alpha, dtype=float)
    if np.any(a < 0):
        raise ValueError("alpha must be >= 0")
    q = np.broadcast_to(m[:, None, :], (m.shape[0],) * 3)
    d = np.broadcast_to(m[None, :, :], (m.shape[0],) * 3)
    # States with d_j = 0 < q_j have an infinite ratio and come first; 0/0 states change nothing.
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(d > 0, q / np.where(d > 0, d, 1.0), np.where(q > 0, np.inf, 0.0))
    order = np.argsort(-ratio, axis=-1, kind="stable")
    q_pref = np.cumsum(np.take_along_axis(q, order, axis=-1), axis=-1)  # (s, s, s)
    d_pref = np.cumsum(np.take_along_axis(d, order, axis=-1), axis=-1)
    g = np.expm1(a).reshape(a.shape + (1, 1, 1))
    vals = np.log1p(q_pref * g) - np.log1p(d_pref * g)
    # The empty set gives 0, so the loss is never negative.
    out = np.maximum(vals.max(axis=(-3, -2, -1)), 0.0)
    return float(out) if a.ndim == 0 else out


def _as_budgets(epsilons: np.ndarray | float, steps: int | None) -> np.ndarray:
    eps = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if steps is not None:
        eps = np.broadcast_to(eps, (int(steps),)).copy() if eps.size == 1 else eps
    if eps.ndim != 1 or eps.size < 1 or np.any(eps < 0):
        raise ValueError("per-step budgets must be a non-empty 1-D array of values >= 0")
    return eps


def backward_leakage(
    backward: np.ndarray, epsilons: np.ndarray | float, steps: int | None = None
) -> np.ndarray:
    """P^B and per-step ε_t (array, or scalar with `steps`) in, BPL_t = L_{P^B}(BPL_{t−1}) + ε_t out."""
    eps = _as_budgets(epsilons, steps)
    m = _check_stochastic(backward)
    out = np.empty_like(eps)
    prev = 0.0
    # The recursion is inherently sequential in t (each step feeds the next); one loss per step.
    for t, e in enumerate(eps):
        prev = (leakage_loss(m, prev) if t else 0.0) + e
        out[t] = prev
    return out


def forward_leakage(
    forward: np.ndarray, epsilons: np.ndarray | float, steps: int | None = None
) -> np.ndarray:
    """P^F and per-step ε_t in, FPL_t = L_{P^F}(FPL_{t+1}) + ε_t (computed from the last step back) out."""
    eps = _as_budgets(epsilons, steps)
    return backward_leakage(forward, eps[::-1])[::-1]


def temporal_leakage(
    backward: np.ndarray,
    forward: np.ndarray,
    epsilons: np.ndarray | float,
    steps: int | None = None,
) -> pd.DataFrame:
    """P^B, P^F, per-step ε_t in, DataFrame t, epsilon, bpl, fpl, tpl = BPL + FPL − ε out (max = ε′)."""
    eps = _as_budgets(epsilons, steps)
    bpl = backward_leakage(backward, eps)
    fpl = forward_leakage(forward, eps)
    return pd.DataFrame(
        {"t": np.arange(1, eps.size + 1), "epsilon": eps, "bpl": bpl, "fpl": fpl, "tpl": bpl + fpl - eps}
    )


def discretise(x: np.ndarray, bounds: tuple[float, float], n_states: int) -> np.ndarray:
    """Values and PUBLIC bounds (L, U), number of states in, equal-width state indices 0 … s−1 out."""
    lo, hi = float(bounds[0]), float(bounds[1])
    if not hi > lo or n_states < 1:
        raise ValueError("need L < U and at least one state")
    z = (np.asarray(x, dtype=float) - lo) / (hi - lo)
    return np.clip((z * n_states).astype(int), 0, n_states - 1)


def transition_matrices(
    states: np.ndarray, n_states: int, smoothing: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """State sequences (..., T) of PUBLIC/pilot data, number of states, add-α smoothing in, (P^B, P^F) out.

    P^F[a, b] = Pr(next = b | now = a), P^B[a, b] = Pr(prev = b | now = a), from pooled transition
    counts (rows with no data and no smoothing fall back to uniform).
    """
    s = np.asarray(states, dtype=int)
    if s.shape[-1] < 2:
        raise ValueError("need sequences of length >= 2 to count transitions")
    if np.any(s < 0) or np.any(s >= n_states):
        raise ValueError(f"states must lie in 0 … {n_states - 1}")
    now, nxt = s[..., :-1].ravel(), s[..., 1:].ravel()
    counts = np.bincount(now * n_states + nxt, minlength=n_states * n_states).reshape(n_states, n_states)
    counts = counts.astype(float) + float(smoothing)

    def _rows(c: np.ndarray) -> np.ndarray:
        tot = c.sum(axis=1, keepdims=True)
        return np.where(tot > 0, c / np.where(tot > 0, tot, 1.0), 1.0 / n_states)

    return _rows(counts.T), _rows(counts)
