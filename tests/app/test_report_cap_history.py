"""The report states the study's cap history: after a raise and a lower, every change is listed with its time and
the reason typed beside the slider, the verdict says in words that the cap was raised, and the cap it states is
the one the page shows."""
from __future__ import annotations

import re

from eyedp_core.report.html import fmt
from tests.apptest import open_app


def _nearest(slider, target: float) -> float:
    return min((float(o) for o in slider.options), key=lambda v: abs(v - target))


def _set_cap(at, cap: float, reason: str) -> None:
    at.text_input(key="ledger_cap_reason").input(reason).run()
    at.slider(key="rp_cap").set_value(cap).run()
    assert not at.exception, at.exception


def test_a_raise_and_a_lower_are_in_the_report_with_their_reasons() -> None:
    at = open_app(timeout=300, page="pages/report.py")
    _set_cap(at, 100.0, "the board allowed a pilot")
    at.switch_page("pages/heatmaps.py").run()
    eps = _nearest(at.select_slider(key="hm_eps"), 20.0)
    at.select_slider(key="hm_eps").set_value(eps).run()
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    assert len(at.session_state["eyedp_ledger"].releases) == 1  # ε ≈ 20 under the raised cap
    at.switch_page("pages/report.py").run()
    _set_cap(at, 10.0, "back to the agreed cap")
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    doc = at.session_state["rp_report_html"].decode()
    history = re.search(r'<ul id="cap-history">(.*?)</ul>', doc, re.S).group(1)
    items = re.findall(r"<li>(.*?)</li>", history)
    assert len(items) == 3, items  # the new study's default, the raise, the lower
    assert "none (a new study) → ε ≤ 10" in items[0]
    assert "ε ≤ 10 → ε ≤ 100 (the board allowed a pilot)" in items[1]
    assert "ε ≤ 100 → ε ≤ 10 (back to the agreed cap)" in items[2]
    assert all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: ", i) for i in items), items
    verdict = re.search(r'<section id="verdict">(.*?)</section>', doc, re.S).group(1)
    assert "The cap was raised 1 time during the study" in verdict and "the board allowed a pilot" in verdict
    assert f"above ε = {fmt(10.0)}" in verdict and "100 per person" not in doc.split('id="cap-history"')[0]
    # The page states the same cap and the same history.
    assert "Cap: ε ≤ 10 per person" in " ".join(str(e.value) for e in at.error)
    assert any("back to the agreed cap" in str(t.value) for t in at.table)
