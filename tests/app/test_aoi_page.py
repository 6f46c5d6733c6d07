"""AppTest of the Areas of interest page: the tables it shows are the core's numbers, an ε move changes only the
privacy part, a grid source works, and the export charges the ledger with ε per observer."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from eyedp_core.aoi.bundled import bundled_aois
from eyedp_core.aoi.metrics import AoiMetric, private_metrics
from eyedp_core.aoi.observers import AoiBounds, observer_table
from eyedp_core.aoi.shapes import grid
from eyedp_core.data.bundled import load_sample
from tests.apptest import open_app, page_text
from ui.aoi import tables

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/areas_of_interest.py"
DEFAULT_METRICS = [AoiMetric.HIT_RATIO, AoiMetric.DWELL, AoiMetric.TTFF]


def _core_markdown(stimulus: str, aois, epsilon: float, seed: int = 0) -> tuple[str, str]:
    f = load_sample("fixations")
    t = observer_table(f[f["stimulus"] == stimulus], aois, AoiBounds())
    res, _ = private_metrics(t, DEFAULT_METRICS, epsilon, np.random.default_rng(seed))
    return tables.metric_table(res, private=False), tables.metric_table(res, private=True)


@pytest.fixture(scope="module")
def at():
    a = open_app(PAGE)
    a.selectbox(key="aoi_stimulus").set_value("webpage").run()
    assert not a.exception, a.exception
    return a


def test_tables_match_the_core_and_move_with_epsilon(at) -> None:
    text = page_text(at)
    assert "The guarantee is per observer" in text
    clean, private = _core_markdown("webpage", bundled_aois("webpage"), 1.0)
    assert clean in text and private in text
    assert "40 observers, 16 AOIs" in text
    at.select_slider(key="aoi_epsilon").set_value(10.0).run()
    assert not at.exception, at.exception
    text = page_text(at)
    clean10, private10 = _core_markdown("webpage", bundled_aois("webpage"), 10.0)
    assert private10 in text and private not in text and clean10 == clean


def test_grid_source_and_target_finder(at) -> None:
    at.radio(key="aoi_source").set_value("grid").run()
    at.number_input(key="aoi_grid_cols").set_value(2).run()
    at.number_input(key="aoi_grid_rows").set_value(2).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "| r1c1 |" in text and "| r2c2 |" in text and "4 AOIs" in text
    _, private = _core_markdown("webpage", grid(1280, 800, 2, 2), float(at.select_slider(key="aoi_epsilon").value))
    assert private in text
    # Target finder: dwell ± 0.5 s at n = 40, K = 4: ε = min(4·5, 2·10)·ln 20 / (40·0.5·(1/3)).
    assert f"ε = {20 * np.log(20) / (40 * 0.5 / 3):.3g}" in text


def test_export_charges_the_ledger_and_writes_a_manifest(at) -> None:
    at.radio(key="aoi_source").set_value("bundled").run()
    at.select_slider(key="aoi_epsilon").set_value(2.0).run()
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    from ui.state import LEDGER_KEY  # noqa: PLC0415 - the session's ledger object

    ledger = at.session_state[LEDGER_KEY]
    aoi_rows = [r for r in ledger.releases if r.view == "Areas of interest"]
    assert len(aoi_rows) == 3 and sum(r.epsilon for r in aoi_rows) == pytest.approx(2.0)
    assert all(r.unit == "observer" and len(r.participants) == 40 for r in aoi_rows)
    csv, manifest, _ = at.session_state["aoi_release_result"]
    man = json.loads(manifest)
    assert man["epsilon_per_observer"] == 2.0 and man["stimulus"] == "webpage"
    assert len(man["aois"]) == 16 and csv.splitlines()[0].startswith("AOI,hit ratio")
    assert "Released." in page_text(at)


def test_python_script_reproduces_the_page(at, tmp_path) -> None:
    import subprocess
    import sys

    from eyedp_core.report.scripts import SCRIPTS
    from tests.apptest import ROOT
    from ui.share.scripts import PARAMS_KEY

    at.radio(key="aoi_source").set_value("bundled").run()
    at.select_slider(key="aoi_epsilon").set_value(3.0).run()
    params = at.session_state[PARAMS_KEY]["areas_of_interest"]
    assert params["epsilon"] == 3.0 and params["stimulus"] == "webpage" and len(params["aois"]) == 16
    path = tmp_path / "aoi.py"
    path.write_text(SCRIPTS["areas_of_interest"](params))
    out = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    _, private = _core_markdown("webpage", bundled_aois("webpage"), 3.0)
    assert private in page_text(at)  # the page shows exactly the core's numbers at this ε
    f = load_sample("fixations")
    t = observer_table(f[f["stimulus"] == "webpage"], bundled_aois("webpage"), AoiBounds())
    res, _ = private_metrics(t, DEFAULT_METRICS, 3.0, np.random.default_rng(0))
    for m in DEFAULT_METRICS:
        np.testing.assert_allclose(got["metrics"][m.value]["private"], res[m].private, equal_nan=True)


def test_report_artefact_carries_the_aoi_facts(at) -> None:
    at.radio(key="aoi_source").set_value("bundled").run()
    at.select_slider(key="aoi_epsilon").set_value(5.0).run()
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    contexts = at.session_state["eyedp_release_context"]
    facts = contexts[-1]["facts"]
    assert facts["view"] == "Areas of interest" and facts["data"]["AOIs"] == 16
    assert facts["sensitivity"]["L1 of observers who looked"] == 16.0
    assert facts["sensitivity"]["L1 of dwell time sum"] == 20.0  # min(16 · 5 s, 2 · 10 s)


def test_table_source_travels_as_text_in_the_settings(at) -> None:
    from eyedp_core.settings import encode_query
    from ui import settings

    at.radio(key="aoi_source").set_value("table").run()
    assert not at.exception, at.exception
    assert "| logo |" in page_text(at)  # starts from the bundled AOIs
    csv = "name,kind,x0,y0,x1,y1,points\ncall to action,rect,990,580,1138,620,\nleft | half,polygon,,,,,0 0; 640 0; 640 800; 0 800\n"
    at.text_area(key="aoi_text").set_value(csv).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "40 observers, 2 AOIs" in text
    assert "| call to action |" in text and r"| left \| half |" in text  # a pipe in a name is escaped
    values = settings.current_values("areas_of_interest", at.session_state)
    assert values["aoi_text"] == csv
    assert "aoi_text" in encode_query(values, settings.schema())
    at.text_area(key="aoi_text").set_value("name,kind,x0,y0,x1,y1\nbad,rect,1,2,x,4\n").run()
    assert "AOI text, row 2, column 'x1'" in page_text(at)


def test_a_large_epsilon_is_warned_about(at) -> None:
    """Above ε = 10 the page says the bound says little (e^50 ≈ 5·10^21); at 10 it does not."""
    at.select_slider(key="aoi_epsilon").set_value(50.0).run()
    assert not at.exception, at.exception
    warned = " ".join(w.value for w in at.warning)
    assert "e^ε ≈ 5.2 × 10^21 times" in warned and "says little" in warned
    at.select_slider(key="aoi_epsilon").set_value(10.0).run()
    assert not any("says little" in w.value for w in at.warning)
