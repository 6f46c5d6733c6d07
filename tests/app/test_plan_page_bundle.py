"""The app's plan bundle is the batch command's: the maps and AOI tables the app builds in memory equal those the
batch path streams from a shard of the same table, and the two bundles hold the same files under the same names
with the same manifest layout (only the noise, drawn fresh, differs)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from eyedp_core.aoi.bundled import bundled_aois
from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.batch.plan_aoi import aoi_table
from eyedp_core.batch.plan_run import heatmap_settings, release_plan
from eyedp_core.batch.plan_sources import clean_aggregates
from eyedp_core.data.bundled import load_sample
from eyedp_core.plan import AoiOutput, Cap, HeatmapOutput, StudyPlan, inputs_from_fixations
from ui.plan import release

NAME = "Sample: fixations"


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    frame = load_sample("fixations")
    shard = tmp_path_factory.mktemp("shards") / "fixations.parquet"
    frame.to_parquet(shard)
    aois = bundled_aois("webpage")
    plan = StudyPlan("bundle", Cap(6.0), (HeatmapOutput(stimulus="*", width=1280, height=800),
                                          AoiOutput(stimulus="webpage", shapes=aois, aois=tuple(a.name for a in aois),
                                                    metrics=(AoiMetric.HIT_RATIO, AoiMetric.DWELL))))
    expanded, _ = inputs_from_fixations(frame, plan, table_name=NAME)
    return frame, [str(shard)], expanded


def test_in_memory_inputs_equal_the_streamed_ones(case) -> None:
    frame, files, plan = case
    mem = release.sources(frame, NAME, plan)
    heat = [o for o in plan.outputs if isinstance(o, HeatmapOutput)]
    streamed = clean_aggregates(files, [heatmap_settings(o, 1.0) for o in heat])
    assert len(heat) == 3
    for o, c in zip(heat, streamed):
        np.testing.assert_allclose(mem.cleans[o.label].aggregate, c.aggregate, rtol=1e-12, atol=1e-15)
        assert sorted(mem.cleans[o.label].observers) == sorted(c.observers)
    aoi = next(o for o in plan.outputs if isinstance(o, AoiOutput))
    a, b = mem.aoi_tables[aoi.label], aoi_table(files, aoi)
    assert sorted(a.observers) == sorted(b.observers) and a.aoi_names == b.aoi_names
    order = [a.observers.index(x) for x in b.observers]
    for field in ("hit", "fixations", "dwell_s", "ttff_s", "revisits"):
        np.testing.assert_allclose(getattr(a, field)[order], getattr(b, field), rtol=1e-12, err_msg=field)


def test_app_bundle_has_the_batch_bundle_files_and_manifest(case) -> None:
    frame, files, plan = case
    app = release.draw_bundle(frame, NAME, plan)
    batch = release_plan(files, plan)
    assert set(app.files) == set(batch.files)
    assert app.files["plan.json"] == batch.files["plan.json"]
    ma, mb = json.loads(app.files["manifest.json"]), json.loads(batch.files["manifest.json"])
    assert set(ma) == set(mb) and ma["total_per_person"] == mb["total_per_person"]
    assert [(o["output"], o["epsilon"], [f["name"] for f in o["files"]]) for o in ma["outputs"]] == \
        [(o["output"], o["epsilon"], [f["name"] for f in o["files"]]) for o in mb["outputs"]]
    # Each output's noise is calibrated alike: the same σ on the same map (the draws themselves differ).
    for oa, ob in zip(ma["outputs"], mb["outputs"]):
        assert oa.get("noise_std") == ob.get("noise_std")
    # The ledger is charged what the bundle released: per output its allotted ε (an AOI output split over its sums).
    charged = {c.label: sum(e.epsilon for e in c.entries)
               for c in release.planned_charges(app.allocation, frame, NAME)}
    assert charged == pytest.approx({o["output"]: o["epsilon"] for o in ma["outputs"]})
    assert sum(charged.values()) == pytest.approx(6.0)


def test_zip_lists_the_extra_files_with_their_hashes(case) -> None:
    import hashlib
    import io
    import zipfile

    frame, _, plan = case
    bundle = release.draw_bundle(frame, NAME, plan)
    data, manifest = release.bundle_zip(bundle, {"settings.json": b"{}", "review_board_report.html": b"<html/>"})
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert set(names) == set(bundle.files) | {"settings.json", "review_board_report.html"}
    listed = {f["name"]: f["sha256"] for f in manifest["files"]}
    assert listed["settings.json"] == hashlib.sha256(b"{}").hexdigest()
    assert listed["plan.json"] == hashlib.sha256(bundle.files["plan.json"]).hexdigest()


def test_first_over_cap_names_the_output_that_passes_it() -> None:
    from eyedp_core.dp.accounting import Release

    def entry(e: float) -> Release:
        return Release(view="v", label="x", unit="observer", mechanism="m", sensitivity_type="public", epsilon=e)

    charges = [release.PlannedCharge("a", (entry(3.0),)), release.PlannedCharge("b", (entry(3.0), entry(1.0))),
               release.PlannedCharge("c", (entry(4.0),))]
    fits_under = lambda cap: (lambda so_far: None if sum(r.epsilon for r in so_far) <= cap else "over")  # noqa: E731
    assert release.first_over_cap(charges, fits_under(11.0)) is None
    assert release.first_over_cap(charges, fits_under(10.0)) == "c"
    assert release.first_over_cap(charges, fits_under(6.5)) == "b"
    assert release.first_over_cap(charges, fits_under(2.0)) == "a"
