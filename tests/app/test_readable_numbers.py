"""ui.widgets.odds_words and bounded_percent: numbers a teacher can read, never a false 100 % or an 'e+08'."""
from __future__ import annotations

import math

import pytest

from eyedp_core.dp import explain
from ui.widgets import bounded_percent, odds_words


@pytest.mark.parametrize("factor, text", [
    (1.0, "1 to one"), (math.e, "2.72 to one"), (1.105, "1.1 to one"), (20.09, "20.1 to one"),
    (148.41, "148 to one"), (22026.47, "22,026 to one"), (999_999.0, "999,999 to one"),
    (1.5e6, "more than a million to one"), (4.85e8, "more than a million to one"),
    (2e9, "more than a billion to one"), (1e15, "more than a trillion to one"),
    (math.inf, "more than a trillion to one"),
])
def test_odds_words(factor, text):
    assert odds_words(factor) == text


def test_odds_words_at_the_home_page_extremes():
    """The Home slider runs from ε = 0.01 to 20: e^20 = 4.85e8 reads in words, e^0.01 as 1.01."""
    assert odds_words(explain.odds_factor(20.0)) == "more than a million to one"
    assert odds_words(explain.odds_factor(0.01)) == "1.01 to one"
    assert "e+" not in odds_words(explain.odds_factor(14.0))  # 1.2e6


@pytest.mark.parametrize("bad", [float("nan"), -1.0])
def test_odds_words_rejects_non_factors(bad):
    with pytest.raises(ValueError):
        odds_words(bad)


@pytest.mark.parametrize("p, text", [
    (0.5, "50.0 %"), (0.731, "73.1 %"), (0.9994, "99.9 %"), (0.99951, "> 99.9 %"), (1 - 1e-12, "> 99.9 %"),
    (1.0, "100 %"), (0.0, "0 %"), (0.0004, "< 0.1 %"), (0.0005, "0.1 %"),
])
def test_bounded_percent(p, text):
    assert bounded_percent(p) == text


def test_bounded_percent_other_precision_and_the_posterior_at_eps_20():
    assert bounded_percent(0.99996, decimals=2) == "> 99.99 %"
    post = float(explain.posterior_bound(0.5, 20.0))
    assert post < 1.0 and bounded_percent(post) == "> 99.9 %"


@pytest.mark.parametrize("bad", [float("nan"), -0.1, 1.1])
def test_bounded_percent_rejects_non_probabilities(bad):
    with pytest.raises(ValueError):
        bounded_percent(bad)
