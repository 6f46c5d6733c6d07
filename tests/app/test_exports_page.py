"""Release-mode exports on the pages (AppTest): one click charges the ledger, draws with OpenDP and offers the
CSV and its manifest; over the cap nothing is drawn."""
from __future__ import annotations

import json

import pytest

from tests.apptest import number_help, open_app


def test_time_series_exports_the_feature_table_in_release_mode() -> None:
    at = open_app(timeout=300, page="pages/time_series.py")
    assert "ts_release_export" not in [b.key for b in at.button]  # closed by default: no export button drawn
    at.toggle(key="share_open").set_value(True).run()  # the share box opens on request
    at.button(key="ts_release_export").click().run()
    assert not at.exception, at.exception
    res = at.session_state["share_export_time_series"]
    man = res["manifest"]
    assert man["mode"] == "release" and man["noise"]["seeded"] is False
    releases = at.session_state["eyedp_ledger"].releases
    assert releases and all(r.view == "Time series" for r in releases)
    # The manifest's per-participant ε is what the ledger charged to the worst-case person.
    assert man["epsilon"] == pytest.approx(at.session_state["eyedp_ledger"].total()[0], rel=1e-9)
    # The manifest's calibration is the page's: the shown feature's noise scale (the headline metric's exact
    # value) is the formula scale of one of its rows, and the release scale only adds the tiny lattice inflation.
    shown = number_help(at, "Noise scale")
    exact = float(shown.split("exact value ")[1].rstrip(").")) if "exact value" in shown else None
    rows = man["calibration"]
    assert exact is not None and any(f"{r['scale_formula']:.6g}" == f"{exact:.6g}" for r in rows)
    for r in rows:
        assert 0 < r["scale"] / r["scale_formula"] - 1 < 1e-6 and r["lattice_step"] == 2.0 ** r["lattice_k"]
    assert man["parameters"]["rows_per_recording"] == man["parameters"]["public_length_T"]
    # T rows for every recording: the CSV's length is recordings × T, whatever the true lengths.
    lines = res["csv"].strip().split(b"\n")
    assert len(lines) - 1 == man["parameters"]["recordings"] * man["parameters"]["public_length_T"]
    assert man["epsilon_per_person"] == pytest.approx(man["epsilon"]) and "participant" in man["neighbouring_relation"]
    header = res["csv"].split(b"\n", 1)[0].decode()
    assert header.startswith("participant,task,window,")
    assert any(b.label == "Manifest (JSON)" for b in at.get("download_button"))
    json.dumps(man, default=str)


def test_gaze_samples_export_over_the_cap_is_refused() -> None:
    at = open_app(timeout=300, page="pages/report.py")
    at.slider(key="rp_cap").set_value(5.0).run()
    at.switch_page("pages/gaze_samples.py").run()
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    at.toggle(key="share_open").set_value(True).run()
    at.button(key="gs_release_export").click().run()
    assert not at.exception, at.exception
    assert at.session_state["eyedp_ledger"].releases == []
    assert "share_export_gaze_samples" not in at.session_state
    assert any("Refused" in str(e.value) for e in at.sidebar.error)
