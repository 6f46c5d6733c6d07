"""Each ledger entry carries its own facts into the report: a private choice of the cap m states its own score
sensitivity and selection noise scale (from the formula), not the Heatmaps preview's σ or the cap it replaced; the
verdict's "who is protected" names the views actually released."""
from __future__ import annotations

import math
import re

import pytest

from eyedp_core.data.bundled import stimulus_image
from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.heatmaps.cap import cap_score_sensitivity, public_candidates
from eyedp_core.report import Artefact, ReportInput, build_html
from eyedp_core.report.html import fmt
from tests.apptest import open_app


def _artefacts(doc: str) -> dict[str, str]:
    """The report's artefact blocks by their heading."""
    blocks = re.findall(r'<div class="artefact"><h3>(.*?)</h3>(.*?)</div>', doc, re.S)
    return {head: body for head, body in blocks}


def test_a_private_choice_of_m_shows_its_own_sigma_and_sensitivity_in_the_report() -> None:
    at = open_app(timeout=300, page="pages/heatmaps.py")
    at.segmented_control(key="hm_panel").set_value("cap").run()
    assert not at.exception, at.exception
    preview_sigma = at.session_state["eyedp_facts"]["heatmaps"]["calibration"]["scale"]
    at.button(key="hm_select_private").click().run()
    assert not at.exception, at.exception
    (entry,) = at.session_state["eyedp_ledger"].releases
    assert entry.label.startswith("DP choice of the cap m")
    # The formula, from public numbers only: Δ_s over the public candidates, n observers, r cells; β = 2Δ_s/ε.
    bound = float(at.number_input(key="hm_sel_bound_count").value)
    cell = int(at.session_state["hm_cell"])
    h, w = stimulus_image(str(at.session_state["hm_stimulus"])).shape[:2]
    cells = math.ceil(w / cell) * math.ceil(h / cell)
    cands = public_candidates("count", bound)
    total = float(at.session_state["hm_c_count"]) if at.session_state["hm_use_c"] else None
    sens = cap_score_sensitivity(cands, bound, len(entry.participants), cells, total)
    beta = 2.0 * sens / entry.epsilon
    assert sens > 0 and abs(beta - preview_sigma) > 1e-3 * beta  # the two numbers can be told apart
    at.switch_page("pages/report.py").run()
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    blocks = _artefacts(at.session_state["rp_report_html"].decode())
    (body,) = [b for head, b in blocks.items() if "DP choice of the cap m" in head]
    assert f"β (selection noise scale) = <b>{fmt(beta)}</b>" in body
    assert f"L∞ of the scores = {fmt(sens)}" in body and f"sensitivity {fmt(sens)}" in body
    assert f"ε = {fmt(entry.epsilon)}, δ = 0" in body
    # Nothing of the heatmap preview it does not release: its σ, its cap m, its L1/L2.
    assert fmt(preview_sigma) not in body and "per-cell cap m" not in body and "L2 =" not in body
    # Its own settings: the bound B and the ε it was chosen with (not only the map's).
    assert f"value in one cell (fixations): {fmt(bound)}" in body and f"ε for choosing m: {fmt(entry.epsilon)}" in body


def test_who_is_protected_names_the_views_whose_releases_protect_observers() -> None:
    aoi = Release(view="Areas of interest", label="webpage: dwell (16 AOIs)", unit="observer", mechanism="laplace",
                  sensitivity_type="public", epsilon=1.0)
    hm = Release(view="Heatmaps", label="heatmap of 'comic'", unit="observer", mechanism="gaussian",
                 sensitivity_type="public", epsilon=1.0, delta=1e-6)

    def verdict(*rel: Release) -> str:
        ledger = Ledger(rel)
        doc = build_html(ReportInput(ledger=ledger, artefacts=[Artefact(r) for r in rel], data={}, config_json="{}",
                                     version={}))
        return re.search(r'<section id="verdict">(.*?)</section>', doc, re.S).group(1)

    only_aoi = verdict(aoi)
    assert "(Areas of interest)" in only_aoi and "Heatmaps" not in only_aoi
    both = verdict(hm, aoi)
    assert "whole gaze map on a stimulus (Heatmaps)" in both and "(Areas of interest)" in both


@pytest.mark.parametrize("page", ["pages/heatmaps.py"])
def test_a_refusal_is_shown_next_to_the_button_that_was_pressed(page: str) -> None:
    at = open_app(timeout=300, page=page)
    at.session_state["rp_cap"] = 0.5  # below the page's default ε = 3
    at.run()
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    main = [str(e.value) for e in at.main.error]
    assert any(e.startswith("Refused") and "cap ε ≤ 0.5" in e for e in main), main
    assert at.session_state["eyedp_ledger"].releases == []
