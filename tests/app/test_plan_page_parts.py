"""A plan with a heatmap, a series form and gaze samples on the bundled sample data: the Plan and release page
draws all three, names their files for what they hold, hashes them in the manifest, states each output's ε as
allocated and charges the ledger for every entry in one step; over the cap nothing is charged or offered; an
output the session's data cannot release is named before the click and the whole plan is refused. The batch
command with `--series` / `--samples` writes the same names and ε as the app for the same tables."""
from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from dataclasses import replace

import pandas as pd
import pytest

from eyedp_core.batch.cli import main
from eyedp_core.data.bundled import SAMPLE_DIR, load_sample
from eyedp_core.exports.plan_parts import PartTables, part_inputs, series_input
from eyedp_core.plan.allocate import allocate
from eyedp_core.plan.inputs import inputs_from_fixations, series_basis
from eyedp_core.plan.schema import GazeSamplesOutput, SeriesFormOutput, StudyPlan
from tests.apptest import open_app
from ui.plan import panels, release

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/plan.py"
NAME = "Sample: fixations"


def _plan_text(cap: float = 10.0, series: dict | None = None, gaze: dict | None = None) -> str:
    return json.dumps({"study": "parts", "cap": {"epsilon": cap}, "outputs": [
        {"kind": "heatmap", "stimulus": "comic", "width": 1280, "height": 800},
        {"kind": "series_form", "form": "group", **(series or {})},
        {"kind": "gaze_samples", "priority": 2.0, **(gaze or {})}]})


def _open(text: str):
    at = open_app(PAGE)
    at.session_state["plan_json"] = text
    at.run()
    assert not at.exception, at.exception
    return at


def _allocation(text: str):
    """The allocation computed here: the fixation models of the sample, and each series form's model on the
    sample's feature windows (as the Time series form comparison reads them)."""
    expanded, inputs = inputs_from_fixations(load_sample("fixations"), StudyPlan.from_json(text), table_name=NAME)
    bases = {}
    for o in expanded.outputs:
        if isinstance(o, SeriesFormOutput) and o.recordings_per_person >= 3 and not o.features:
            s = series_input(load_sample("reading_features"), o)  # the sample's readers have 3 recordings each
            bases[o.label] = series_basis(s.x, s.lo, s.hi, s.recs, o)
    return allocate(expanded, expanded.cap, replace(inputs, series=bases))


def _ledger(at):
    return list(at.session_state["eyedp_ledger"].releases)


def test_the_bundle_holds_every_output_named_hashed_and_charged_in_one_step(monkeypatch) -> None:
    """The series form carries a target: the page's allocation judges it on the feature windows, as the release's
    does, so the ε the page shows is the ε released."""
    import ui.state

    text = _plan_text(series={"recordings_per_person": 3, "target": {"db": 0}})
    at = _open(text)
    alloc = _allocation(text)
    shown = at.dataframe[0].value.reset_index(drop=True)
    pd.testing.assert_frame_equal(shown, panels.table_rows(alloc), check_dtype=False)
    assert shown.set_index("Output").loc["series_group_1w", "Target met?"] in ("yes", "no")
    calls = []
    charge = ui.state.charge

    def counted(releases, **kwargs) -> bool:
        calls.append(len(releases))
        return charge(releases, **kwargs)

    monkeypatch.setattr(ui.state, "charge", counted)
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    assert calls == [3]  # one call holding the heatmap's, the series form's and the gaze samples' entries
    eps = {r.label: r.epsilon for r in alloc.outputs}
    assert set(eps) == {"heatmap_comic", "series_group_1w", "gaze_samples"} and sum(eps.values()) == pytest.approx(10)
    z = zipfile.ZipFile(io.BytesIO(at.session_state["planrel_result"]["zip"]))
    files = {n: z.read(n) for n in z.namelist()}
    manifest = json.loads(files["manifest.json"])
    outs = {o["output"]: o for o in manifest["outputs"]}
    assert {k: o["epsilon"] for k, o in outs.items()} == pytest.approx(eps)
    assert all(o["released"] for o in outs.values())
    assert outs["series_group_1w"]["target_met"] is not None and outs["series_group_1w"]["expected"] is not None
    tag = {k: release_tag(v) for k, v in eps.items()}
    assert [f["name"] for f in outs["series_group_1w"]["files"]] == \
        [f"series_group_1w_{tag['series_group_1w']}.csv", f"series_group_1w_{tag['series_group_1w']}.json"]
    assert [f["name"] for f in outs["gaze_samples"]["files"]] == \
        [f"gaze_samples_{tag['gaze_samples']}.csv", f"gaze_samples_{tag['gaze_samples']}.json"]
    for o in outs.values():
        for f in o["files"]:
            assert hashlib.sha256(files[f["name"]]).hexdigest() == f["sha256"]
    # Each released file's own manifest states the output's allotted ε per person.
    series_json = json.loads(files[f"series_group_1w_{tag['series_group_1w']}.json"])
    gaze_json = json.loads(files[f"gaze_samples_{tag['gaze_samples']}.json"])
    assert series_json["epsilon_per_person"] == pytest.approx(eps["series_group_1w"])
    assert gaze_json["epsilon_per_person"] == pytest.approx(eps["gaze_samples"], rel=1e-12)
    assert gaze_json["epsilon_per_person"] <= eps["gaze_samples"]
    # One charge: every output's entries, each output at its allotted ε (Kaleido: per-window ε × windows).
    got = _ledger(at)
    by_view = {}
    for r in got:
        by_view[r.view] = by_view.get(r.view, 0.0) + r.epsilon * r.count
    assert by_view == pytest.approx({"Heatmaps": eps["heatmap_comic"], "Time series": eps["series_group_1w"],
                                     "Gaze samples": eps["gaze_samples"]}, rel=1e-9)
    assert sum(by_view.values()) <= 10.0


