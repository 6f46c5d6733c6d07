"""The auditing estimator: Clopper–Pearson bounds against scipy's exact binomial test, and ε̂ on two Laplace
distributions whose privacy loss is known in closed form."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from eyedp_core.audit.estimator import clopper_pearson, epsilon_lower_bound


@pytest.mark.parametrize(("k", "n"), [(0, 50), (3, 50), (25, 50), (50, 50), (917, 10_000)])
def test_clopper_pearson_matches_the_exact_binomial_interval(k: int, n: int) -> None:
    lo, hi = clopper_pearson(k, n, 0.025)
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
    assert float(lo) == pytest.approx(ci.low, abs=1e-12)
    assert float(hi) == pytest.approx(ci.high, abs=1e-12)


def test_epsilon_hat_stays_under_a_one_dimensional_laplace_loss_and_comes_close() -> None:
    # Lap(0, 1) against Lap(ε, 1): the privacy loss is exactly ε, reached on a half-line of mass 1/2 vs e^-ε/2.
    eps = 1.5
    found = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        a, b = rng.laplace(0, 1, 40_000), rng.laplace(eps, 1, 40_000)
        found.append(epsilon_lower_bound(a, b, confidence=0.95).epsilon)
    # At 95 % each run exceeds ε with probability ≤ 5 %: 7 or more of 20 runs above ε has probability < 1e-4
    # (binomial(20, 0.05) tail), so a count that high means the bound is not valid.
    assert sum(f > eps for f in found) <= 6, found
    assert stats.binom.sf(6, 20, 0.05) < 1e-4
    assert min(found) > 0.8 * eps, found  # the threshold test is optimal here: ε̂ approaches ε


def test_a_delta_is_subtracted_from_the_true_positive_rate() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 1, 20_000), rng.normal(2, 1, 20_000)
    plain = epsilon_lower_bound(a, b).epsilon
    assert epsilon_lower_bound(a, b, delta=0.2).epsilon < plain
    assert epsilon_lower_bound(a, b, delta=1.0).epsilon == 0.0


def test_identical_distributions_give_no_evidence() -> None:
    rng = np.random.default_rng(2)
    found = [epsilon_lower_bound(rng.normal(size=5_000), rng.normal(size=5_000)).epsilon for _ in range(10)]
    assert max(found) < 0.3 and all(math.isfinite(f) for f in found)


def test_too_few_draws_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 20"):
        epsilon_lower_bound(np.zeros(5), np.ones(5))
