"""The one-run audit's bound: Steinke, Nasr & Jagielski (2023), "Privacy Auditing with One (1) Training Run",
Theorem 5.2 (docs/PRIVACY_MODEL.md §18). m canaries are each included independently with probability 1/2; an
auditor guesses included / excluded for r of them (abstaining on the rest) and is right W times. If the release
is (ε, δ)-DP for each canary's inclusion, then for every v

    P[W ≥ v] ≤ P[Binomial(r, q) ≥ v] + 2·m·δ·α,   q = e^ε / (1 + e^ε),
    α = max over i = 1..v of P[v − i ≤ Binomial(r, q) < v] / i,

so ε is rejected at level 1 − confidence when that p-value is below it; ε̂ is the largest ε so rejected (0 when
none is). The scores and guesses come from the batch release (eyedp_core.batch.canary), which sits above this
layer; this module holds the bound and the guessing rule only.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["CanaryBound", "canary_epsilon", "canary_p_value", "guess_top_bottom"]

_BISECTIONS = 60


def canary_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """Canaries m, guesses r, correct guesses v and a claimed (ε, δ) in, the p-value P[W ≥ v] bound of Steinke et
    al. Theorem 5.2 out: small means the claim is unlikely to hold."""
    if not 0 <= v <= r <= m:
        raise ValueError(f"need 0 <= v <= r <= m, got v={v}, r={r}, m={m}")
    if not (epsilon >= 0 and 0 <= delta <= 1):
        raise ValueError(f"need ε >= 0 and δ in [0, 1], got ε={epsilon!r}, δ={delta!r}")
    q = 1.0 / (1.0 + math.exp(-epsilon))  # the accuracy of ε-DP randomised response, the best any guess can do
    tail = float(stats.binom.sf(v - 1, r, q))  # P[Binomial(r, q) >= v]
    alpha = 0.0
    if delta > 0 and v > 0:
        pmf = stats.binom.pmf(np.arange(v - 1, -1, -1), r, q)  # P[B = v-1], P[B = v-2], ..., P[B = 0]
        alpha = float(np.max(np.cumsum(pmf) / np.arange(1, v + 1)))
    return min(1.0, tail + 2.0 * m * delta * alpha)


def canary_epsilon(m: int, r: int, v: int, *, delta: float = 0.0, confidence: float = 0.95) -> float:
    """Canaries m, guesses r, correct guesses v, the claimed δ and the confidence in, ε̂ out: the largest ε whose
    p-value (canary_p_value) is below 1 − confidence, found by bisection (the p-value grows with ε); 0 if none."""
    if not 0.5 <= confidence < 1:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence!r}")
    level = 1.0 - confidence
    if canary_p_value(m, r, v, 0.0, delta) >= level:
        return 0.0
    lo, hi = 0.0, 1.0
    while canary_p_value(m, r, v, hi, delta) < level:
        lo, hi = hi, 2.0 * hi
        if hi > 1e4:  # every guess right and more of them than ε can explain: no finite bound is reached
            return math.inf
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if canary_p_value(m, r, v, mid, delta) < level:
            lo = mid
        else:
            hi = mid
    return lo


def guess_top_bottom(scores: np.ndarray, k_plus: int, k_minus: int) -> np.ndarray:
    """Scores in, guesses out: +1 (included) for the k_plus highest, −1 (excluded) for the k_minus lowest, 0
    (abstain) for the rest. k_plus and k_minus are fixed before the scores are seen, as the theorem requires."""
    s = np.asarray(scores, dtype=float)
    if k_plus < 0 or k_minus < 0 or k_plus + k_minus > s.size:
        raise ValueError(f"need 0 <= k+ + k- <= {s.size} canaries, got k+={k_plus}, k-={k_minus}")
    order = np.argsort(s, kind="stable")
    guesses = np.zeros(s.size, dtype=np.int8)
    guesses[order[:k_minus]] = -1
    if k_plus:
        guesses[order[s.size - k_plus:]] = 1
    return guesses


@dataclass(frozen=True)
class CanaryBound:
    """The guesses' tally and the ε̂ it gives."""

    epsilon: float  # ε̂, the lower confidence bound (0: nothing rejected)
    confidence: float
    canaries: int  # m
    guesses: int  # r (the rest abstained)
    correct: int  # v

    @classmethod
    def from_guesses(cls, guesses: np.ndarray, included: np.ndarray, *, delta: float,
                     confidence: float) -> "CanaryBound":
        """Guesses (+1 / −1 / 0) and the true inclusion bits in, the tally and its ε̂ out."""
        g = np.asarray(guesses)
        truth = np.where(np.asarray(included, dtype=bool), 1, -1)
        r = int(np.count_nonzero(g))
        v = int(np.count_nonzero((g != 0) & (g == truth)))
        eps = canary_epsilon(g.size, r, v, delta=delta, confidence=confidence)
        return cls(eps, confidence, int(g.size), r, v)