def release_tag(epsilon: float) -> str:
    """The ε tag of a file name, computed here (3 significant digits, 'eps' before it)."""
    text = f"{epsilon:.0f}" if epsilon >= 100 else f"{epsilon:.3g}"
    return "eps" + text.replace("+", "")


def test_over_the_cap_nothing_is_charged_or_offered() -> None:
    """The ledger counts each person: the sample's readers (P01–P20) are not its observers (O01–O40), so the
    plan passes the study's cap (10) for the readers with gaze streams: 0.5 (series) + 11 (gaze) per person."""
    at = _open(_plan_text(cap=12.0, series={"epsilon": 0.5}, gaze={"epsilon": 11.0}))
    at.button(key="plan_release").click().run()
    assert not at.exception, at.exception
    assert _ledger(at) == []
    assert "planrel_result" not in at.session_state and not at.get("download_button")
    refusal = " ".join(str(e.value) for e in at.error)
    assert "Nothing was released or charged" in refusal and "'gaze_samples'" in refusal


def test_an_output_the_data_cannot_release_is_named_and_the_plan_refused_whole() -> None:
    """A series form naming a feature the feature table lacks: said before the click, the button is off, and the
    release path itself refuses naming the output (nothing drawn, nothing charged)."""
    text = _plan_text(series={"features": ["no_such_feature"]})
    at = _open(text)
    said = " ".join(str(e.value) for e in at.error)
    assert "series_group_1w cannot be released" in said and "no_such_feature" in said
    assert at.button(key="plan_release").disabled  # AppTest, as a browser, cannot press it
    assert _ledger(at) == [] and "planrel_result" not in at.session_state
    alloc = _allocation(text)
    parts = part_inputs(alloc.plan.outputs, PartTables(load_sample("reading_features"), load_sample("gaze_streams")))
    with pytest.raises(ValueError, match="series_group_1w cannot be released here"):
        release.draw_bundle(load_sample("fixations"), NAME, alloc.plan, parts)


