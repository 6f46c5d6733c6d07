"""Hostile names in the review-board report (HTML) and in the downloadable Python scripts.

A file, column, stimulus, label or participant name holding markup must appear in the report as text (no element,
no attribute from it) and in a script only inside a string literal (the program is the same whatever the names).
"""
from __future__ import annotations

import ast
from html.parser import HTMLParser

import pytest

from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.report import html as report_html
from eyedp_core.report import scripts
from tests.app.test_text_escaping import PAYLOADS

BENIGN = "plain_name"


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _report(name: str) -> str:
    """The report of a session whose data source, release labels, units, facts and attacks all carry `name`."""
    ledger = Ledger([
        Release(view="Heatmaps", label=f"map of {name}", unit="observer", mechanism="gaussian",
                sensitivity_type="public", epsilon=1.0, delta=1e-6, participants=(name, "O2")),
        Release(view="Time series", label=f"CFPA-32 on {name}", unit="chunk", mechanism="CFPA",
                sensitivity_type="data-derived", epsilon=0.5, count=3, data_derived_parameters=(name,)),
    ])
    cal = {"mechanism": "laplace", "method": "laplace", "scale": 2.0, "std": 2.83, "epsilon": 0.5, "delta": 0.0,
           "sensitivity": 1.0, "formula_tex": "b = \\Delta_1/\\varepsilon", "plugged_tex": "b = 1/0.5",
           "valid": True, "note": name}
    facts = {"view": name, "calibration": cal, "calibration_title": name, "correlation": name,
             "sensitivity": {"how": name, name: name}, "utility": {name: 0.5}, "data_derived": [name]}
    arts = [report_html.Artefact(release=r, page="time_series", facts=facts, settings={name: name})
            for r in ledger.releases]
    inp = report_html.ReportInput(
        ledger=ledger, artefacts=arts, data={f"Upload: {name}": {"rows": 10, name: 2}},
        config_json='{"name": %s}' % ascii(name), version={"eyedp": name}, epsilon_cap=3.0,
        view_facts={"time_series": facts}, attacks=[{"task": name, "mechanism": name, "epsilon": 1.0,
                                                      "scenario": name, "accuracy": 0.5, "chance": 0.5}],
        figures={name: "<div>figure</div>"}, preview_pages=[name], generated=name)
    return report_html.build_html(inp)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_report_shows_hostile_names_as_text(payload: str) -> None:
    """The report with the payload everywhere has exactly the elements and attributes of the report with a plain
    name, and the payload's text is on it."""
    hostile, plain = _Tags(), _Tags()
    hostile.feed(_report(payload))
    plain.feed(_report(BENIGN))
    assert hostile.tags == plain.tags
    assert not any("evil" in str(attrs) for _, attrs in hostile.tags)
    assert payload.replace("\r\n", "\n") in "".join(hostile.text) or payload in "".join(hostile.text)


def _structure(source: str) -> str:
    """A script's syntax tree with every string literal blanked: what the program does, whatever names it holds."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = "S"
    return ast.dump(tree)


def _params(name: str) -> dict[str, dict]:
    """Script parameters of every view with `name` in each place a data-derived name goes."""
    upload = {"name": name}
    return {
        "heatmaps": {"fixations": upload, "stimulus": name, "stimulus_sample": False, "cell_px": 8,
                     "weight": "count", "cap_m": 1.0, "cap_total": None, "sigma_px": 20.0, "epsilon": 1.0,
                     "delta": 1e-6, "mechanism": "gaussian", "method": "analytic", "seed": 1},
        "time_series": {"features_source": upload, "names": [name, f"{name}_2"], "lo": [0.0, 0.0],
                        "hi": [1.0, 1.0], "length": 600, "order_col": "window", "mech": "CFPA", "chunk": 32,
                        "epsilon": 1.0, "k": 1, "seed": 1, "feature_index": 0, "nmse_kind": "var"},
        "gaze_samples": {"gaze_source": upload, "width_px": 1920, "height_px": 1080, "epsilon": 1.0, "w": 10,
                         "l_thresh": 1.0, "t_skip": 12, "r": 30.0, "h": 3.0, "min_pub": 0.1, "seed": 1},
        "attacks": {"features_source": upload, "mechanisms": ["CFPA-32"], "epsilons": [1.0], "scenarios": ["clean"],
                    "classifiers": ["svm"], "tasks": [name], "majority_vote": True, "repetitions": 1,
                    "accounting": "participant", "gap": "window", "k": "public rule", "subsample": 0, "seed": 0,
                    "bounds": "public"},
        "report": {"releases": [{"view": "Heatmaps", "label": name, "unit": "observer", "mechanism": "gaussian",
                                 "sensitivity_type": "public", "epsilon": 1.0, "delta": 0.0, "count": 1,
                                 "participants": (name,), "tuned_on_private_data": False,
                                 "data_derived_parameters": (name,)}], "epsilon_cap": None},
    }


HOSTILE_CODE = (
    'x"""; import os; os.system("echo pwned") #',
    "x'; __import__('os').system('echo pwned'); '",
    "x\n__import__('os').system('echo pwned')\n#",
    "x\\",
    "x\u2028import os",
    "x\r\nimport os",
)


@pytest.mark.parametrize("payload", PAYLOADS + HOSTILE_CODE)
@pytest.mark.parametrize("view", ["heatmaps", "time_series", "gaze_samples", "attacks", "report"])
def test_scripts_hold_hostile_names_only_as_string_literals(view: str, payload: str) -> None:
    """The script with the payload in every name parses, is the same program as with a plain name, and holds the
    payload as a string value."""
    hostile = scripts.SCRIPTS[view](_params(payload)[view])
    plain = scripts.SCRIPTS[view](_params(BENIGN)[view])
    assert _structure(hostile) == _structure(plain)
    literals = [n.value for n in ast.walk(ast.parse(hostile)) if isinstance(n, ast.Constant)]
    assert any(isinstance(v, str) and payload in v for v in literals)
