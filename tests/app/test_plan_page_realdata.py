"""The Plan and release page on a real fixation table (OSIE: 15 observers, three 800 × 600 stimuli, uploaded as a
user would): three heatmaps and an AOI dwell table under cap ε = 10 give the table `allocate` gives on the same
table, and one click releases the four outputs, charging each observer exactly the plan's total."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from eyedp_core.plan import StudyPlan, allocate, inputs_from_fixations
from tests.apptest import upload_file, use_data
from ui.plan import panels

OSIE = Path(__file__).resolve().parents[2].parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"
STIMULI = ("1001.jpg", "1002.jpg", "1003.jpg")


@pytest.fixture(scope="module")
def osie() -> pd.DataFrame:
    if not OSIE.is_file():
        pytest.skip(f"real data not available at {OSIE}")
    d = pd.read_csv(OSIE).rename(columns={"image": "stimulus", "subject": "observer"})
    d = d[d["stimulus"].isin(STIMULI)].copy()
    d["observer"] = "s" + d["observer"].astype(str)
    return d[["observer", "stimulus", "x", "y", "duration_ms"]].reset_index(drop=True)


def test_three_stimuli_and_an_aoi_table_under_cap_10(osie) -> None:
    at = upload_file("fixations", "osie3.csv", osie.to_csv(index=False).encode())
    use_data(at)
    at.switch_page("pages/your_data.py").run()
    at.switch_page("pages/plan.py").run()
    assert not at.exception, at.exception
    at.multiselect(key="planedit_stimuli").set_value(list(STIMULI)).run()
    at.button(key="planedit_add_hm").click().run()
    at.selectbox(key="planedit_aoi_stim").set_value("1001.jpg").run()
    at.multiselect(key="planedit_aoi_metrics").set_value(["dwell"]).run()
    at.button(key="planedit_add_aoi").click().run()
    assert not at.exception, at.exception
    plan = StudyPlan.from_json(at.session_state["plan_json"])
    heat = plan.outputs[:3]
    # An upload without images: its stimuli are drawn on the blank canvas the page offers for them.
    assert [o.stimulus for o in heat] == list(STIMULI) and len(plan.outputs[3].shapes) == 9
    assert all((o.width, o.height) == (1920, 1080) for o in heat)
    fix = at.session_state["eyedp_uploads"]["fixations"]
    (name,) = list(fix)
    expanded, inputs = inputs_from_fixations(fix[name].frame, plan, table_name=name)
    want = panels.table_rows(allocate(expanded, expanded.cap, inputs))
    pd.testing.assert_frame_equal(at.dataframe[0].value.reset_index(drop=True), want, check_dtype=False)
    assert list(want["Output"]) == ["heatmap_1001-jpg", "heatmap_1002-jpg", "heatmap_1003-jpg", "aoi_dwell_1001-jpg"]
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    led = at.session_state["eyedp_ledger"]
    per = {}
    for r in led.releases:
        for p in r.participants:
            per[p] = per.get(p, 0.0) + r.epsilon
    assert len(per) == 15 and max(per.values()) == pytest.approx(10.0)
    names = zipfile.ZipFile(io.BytesIO(at.session_state["planrel_result"]["zip"])).namelist()
    assert sum(n.startswith("heatmap_") and n.endswith(".png") for n in names) == 3
    assert any(n.startswith("aoi_dwell_1001-jpg_eps") for n in names)
