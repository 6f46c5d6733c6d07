"""Plain-number readings of (ε, δ) for the teaching texts: what an attacker can learn at most."""
from __future__ import annotations

import numpy as np


def odds_factor(epsilon: float) -> float:
    """ε -> e^ε, the largest factor by which any attacker's odds about one person can grow."""
    if epsilon < 0:
        raise ValueError("epsilon must be non-negative")
    return float(np.exp(epsilon))


def posterior_bound(prior: np.ndarray | float, epsilon: float, delta: float = 0.0) -> np.ndarray:
    """Prior belief(s) in (0,1) and (ε, δ) -> the highest posterior an attacker can reach.

    Pure ε-DP bounds the posterior odds by e^ε times the prior odds; with δ > 0 we add δ, the
    probability mass on which the guarantee may fail (a standard, slightly loose reading).
    """
    p = np.asarray(prior, dtype=float)
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("prior must lie strictly between 0 and 1")
    odds = p / (1 - p) * np.exp(epsilon)
    return np.minimum(odds / (1 + odds) + delta, 1.0)
