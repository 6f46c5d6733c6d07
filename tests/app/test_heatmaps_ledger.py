"""The Heatmaps page and the Report page with the session's ledger (AppTest): every release composes, a
remembered choice of m counts only for the data it read, clearing clears everything, caveats are shown."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.dp.accounting import COMPOSITION_RULE, Ledger, Release
from tests.apptest import shown_numbers

ROOT = Path(__file__).resolve().parents[2]
HEATMAPS, REPORT = "pages/heatmaps.py", "pages/report.py"


def _app() -> AppTest:
    """A fresh session, run once on the home page."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.run()
    assert not at.exception, at.exception
    return at


def _go(at: AppTest, page: str) -> AppTest:
    """Switch to a page and run it, checked for exceptions."""
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def _click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def _metric(at: AppTest, label: str) -> float:
    hits = [v for shown, v in shown_numbers(at) if shown == label]
    assert hits, f"no number {label!r}"
    return float(hits[0].split()[0])


def _text(at: AppTest) -> str:
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "info", "warning", "success")
                     for e in getattr(at, kind))


def _releases(at: AppTest) -> list[Release]:
    return at.session_state["eyedp_ledger"].releases


def test_identical_exports_compose_and_the_report_states_the_rule():
    """Two exports with the same settings are two entries (2ε); the Report says why in plain words."""
    at = _go(_app(), HEATMAPS)
    eps = float(at.select_slider(key="hm_eps").value)
    _click(_click(at, "hm_export"), "hm_export")
    rels = _releases(at)
    assert len(rels) == 2 and rels[0].label == rels[1].label
    assert at.session_state["eyedp_ledger"].total() == pytest.approx((2 * eps, 2 * rels[0].delta), rel=1e-6)
    _go(at, REPORT)
    assert COMPOSITION_RULE in _text(at) and "nothing ever replaces" in _text(at)
    assert _metric(at, "Releases") == 2


def test_private_choice_of_m_is_charged_once_to_the_observers_it_read():
    """m chosen privately on 'comic' is not part of 'portrait''s cost, and its entry names 'comic'."""
    at = _go(_app(), HEATMAPS)
    assert at.selectbox(key="hm_stimulus").value == "comic"
    at.segmented_control(key="hm_panel").set_value("cap").run()
    _click(at, "hm_select_private")
    eps = float(at.select_slider(key="hm_eps").value)
    sel = float(at.select_slider(key="hm_sel_eps").value)
    assert _metric(at, "Total ε per observer") == pytest.approx(eps + sel)
    (entry,) = _releases(at)  # charged when chosen, exactly once
    assert "'comic'" in entry.label and entry.epsilon == pytest.approx(sel) and len(entry.participants) == 40
    at.selectbox(key="hm_stimulus").set_value("portrait").run()
    assert not at.exception, at.exception
    assert _metric(at, "Total ε per observer") == pytest.approx(eps)  # sel belongs to 'comic', not here
    assert "chosen privately on other data ('comic')" in _text(at)
    _click(at, "hm_export")
    rels = _releases(at)
    assert len(rels) == 2 and "'portrait'" in rels[1].label and not rels[1].tuned_on_private_data
    at.selectbox(key="hm_stimulus").set_value("comic").run()
    assert _metric(at, "Total ε per observer") == pytest.approx(eps + sel)  # back on the data it read
    _click(at, "hm_export")
    assert len(_releases(at)) == 3  # exporting does not charge the choice again


def test_clearing_the_ledger_clears_everything_that_could_come_back():
    """After 'Clear the ledger' the next export is the only entry (no cleared export comes back from the
    page's own history), and the cap chosen from the data is forgotten."""
    at = _go(_app(), HEATMAPS)
    _click(at, "hm_export")
    at.segmented_control(key="hm_panel").set_value("cap").run()
    _click(at, "hm_select_private")
    assert len(_releases(at)) == 2
    _go(at, REPORT)
    at.text_input(key="ledger_fresh_reason").input("new observers").run()  # a fresh record needs a reason ...
    at.checkbox(key="ledger_fresh_confirm").check().run()  # ... and a confirmation
    _click(at, "report_clear")
    assert len(_releases(at)) == 0 and "Nothing has been released yet" in _text(at)
    kinds = [e.kind.name for e in at.session_state["eyedp_ledger"].events()]
    assert kinds.count("RELEASE") == 2 and kinds[-1] == "ARCHIVE"  # archived, still readable: nothing deleted
    _go(at, HEATMAPS)
    assert "chosen privately" not in _text(at)
    assert at.slider(key="hm_m_count").value == 1  # the public default, not the value read off the data
    _click(at, "hm_export")
    rels = _releases(at)
    assert len(rels) == 1 and rels[0].label.startswith("heatmap of 'comic'")
    assert "Released heatmap of 'comic'" in _text(at)


def test_report_shows_caveats_including_data_derived_parameters():
    """A length T read off the data (flagged by the time-series view) is visible on the Report page."""
    ledger = Ledger()
    ledger.add(Release(view="Time series", label="LPA", unit="participant", mechanism="LPA",
                       sensitivity_type="public", epsilon=1.0, participants=("P01",),
                       data_derived_parameters=("length T = 431 (the longest recording)",)))
    at = _app()
    at.session_state["eyedp_ledger"] = ledger
    _go(at, REPORT)
    warnings = " ".join(str(w.value) for w in at.warning)
    assert "length T = 431 (the longest recording) was read off the private data" in warnings
    assert any(h.value == "Caveats" for h in at.subheader)
