"""The review-board report and the cap on ε per person: every required section, numbers equal to the core's,
and a release over the cap refused in the charge path (core and session state), not only on the page."""
from __future__ import annotations

import math
import re

import pytest

from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.dp.budget import BudgetExceeded, charge, refusal
from eyedp_core.report import SECTIONS, Artefact, ReportInput, build_html, epsilon_reading, person_table
from eyedp_core.report.html import fmt
from tests.apptest import open_app

TS = Release(view="Time series", label="CFPA-32, 48 features", unit="participant", mechanism="CFPA",
             sensitivity_type="public", epsilon=0.01, count=48 * 36, participants=("P01", "P02"))
HM = Release(view="Heatmaps", label="comic", unit="observer", mechanism="gaussian", sensitivity_type="public",
             epsilon=1.0, delta=1e-6, participants=("P02",))
CHUNK = Release(view="Time series", label="per chunk", unit="chunk", mechanism="CFPA", sensitivity_type="data-derived",
                epsilon=0.5, count=19)
FACTS = {"view": "Heatmaps", "unit": "observer",
         "sensitivity": {"L2": 0.0125, "how": "public: from the caps"},
         "calibration": {"mechanism": "gaussian", "method": "analytic", "scale": 0.0421, "std": 0.0421,
                         "epsilon": 1.0, "delta": 1e-6, "sensitivity": 0.0125, "formula_tex": r"\sigma = f(\epsilon)",
                         "plugged_tex": r"\sigma = 0.0421", "guarantee": "(ε, δ)-DP", "valid": True, "note": ""},
         "utility": {"CC": 0.68, "NMSE": 0.12}, "data_derived": [], "correlation": "observer's whole map"}


def _input(ledger: Ledger, **kw) -> ReportInput:
    arts = [Artefact(r, facts=FACTS if r.view == "Heatmaps" else None) for r in ledger.releases]
    return ReportInput(ledger=ledger, artefacts=arts, data={"Fixations: sample": {"rows": 3000, "observers": 20}},
                       config_json='{"format": "eyedp-settings/1", "settings": {"hm_eps": 1.0}}',
                       version={"eyedp": "0.1.0", "opendp": "x"}, view_facts={"heatmaps": FACTS},
                       preview_pages=["Heatmaps"], **kw)


def _section(doc: str, key: str) -> str:
    m = re.search(rf'<section id="{key}">(.*?)</section>', doc, re.S)
    assert m, f"section {key} missing"
    return m.group(1)


def test_the_report_has_every_section_and_the_core_numbers() -> None:
    ledger = Ledger([TS, HM, CHUNK])
    doc = build_html(_input(ledger, epsilon_cap=50.0))
    for key, title in SECTIONS.items():
        assert title.replace("&", "&amp;") in _section(doc, key)
    eps, dlt = ledger.total()
    assert f"ε = {fmt(eps)}" in _section(doc, "summary") and f"δ = {fmt(dlt)}" in _section(doc, "summary")
    # Per person: P01 (participant only), P02 (observer too), and the chunk release covering everyone.
    people = person_table(ledger, 50.0).set_index("Person")
    comp = _section(doc, "composition")
    for who in ("P01", "P02"):
        assert f"<td>{who}</td>" in comp and f'<td class="num">{fmt(people.loc[who, "Total ε"])}</td>' in comp
    assert people.loc["P02", "Total ε"] == pytest.approx(ledger.total("P02")[0])
    # Correlation-aware estimate of the per-chunk release: the group bound over its 19 chunks.
    assert f"group bound ε = {fmt(0.5 * 19)}" in comp
    art = _section(doc, "artefacts")
    assert "0.0421" in art and "σ = 0.0421" in art and "public: from the caps" in art
    assert f"{fmt(TS.epsilon_total)}" in art
    reading = _section(doc, "reading")
    assert fmt(math.exp(eps)) in reading or "∞" in reading
    cav = _section(doc, "caveats")
    assert "data-derived" in cav and "Temporal correlation" in cav and "Preview mode" in cav
    assert "hm_eps" in _section(doc, "reproduce") and "opendp" in _section(doc, "reproduce")
    # Exact row counts are figures of the unprotected data: in the curator's section, not under "Data used".
    assert "rows: 3,000" not in _section(doc, "data") and "observers: 20" in _section(doc, "data")
    assert "rows: 3,000" in _section(doc, "unprotected")
    assert "<script src=" not in doc and "http" not in doc.split("<body>")[0]  # nothing fetched from outside


def test_an_empty_ledger_still_gives_a_complete_report() -> None:
    doc = build_html(_input(Ledger()))
    for key in SECTIONS:
        _section(doc, key)
    assert "ledger is empty" in _section(doc, "summary")


