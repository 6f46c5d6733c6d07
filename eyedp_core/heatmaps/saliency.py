"""Similarity between a noisy heatmap and the clean one: the image metrics of eyedp_core.metrics (Pearson CC,
MSE, NMSE by energy) and the saliency-benchmark metrics eye-tracking researchers use (KL divergence, SIM, NSS,
EMD; Bylinskii et al. 2019, "What do different evaluation metrics tell us about saliency models?").

Distribution metrics (KL, SIM, EMD) need non-negative maps that sum to 1: noisy maps have negative cells,
so `to_distribution` clips them at 0 before normalising (the usual post-processing of a released map).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from eyedp_core.metrics import mse, nmse_by_energy, pearson_cc

__all__ = [
    "emd",
    "heatmap_metrics",
    "kl_divergence",
    "nss",
    "similarity",
    "to_distribution",
]

_EPS = np.finfo(float).eps  # the regulariser of the MIT saliency benchmark's KL


def to_distribution(map_: np.ndarray) -> np.ndarray:
    """Map in, non-negative map summing to 1 out (negative cells clipped to 0; all-zero -> uniform)."""
    p = np.clip(np.asarray(map_, dtype=float), 0.0, None)
    s = p.sum()
    return p / s if s > 0 else np.full(p.shape, 1.0 / p.size)


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    """Two distributions in, Σ P·ln(ε + P/(Q + ε)) out."""
    return float(np.sum(p * np.log(_EPS + p / (q + _EPS))))


def _sim(p: np.ndarray, q: np.ndarray) -> float:
    """Two distributions in, Σ min(P, Q) out."""
    return float(np.minimum(p, q).sum())


def kl_divergence(reference: np.ndarray, estimate: np.ndarray) -> float:
    """Reference (clean) and estimate (noisy) maps in, KL(P_ref ‖ Q_est) in nats out (MIT-benchmark form
    Σ P·ln(ε + P/(Q + ε)); 0 = identical, larger = worse)."""
    return _kl(to_distribution(reference), to_distribution(estimate))


def similarity(reference: np.ndarray, estimate: np.ndarray) -> float:
    """Two maps in, SIM = Σ min(P, Q) of their distributions out (1 = identical, 0 = disjoint)."""
    return _sim(to_distribution(reference), to_distribution(estimate))


def nss(saliency: np.ndarray, fixation_counts: np.ndarray) -> float:
    """Saliency map and fixation counts on the same grid in, normalised scanpath saliency out (mean
    standardised saliency at fixated cells, weighted by count)."""
    s = np.asarray(saliency, dtype=float)
    w = np.asarray(fixation_counts, dtype=float)
    sd = s.std()
    if sd == 0 or w.sum() <= 0:
        return float("nan")
    return float(np.sum((s - s.mean()) / sd * w) / w.sum())


def _block_sum(p: np.ndarray, max_bins: int) -> tuple[np.ndarray, float, float]:
    rows, cols = p.shape
    by, bx = -(-rows // max_bins), -(-cols // max_bins)
    pr, pc = -(-rows // by) * by, -(-cols // bx) * bx
    padded = np.zeros((pr, pc))
    padded[:rows, :cols] = p
    return padded.reshape(pr // by, by, pc // bx, bx).sum(axis=(1, 3)), float(by), float(bx)


def _grid_edges(rows: int, cols: int, cost_y: float, cost_x: float):
    idx = np.arange(rows * cols).reshape(rows, cols)
    h_a, h_b = idx[:, :-1].ravel(), idx[:, 1:].ravel()
    v_a, v_b = idx[:-1, :].ravel(), idx[1:, :].ravel()
    tail = np.concatenate([h_a, h_b, v_a, v_b])
    head = np.concatenate([h_b, h_a, v_b, v_a])
    cost = np.concatenate([np.full(2 * h_a.size, cost_x), np.full(2 * v_a.size, cost_y)])
    return tail, head, cost


def emd(reference: np.ndarray, estimate: np.ndarray, max_bins: int = 32, cell: float = 1.0) -> float:
    """Two maps, the coarse-grid size and the cell size in px in, Earth mover's distance between their
    distributions in px out, with L1 (city-block) ground distance on a grid of <= max_bins per axis.

    With L1 ground distance the optimal transport decomposes into flows between 4-neighbours, so the EMD
    is a min-cost flow on the grid graph (Ling & Okada 2007): an LP with ~4·bins² variables (HiGHS)."""
    p, by, bx = _block_sum(to_distribution(reference), max_bins)
    q, _, _ = _block_sum(to_distribution(estimate), max_bins)
    rows, cols = p.shape
    if rows * cols == 1:
        return 0.0
    tail, head, cost = _grid_edges(rows, cols, by * cell, bx * cell)
    e = np.arange(tail.size)
    # Node balance: outflow − inflow = p − q at every node (one row is redundant; HiGHS copes).
    a_eq = sp.csr_matrix((np.concatenate([np.ones(e.size), -np.ones(e.size)]),
                          (np.concatenate([tail, head]), np.concatenate([e, e]))),
                         shape=(rows * cols, e.size))
    res = linprog(cost, A_eq=a_eq, b_eq=(p - q).ravel(), bounds=(0, None), method="highs")
    if not res.success:
        raise RuntimeError(f"EMD linear program failed: {res.message}")
    return float(res.fun)


def heatmap_metrics(reference: np.ndarray, estimate: np.ndarray, emd_bins: int | None = 32,
                    cell: float = 1.0) -> dict[str, float]:
    """Clean and noisy heatmaps in, dict of cc, mse, nmse, kl, sim (and emd_px unless emd_bins=None) out."""
    # The distributions are computed once for KL and SIM (up to ~10^6 cells per slider move).
    p, q = to_distribution(reference), to_distribution(estimate)
    out = {
        "cc": float(pearson_cc(reference, estimate)),
        "mse": float(mse(reference, estimate)),
        "nmse": nmse_by_energy(reference, estimate),
        "kl": _kl(p, q),
        "sim": _sim(p, q),
    }
    if emd_bins:
        out["emd_px"] = emd(reference, estimate, max_bins=emd_bins, cell=cell)
    return out
