"""AppTest: a plan stated under zCDP is released and charged at its zCDP total, checked under zCDP at the plan's
δ and recorded so (docs/PRIVACY_MODEL.md §0.6, §17): the ledger, the page and the report state what was enforced."""
from __future__ import annotations

import os

import pytest

from eyedp_core.data.bundled import load_sample
from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger
from eyedp_core.dp.store import EventKind, StoredLedger
from eyedp_core.plan.allocate import allocate
from eyedp_core.plan.inputs import inputs_from_fixations
from eyedp_core.plan.schema import StudyPlan
from eyedp_core.report.tables import BASIC_EPSILON, ZCDP_EPSILON, person_table
from tests.apptest import open_app, page_text
from ui.plan import release

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/plan.py"
STIMULI = ["comic", "portrait", "webpage"]


def test_a_zcdp_plan_is_charged_its_zcdp_total_and_the_ledger_says_so() -> None:
    at = open_app(PAGE)
    at.multiselect(key="planedit_stimuli").set_value(STIMULI).run()
    at.button(key="planedit_add_hm").click().run()
    at.radio(key="planedit_acct").set_value("zcdp").run()
    assert not at.exception, at.exception
    plan = StudyPlan.from_json(at.session_state["plan_json"])
    assert plan.cap.accountant is Accountant.ZCDP
    expanded, inputs = inputs_from_fixations(load_sample("fixations"), plan, table_name="Sample: fixations")
    alloc = allocate(expanded, expanded.cap, inputs)
    total = alloc.total
    # Three Gaussian heatmaps under cap 10: basic composition would count more than the cap, zCDP fits it.
    assert total.epsilon == pytest.approx(10.0, rel=1e-6) and total.basic_epsilon > 10.5
    text = page_text(at)
    assert "charged under the plan's accountant" in text and "it fits" in text
    assert "basic total" not in text

    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    led = at.session_state["eyedp_ledger"]
    got = led.releases
    planned = [e for c in release.planned_charges(alloc, load_sample("fixations"), "Sample: fixations")
               for e in c.entries]
    assert len(got) == len(planned) == 3 and all(r.rho is not None for r in got)
    # Exactly the plan's stated zCDP total per observer, and basic composition beside it.
    charged = Ledger(got).worst_case(accountant=Accountant.ZCDP, delta_cap=plan.cap.delta)
    assert charged.epsilon == pytest.approx(total.epsilon, rel=1e-9)
    assert charged.basic_epsilon == pytest.approx(total.basic_epsilon, rel=1e-9)
    assert led.accounting() == (Accountant.ZCDP, plan.cap.delta)
    assert led.stated().epsilon == pytest.approx(total.epsilon, rel=1e-9)
    assert isinstance(led, StoredLedger)  # the study's stored ledger (tests/conftest.py points it at a test file)
    events = [e for e in led.events() if e.kind is EventKind.RELEASE][-3:]
    assert all(e.payload["accountant"] == "zcdp" for e in events)
    assert float(events[0].payload["delta_cap"]) == plan.cap.delta and led.verify().ok
    summary = at.session_state["planrel_result"]["summary"]
    assert "counted by zCDP" in summary and "basic composition" in summary
    people = person_table(led.snapshot_ledger()[0])
    assert {ZCDP_EPSILON, BASIC_EPSILON} <= set(people.columns)
    assert float(people[ZCDP_EPSILON].max()) == pytest.approx(total.epsilon, rel=1e-9)


def test_the_lead_says_when_basic_composition_is_the_smaller_total_under_zcdp() -> None:
    """One Laplace heatmap under a zCDP cap of 10: zCDP's own count (ρ = ε²/2 = 50 at the cap's δ) is far above basic
    composition's ε = 10, so the stated total is basic's and the lead says so with both numbers."""
    from eyedp_core.dp.accounting import zcdp_to_dp
    from eyedp_core.plan.accounting import plan_total

    text = ('{"study": "one", "cap": {"epsilon": 10, "accountant": "zcdp"}, "outputs": [{"kind": "heatmap", '
            '"stimulus": "comic", "width": 1280, "height": 800, "mechanism": "laplace"}]}')
    plan = StudyPlan.from_json(text)
    total = plan_total(plan.outputs, [10.0], plan.cap)
    assert total.epsilon == pytest.approx(10.0) and total.rho is not None
    assert total.zcdp_epsilon == pytest.approx(zcdp_to_dp(total.rho, plan.cap.delta), rel=1e-12)
    assert total.zcdp_epsilon > 10.0
    at = open_app(PAGE)
    at.session_state["plan_json"] = text
    at.run()
    assert not at.exception, at.exception
    lead = at.markdown[0].value
    assert "basic composition (ε = 10, δ = 0) is smaller than the zCDP count (ε = 96" in lead, lead
    assert "so it is the total stated" in lead
