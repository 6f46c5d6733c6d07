"""Privacy ledger and composition bounds (docs/PRIVACY_MODEL.md §0.6, §10; VECTORS.md V-COMP-1, V-LIB-2)."""
from __future__ import annotations

import math
import pickle

import opendp.prelude as dp
import pytest
from scipy.optimize import brentq

from eyedp_core.dp.accounting import (
    COMPOSITION_RULE,
    EVERYONE,
    Ledger,
    Release,
    advanced_composition,
    group_privacy,
    zcdp_rho,
    zcdp_to_dp,
)
from eyedp_core.dp.calibration import gaussian_delta

DELTA_900 = 900 ** -1.5
dp.enable_features("contrib")


def rel(view="Time series", label="LPA", unit="participant", eps=0.5, delta=0.0, count=1,
        participants=None, sensitivity_type="public", tuned=False) -> Release:
    return Release(view=view, label=label, unit=unit, mechanism="laplace", sensitivity_type=sensitivity_type,
                   epsilon=eps, delta=delta, count=count, participants=participants,
                   tuned_on_private_data=tuned)


# ---------------------------------------------------------------------------------------------
# Release


def test_release_charges_epsilon_times_count():
    r = rel(eps=0.01, delta=1e-7, count=48 * 36, participants=["p1", "p2"])
    assert r.participants == ("p1", "p2")  # normalised to a tuple, hashable
    assert r.epsilon_total == pytest.approx(17.28, rel=1e-12)  # V-COMP-1 per document
    assert r.delta_total == pytest.approx(1728e-7, rel=1e-12)
    assert r.covers("p1") and not r.covers("p3")
    assert rel().covers("anyone")


@pytest.mark.parametrize(
    "kwargs",
    [{"eps": -0.1}, {"eps": float("nan")}, {"delta": 1.0}, {"delta": -1e-9}, {"count": 0},
     {"count": 1.5}, {"unit": "person"}, {"sensitivity_type": "empirical"}, {"participants": "p1"}],
)
def test_release_validation(kwargs):
    with pytest.raises(ValueError):
        rel(**kwargs)


# ---------------------------------------------------------------------------------------------
# Ledger composition


def test_sequential_composition_per_participant():
    ledger = Ledger()
    ledger.add(rel(eps=0.5, delta=1e-6, count=2))                            # everyone
    ledger.add(rel(view="Heatmaps", eps=1.0, delta=1e-5, participants=["a", "b"]))
    ledger.add(rel(view="Heatmaps", label="map 2", eps=0.25, count=4, participants=["b"]))
    table = ledger.per_participant(["a", "b", "c"]).set_index("participant")
    assert list(table.index) == ["a", "b", "c"]
    assert table.loc["a", "epsilon"] == pytest.approx(0.5 * 2 + 1.0)
    assert table.loc["b", "epsilon"] == pytest.approx(0.5 * 2 + 1.0 + 0.25 * 4)
    assert table.loc["c", "epsilon"] == pytest.approx(0.5 * 2)
    assert table.loc["b", "delta"] == pytest.approx(2e-6 + 1e-5)
    assert table.loc["c", "delta"] == pytest.approx(2e-6)
    assert list(table["n_releases"]) == [2, 3, 1]
    assert list(table["n_invocations"]) == [3, 7, 2]
    assert ledger.total("b") == pytest.approx((3.0, 1.2e-5))
    assert ledger.total("unknown") == pytest.approx((1.0, 2e-6))  # only the everyone-release
    assert ledger.total() == pytest.approx((3.0, 1.2e-5))          # worst-case person is b


def test_parallel_composition_over_disjoint_participants():
    ledger = Ledger([rel(eps=1.0, participants=[f"p{i}"]) for i in range(10)])
    # ten releases, each on one person: nobody pays more than 1.0
    assert ledger.total() == pytest.approx((1.0, 0.0))
    assert (ledger.per_participant()["epsilon"] == 1.0).all()


def test_only_everyone_releases_give_one_row():
    ledger = Ledger([rel(eps=0.3), rel(eps=0.2, count=3)])
    table = ledger.per_participant()
    assert list(table["participant"]) == [EVERYONE]
    assert table.loc[0, "epsilon"] == pytest.approx(0.9)
    assert ledger.total() == pytest.approx((0.9, 0.0))
    assert Ledger().total() == (0.0, 0.0)
    assert Ledger().per_participant().empty


def test_v_comp_1_cfpa_participant_level_total():
    # 48 features x 36 chunks x ε 0.01 per document, three documents
    ledger = Ledger([rel(label=f"document {d}", unit="chunk", eps=0.01, count=48 * 36) for d in range(3)])
    assert ledger.total() == pytest.approx((51.84, 0.0), rel=1e-12)


