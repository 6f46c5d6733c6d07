"""eyedp_core.audit.canary: Steinke, Nasr & Jagielski's one-run bound against direct binomial sums, and the
top/bottom guessing rule."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eyedp_core.audit.canary import CanaryBound, canary_epsilon, canary_p_value, guess_top_bottom


def _tail(r: int, v: int, q: float) -> float:
    """P[Binomial(r, q) ≥ v] summed term by term with exact binomial coefficients."""
    return math.fsum(math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(v, r + 1))


def _delta_term(m: int, r: int, v: int, q: float, delta: float) -> float:
    """2·m·δ·max_i P[v − i ≤ Binomial(r, q) < v]/i, written as the theorem states it (a loop over i)."""
    best = 0.0
    for i in range(1, v + 1):
        mass = math.fsum(math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(v - i, v))
        best = max(best, mass / i)
    return 2 * m * delta * best


@pytest.mark.parametrize(("m", "r", "v", "eps", "delta"),
                         [(1000, 100, 61, 0.3, 0.0), (1000, 100, 90, 1.0, 1e-6), (200, 40, 40, 2.0, 1e-5),
                          (50, 10, 3, 0.0, 0.0), (5000, 500, 400, 1.2, 1e-7)])
def test_p_value_equals_direct_binomial_sums(m, r, v, eps, delta):
    q = math.exp(eps) / (1 + math.exp(eps))
    expected = min(1.0, _tail(r, v, q) + _delta_term(m, r, v, q, delta))
    assert canary_p_value(m, r, v, eps, delta) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_all_correct_without_delta_has_a_closed_form():
    """v = r: the p-value is q^r, so ε̂ = logit((1 − confidence)^(1/r))."""
    p = 0.05 ** (1 / 100)
    assert canary_epsilon(1000, 100, 100, confidence=0.95) == pytest.approx(math.log(p / (1 - p)), abs=1e-9)


def test_epsilon_hat_sits_at_the_level_and_grows_with_correct_guesses():
    """At ε̂ the p-value crosses 1 − confidence; more correct guesses give a larger ε̂; chance gives 0."""
    eps = canary_epsilon(1000, 100, 80, delta=1e-6, confidence=0.95)
    assert canary_p_value(1000, 100, 80, eps * (1 - 1e-6), 1e-6) < 0.05 <= canary_p_value(1000, 100, 80,
                                                                                          eps * (1 + 1e-6), 1e-6)
    assert canary_epsilon(1000, 100, 90, delta=1e-6) > eps > canary_epsilon(1000, 100, 70, delta=1e-6) > 0
    assert canary_epsilon(1000, 100, 50) == 0.0
    assert canary_epsilon(1000, 100, 80, delta=1e-3) < canary_epsilon(1000, 100, 80, delta=0.0)


def test_guesses_take_the_top_and_bottom_scores():
    scores = np.array([0.3, -2.0, 5.0, 1.0, -0.5, 4.0])
    assert guess_top_bottom(scores, 2, 1).tolist() == [0, -1, 1, 0, 0, 1]
    with pytest.raises(ValueError, match="k\\+"):
        guess_top_bottom(scores, 4, 3)


def test_tally_counts_right_guesses_only():
    """Two right 'in', one wrong 'in', one right 'out', abstentions ignored."""
    bound = CanaryBound.from_guesses(np.array([1, 1, 1, -1, 0, 0]), np.array([1, 1, 0, 0, 1, 0], bool),
                                     delta=0.0, confidence=0.95)
    assert (bound.canaries, bound.guesses, bound.correct) == (6, 4, 3)
