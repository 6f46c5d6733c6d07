"""The DP-auditing estimator: a Clopper–Pearson lower confidence bound ε̂ on the privacy loss from draws of a
mechanism on two neighbouring inputs (docs/PRIVACY_MODEL.md §18).

A test T tells D from D' by a threshold on a statistic; (ε, δ)-DP bounds every test's rates: TPR ≤ e^ε·FPR + δ.
So ε ≥ log((TPR − δ)/FPR), and with one-sided Clopper–Pearson bounds TPR_lower and FPR_upper, each at level
(1 − confidence)/2, ε̂ = log((TPR_lower − δ)/FPR_upper) is below the true ε with probability ≥ the confidence.
The threshold and the test's direction are chosen on the first half of the draws and counted on the second
half only: a threshold picked on the same draws it is counted on would overstate ε̂.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["Bound", "clopper_pearson", "epsilon_lower_bound"]

_THRESHOLDS = 400  # candidate thresholds: quantiles of the pooled first half


def clopper_pearson(hits: np.ndarray | int, trials: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Hits, trials and a one-sided level α in, the exact (Clopper–Pearson) lower and upper bounds of the rate,
    each holding with probability ≥ 1 − α."""
    k = np.asarray(hits, dtype=float)
    lo = np.where(k > 0, stats.beta.ppf(alpha, np.maximum(k, 1), trials - k + 1), 0.0)
    hi = np.where(k < trials, stats.beta.ppf(1 - alpha, k + 1, np.maximum(trials - k, 1)), 1.0)
    return lo, hi


def _log_ratio(tpr_lo: np.ndarray, fpr_hi: np.ndarray, delta: float) -> np.ndarray:
    """log((TPR_lower − δ)/FPR_upper), 0 where the numerator is not positive."""
    num = np.asarray(tpr_lo) - delta
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(num > 0, np.log(np.maximum(num, 1e-300) / np.maximum(fpr_hi, 1e-300)), 0.0)
    return np.maximum(out, 0.0)


@dataclass(frozen=True)
class Bound:
    """ε̂ with the test that gave it: the threshold, its direction, and the counts on the held-out half."""

    epsilon: float  # the lower confidence bound ε̂ (≥ 0)
    confidence: float
    threshold: float
    positive_is_first: bool  # True: the test says "D" (the first sample) when the statistic passes
    above: bool  # True: "passes" means statistic > threshold
    true_positives: int
    false_positives: int
    held_out: int  # draws per neighbour counted (the second half)

    @property
    def tpr(self) -> float:
        """Empirical true-positive rate on the held-out half."""
        return self.true_positives / self.held_out if self.held_out else float("nan")

    @property
    def fpr(self) -> float:
        """Empirical false-positive rate on the held-out half."""
        return self.false_positives / self.held_out if self.held_out else float("nan")


def _counts(sorted_scores: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted statistic and thresholds in, how many draws lie above and below each threshold out."""
    above = sorted_scores.size - np.searchsorted(sorted_scores, thresholds, side="right")
    below = np.searchsorted(sorted_scores, thresholds, side="left")
    return above, below


def epsilon_lower_bound(first: np.ndarray, second: np.ndarray, *, delta: float = 0.0,
                        confidence: float = 0.95) -> Bound:
    """Statistic drawn on D (`first`) and on its neighbour D' (`second`), the δ the mechanism claims and the
    confidence in, the Clopper–Pearson lower bound ε̂ out (threshold chosen on the first half of each sample)."""
    a, b = np.asarray(first, dtype=float).ravel(), np.asarray(second, dtype=float).ravel()
    half = min(a.size, b.size) // 2
    if half < 10:
        raise ValueError(f"need at least 20 draws per neighbour, got {min(a.size, b.size)}")
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence!r}")
    alpha = (1.0 - confidence) / 2.0  # two one-sided bounds: their union fails with probability ≤ 1 − confidence
    a1, a2 = np.sort(a[:half]), np.sort(a[half:2 * half])
    b1, b2 = np.sort(b[:half]), np.sort(b[half:2 * half])
    pooled = np.concatenate([a1, b1])
    cand = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, _THRESHOLDS)))
    a_up, a_dn = _counts(a1, cand)
    b_up, b_dn = _counts(b1, cand)
    best = (-1.0, 0.0, True, True)
    # Four tests per threshold: which neighbour is "positive", and which side of the threshold says so.
    for pos_first, above, tp, fp in ((True, True, a_up, b_up), (True, False, a_dn, b_dn),
                                     (False, True, b_up, a_up), (False, False, b_dn, a_dn)):
        lo, _ = clopper_pearson(tp, half, alpha)
        _, hi = clopper_pearson(fp, half, alpha)
        score = _log_ratio(lo, hi, delta)
        i = int(np.argmax(score))
        if score[i] > best[0]:
            best = (float(score[i]), float(cand[i]), pos_first, above)
    _, t, pos_first, above = best
    pos, neg = (a2, b2) if pos_first else (b2, a2)
    count = (lambda s: int(s.size - np.searchsorted(s, t, side="right"))) if above else \
        (lambda s: int(np.searchsorted(s, t, side="left")))
    tp, fp = count(pos), count(neg)
    lo, _ = clopper_pearson(tp, half, alpha)
    _, hi = clopper_pearson(fp, half, alpha)
    eps = float(_log_ratio(lo, hi, delta))
    return Bound(epsilon=eps if math.isfinite(eps) else 0.0, confidence=confidence, threshold=t,
                 positive_is_first=pos_first, above=above, true_positives=tp, false_positives=fp, held_out=half)