def test_the_ledger_only_appends_and_clears():
    """Every release composes: no API removes or replaces one view's entries (docs/PRIVACY_MODEL.md §0.6)."""
    ledger = Ledger([rel(view="Heatmaps", eps=1.0), rel(view="Time series", eps=0.5)])
    assert not hasattr(ledger, "replace_view") and not hasattr(ledger, "remove")
    ledger.add(rel(view="Heatmaps", eps=1.0))
    assert len(ledger) == 3 and ledger.total() == pytest.approx((2.5, 0.0))
    ledger.releases.clear()  # a copy: the ledger itself is untouched
    assert len(ledger) == 3
    ledger.clear()
    assert len(ledger) == 0 and ledger.total() == (0.0, 0.0)


def test_every_release_composes():
    """The same release twice, a re-recording and a new setting all add up; nothing replaces."""
    ledger = Ledger()
    same = rel(view="Heatmaps", label="heatmap of 'comic'", unit="observer", eps=1.0, delta=1e-5,
               participants=["o1", "o2"])
    ledger.add(same)
    ledger.add(same)  # an identical second export is a second release
    ledger.add(rel(view="Time series", eps=0.5, participants=["o1"]))
    assert len(ledger) == 3
    assert ledger.total("o1") == pytest.approx((2.5, 2e-5))
    assert ledger.total("o2") == pytest.approx((2.0, 2e-5))
    assert "Every release composes" in COMPOSITION_RULE and "nothing ever replaces" in COMPOSITION_RULE


def test_to_frame_rows():
    ledger = Ledger([rel(eps=0.2, count=5, participants=["a"]), rel(view="Heatmaps", eps=1.0, delta=1e-5)])
    frame = ledger.to_frame()
    assert list(frame["view"]) == ["Time series", "Heatmaps"]
    assert frame.loc[0, "epsilon_total"] == pytest.approx(1.0)
    assert frame.loc[1, "delta_total"] == pytest.approx(1e-5)
    assert list(frame["participants"]) == ["a", "all"]


def test_the_budget_refuses_a_release_over_the_cap_and_adds_nothing():
    """budget.charge composes the candidate with the ledger per person: exactly at the cap fits, above it (in ε
    or δ) is refused with the numbers, and a refused batch leaves the ledger as it was."""
    from eyedp_core.dp import budget

    ledger = Ledger([rel(eps=0.75)])
    assert budget.refusal(ledger, [rel(eps=0.25)], epsilon_cap=1.0) is None
    assert "from 0.75 to 1.05" in budget.refusal(ledger, [rel(eps=0.3)], epsilon_cap=1.0)
    assert "δ" in budget.refusal(ledger, [rel(eps=0.1, delta=1e-5)], epsilon_cap=5.0, delta_cap=1e-6)
    with pytest.raises(budget.BudgetExceeded):
        budget.charge(ledger, [rel(eps=0.1), rel(eps=0.2)], epsilon_cap=1.0)
    assert ledger.total() == pytest.approx((0.75, 0.0))
    budget.charge(ledger, [rel(eps=0.25)], epsilon_cap=1.0)
    assert ledger.total() == pytest.approx((1.0, 0.0))


def test_ledger_pickles():
    ledger = Ledger([rel(eps=0.2, participants=["a", "b"]), rel(unit="chunk", count=3)])
    clone = pickle.loads(pickle.dumps(ledger))
    assert clone.releases == ledger.releases
    assert clone.per_participant().equals(ledger.per_participant())


def test_warnings_in_plain_language():
    assert Ledger([rel()]).warnings() == []
    ledger = Ledger([
        rel(label="emp", sensitivity_type="data-derived"),
        rel(label="tuned", tuned=True),
        rel(label="cfpa", unit="chunk", eps=0.01, count=36),
        rel(label="cfpa", unit="chunk", eps=0.01, count=36),  # duplicate entry, one warning
    ])
    msgs = ledger.warnings()
    assert len(msgs) == 3
    assert "emp" in msgs[0] and "not a DP guarantee" in msgs[0]
    assert "tuned" in msgs[1] and "stated ε excludes tuning" in msgs[1]
    assert "protects only one chunk, not the whole person" in msgs[2]
    assert "sum" in msgs[2] and "0.36" in msgs[2]
    # a mechanism without guarantee is recorded as ε = ∞ and gets exactly one, different sentence
    inf_msgs = Ledger([rel(label="steil", unit="record", eps=math.inf)]).warnings()
    assert len(inf_msgs) == 1 and "no differential-privacy guarantee" in inf_msgs[0]
    assert Ledger([rel(eps=math.inf)]).total() == (math.inf, 0.0)


# ---------------------------------------------------------------------------------------------
# composition bounds


