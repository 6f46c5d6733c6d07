"""The "Python script" of each view runs on its own (subprocess) and prints the numbers the page shows."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.report.scripts import SCRIPTS
from tests.apptest import ROOT


def _page(page: str, view: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    if view:
        at.radio(key="gs_view").set_value(view).run()
        assert not at.exception, at.exception
    return at


def _run(script: str, tmp_path) -> dict:
    path = tmp_path / "view.py"
    path.write_text(script)
    out = subprocess.run([sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_heatmaps_script_reproduces_the_page(tmp_path) -> None:
    at = _page("heatmaps")
    at.select_slider(key="hm_cell").set_value(16).run()
    at.number_input(key="hm_seed").set_value(5).run()
    params = at.session_state["share_script_params"]["heatmaps"]
    facts = at.session_state["eyedp_facts"]["heatmaps"]
    assert params["cell_px"] == 16 and params["seed"] == 5
    got = _run(SCRIPTS["heatmaps"](params), tmp_path)
    assert got["n_observers"] == facts["data"]["observers"]
    assert got["scale"] == pytest.approx(facts["calibration"]["scale"], rel=1e-12)
    assert got["metrics"]["cc"] == pytest.approx(facts["utility"]["CC"], rel=1e-9)
    assert got["metrics"]["nmse"] == pytest.approx(facts["utility"]["NMSE"], rel=1e-9)


def test_time_series_script_reproduces_the_page(tmp_path) -> None:
    at = _page("time_series")
    params = at.session_state["share_script_params"]["time_series"]
    facts = at.session_state["eyedp_facts"]["time_series"]
    got = _run(SCRIPTS["time_series"](params), tmp_path)
    assert got["scale"] == pytest.approx(facts["calibration"]["scale"], rel=1e-12)
    shown = [v for k, v in facts["utility"].items() if k.startswith("NMSE of")][0]
    assert got["nmse_feature"][params["feature_index"]] == pytest.approx(shown, rel=1e-9)


def test_gaze_samples_script_reproduces_the_page(tmp_path) -> None:
    at = _page("gaze_samples", view="protect")
    params = at.session_state["share_script_params"]["gaze_samples"]
    facts = at.session_state["eyedp_facts"]["gaze_samples"]
    got = _run(SCRIPTS["gaze_samples"](params), tmp_path)
    assert got["mean_shift_px"] == pytest.approx(facts["utility"]["mean shift of the Kaleido preview (px)"], rel=1e-9)
    assert got["max_eps_per_sample"] == pytest.approx(facts["utility"]["largest ε spent by one sample"], rel=1e-12)


def test_home_script_reproduces_the_page(tmp_path) -> None:
    from ui.widgets import bounded_percent, odds_words

    at = _page("home")
    at.select_slider(key="home_eps").set_value(3.0).run()
    assert not at.exception, at.exception
    params = at.session_state["share_script_params"]["home"]
    got = _run(SCRIPTS["home"](params), tmp_path)
    shown = " ".join(m.value for m in at.markdown)  # the page states both in bounded words (ui.widgets)
    assert f"**{odds_words(got['odds_factor'])}**" in shown
    assert f"**{bounded_percent(got['posterior_from_50_percent'])}**" in shown


def test_report_script_recomposes_the_ledger(tmp_path) -> None:
    import math

    from eyedp_core.dp.accounting import Ledger, Release

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.session_state["eyedp_ledger"] = Ledger([
        Release(view="Heatmaps", label="comic", unit="observer", mechanism="gaussian", sensitivity_type="public",
                epsilon=1.5, delta=1e-6, participants=("O01", "O02")),
        Release(view="Time series", label="CFPA", unit="chunk", mechanism="CFPA", sensitivity_type="public",
                epsilon=0.25, count=12),
        Release(view="Time series", label="Steil as published", unit="participant", mechanism="Steil",
                sensitivity_type="data-derived", epsilon=math.inf, participants=("P09",))])
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    got = _run(SCRIPTS["report"](at.session_state["share_script_params"]["report"]), tmp_path)
    shown = {m.label: m.value for m in at.metric}
    assert got["releases"] == int(shown["Releases"]) == 3
    assert math.isinf(got["epsilon"]) and shown["Worst-case ε per person"] == "inf"


def test_attacks_script_reproduces_the_page(tmp_path) -> None:
    from ui.attacks.view import RunSettings

    at = _page("attacks")
    assert "attacks" not in at.session_state["share_script_params"]
    at.toggle(key="share_open").set_value(True).run()  # the share box, opened, says why there is no script yet
    assert "press *Run attacks* first" in " ".join(m.value for m in at.markdown)  # no run yet: no script
    # One small run (as the settings form would request it): CFPA-32 at a large ε, re-identification, SVM.
    at.session_state["atk_request"] = RunSettings(mechanisms=("CFPA-32",), epsilons=(1000.0,), scenarios=("clean",),
                                                  classifiers=("svm",), tasks=("identity",))
    at.run()
    assert not at.exception, at.exception
    shown = at.session_state["atk_rows"][2]  # the rows the page drew
    params = at.session_state["share_script_params"]["attacks"]
    got = _run(SCRIPTS["attacks"](params), tmp_path)
    # The clean baseline, the requested point and the larger ε the page added until the transition showed
    # (the grid extends itself by default): the script runs the same extension.
    assert len(got) == len(shown) >= 3
    assert [r["epsilon"] for r in got] == [r["epsilon"] for r in shown]
    for mine, page in zip(got, shown):
        assert (mine["task"], mine["classifier"]) == (page["task"], page["classifier"])
        assert mine["accuracy"] == pytest.approx(page["accuracy"], abs=1e-12)
        assert mine["chance"] == pytest.approx(page["chance"], abs=1e-12)
