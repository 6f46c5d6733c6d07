"""The page's public choices in the core: the declared length T (with its ledger caveat) and k."""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.dp.accounting import Ledger
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.accounting import epsilon_plan, plan_releases
from eyedp_core.timeseries.choices import (
    DEFAULT_LENGTH,
    KSource,
    LengthSource,
    analytic_k,
    choose_k,
    public_length,
    rule_k,
)
from eyedp_core.timeseries.k import expected_error_curve, public_k
from eyedp_core.timeseries.k_search import optimal_k
from eyedp_core.timeseries.setting import MechanismSetting


def test_default_length_is_the_same_for_any_data():
    """Would catch a default T read off the data: longest recordings of 79 and 659 give the same T."""
    short = public_length(LengthSource.DECLARED, longest=79)
    long = public_length(LengthSource.DECLARED, longest=659)
    assert short == long and short.value == DEFAULT_LENGTH and not short.data_derived and short.caveats == ()


def test_data_derived_length_becomes_a_ledger_caveat():
    """Would catch a data-derived T recorded as public: the release names it and ledger.warnings() says so."""
    t = public_length("data", longest=659)
    assert t.value == 659 and t.data_derived
    plan = epsilon_plan("paper", 0.5, Mech.CFPA, 32, t.value, 4, 1)
    ledger = Ledger()
    for release in plan_releases(plan, data_derived_parameters=t.caveats):
        ledger.add(release)
    (release,) = ledger.releases
    assert release.data_derived_parameters == ("length T = 659 windows (longest recording)",)
    assert any("length T = 659 windows (longest recording) was read off the private data" in w
               for w in ledger.warnings())
    declared = Ledger(plan_releases(epsilon_plan("paper", 0.5, Mech.CFPA, 32, DEFAULT_LENGTH, 4, 1)))
    assert not any("length T" in w for w in declared.warnings())
    with pytest.raises(ValueError):
        public_length(LengthSource.DATA)


def test_choose_k_rule_analytic_optimal_manual_and_flags():
    """k from the public rule is not tuned; the analytic minimum and the paper's search are; LPA never is."""
    rng = np.random.default_rng(0)
    xf = np.clip(0.5 + np.cumsum(rng.normal(0, 0.02, size=(6, 64)), axis=1), 0, 1)
    rule = choose_k(Mech.CFPA, 32, 20.0, KSource.RULE)
    assert rule.k == rule_k(Mech.CFPA, 32, 20.0) == int(public_k(32, epsilon=20.0))
    assert not rule.tuned_on_private_data and rule.k_max == 17
    curve = expected_error_curve(xf, method=Mech.CFPA, epsilon=20.0, chunk=32, bounds=(0, 1))
    analytic = choose_k(Mech.CFPA, 32, 20.0, "analytic", curve=curve)
    assert analytic.k == analytic_k(curve) == int(curve.k[curve.total.idxmin()])
    assert analytic.tuned_on_private_data
    search = optimal_k(xf, MechanismSetting(mech=Mech.CFPA, epsilon=20.0, chunk=32), bounds=(0, 1), runs=5, rng=rng)
    assert choose_k(Mech.CFPA, 32, 20.0, KSource.OPTIMAL, search=search).k == search.k
    manual = choose_k(Mech.DCFPA, 32, 20.0, KSource.MANUAL, manual=99)
    assert manual.k == 17 and not manual.tuned_on_private_data  # clipped to ⌊n/2⌋+1
    assert not choose_k(Mech.LPA, 64, 1.0, KSource.OPTIMAL, manual=1).tuned_on_private_data
    assert rule_k(Mech.DCFPA, 32, 20.0) == int(public_k(32, epsilon=20.0, difference=True))
    with pytest.raises(ValueError):
        choose_k(Mech.FPA, 64, 1.0, KSource.ANALYTIC)