def test_v_comp_1_advanced_composition():
    k, eps0, dp_ = 1728, 0.01, 1e-6
    expected = eps0 * math.sqrt(2 * k * math.log(1 / dp_)) + k * eps0 * (math.exp(eps0) - 1)
    assert advanced_composition(eps0, k, dp_) == pytest.approx(expected, rel=1e-12)
    assert advanced_composition(eps0, k, dp_) == pytest.approx(2.35876, abs=5e-6)
    # large ε0: advanced is worse than basic 36 * 0.5 = 18
    assert advanced_composition(0.5, 36, 1e-6) == pytest.approx(27.45, abs=5e-3)
    with pytest.raises(ValueError):
        advanced_composition(0.1, 10, 0.0)


def test_group_privacy():
    assert group_privacy(0.1, 0.0, 36) == pytest.approx((3.6, 0.0))
    eps, delta = group_privacy(0.2, 1e-6, 5)
    assert eps == pytest.approx(1.0)
    assert delta == pytest.approx(5 * math.exp(4 * 0.2) * 1e-6, rel=1e-12)
    assert group_privacy(0.7, 1e-5, 1) == pytest.approx((0.7, 1e-5))
    # L = C chunks reproduces the ledger's user-level total for a chunk-level release
    ledger = Ledger([rel(unit="chunk", eps=0.05, count=36)])
    assert group_privacy(0.05, 0.0, 36)[0] == pytest.approx(ledger.total()[0])
    with pytest.raises(ValueError):
        group_privacy(0.1, 0.0, 0)


def test_zcdp_rho():
    assert zcdp_rho(1 / 3, 1.1426220) == pytest.approx(0.0425522, rel=1e-5)
    assert zcdp_rho(2.0, 4.0) == pytest.approx(4 / 32)
    with pytest.raises(ValueError):
        zcdp_rho(1.0, 0.0)


@pytest.mark.parametrize(("sigma", "expected"), [(1.1426220, 1.1031687), (1.5221867, 0.8043281),
                                                 (1.5674167, 0.7788580)])
def test_v_lib_2_zcdp_conversion_matches_opendp(sigma, expected):
    rho = zcdp_rho(1 / 3, sigma)
    assert zcdp_to_dp(rho, DELTA_900) == pytest.approx(expected, rel=1e-6)
    # the textbook Bun–Steinke bound is looser and does NOT reproduce OpenDP's number
    standard = rho + 2 * math.sqrt(rho * math.log(1 / DELTA_900))
    assert zcdp_to_dp(rho, DELTA_900, method="bun-steinke") == pytest.approx(standard, rel=1e-12)
    assert standard > expected * 1.2


def test_v_lib_2_smallest_sigma_reported_below_one():
    sigma = brentq(lambda s: zcdp_to_dp(zcdp_rho(1 / 3, s), DELTA_900) - 1.0, 1.0, 2.0, xtol=1e-10)
    assert sigma == pytest.approx(1.2489703, rel=1e-6)


@pytest.mark.parametrize("rho", [1e-6, 0.01, 0.5, 3.0, 40.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 0.05])
def test_zcdp_conversion_sound_and_matches_opendp_profile(rho, delta):
    eps = zcdp_to_dp(rho, delta)
    assert 0 <= eps <= zcdp_to_dp(rho, delta, method="bun-steinke")
    # soundness against the exact Gaussian privacy profile: N(0, σ²) with Δ2 = 1 has ρ = 1/(2σ²)
    sigma = 1 / math.sqrt(2 * rho)
    # (δ(ε) decreases in ε, so checking at 1e-12 also covers an ε clipped to 0)
    assert gaussian_delta(sigma, 1.0, max(eps, 1e-12)) <= delta * (1 + 1e-9)
    # OpenDP's own conversion of a Gaussian measurement with the same ρ
    meas = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma)
    profile = dp.c.make_zCDP_to_approxDP(meas).map(1.0)
    assert eps == pytest.approx(profile.epsilon(delta), rel=1e-5, abs=1e-9)


def test_zcdp_to_dp_edges():
    assert zcdp_to_dp(0.0, 1e-6) == 0.0
    with pytest.raises(ValueError):
        zcdp_to_dp(0.1, 1.0)
    with pytest.raises(ValueError):
        zcdp_to_dp(0.1, 1e-6, method="renyi")


def test_advanced_composition_of_a_huge_epsilon0_is_infinite_not_an_overflow() -> None:
    import math

    from eyedp_core.dp.accounting import advanced_composition

    assert advanced_composition(800.0, 3, 1e-6) == math.inf
    assert advanced_composition(800.0, 0, 1e-6) == 0.0
    assert math.isfinite(advanced_composition(700.0, 1, 1e-6))
