"""The "Python script" of each view runs on its own, from a folder outside the checkout with eyedp_core installed
as the README installs it (no PYTHONPATH), and prints the numbers the page shows."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.report.scripts import SCRIPTS
from tests.apptest import ROOT, shown_numbers


def _page(page: str, view: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, at.exception
    if view:
        at.radio(key="gs_view").set_value(view).run()
        assert not at.exception, at.exception
    return at


def _bare_env() -> dict[str, str]:
    """The environment without PYTHONPATH: only an installed eyedp_core can be imported."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _imports_this_checkout(python: str, cwd: Path) -> bool:
    out = subprocess.run([python, "-c", "import eyedp_core; print(eyedp_core.__file__)"], cwd=cwd,
                         capture_output=True, text=True, timeout=120, env=_bare_env())
    return out.returncode == 0 and Path(out.stdout.strip()).resolve() == (ROOT / "eyedp_core" / "__init__.py").resolve()


@pytest.fixture(scope="module")
def installed_python(tmp_path_factory) -> str:
    """A Python that imports this checkout's eyedp_core from any folder: this one when the README's install
    command has run here (CI), else a fresh virtual environment where that command is run now."""
    away = tmp_path_factory.mktemp("elsewhere")
    if _imports_this_checkout(sys.executable, away):
        return sys.executable
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    # The README's install command, from the checkout's root (requirements.txt holds `-e .`).
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "-r", "requirements.txt"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600, env=_bare_env())
    assert pip.returncode == 0, pip.stderr[-3000:]
    assert _imports_this_checkout(python, away)
    return python