def test_the_batch_command_writes_the_app_bundle_names_and_epsilon(tmp_path) -> None:
    text = _plan_text()
    alloc = _allocation(text)
    parts = part_inputs(alloc.plan.outputs, PartTables(load_sample("reading_features"), load_sample("gaze_streams"),
                                                       screen=(1280, 800)))
    app = release.draw_bundle(load_sample("fixations"), NAME, alloc.plan, parts)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(text)
    out = tmp_path / "bundle"
    assert main(["plan", "--plan", str(plan_file), "--input", str(SAMPLE_DIR / "fixations.parquet"),
                 "--series", str(SAMPLE_DIR / "reading_features.parquet"),
                 "--samples", str(SAMPLE_DIR / "gaze_streams.parquet"), "--out", str(out)]) == 0
    batch = json.loads((out / "manifest.json").read_text())
    ma = json.loads(app.files["manifest.json"])
    assert sorted(p.name for p in out.iterdir()) == sorted(app.files)
    assert [(o["output"], o["epsilon"], o["delta"], o["target_met"], [f["name"] for f in o["files"]])
            for o in batch["outputs"]] == \
        [(o["output"], o["epsilon"], o["delta"], o["target_met"], [f["name"] for f in o["files"]])
         for o in ma["outputs"]]
    for o in batch["outputs"]:
        for f in o["files"]:
            assert hashlib.sha256((out / f["name"]).read_bytes()).hexdigest() == f["sha256"]
    # The same calibration: the series form's stated noise scale per feature is the app's.
    s = next(f["name"] for o in ma["outputs"] if o["output"] == "series_group_1w" for f in o["files"]
             if f["name"].endswith(".json"))
    assert json.loads((out / s).read_text())["calibration"]["feature_scale"] == \
        json.loads(app.files[s])["calibration"]["feature_scale"]


def test_a_large_plan_previews_six_heatmaps_until_others_are_picked() -> None:
    """Eight heatmaps: six previews by default (each one is a draw and a picture at every run), a picker names all
    eight, and the previews follow the pick."""
    outputs = [{"kind": "heatmap", "stimulus": "comic", "width": 1280, "height": 800, "name": f"h{i}"}
               for i in range(8)]
    at = _open(json.dumps({"study": "many", "cap": {"epsilon": 8}, "outputs": outputs}))
    captions = [i.proto.imgs[0].caption for i in at.image]
    assert len(captions) == 6 and all(c.startswith("PREVIEW h") for c in captions), captions
    pick = at.multiselect(key="planpreview_pick")
    assert pick.options == [f"h{i}" for i in range(8)] and pick.value == [f"h{i}" for i in range(6)]
    pick.set_value(["h7"]).run()
    assert not at.exception, at.exception
    captions = [i.proto.imgs[0].caption for i in at.image]
    assert len(captions) == 1 and captions[0].startswith("PREVIEW h7 at"), captions


def test_a_stopped_release_says_nothing_was_charged() -> None:
    """The Stop button's run: the page says the release stopped before the ledger was charged, and it was not."""
    at = _open(_plan_text())
    before = len(_ledger(at))
    at.session_state["planrel_stopped"] = True
    at.run()
    assert not at.exception, at.exception
    assert any("nothing was released or charged" in i.value for i in at.info)
    assert len(_ledger(at)) == before and "planrel_result" not in at.session_state


def test_add_gaze_samples_takes_the_gaze_samples_pages_kaleido_settings() -> None:
    """The editor's 'Add gaze samples' adds one gaze-samples output with the Kaleido settings of the Gaze samples
    page (as its sliders hold them), and the allocation gives it a share of the cap."""
    at = open_app(PAGE)
    at.session_state["gs_kal_w"] = 30
    at.session_state["gs_kal_r"] = 80
    at.run()
    at.button(key="planedit_add_gs").click().run()
    assert not at.exception, at.exception
    plan = StudyPlan.from_json(at.session_state["plan_json"])
    (o,) = plan.outputs
    assert isinstance(o, GazeSamplesOutput) and (o.w, o.r, o.t_skip) == (30, 80.0, 12)
    shown = at.dataframe[0].value
    assert list(shown["Output"]) == ["gaze_samples"] and float(shown["ε"].iloc[0]) > 0


def test_a_plan_over_its_delta_cap_leads_with_that_not_with_epsilon_0() -> None:
    """Twelve Gaussian heatmaps at δ = 1e-6 each under basic composition exceed the cap's δ = 1e-5: the lead says the
    plan does not fit (not 'protected with ε = 0'), the note says why and what would fit, and Release is off."""
    outputs = [{"kind": "heatmap", "stimulus": "comic", "width": 1280, "height": 800, "name": f"h{i}"}
               for i in range(12)]
    at = _open(json.dumps({"study": "many", "cap": {"epsilon": 8}, "outputs": outputs}))
    lead = at.markdown[0].value
    assert "does not fit its cap ε ≤ 8, δ ≤ 1.0e-05 per observer" in lead and "ε = 0" not in lead, lead
    assert any("use the zCDP accountant" in w.value for w in at.warning)
    assert at.button(key="plan_release").disabled
