"""The app charges the stored ledger of a study (AppTest, each test on a ledger file of its own): a new session
(a reload, another tab, a restart) sees what earlier sessions charged, two sessions of one study share one cap,
a cap change keeps its reason, a fresh record archives without deleting, and a refusal is said next to the button
that was pressed on every page that releases."""
from __future__ import annotations

import os

import pytest

from eyedp_core.dp.store import DEFAULT_STUDY, EventKind, open_ledger
from tests.apptest import open_app, page_text


def _store():
    """This test's stored ledger of the default study, as another process would open it."""
    return open_ledger(os.environ["EYEDP_LEDGER"], DEFAULT_STUDY)


def _side(at) -> dict[str, str]:
    return {m.label: str(m.value) for m in at.sidebar.metric}


def _export_heatmap(at) -> None:
    at.button(key="hm_export").click().run()
    assert not at.exception, at.exception


def test_a_new_session_sees_what_an_earlier_one_charged() -> None:
    first = open_app(timeout=300, page="pages/heatmaps.py")
    _export_heatmap(first)
    (entry,) = _store().releases  # in the file, not in the session
    spent = entry.epsilon_total
    assert spent == pytest.approx(float(first.select_slider(key="hm_eps").value))
    # A reload is a new session: it opens the same study and states the same total.
    second = open_app(timeout=300)
    assert _side(second)["Worst-case ε per person, of the cap"] == f"{spent:.3g} of 10"
    captions = " ".join(str(c.value) for c in second.sidebar.caption)
    assert "1 release(s)" in captions and f"**{DEFAULT_STUDY}**" in captions
    # The report of the new session holds the entry with its own facts, stored by the first session.
    second.switch_page("pages/report.py").run()
    assert not second.exception, second.exception
    assert float(second.main.metric[0].value) == pytest.approx(spent, rel=1e-3)
    (context,) = _store().contexts()
    assert context["page"] == "heatmaps" and context["facts"]["calibration"]["epsilon"] == pytest.approx(spent)


def test_two_sessions_of_one_study_share_the_cap_and_the_second_is_refused() -> None:
    a = open_app(timeout=300, page="pages/report.py")
    a.text_input(key="ledger_cap_reason").input("pilot: two people charge the same observers").run()
    a.slider(key="rp_cap").set_value(5.0).run()
    assert not a.exception, a.exception
    b = open_app(timeout=300, page="pages/heatmaps.py")  # opened after the change: the study's cap holds
    assert _side(b)["Worst-case ε per person, of the cap"] == "0 of 5"
    a.switch_page("pages/heatmaps.py").run()
    _export_heatmap(a)  # ε = 3 of 5
    eps = _store().total()[0]
    assert eps == pytest.approx(3.0)
    _export_heatmap(b)  # another 3 would make 6 > 5: refused, though b itself charged nothing
    assert _store().total()[0] == pytest.approx(eps) and len(_store().releases) == 1
    said = [str(e.value) for e in b.main.error]
    assert any(s.startswith("Refused") and "from 3 to 6" in s and "ε ≤ 5" in s for s in said), said
    assert "hm_export_result" not in b.session_state
    # The refusal is an entry of the record too (it charged nothing); the cap change kept its reason.
    kinds = [e.kind for e in _store().events()]
    assert kinds.count(EventKind.REFUSAL) == 1 and kinds.count(EventKind.RELEASE) == 1
    changes = _store().cap_history()
    assert [float(c.payload["epsilon_cap"]) for c in changes] == [10.0, 5.0]
    assert changes[-1].payload["reason"] == "pilot: two people charge the same observers"
    # The first session's next run follows the store: its sidebar states the shared total.
    a.run()
    assert _side(a)["Worst-case ε per person, of the cap"] == "3 of 5"


def test_a_cap_lowered_in_another_session_holds_here_at_once() -> None:
    a = open_app(timeout=300, page="pages/report.py")
    assert a.slider(key="rp_cap").value == pytest.approx(10.0)
    _store().set_cap(2.0, "lowered by the data steward")
    a.switch_page("pages/heatmaps.py").run()
    _export_heatmap(a)  # ε = 3 > 2
    assert _store().releases == []
    assert any("ε ≤ 2 per person" in str(e.value) for e in a.main.error)
    a.switch_page("pages/report.py").run()  # the slider shows the study's cap, not the value it last held
    assert a.slider(key="rp_cap").value == pytest.approx(2.0)
    assert [float(c.payload["epsilon_cap"]) for c in _store().cap_history()] == [10.0, 2.0]


def test_a_new_study_has_its_own_ledger_and_the_old_one_is_kept() -> None:
    at = open_app(timeout=300, page="pages/heatmaps.py")
    _export_heatmap(at)
    at.segmented_control(key="hm_panel").set_value("cap").run()
    at.button(key="hm_select_private").click().run()  # a cap m paid for by the default study
    assert not at.exception, at.exception
    spent = _store().total()[0]
    at.sidebar.selectbox(key="sb_study").set_value("New study…").run()
    at.sidebar.text_input(key="sb_new_study").input("second cohort").run()
    at.sidebar.button(key="sb_create_study").click().run()
    assert not at.exception, at.exception
    assert _side(at)["Worst-case ε per person, of the cap"] == "0 of 10"
    assert "**second cohort**" in " ".join(str(c.value) for c in at.sidebar.caption)
    assert open_ledger(os.environ["EYEDP_LEDGER"], "second cohort").releases == []
    assert len(_store().releases) == 2  # the default study keeps its releases
    # The m chosen on the default study's budget is not carried into the new study, which did not pay for it.
    assert "chosen privately" not in page_text(at) and at.slider(key="hm_m_count").value == 1
    at.sidebar.selectbox(key="sb_study").set_value(DEFAULT_STUDY).run()
    assert _side(at)["Worst-case ε per person, of the cap"] == f"{spent:.3g} of 10"


