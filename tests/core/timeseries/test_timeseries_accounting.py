"""Participant-level versus paper accounting for the time-series mechanisms (V-COMP-1, §3, §4, §10)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from eyedp_core.dp.accounting import Ledger
from eyedp_core.timeseries.accounting import epsilon_plan, plan_releases, sub_participant_bounds


def test_v_comp_1_cfpa_participant_total_and_advanced_composition():
    doc = epsilon_plan("paper", 0.01, "cfpa", 32, 1140, 48, 1)
    assert doc.n_chunks == math.ceil(1140 / 32) == 36
    assert doc.paper_total == pytest.approx(0.48)
    assert doc.participant_total == pytest.approx(48 * 36 * 0.01) == pytest.approx(17.28)
    assert epsilon_plan("paper", 0.01, "cfpa", 32, 1140, 48, 3).participant_total == pytest.approx(51.84)
    table = sub_participant_bounds(doc, delta_prime=1e-6).set_index("scope")
    adv = table.loc["participant, advanced composition", "epsilon"]
    assert adv == pytest.approx(0.01 * math.sqrt(2 * 1728 * math.log(1e6)) + 1728 * 0.01 * math.expm1(0.01))
    assert adv == pytest.approx(2.35876, rel=1e-5)
    # 36 mechanisms of ε0 = 0.5: advanced composition (27.45) is worse than basic (18), so it is not shown.
    big = sub_participant_bounds(epsilon_plan("paper", 0.5, "cfpa", 32, 1140, 1, 1))
    assert not big.scope.str.contains("advanced").any()


@pytest.mark.parametrize(
    "mech,chunk,c",
    [("lpa", None, 1), ("fpa", None, 1), ("cfpa", 64, 9), ("dcfpa", 128, 5), ("steil", None, 1)],
)
def test_participant_mode_splits_the_total_evenly(mech, chunk, c):
    plan = epsilon_plan("participant", 2.0, mech, chunk, 541, 35, 3)
    assert plan.n_chunks == c
    assert plan.per_invocation == pytest.approx(2.0 / (35 * c * 3))
    assert plan.participant_total == pytest.approx(2.0)
    paper = epsilon_plan("paper", 2.0, mech, chunk, 541, 35, 3)
    assert paper.per_invocation == 2.0 and paper.participant_total == pytest.approx(2.0 * 35 * c * 3)
    assert plan.unit == ("chunk" if mech in ("cfpa", "dcfpa") else "record")


def test_releases_compose_to_the_participant_total_in_the_ledger():
    plan = epsilon_plan("paper", 0.1, "dcfpa", 32, 541, 35, 3)
    ledger = Ledger()
    for r in plan_releases(plan, participants=("P01", "P02")):
        ledger.add(r)
    assert ledger.total("P01")[0] == pytest.approx(plan.participant_total) == pytest.approx(0.1 * 35 * 17 * 3)
    assert ledger.total("P03")[0] == 0.0
    assert any("chunk" in w for w in ledger.warnings())
    tuned = plan_releases(plan, sensitivity_type="data-derived", tuned_on_private_data=True)[0]
    assert tuned.tuned_on_private_data and tuned.sensitivity_type == "data-derived"


def test_published_steil_has_no_guarantee():
    plan = epsilon_plan("paper", 15 / 52, "steil-published", None, 120, 52, 1)
    assert math.isinf(plan.participant_total)
    release = plan_releases(plan)[0]
    assert math.isinf(release.epsilon)
    assert (sub_participant_bounds(plan).kind == "no guarantee").all()


def test_group_bound_and_markov_estimate():
    plan = epsilon_plan("paper", 0.1, "cfpa", 32, 541, 1, 1)
    table = sub_participant_bounds(plan, delta=1e-6, backward=np.eye(2)).set_index("kind")
    group = table.loc["rigorous"].iloc[0]
    assert group.epsilon == pytest.approx(17 * 0.1)
    assert group.delta == pytest.approx(17 * math.exp(16 * 0.1) * 1e-6)
    # Identity chain: leakage adds up linearly, so the Markov estimate meets the group bound.
    assert table.loc["model-based estimate", "epsilon"] == pytest.approx(17 * 0.1)
    mixing = sub_participant_bounds(plan, backward=np.array([[0.8, 0.2], [0.1, 0.9]])).set_index("kind")
    assert 0.1 < mixing.loc["model-based estimate", "epsilon"] < 17 * 0.1


def test_plan_rejects_bad_inputs():
    with pytest.raises(ValueError):
        epsilon_plan("paper", 1.0, "cfpa", None, 100, 1)
    with pytest.raises(ValueError):
        epsilon_plan("nonsense", 1.0, "fpa", None, 100, 1)
    with pytest.raises(ValueError):
        epsilon_plan("paper", 0.0, "fpa", None, 100, 1)
