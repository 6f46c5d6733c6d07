"""The (ε, δ) readings shown on the Home page."""
import numpy as np
import pytest

from eyedp_core.dp import explain


def test_posterior_bound_is_bayes_with_likelihood_ratio_e_eps():
    """Posterior = prior·L/(prior·L + 1 − prior) with L = e^ε, recomputed here."""
    prior = np.array([0.01, 0.2, 0.5, 0.9])
    for eps in (0.1, 1.0, 3.0):
        lr = np.exp(eps)
        expected = prior * lr / (prior * lr + (1 - prior))
        np.testing.assert_allclose(explain.posterior_bound(prior, eps), expected, rtol=1e-12)


def test_posterior_bound_with_delta_is_capped_at_one():
    """δ adds slack, never beyond certainty."""
    assert explain.posterior_bound(0.99, 5.0, delta=0.5) == 1.0
    assert explain.posterior_bound(0.5, 0.0, delta=0.1) == pytest.approx(0.6)


def test_odds_factor_and_bad_inputs():
    """e^ε, and clear errors for impossible inputs."""
    assert explain.odds_factor(np.log(3)) == pytest.approx(3.0)
    with pytest.raises(ValueError):
        explain.odds_factor(-1)
    with pytest.raises(ValueError):
        explain.posterior_bound(1.0, 1.0)
