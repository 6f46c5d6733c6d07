"""AppTest of the Plan and release page: it opens on the bundled sample, outputs come in from Heatmaps and from
Areas of interest, the allocation table is `allocate` on the same plan, one release charges the study's ledger
with exactly the plan's entries (or nothing when one output is over the cap) and its zip's manifest hashes every
file, and a share link brings the plan back."""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile

import pandas as pd
import pytest

from eyedp_core.data.bundled import load_sample
from eyedp_core.plan import Accountant, HeatmapOutput, StudyPlan, allocate, inputs_from_fixations
from tests.apptest import link_params, open_app, open_link, page_text
from ui.plan import panels, release

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/plan.py"
STIMULI = ["comic", "portrait", "webpage"]


def _plan(at) -> StudyPlan:
    return StudyPlan.from_json(at.session_state["plan_json"])


def _with_heatmaps(at, stimuli=STIMULI):
    at.multiselect(key="planedit_stimuli").set_value(list(stimuli)).run()
    at.button(key="planedit_add_hm").click().run()
    assert not at.exception, at.exception
    return at


def _ledger(at):
    return list(at.session_state["eyedp_ledger"].releases)


def _expected_table(plan: StudyPlan) -> pd.DataFrame:
    """The allocation computed here, independently of the page's cache: the sample table, the same plan."""
    expanded, inputs = inputs_from_fixations(load_sample("fixations"), plan, table_name="Sample: fixations")
    return panels.table_rows(allocate(expanded, expanded.cap, inputs))


def test_the_accountant_choices_are_the_accountants() -> None:
    assert set(panels.ACCOUNTANTS) == {a.value for a in Accountant}


def test_page_opens_on_the_sample_and_leads_with_the_guarantee() -> None:
    at = open_app(PAGE)
    assert "No plan yet" in page_text(at)
    _with_heatmaps(at)
    text = page_text(at)
    first = next(str(m.value) for m in at.markdown if "protected with" in str(m.value))
    assert "Each observer is protected with ε = 10" in first and "cap **ε ≤ 10" in first
    assert "Unit of privacy: one observer" in first
    assert [o.label for o in _plan(at).outputs] == [f"heatmap_{s}" for s in STIMULI]
    assert "Remaining budget" in text and len(at.image) == 3  # one preview per heatmap output
    assert "PREVIEW — NOT A PRIVATE RELEASE" in text


def test_allocation_table_is_allocate_on_the_same_plan() -> None:
    at = _with_heatmaps(open_app(PAGE))
    at.selectbox(key="planedit_out").set_value("heatmap_webpage").run()
    at.selectbox(key="planedit_measure").set_value("hot_spots_kept").run()
    at.number_input(key="planedit_value").set_value(0.5).run()
    at.button(key="planedit_apply").click().run()
    assert not at.exception, at.exception
    plan = _plan(at)
    assert plan.outputs[2].target is not None and plan.outputs[2].target.value == 0.5
    shown = at.dataframe[0].value.reset_index(drop=True)
    pd.testing.assert_frame_equal(shown, _expected_table(plan), check_dtype=False)
    row = shown.set_index("Output").loc["heatmap_webpage"]
    assert row["Target met?"] == "no" and row["People needed"] != "—"  # 40 observers keep far fewer hot spots
    assert "recruit about" in page_text(at)


def test_add_from_heatmaps_and_from_areas_of_interest() -> None:
    at = open_app("pages/heatmaps.py")
    at.button(key="hm_add_plan").click().run()
    assert not at.exception, at.exception
    stim = at.selectbox(key="hm_stimulus").value
    at.switch_page("pages/areas_of_interest.py").run()
    at.selectbox(key="aoi_stimulus").set_value("webpage").run()
    at.button(key="aoi_add_plan").click().run()
    assert not at.exception, at.exception
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    plan = _plan(at)
    heat, aoi = plan.outputs
    assert isinstance(heat, HeatmapOutput) and heat.stimulus == stim and (heat.width, heat.height) == (1280, 800)
    assert aoi.stimulus == "webpage" and len(aoi.shapes) == 16 and aoi.label.startswith("aoi_")
    shown = at.dataframe[0].value
    assert list(shown["Output"]) == [heat.label, aoi.label]
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), _expected_table(plan), check_dtype=False)


def test_release_over_the_cap_charges_nothing_and_offers_nothing() -> None:
    at = _with_heatmaps(open_app(PAGE))
    at.number_input(key="planedit_cap").set_value(12.0).run()  # the plan's cap above the study's (10)
    assert _plan(at).cap.epsilon == 12.0
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    assert _ledger(at) == []
    assert "planrel_result" not in at.session_state and not at.get("download_button")
    refusal = " ".join(str(e.value) for e in at.error)
    # 4 + 4 fits under 10, the third heatmap does not: the refusal names it and the cap.
    assert "'heatmap_webpage'" in refusal and "ε ≤ 10" in refusal and "Nothing was released or charged" in refusal