def test_epsilon_reading_states_the_e_to_the_epsilon_bound() -> None:
    text = epsilon_reading(1.0, 0.0)
    assert "e^ε = 2.718" in text and "pure ε-differential privacy" in text
    assert "73.11 %" in text  # 0.5·e / (0.5·e + 0.5)
    assert "no differential-privacy guarantee" in epsilon_reading(math.inf, 0.0)


def test_a_release_over_the_cap_is_refused_and_adds_nothing() -> None:
    ledger = Ledger([HM])
    with pytest.raises(BudgetExceeded, match="above the study.s cap"):
        charge(ledger, [TS, HM], epsilon_cap=10.0)  # 17.28 + 1 > 10: the whole batch is refused
    assert ledger.releases == [HM]
    charge(ledger, [HM], epsilon_cap=10.0)  # 2 ≤ 10
    assert len(ledger) == 2
    assert refusal(ledger, [Release(view="x", label="no DP", unit="participant", mechanism="published",
                                    sensitivity_type="public", epsilon=math.inf)], 10.0) is not None
    assert refusal(ledger, [TS], None) is None  # no cap, no refusal



def test_the_cap_slider_refuses_an_export_in_the_app() -> None:
    at = open_app(timeout=240, page="pages/report.py")
    assert at.slider[0].key == "rp_cap"  # the page's first slider
    at.slider(key="rp_cap").set_value(2.0).run()
    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    eps = float(at.select_slider(key="hm_eps").value)
    assert eps > 2.0  # the page default (3) exceeds the cap
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    assert at.session_state["eyedp_ledger"].releases == []
    assert any("Refused" in str(e.value) for e in at.sidebar.error)
    assert "hm_export_result" not in at.session_state
    # Under a higher cap the same export goes through and is recorded with what the view showed.
    at.switch_page("pages/report.py").run()
    at.slider(key="rp_cap").set_value(50.0).run()
    at.switch_page("pages/heatmaps.py").run()
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception
    assert len(at.session_state["eyedp_ledger"].releases) == 1
    ctx = at.session_state["eyedp_release_context"][0]
    assert ctx["page"] == "heatmaps" and ctx["facts"]["calibration"]["epsilon"] == pytest.approx(eps)
    # The report built on the Report page holds that entry's numbers.
    at.switch_page("pages/report.py").run()
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    doc = at.session_state["rp_report_html"].decode()
    for key in SECTIONS:
        _section(doc, key)
    total = at.session_state["eyedp_ledger"].total()[0]
    assert f"ε = {fmt(total)}" in _section(doc, "summary")
    assert fmt(ctx["facts"]["calibration"]["scale"]) in _section(doc, "artefacts")
    assert "plotly" in doc.lower()  # the interactive figure with its JavaScript inlined
    pdf = at.session_state["rp_report_pdf"]  # this machine has headless Chromium
    assert pdf is not None and pdf[:4] == b"%PDF"


def test_report_facts_get_the_opendp_certified_export_scale_when_finished() -> None:
    """A Heatmaps move remembers the inputs of the export's σ, not OpenDP's σ search; the report (and a charge)
    finish the facts with the σ that OpenDP certifies, >= the preview's σ."""
    from eyedp_core.dp.release import opendp_gaussian_sigma
    from ui.export_scale import finish

    at = open_app("pages/heatmaps.py")
    raw = at.session_state["eyedp_facts"]["heatmaps"]
    assert "export_scale" not in raw
    l2, eps, delta, scale, mechanism = raw["export_scale_args"]
    assert mechanism == raw["calibration"]["mechanism"] == "gaussian" and scale == raw["calibration"]["scale"]
    done = finish(raw)
    assert "export_scale_args" not in done
    assert done["export_scale"] == pytest.approx(opendp_gaussian_sigma(l2, eps, delta, scale), rel=1e-12)
    assert done["export_scale"] >= scale


def test_app_start_imports_neither_opendp_nor_scikit_learn() -> None:
    """What app.py and the Home page import leaves OpenDP (whose prelude loads scikit-learn, ~1 s), the attack
    engine, SciPy, pandas and pyarrow to the views that use them: a fresh interpreter importing them, and reading
    what Home lists of the samples, has none of them."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = ("import sys, ui.settings, ui.sidebar, ui.theme, ui.shell, ui.state, ui.widgets, ui.share, "
            "eyedp_core.dp.explain, eyedp_core.dp.accounting; from eyedp_core.data import bundled; "
            "[bundled.summary(n) for n in bundled.SAMPLE_NAMES]; eyedp_core.dp.accounting.Ledger().total(); "
            "print(sorted(m for m in ('opendp', 'sklearn', 'scipy', 'pandas', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_every_page_with_an_export_is_named_in_the_share_box() -> None:
    """ui.share.tools names the export pages without importing the exports (app start): the two lists agree."""
    from ui.share import exports, tools

    assert set(tools.EXPORT_PAGES) == set(exports.EXPORTS)
