"""The ledger's accountants: zCDP per person (ρ-carrying entries in zCDP, the rest basic on top) against independent
computations, the charge enforced under the accountant it states and stored with it, old chains still verifying
(docs/PRIVACY_MODEL.md §0.6)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import norm

from eyedp_core.dp import budget
from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger, Release, compose, gaussian_rho
from eyedp_core.dp.budget import BudgetExceeded
from eyedp_core.dp.ledger_codec import release_from_json, release_to_json
from eyedp_core.dp.store import EventKind, open_ledger

ZCDP = Accountant.ZCDP
BASIC = Accountant.BASIC


def gauss(eps: float = 1.0, delta: float = 1e-6, **kw) -> Release:
    return Release(view="Heatmaps", label="map", unit="observer", mechanism="gaussian", sensitivity_type="public",
                   epsilon=eps, delta=delta, rho=gaussian_rho(eps, delta), **kw)


def pure(eps: float, **kw) -> Release:
    return Release(view="AOI", label="sums", unit="observer", mechanism="laplace", sensitivity_type="public",
                   epsilon=eps, **kw)


def other(eps: float, delta: float, **kw) -> Release:
    return Release(view="X", label="approx", unit="observer", mechanism="some (ε, δ) mechanism",
                   sensitivity_type="public", epsilon=eps, delta=delta, **kw)


def cks_epsilon(rho: float, delta: float) -> float:
    """Canonne–Kamath–Steinke 2020 Cor. 13 written out: min over a dense grid of α > 1 (independent of the app)."""
    alpha = 1.0 + np.exp(np.linspace(-12.0, 12.0, 2_000_001))
    val = rho * alpha + (math.log(1 / delta) + (alpha - 1) * np.log1p(-1 / alpha) - np.log(alpha)) / (alpha - 1)
    return float(val.min())


def test_gaussian_rho_is_that_of_the_smallest_sigma_achieving_eps_delta():
    """ρ = 1/(2σ²) with σ the analytic Gaussian's: at that σ the exact privacy profile gives δ(ε) = δ (Balle–Wang
    2018, Thm 8, evaluated with scipy's normal CDF)."""
    for eps, delta in [(1.0, 1e-6), (0.3, 1e-5), (4.0, 1e-7)]:
        sigma = 1.0 / math.sqrt(2.0 * gaussian_rho(eps, delta))
        profile = norm.cdf(0.5 / sigma - eps * sigma) - math.exp(eps) * norm.cdf(-0.5 / sigma - eps * sigma)
        assert profile == pytest.approx(delta, rel=1e-6)