def test_a_fresh_record_needs_a_reason_and_keeps_the_old_entries() -> None:
    at = open_app(timeout=300, page="pages/heatmaps.py")
    _export_heatmap(at)
    at.switch_page("pages/report.py").run()
    assert at.button(key="report_clear").disabled  # no reason, no confirmation yet
    at.text_input(key="ledger_fresh_reason").input("new observers from Monday").run()
    assert at.button(key="report_clear").disabled  # still to be confirmed
    at.checkbox(key="ledger_fresh_confirm").check().run()
    at.button(key="report_clear").click().run()
    assert not at.exception, at.exception
    assert _store().releases == [] and "Nothing has been released yet" in page_text(at)
    events = _store().events()
    assert [e.kind for e in events].count(EventKind.RELEASE) == 1  # still in the record, readable
    assert events[-1].kind is EventKind.ARCHIVE and events[-1].payload["reason"] == "new observers from Monday"
    assert _store().verify().ok


def test_a_refused_time_series_recording_is_said_next_to_its_button() -> None:
    _store().set_cap(0.1, "tight")
    at = open_app(timeout=300, page="pages/time_series.py")
    at.button(key="ts_record").click().run()
    assert not at.exception, at.exception
    assert _store().releases == []
    said = [str(e.value) for e in at.main.error if str(e.value).startswith("Refused")]
    assert said and "ε ≤ 0.1" in said[0]


def test_a_refused_aoi_export_is_said_next_to_its_button_and_a_success_updates_the_sidebar() -> None:
    _store().set_cap(0.1, "tight")
    at = open_app(timeout=300, page="pages/areas_of_interest.py")
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    assert _store().releases == []
    assert any(str(e.value).startswith("Refused") for e in at.main.error)
    _store().set_cap(100.0, "wide")
    at.run()
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    spent = _store().total()[0]
    assert spent > 0 and not any(str(e.value).startswith("Refused") for e in at.main.error)
    # The sidebar of the run that follows the export states the new total (no stale "Refused" box either).
    assert _side(at)["Worst-case ε per person, of the cap"] == f"{spent:.3g} of 100"
    assert not at.sidebar.error


def test_a_ledger_file_that_is_not_ours_is_named_and_left_unchanged(tmp_path, monkeypatch) -> None:
    import hashlib

    junk = tmp_path / "notes.sqlite"
    junk.write_bytes(b"these are someone's notes, not a ledger\n" * 10)
    before = hashlib.sha256(junk.read_bytes()).hexdigest()
    monkeypatch.setenv("EYEDP_LEDGER", str(junk))
    at = open_app(timeout=300)
    assert not at.exception, at.exception
    said = " ".join(str(e.value) for e in at.sidebar.error)
    assert "The privacy ledger cannot be used" in said and "is not an EyeDP ledger" in said and "notes.sqlite" in said
    at.switch_page("pages/heatmaps.py").run()  # a page that reads the ledger says so too, with no traceback
    assert not at.exception, at.exception
    assert "is not an EyeDP ledger" in " ".join(str(e.value) for e in at.main.error)
    assert hashlib.sha256(junk.read_bytes()).hexdigest() == before


def test_one_aoi_export_is_one_release_of_several_entries() -> None:
    at = open_app(timeout=300, page="pages/areas_of_interest.py")
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    entries = len(_store().releases)
    assert entries > 1 and _store().charges() == [list(range(entries))]  # one charge: every noisy sum at once
    assert "1 release(s)" in " ".join(str(c.value) for c in at.sidebar.caption)
    at.switch_page("pages/report.py").run()
    assert {m.label: m.value for m in at.main.metric}["Releases"] == "1"
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    doc = at.session_state["rp_report_html"].decode()
    assert f"all 1 release(s) ({entries} ledger entries)" in doc


def test_a_report_download_is_an_entry_of_the_record() -> None:
    from streamlit.testing.v1 import AppTest

    def script() -> None:
        import hashlib

        import streamlit as st

        from ui.share import report

        data = report.deferred_report(release_safe=True)()  # what pressing "Download the report (HTML)" calls
        st.session_state["doc_sha"] = hashlib.sha256(data).hexdigest()
        st.session_state["doc"] = data.decode()

    at = AppTest.from_function(script, default_timeout=120).run()
    assert not at.exception, at.exception
    (event,) = [e for e in _store().events() if e.kind is EventKind.REPORT_DOWNLOAD]
    assert event.payload == {"file": "html", "release_safe": True, "sha256": at.session_state["doc_sha"]}
    # The report states the record as it was when it was built: every entry before its own download.
    assert f'<meta name="eyedp-ledger-entries" content="{event.seq - 1}">' in at.session_state["doc"]