def test_release_charges_the_plan_and_its_zip_hashes_every_file() -> None:
    at = open_app("pages/areas_of_interest.py")
    at.selectbox(key="aoi_stimulus").set_value("webpage").run()
    at.button(key="aoi_add_plan").click().run()
    at.switch_page(PAGE).run()
    _with_heatmaps(at, ["comic", "webpage"])
    plan = _plan(at)
    expanded, inputs = inputs_from_fixations(load_sample("fixations"), plan, table_name="Sample: fixations")
    alloc = allocate(expanded, expanded.cap, inputs)
    planned = [e for c in release.planned_charges(alloc, load_sample("fixations"), "Sample: fixations")
               for e in c.entries]
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    got = _ledger(at)
    assert [(r.label, r.epsilon, r.delta, r.participants) for r in got] == \
        [(r.label, pytest.approx(r.epsilon), r.delta, r.participants) for r in planned]
    assert sum(r.epsilon for r in got) == pytest.approx(10.0)
    res = at.session_state["planrel_result"]
    z = zipfile.ZipFile(io.BytesIO(res["zip"]))
    files = {n: z.read(n) for n in z.namelist()}
    manifest = json.loads(files["manifest.json"])
    listed = {f["name"]: f["sha256"] for f in manifest["files"]}
    for o in manifest["outputs"]:
        listed.update({f["name"]: f["sha256"] for f in o["files"]})
    assert set(listed) == set(files) - {"manifest.json"}
    assert all(hashlib.sha256(files[n]).hexdigest() == h for n, h in listed.items())
    eps = {o["output"]: o["epsilon"] for o in manifest["outputs"]}
    assert {"plan.json", "settings.json", "review_board_report.html"} <= set(files)
    assert any(n.startswith("heatmap_webpage_eps") and n.endswith(".png") for n in files)
    assert any(n.startswith("aoi_") and n.endswith(".csv") for n in files)
    assert sum(eps.values()) == pytest.approx(10.0) and manifest["total_per_person"]["accountant"] == "basic"
    assert StudyPlan.from_json(files["plan.json"].decode()).outputs == expanded.outputs
    assert at.get("download_button")
    # The plan changes: the release box of the old plan goes.
    at.selectbox(key="planedit_out").set_value("heatmap_comic").run()
    at.button(key="planedit_drop").click().run()
    assert not at.exception, at.exception
    assert "planrel_result" not in at.session_state and not at.get("download_button")


def test_a_share_link_restores_the_plan() -> None:
    at = _with_heatmaps(open_app(PAGE), ["portrait"])
    params = link_params(at)
    assert "plan_json" in params
    again = open_link(PAGE, params)
    assert _plan(again) == _plan(at)
    assert list(again.dataframe[0].value["Output"]) == ["heatmap_portrait"]


def test_aoi_metrics_on_a_grid_are_planned_and_released_per_observer() -> None:
    at = open_app(PAGE)
    at.selectbox(key="planedit_aoi_stim").set_value("portrait").run()
    at.number_input(key="planedit_aoi_cols").set_value(2).run()
    at.number_input(key="planedit_aoi_rows").set_value(2).run()
    at.button(key="planedit_add_aoi").click().run()
    assert not at.exception, at.exception
    (aoi,) = _plan(at).outputs
    assert [a.name for a in aoi.shapes] == ["r1c1", "r1c2", "r2c1", "r2c2"] and aoi.stimulus == "portrait"
    assert aoi.shapes[-1].bounds == (640, 400, 1280, 800)  # the stimulus' canvas, halved
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    got = _ledger(at)
    # One entry per noisy sum of the AOI release (hit ratio, dwell), summing to the whole cap, on all 40 observers.
    assert len(got) >= 2 and sum(r.epsilon for r in got) == pytest.approx(10.0)
    assert all(len(r.participants) == 40 and r.unit == "observer" for r in got)


def test_a_charge_refused_after_the_draw_hands_out_nothing(monkeypatch) -> None:
    """Another session spends the budget between the check and the charge: the drawn bundle is discarded unseen."""
    import ui.state

    at = _with_heatmaps(open_app(PAGE), ["comic"])
    calls = []

    def refused(releases, **kwargs) -> bool:
        calls.append(len(releases))
        return False  # what ui.state.charge returns when the stored ledger refuses

    monkeypatch.setattr(ui.state, "charge", refused)
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    assert calls == [1] and _ledger(at) == []  # one call with every entry of the plan
    assert "planrel_result" not in at.session_state and not at.get("download_button")
    assert "Nothing was released or charged" in " ".join(str(e.value) for e in at.error)