def test_twenty_gaussian_entries_against_independent_zcdp_accounting():
    """20 Gaussian entries at (1, 1e-6) under δ cap 1e-5: Σρ converted by CKS, checked against the formula written
    out here and against Google's dp_accounting RDP accountant (the same Gaussian, 20-fold, at the same δ)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    entries = [gauss(1.0, 1e-6) for _ in range(20)]
    t = Ledger(entries).worst_case(accountant=ZCDP, delta_cap=1e-5)
    rho = 20 * gaussian_rho(1.0, 1e-6)
    assert t.rho == pytest.approx(rho, rel=1e-12)
    assert t.epsilon == pytest.approx(cks_epsilon(rho, 1e-5), rel=1e-6)
    assert (t.delta, t.basic_epsilon, t.basic_delta) == (1e-5, 20.0, pytest.approx(2e-5))
    sigma = 1.0 / math.sqrt(2.0 * gaussian_rho(1.0, 1e-6))
    acc = dp_accounting.rdp.RdpAccountant(orders=list(np.linspace(1.01, 200, 20_000)))
    acc.compose(dp_accounting.GaussianDpEvent(sigma), 20)
    google = acc.get_epsilon(1e-5)
    # dp_accounting converts RDP with the same CKS/Asoodeh bound on a finite grid of orders: never below ours.
    assert t.epsilon <= google <= t.epsilon * (1 + 1e-3)
    assert 5.0 < t.epsilon < 5.1  # 20 under basic composition (and δ = 2e-5, over the δ cap)


def test_other_entries_add_basically_on_top_with_delta_taken_from_the_cap():
    """A Gaussian group and an (ε, δ) entry without ρ: (ε_z(Σρ, δ_cap − δ_o) + ε_o, δ_cap)."""
    entries = [gauss(1.0, 1e-6) for _ in range(10)] + [other(0.5, 3e-6)]
    t = compose(entries, ZCDP, 1e-5)
    rho = 10 * gaussian_rho(1.0, 1e-6)
    assert t.epsilon == pytest.approx(cks_epsilon(rho, 1e-5 - 3e-6) + 0.5, rel=1e-6)
    assert t.delta == 1e-5
    # δ of the others already at the δ cap: nothing is left for the zCDP group's δ, so basic composition is stated.
    t2 = compose([gauss(), other(0.5, 1e-5)], ZCDP, 1e-5)
    assert (t2.epsilon, t2.delta) == (t2.basic_epsilon, t2.basic_delta) == (1.5, pytest.approx(1.1e-5))


def test_count_multiplies_rho():
    one = compose([gauss(0.5, 1e-7, count=6)], ZCDP, 1e-5)
    six = compose([gauss(0.5, 1e-7) for _ in range(6)], ZCDP, 1e-5)
    assert one == six and one.rho == pytest.approx(6 * gaussian_rho(0.5, 1e-7))


def test_zcdp_needs_its_delta_cap():
    with pytest.raises(ValueError, match="δ cap"):
        compose([gauss()], ZCDP, None)


def _random_ledger(rng: np.random.Generator) -> tuple[list[Release], list[str]]:
    people = [f"P{i}" for i in range(int(rng.integers(1, 5)))]
    out = []
    for _ in range(int(rng.integers(1, 12))):
        who = None if rng.random() < 0.3 else tuple(rng.choice(people, int(rng.integers(1, len(people) + 1)),
                                                               replace=False))
        kind, eps, count = rng.integers(0, 3), float(rng.uniform(0.01, 3.0)), int(rng.integers(1, 4))
        if kind == 0:
            out.append(pure(eps, count=count, participants=who))
        elif kind == 1:
            out.append(gauss(eps, float(10 ** rng.uniform(-9, -7)), count=count, participants=who))
        else:
            out.append(other(eps, float(10 ** rng.uniform(-9, -7)), count=count, participants=who))
    return out, people


def test_random_ledgers_zcdp_never_above_basic_never_below_one_entry():
    """Seeded random ledgers (pure, Gaussian with ρ, (ε, δ) without ρ; counts; named and everyone): per person the
    zCDP total is at most basic (whenever basic's δ is within the cap), at least the largest single pure entry's ε,
    within the δ cap, and exactly basic when no entry has a ρ."""
    rng = np.random.default_rng(20261202)
    delta_cap = 1e-5
    for _ in range(300):
        entries, people = _random_ledger(rng)
        led = Ledger(entries)
        basic = led.per_participant(people)
        z = led.per_participant(people, accountant=ZCDP, delta_cap=delta_cap)
        assert list(z["participant"]) == list(basic["participant"])
        assert np.allclose(z["basic_epsilon"], basic["epsilon"]) and np.allclose(z["basic_delta"], basic["delta"])
        for who, row in zip(z["participant"], z.to_dict("records")):
            mine = [r for r in entries if r.covers(who)]
            if row["basic_delta"] <= delta_cap:
                assert row["epsilon"] <= row["basic_epsilon"] * (1 + 1e-12)
                assert row["delta"] <= delta_cap * (1 + 1e-12)
            singles = [r.epsilon_total for r in mine if r.delta == 0]
            if singles:
                assert row["epsilon"] >= max(singles) * (1 - 1e-12)
        no_rho = [r for r in entries if r.rho is None and r.delta > 0]
        assert Ledger(no_rho).per_participant(people, accountant=ZCDP, delta_cap=delta_cap)[
            ["epsilon", "delta"]].equals(Ledger(no_rho).per_participant(people)[["epsilon", "delta"]])


def test_a_charge_over_the_cap_in_basic_fits_under_zcdp_and_is_stored_with_its_accountant(tmp_path):
    led = open_ledger(tmp_path / "ledger.sqlite", "study")
    batch = [gauss(participants=("O1", "O2")) for _ in range(20)]
    with pytest.raises(BudgetExceeded, match="from 0 to 20"):
        led.charge(batch, 10.0, 1e-5)
    with pytest.raises(ValueError, match="δ cap"):
        led.charge(batch, 10.0, None, accountant=ZCDP)
    led.charge(batch, 10.0, 1e-5, accountant=ZCDP)
    events = led.events()
    refused = [e for e in events if e.kind is EventKind.REFUSAL]
    charged = [e for e in events if e.kind is EventKind.RELEASE]
    assert len(refused) == 1 and "accountant" not in refused[0].payload
    assert len(charged) == 20 and all(e.payload["accountant"] == "zcdp" for e in charged)
    assert led.accounting() == (ZCDP, 1e-5) and led.verify().ok
    t = led.worst_case(accountant=ZCDP, delta_cap=1e-5)
    assert t.epsilon == pytest.approx(cks_epsilon(20 * gaussian_rho(1.0, 1e-6), 1e-5), rel=1e-6)
    assert led.total() == (20.0, pytest.approx(2e-5))  # basic composition, shown beside it
    # A further Gaussian entry that zCDP still holds under the cap, and one it does not.
    led.charge([gauss(participants=("O1",))], 10.0, 1e-5, accountant=ZCDP)
    with pytest.raises(BudgetExceeded, match="counted by zCDP"):
        led.charge([gauss(12.0, 1e-6, participants=("O2",))], 10.0, 1e-5, accountant=ZCDP)


def test_the_charge_checks_the_people_it_covers():
    """O1 is past the cap under basic composition (charged under zCDP); a basic release about O9 only is not
    refused for O1's total, one about O1 is."""
    led = Ledger()
    budget.charge(led, [gauss(participants=("O1",)) for _ in range(20)], 10.0, 1e-5, ZCDP)
    assert led.accounting() == (ZCDP, 1e-5)
    budget.charge(led, [pure(1.0, participants=("O9",))], 10.0)
    with pytest.raises(BudgetExceeded):
        budget.charge(led, [pure(1.0, participants=("O1",))], 10.0)
    with pytest.raises(BudgetExceeded):  # everyone, O1 included
        budget.charge(led, [pure(1.0)], 10.0)
    assert len(led) == 21


def test_entries_and_chains_written_before_the_accountant_still_verify_and_decode(tmp_path):
    """An entry of the earlier format (no rho, no accountant) hashes and decodes as before; a chain holding them,
    then a zCDP charge, verifies end to end; the old entries count as basic charges."""
    old_release = {"count": 1, "data_derived_parameters": [], "delta": "0.0", "epsilon": "0.7", "label": "LPA",
                   "meaning": "", "mechanism": "laplace", "participants": ["P1"], "sensitivity_type": "public",
                   "tuned_on_private_data": False, "unit": "participant", "view": "Time series"}
    r = release_from_json(old_release)
    assert r.rho is None and release_to_json(r) == old_release  # the same payload, so the same hash
    assert "rho" in release_to_json(gauss())
    assert release_from_json(json.loads(json.dumps(release_to_json(gauss())))) == gauss()
    led = open_ledger(tmp_path / "ledger.sqlite", "study")
    old_payload = {"release": old_release, "context": {}, "epsilon_cap": "10.0", "delta_cap": None, "part": 1,
                   "parts": 1}
    led._write("writing an old entry", lambda con: led._append(con, EventKind.RELEASE, old_payload))
    assert led.verify().ok and led.accounting() == (BASIC, None)
    assert led.releases == [r]
    led.charge([gauss(participants=("P1",))], 10.0, 1e-5, accountant=ZCDP)
    check = led.verify()
    assert check.ok and check.entries == 3
    assert led.accountings() == [(BASIC, None), (ZCDP, 1e-5)]
    t = led.worst_case(accountant=ZCDP, delta_cap=1e-5)
    assert t.rho == pytest.approx(0.7 ** 2 / 2 + gaussian_rho(1.0, 1e-6), rel=1e-12)


def test_the_report_states_the_total_under_the_accountant_its_charges_were_checked_under(tmp_path):
    from eyedp_core.report.chain import report_ledger
    from eyedp_core.report.html import ReportInput, build_html
    from eyedp_core.report.tables import BASIC_EPSILON, ZCDP_EPSILON, person_table

    led = open_ledger(tmp_path / "ledger.sqlite", "study")
    led.charge([gauss(participants=("O1", "O2")) for _ in range(20)], 10.0, 1e-5, accountant=ZCDP)
    copy, stamp = report_ledger(led)
    assert copy.accounting() == (ZCDP, 1e-5) and stamp is not None and stamp.entries == 21
    t = copy.stated()
    assert t.epsilon == pytest.approx(cks_epsilon(20 * gaussian_rho(1.0, 1e-6), 1e-5), rel=1e-6)
    people = person_table(copy, 10.0)
    assert list(people[ZCDP_EPSILON]) == [pytest.approx(t.epsilon)] and list(people[BASIC_EPSILON]) == [20.0]
    assert float(people["Cap left (ε)"].iloc[0]) == pytest.approx(10.0 - t.epsilon)
    html = build_html(ReportInput(ledger=copy, artefacts=[], data={}, config_json="{}", version={},
                                  epsilon_cap=10.0, chain=stamp))
    assert f"{t.epsilon:.4g}" in html and "counted by zCDP at the δ cap 1e-05" in html
    assert "basic composition counts ε = 20, δ = 2e-05" in html
    # A ledger charged only under basic composition keeps its basic columns and words.
    plain = Ledger([pure(1.0, participants=("O1",))])
    assert "Total ε" in person_table(plain).columns and plain.stated().accountant is BASIC
