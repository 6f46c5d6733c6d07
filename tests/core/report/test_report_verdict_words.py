"""The verdict says what the total ε per person means in words: the best certainty of an attacker who started at
50 % (odds times e^ε), and "no meaningful protection" above the documented ε = 10."""
from __future__ import annotations

import math
import re

from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.report import Artefact, ReportInput, build_html
from eyedp_core.report.html import NO_MEANINGFUL_PROTECTION


def _verdict(eps: float) -> str:
    r = Release(view="Time series", label="LPA", unit="participant", mechanism="laplace", sensitivity_type="public",
                epsilon=eps)
    doc = build_html(ReportInput(ledger=Ledger([r]), artefacts=[Artefact(r)], data={}, config_json="{}", version={}))
    return re.search(r'<section id="verdict">(.*?)</section>', doc, re.S).group(1)


def test_a_small_total_reads_as_the_attackers_certainty() -> None:
    v = _verdict(1.0)
    sure = 100 * math.e / (1 + math.e)  # posterior odds e^ε · 1 from even prior odds
    assert f"can be at most {sure:.6g} % sure" in v and "no meaningful protection" not in v


def test_a_total_above_the_documented_epsilon_is_no_meaningful_protection() -> None:
    assert NO_MEANINGFUL_PROTECTION == 10.0
    assert "no meaningful protection" not in _verdict(10.0)
    v = _verdict(20.0)
    assert "all but certain" in v and "above ε = 10 per person this is no meaningful protection" in v
    assert "no meaningful protection" in _verdict(math.inf)


def test_a_per_person_time_series_release_in_chunks_protects_the_participant() -> None:
    from eyedp_core.report import person_table

    chunks = Release(view="Time series", label="CFPA-32 in chunks", unit="chunk", mechanism="laplace",
                     sensitivity_type="public", epsilon=0.05, count=20)  # total ε = 1 per person, charged
    doc = build_html(ReportInput(ledger=Ledger([chunks]), artefacts=[Artefact(chunks)], data={}, config_json="{}",
                                 version={}))
    who = re.search(r"<b>Who is protected:</b>(.*?)</li>", doc, re.S).group(1)
    assert who.strip().startswith("each participant, by the sum of ε over all their chunks")
    assert "not the whole person" not in who
    assert person_table(Ledger([chunks]))["Protected as"].tolist() == ["participant (sum over their chunks)"]


def test_the_curators_verdict_quotes_the_attack_at_the_released_epsilon_beside_the_grids_best() -> None:
    from eyedp_core.report.html import fmt

    ts = Release(view="Time series", label="CFPA-32", unit="participant", mechanism="CFPA", sensitivity_type="public",
                 epsilon=0.5, count=2)  # 1 per person
    rows = [{"task": "identity", "mechanism": "clean", "epsilon": math.inf, "scenario": "clean", "accuracy": 0.95,
             "chance": 0.05},
            {"task": "identity", "mechanism": "CFPA-32", "epsilon": 1.0, "scenario": "private", "accuracy": 0.10,
             "chance": 0.05},
            {"task": "identity", "mechanism": "CFPA-32", "epsilon": 1e5, "scenario": "private", "accuracy": 0.9333,
             "chance": 0.05}]

    def verdict(safe: bool) -> str:
        doc = build_html(ReportInput(ledger=Ledger([ts]), artefacts=[Artefact(ts)], data={}, config_json="{}",
                                     version={}, attacks=rows, release_safe=safe))
        return re.search(r'<section id="verdict">(.*?)</section>', doc, re.S).group(1)

    curator = verdict(False)
    assert "at the released ε = 1 per person 0.1 (CFPA-32, measured at ε = 1)" in curator
    assert f"the grid's best over every ε tried, not the released one: 0.9333 (ε = {fmt(1e5)})" in curator
    safe = verdict(True)
    assert "0.9333" not in safe and "0.1 (" not in safe


def test_the_release_safe_report_states_each_releases_data_independent_risk() -> None:
    people = tuple(f"O{i:02d}" for i in range(40))
    hm = Release(view="Heatmaps", label="heatmap of 'comic'", unit="observer", mechanism="laplace",
                 sensitivity_type="public", epsilon=1.0, participants=people)
    steil = Release(view="Time series", label="as published", unit="participant", mechanism="published",
                    sensitivity_type="data-derived", epsilon=1.0)
    doc = build_html(ReportInput(ledger=Ledger([hm, steil]), artefacts=[Artefact(hm), Artefact(steil)], data={},
                                 config_json="{}", version={}, release_safe=True))
    risks = re.findall(r"<p class='risk'>(.*?)</p>", doc, re.S)
    assert len(risks) == 2
    # Pure ε = 1 read at 5 % false positives: TPR ≤ min(1, e^ε·α, 1 − e^−ε(1 − α)); one of n = 40 singled out with
    # probability ≤ e^ε/(e^ε + n − 1) (the (ε, 0) trade-off curve; docs/PRIVACY_MODEL.md §16).
    tpr = min(1.0, math.e * 0.05, 1 - (1 - 0.05) / math.e)
    single = math.e / (math.e + 39)
    assert f"up to {100 * tpr:.3g} % true positives at 5 % false positives" in risks[0]
    assert f"singling one observer out of 40 succeeds at most {100 * single:.3g} %" in risks[0]
    assert "nothing is bounded" in risks[1] and "read off the data" in risks[1]