def test_the_install_command_makes_the_library_importable_anywhere(installed_python, tmp_path) -> None:
    out = subprocess.run([installed_python, "-c", "from eyedp_core.data import bundled; "
                          "print(len(bundled.load_sample('fixations')) > 0, bundled.STIMULUS_DIR.is_dir())"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=_bare_env())
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["True", "True"]  # the bundled samples and stimuli are found from outside


def _run_printed(script: str, tmp_path, python: str) -> tuple[dict, dict[str, str]]:
    """Run a script from a folder outside the checkout -> (its JSON line, its "label: value" lines)."""
    assert not Path(tmp_path).resolve().is_relative_to(ROOT.resolve())
    path = tmp_path / "view.py"
    path.write_text(script)
    out = subprocess.run([python, str(path)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env=_bare_env())
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    printed = dict(line.rpartition(": ")[::2] for line in lines[:-1] if ": " in line)
    return json.loads(lines[-1]), printed


def _run(script: str, tmp_path, python: str) -> dict:
    return _run_printed(script, tmp_path, python)[0]


def _assert_printed(printed: dict[str, str], shown: dict[str, float]) -> None:
    """Every number the page showed is printed under the page's label, to 1e-9 (nan as nan)."""
    for label, value in shown.items():
        assert label in printed, (label, sorted(printed))
        got = float(printed[label])
        assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(value, rel=1e-9, abs=1e-12), label


def test_heatmaps_script_reproduces_the_page(tmp_path, installed_python) -> None:
    at = _page("heatmaps")
    at.select_slider(key="hm_cell").set_value(16).run()
    at.number_input(key="hm_seed").set_value(5).run()
    params = at.session_state["share_script_params"]["heatmaps"]
    facts = at.session_state["eyedp_facts"]["heatmaps"]
    assert params["cell_px"] == 16 and params["seed"] == 5
    got, printed = _run_printed(SCRIPTS["heatmaps"](params), tmp_path, installed_python)
    _assert_printed(printed, facts["utility"])
    assert int(printed["observers"]) == facts["data"]["observers"]
    assert got["n_observers"] == facts["data"]["observers"]
    assert got["scale"] == pytest.approx(facts["calibration"]["scale"], rel=1e-12)
    assert got["metrics"]["cc"] == pytest.approx(facts["utility"]["CC"], rel=1e-9)
    assert got["metrics"]["nmse"] == pytest.approx(facts["utility"]["NMSE"], rel=1e-9)


def test_time_series_script_reproduces_the_page(tmp_path, installed_python) -> None:
    at = _page("time_series")
    params = at.session_state["share_script_params"]["time_series"]
    facts = at.session_state["eyedp_facts"]["time_series"]
    got, printed = _run_printed(SCRIPTS["time_series"](params), tmp_path, installed_python)
    _assert_printed(printed, facts["utility"])
    assert got["scale"] == pytest.approx(facts["calibration"]["scale"], rel=1e-12)
    shown = [v for k, v in facts["utility"].items() if k.startswith("NMSE of")][0]
    assert got["nmse_feature"][params["feature_index"]] == pytest.approx(shown, rel=1e-9)


def test_gaze_samples_script_reproduces_the_page(tmp_path, installed_python) -> None:
    at = _page("gaze_samples", view="protect")
    params = at.session_state["share_script_params"]["gaze_samples"]
    facts = at.session_state["eyedp_facts"]["gaze_samples"]
    got, printed = _run_printed(SCRIPTS["gaze_samples"](params), tmp_path, installed_python)
    _assert_printed(printed, facts["utility"])
    assert int(printed["samples"]) == facts["data"]["samples"]
    assert got["mean_shift_px"] == pytest.approx(facts["utility"]["mean shift of the Kaleido preview (px)"], rel=1e-9)
    assert got["max_eps_per_sample"] == pytest.approx(facts["utility"]["largest ε spent by one sample"], rel=1e-12)


def test_home_script_reproduces_the_page(tmp_path, installed_python) -> None:
    from ui.widgets import bounded_percent, odds_words

    at = _page("home")
    at.select_slider(key="home_eps").set_value(3.0).run()
    assert not at.exception, at.exception
    params = at.session_state["share_script_params"]["home"]
    got = _run(SCRIPTS["home"](params), tmp_path, installed_python)
    shown = dict(shown_numbers(at, metrics=False))  # the page states both in bounded words (ui.widgets)
    assert shown["An attacker's odds grow by at most (e^ε)"] == odds_words(got["odds_factor"])
    assert shown["A 50 % belief rises to at most"] == bounded_percent(got["posterior_from_50_percent"])


def test_report_script_recomposes_the_ledger(tmp_path, installed_python) -> None:
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
    got = _run(SCRIPTS["report"](at.session_state["share_script_params"]["report"]), tmp_path, installed_python)
    shown = {m.label: m.value for m in at.metric}
    assert got["releases"] == int(shown["Releases"]) == 3
    assert math.isinf(got["epsilon"]) and shown["Worst-case ε per person"] == "inf"


def test_report_script_states_the_total_under_the_ledgers_accountant(tmp_path, installed_python) -> None:
    """A ledger whose charges were checked under zCDP: the script's total is the page's zCDP total (below basic
    composition), not basic composition's."""
    from eyedp_core.dp.accountants import Accountant
    from eyedp_core.dp.accounting import Ledger, Release, gaussian_rho

    ledger = Ledger([Release(view="Heatmaps", label=f"s{i}", unit="observer", mechanism="gaussian",
                             sensitivity_type="public", epsilon=1.0, delta=1e-6, participants=("O01", "O02"),
                             rho=gaussian_rho(1.0, 1e-6)) for i in range(20)])
    ledger.note_accounting(Accountant.ZCDP, 1e-5)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.run()
    at.session_state["eyedp_ledger"] = ledger
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    got = _run(SCRIPTS["report"](at.session_state["share_script_params"]["report"]), tmp_path, installed_python)
    stated = ledger.stated()
    assert got["accountant"] == "zcdp" and got["epsilon"] == pytest.approx(stated.epsilon, rel=1e-12)
    assert got["epsilon"] < 10.0 < got["basic_epsilon"] == pytest.approx(20.0)


def test_attacks_script_reproduces_the_page(tmp_path, installed_python) -> None:
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
    got = _run(SCRIPTS["attacks"](params), tmp_path, installed_python)
    # The clean baseline, the requested point and the larger ε the page added until the transition showed
    # (the grid extends itself by default): the script runs the same extension.
    assert len(got) == len(shown) >= 3
    assert [r["epsilon"] for r in got] == [r["epsilon"] for r in shown]
    for mine, page in zip(got, shown):
        assert (mine["task"], mine["classifier"]) == (page["task"], page["classifier"])
        assert mine["accuracy"] == pytest.approx(page["accuracy"], abs=1e-12)
        assert mine["chance"] == pytest.approx(page["chance"], abs=1e-12)
