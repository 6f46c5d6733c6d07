"""`python -m eyedp_core.batch plan`: one plan released from sharded fixation files into one bundle whose manifest
lists every output's ε, δ, target_met and files with their SHA-256; the released maps are the clean maps plus the
manifests' noise; a plan over its cap, an ε no engine can certify or a bad plan file writes nothing."""
from __future__ import annotations

import hashlib
import io
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.batch.cli import main
from eyedp_core.batch.numpy_engine import clean_aggregate
from eyedp_core.batch.plan_run import eps_tag, heatmap_settings, release_plan
from eyedp_core.batch.run import RunOptions
from eyedp_core.batch.settings import Engine
from eyedp_core.batch.sources import expand_inputs
from eyedp_core.plan import StudyPlan
from tests.core.batch.test_batch import CELL, H, W, clean_mean_map, light_fixations, write_shards

N = 300


@pytest.fixture(scope="module")
def two_stimuli(tmp_path_factory):
    """Two stimuli seen by the same 300 observers; m = 2, C = 40 keep every fixation (the clean map is raw)."""
    a = light_fixations(np.random.default_rng(11), n=N)
    b = light_fixations(np.random.default_rng(12), n=N)
    b["stimulus"] = "2002.jpg"
    a["stimulus"] = "1001.jpg"
    df = pd.concat([a, b], ignore_index=True).sample(frac=1.0, random_state=3)  # both stimuli in every shard
    folder = tmp_path_factory.mktemp("plan")
    return df, write_shards(df, folder / "in")


def _plan_file(folder, cap: float, **extra) -> str:
    plan = {"study": "ux", "cap": {"epsilon": cap}, "outputs": [
        {"kind": "heatmap", "stimulus": "*", "width": W, "height": H, "cell_px": CELL, "cap_m": 2, "cap_total": 40,
         "target": {"hot_spots_kept": 0.5}, **extra},
        {"kind": "aoi", "stimulus": "1001.jpg", "n_aois": 3, "metrics": ["dwell"], "target": {"dwell_s": 0.5}}]}
    path = os.path.join(folder, "plan.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(plan, f)
    return path


def test_cli_writes_the_bundle_with_its_sha256s(two_stimuli, tmp_path, capsys):
    df, glob = two_stimuli
    out = tmp_path / "bundle"
    assert main(["plan", "--plan", _plan_file(tmp_path, 6.0), "--input", glob, "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert man["total_per_person"]["accountant"] == "basic"
    eps = [o["epsilon"] for o in man["outputs"]]
    assert sum(eps) == pytest.approx(man["total_per_person"]["epsilon"]) and sum(eps) <= 6.0
    assert man["total_per_person"]["delta"] == pytest.approx(2e-6)  # two Gaussian heatmaps, δ = 1e-6 each
    names = set()
    for o in man["outputs"]:
        assert {"epsilon", "delta", "target_met", "files"} <= set(o)
        for f in o["files"]:
            data = (out / f["name"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == f["sha256"]
            names.add(f["name"])
    heat = [o for o in man["outputs"] if o["kind"] == "heatmap"]
    assert [o["stimulus"] for o in heat] == ["1001.jpg", "2002.jpg"]
    for o in heat:
        stem = f"heatmap_{o['stimulus'].replace('.', '-')}_{eps_tag(o['epsilon'])}"
        assert {f["name"] for f in o["files"]} == {stem + ".csv", stem + ".png", stem + ".json"}
    aoi = man["outputs"][2]
    assert aoi["released"] is False and aoi["files"] == [] and aoi["epsilon"] > 0
    assert hashlib.sha256((out / "plan.json").read_bytes()).hexdigest() == man["files"][0]["sha256"]
    assert set(os.listdir(out)) == names | {"plan.json", "manifest.json"}
    assert StudyPlan.from_json((out / "plan.json").read_text(encoding="utf-8")).cap.epsilon == 6.0
    assert report["total_per_person"] == man["total_per_person"]


def test_bundle_maps_are_clean_maps_plus_the_manifests_noise(two_stimuli):
    df, glob = two_stimuli
    files = expand_inputs(glob)
    plan = StudyPlan.from_dict({"cap": {"epsilon": 4.0}, "outputs": [
        {"kind": "heatmap", "stimulus": s, "width": W, "height": H, "cell_px": CELL, "cap_m": 2, "cap_total": 40}
        for s in ("1001.jpg", "2002.jpg")]})
    bundle = release_plan(files, plan, RunOptions(Engine.NUMPY))
    for entry in bundle.manifest["outputs"]:
        assert entry["epsilon"] == pytest.approx(2.0)
        csv = next(f["name"] for f in entry["files"] if f["name"].endswith(".csv"))
        table = pd.read_csv(io.BytesIO(bundle.files[csv])).sort_values(["row", "col"])
        clean = clean_mean_map(df[df["stimulus"] == entry["stimulus"]]).ravel()
        z = (table["value"].to_numpy(float) - clean) / entry["noise_std"]
        ks = stats.kstest(z, "norm")
        seen = f"{entry['stimulus']}: KS p = {ks.pvalue:.2g}, mean z = {z.mean():.3f}, sd z = {z.std():.3f}"
        # Fresh OpenDP noise: KS at 10⁻⁶, sd within 6 standard errors, mean within 4 (< 1 failure in 10⁴ runs).
        assert ks.pvalue > 1e-6, seen
        assert abs(z.std() - 1) < 6 / math.sqrt(2 * z.size), seen
        assert abs(z.mean()) < 4 / math.sqrt(z.size), seen


def test_neighbours_move_each_map_by_at_most_its_stated_sensitivity(two_stimuli, tmp_path):
    """Replace one observer's fixations on both stimuli: each clean map moves by at most the L2 sensitivity the
    output's manifest states, so the plan's per-person total is the sum of the outputs' ε."""
    df, glob = two_stimuli
    files = expand_inputs(glob)
    plan = StudyPlan.from_dict({"cap": {"epsilon": 2.0}, "outputs": [
        {"kind": "heatmap", "stimulus": s, "width": W, "height": H, "cell_px": CELL, "cap_m": 2, "cap_total": 40}
        for s in ("1001.jpg", "2002.jpg")]})
    bundle = release_plan(files, plan, RunOptions(Engine.NUMPY))
    other = df.copy()
    who = other["observer"] == "v0"
    other.loc[who, "x"] = 5.0  # v0 now looks at one corner cell, many times
    other.loc[who, "y"] = 5.0
    glob2 = write_shards(other, tmp_path / "neighbour")
    for entry, o in zip(bundle.manifest["outputs"], plan.outputs):
        s = heatmap_settings(o, entry["epsilon"])
        a = clean_aggregate(files, s).aggregate
        b = clean_aggregate(expand_inputs(glob2), s).aggregate
        per = json.loads(bundle.files[next(f["name"] for f in entry["files"] if f["name"].endswith(".json"))])
        stated = per["calibration"]["l2_sensitivity"]
        moved = float(np.sqrt(((a - b) ** 2).sum()))
        assert 0.5 * stated < moved <= stated * (1 + 1e-12)  # near the bound, never beyond
    assert bundle.manifest["total_per_person"]["epsilon"] == pytest.approx(2.0)


def test_a_plan_over_its_cap_writes_nothing(two_stimuli, tmp_path, capsys):
    _, glob = two_stimuli
    out = tmp_path / "never"
    code = main(["plan", "--plan", _plan_file(tmp_path, 3.0, epsilon=2.0), "--input", glob, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "does not fit its cap ε = 3" in err and "ε = 4" in err  # two stimuli pinned at 2 each
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".never")]  # no partial folder left


def test_an_epsilon_the_engine_cannot_certify_writes_nothing(two_stimuli, tmp_path, capsys):
    _, glob = two_stimuli
    out = tmp_path / "never"
    code = main(["plan", "--plan", _plan_file(tmp_path, 1e6, epsilon=1e5), "--input", glob, "--out", str(out)])
    assert code == 2 and not out.exists()
    assert "cannot" in capsys.readouterr().err


@pytest.mark.parametrize("change, named", [({"colour": 1}, "outputs[0].colour"), ({"width": -1}, "outputs[0].width")])
def test_a_bad_plan_file_names_the_field_and_writes_nothing(two_stimuli, tmp_path, capsys, change, named):
    _, glob = two_stimuli
    out = tmp_path / "never"
    code = main(["plan", "--plan", _plan_file(tmp_path, 5.0, **change), "--input", glob, "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and named in err and "plan.json" in err


def test_pipelinedp_engine_writes_the_same_layout(two_stimuli, tmp_path):
    _, glob = two_stimuli
    out = tmp_path / "pdp"
    assert main(["plan", "--plan", _plan_file(tmp_path, 6.0), "--input", glob, "--engine", "pipelinedp",
                 "--out", str(out)]) == 0
    man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert man["engine"] == "pipelinedp"
    for o in man["outputs"]:
        for f in o["files"]:
            assert hashlib.sha256((out / f["name"]).read_bytes()).hexdigest() == f["sha256"]
        if o["files"]:
            per = json.loads((out / next(f["name"] for f in o["files"] if f["name"].endswith(".json"))).read_text())
            assert per["engine"]["name"] == "pipelinedp"
            assert per["calibration"]["noise_std"] >= per["calibration"]["eyedp_noise_std"] * (1 - 1e-9)


def test_one_pass_over_every_stimulus_equals_the_engine_per_stimulus(two_stimuli, tmp_path):
    """The plan's single pass gives each output the numpy engine's own clean map and roster, to the last digit,
    with binding caps, a different grid per output and odd partition and chunk sizes."""
    from eyedp_core.batch.plan_sources import clean_aggregates
    from eyedp_core.batch.settings import HeatmapSettings
    from eyedp_core.batch.sources import RowReport
    from tests.core.batch.test_batch import heavy_fixations

    light_df, _ = two_stimuli
    heavy = heavy_fixations(np.random.default_rng(5), n=120)
    heavy["stimulus"] = "3003.png"
    df = pd.concat([light_df, heavy], ignore_index=True).sample(frac=1.0, random_state=9)
    files = expand_inputs(write_shards(df, tmp_path / "mixed", parts=4))
    outs = [HeatmapSettings(stimulus="1001.jpg", width=W, height=H, cell_px=CELL, cap_m=1, cap_total=5),
            HeatmapSettings(stimulus="2002.jpg", width=W, height=H, cell_px=64),
            HeatmapSettings(stimulus="3003.png", width=W, height=H, cell_px=CELL, cap_m=1, cap_total=30)]
    reports: dict[str, RowReport] = {}
    together = clean_aggregates(files, outs, partitions=7, chunk_rows=1013, reports=reports)
    for s, got in zip(outs, together):
        alone = clean_aggregate(files, s, partitions=5, chunk_rows=997)
        np.testing.assert_allclose(got.aggregate, alone.aggregate, rtol=0, atol=1e-12)
        assert sorted(got.observers) == sorted(alone.observers)
    assert [c.n_observers for c in together] == [N, N, 120]
    assert {k: r.rows for k, r in reports.items()} == {s.stimulus: len(df) for s in outs}


SHAPES = [{"name": "left", "kind": "rect", "x0": 0, "y0": 0, "x1": 640, "y1": 800},
          {"name": "middle", "kind": "polygon", "points": [[500, 100], [800, 100], [650, 700]]}]


def test_aoi_metrics_with_shapes_are_released_with_the_half_width_the_plan_predicted(two_stimuli, tmp_path, capsys):
    _, glob = two_stimuli
    plan = {"study": "ux", "cap": {"epsilon": 4.0}, "outputs": [
        {"kind": "heatmap", "stimulus": "1001.jpg", "width": W, "height": H, "cap_m": 2, "cap_total": 40},
        {"kind": "aoi", "stimulus": "1001.jpg", "shapes": SHAPES, "metrics": ["hit_ratio", "fixations"],
         "target": {"hit_ratio_points": 5}}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    out = tmp_path / "bundle"
    assert main(["plan", "--plan", str(path), "--input", glob, "--out", str(out)]) == 0
    capsys.readouterr()
    man = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    aoi = man["outputs"][1]
    assert aoi["released"] is True and aoi["n"] == N
    for f in aoi["files"]:
        assert hashlib.sha256((out / f["name"]).read_bytes()).hexdigest() == f["sha256"]
    own = json.loads((out / next(f["name"] for f in aoi["files"] if f["name"].endswith(".json"))).read_text())
    assert own["epsilon_per_observer"] == pytest.approx(aoi["epsilon"]) and own["observers"] == N
    assert sum(q["epsilon"] for q in own["queries"]) == pytest.approx(aoi["epsilon"])
    # Hit ratio sums: Δ1 = k = 2 observers' hits; the released 95 % half-width is the one the plan predicted.
    hits = next(q for q in own["queries"] if q["query"] == "observers who looked")
    assert hits["l1_sensitivity"] == 2.0
    table = pd.read_csv(out / next(f["name"] for f in aoi["files"] if f["name"].endswith(".csv")), index_col=0)
    assert list(table.index) == ["left", "middle"]
    # The Laplace scale the release used gives the 95 % half-width b·ln 20/n the plan predicted (in points).
    assert 100 * hits["scale_formula"] * math.log(20) / N == pytest.approx(aoi["expected"], rel=1e-9)
    assert aoi["target_met"] == (aoi["expected"] <= 5)
    assert man["total_per_person"]["epsilon"] == pytest.approx(sum(o["epsilon"] for o in man["outputs"]))


def test_an_aoi_metric_the_shards_cannot_give_writes_nothing(two_stimuli, tmp_path, capsys):
    _, glob = two_stimuli  # no durations in these shards: dwell time cannot be released
    plan = {"cap": {"epsilon": 4.0}, "outputs": [
        {"kind": "heatmap", "stimulus": "1001.jpg", "width": W, "height": H},
        {"kind": "aoi", "stimulus": "1001.jpg", "shapes": SHAPES, "metrics": ["dwell"]}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    out = tmp_path / "never"
    assert main(["plan", "--plan", str(path), "--input", glob, "--out", str(out)]) == 2
    assert "dwell time cannot be released" in capsys.readouterr().err and not out.exists()


def test_the_png_carries_its_legend_and_caption(two_stimuli, tmp_path):
    """Pixel check: the map's pixels are the plain release picture's, the band under it holds the colour bar of the
    app's ramp over white from 0 (transparent: white) to the top colour, and the caption's text is drawn (dark
    pixels under the bar)."""
    from PIL import Image

    from eyedp_core.batch.outputs import png_bytes
    from eyedp_core.batch.plan_png import BAND_PX, LEGEND_PX
    from eyedp_core.heatmaps.colour import heat_lut, heat_rgb

    _, glob = two_stimuli
    plan = StudyPlan.from_dict({"study": "ux", "cap": {"epsilon": 3.0}, "outputs": [
        {"kind": "heatmap", "stimulus": "1001.jpg", "width": W, "height": H, "cap_m": 2, "cap_total": 40}]})
    bundle = release_plan(expand_inputs(glob), plan, RunOptions(Engine.NUMPY))
    name = next(n for n in bundle.files if n.endswith(".png"))
    assert name == "heatmap_1001-jpg_eps3.png"
    img = np.asarray(Image.open(io.BytesIO(bundle.files[name])).convert("RGB"))
    assert img.shape == (H + BAND_PX, W, 3)
    csv = pd.read_csv(io.BytesIO(bundle.files[name.replace(".png", ".csv")])).sort_values(["row", "col"])
    values = csv["value"].to_numpy(float).reshape(-(-H // CELL), -(-W // CELL))
    plain = np.asarray(Image.open(io.BytesIO(png_bytes(values, CELL, 0.0, W, H))).convert("RGB"))
    np.testing.assert_array_equal(img[:H], plain)
    bar = img[H + 4 + LEGEND_PX // 2]
    inside = bar[8:W - 8]
    np.testing.assert_array_equal(inside, heat_rgb(np.linspace(0.0, 1.0, W - 16)))
    np.testing.assert_array_equal(inside[0], [255, 255, 255])
    top = heat_lut()[-1].astype(float)  # the top colour, alpha-blended over white
    expected = top[:3] * top[3] / 255 + 255 * (1 - top[3] / 255)
    assert np.abs(inside[-1] - expected).max() <= 1
    text = img[H + 4 + LEGEND_PX + 2:]
    assert (text.sum(axis=2) < 200).sum() > 200  # labels and caption drawn in black on white


def test_batch_allocation_equals_the_in_app_allocation(tmp_path):
    """The same plan on the bundled sample: the batch command's streamed clean maps give the app's allocation to
    the last digit (ε, expected utility, band, needs), so the bundle's manifest is what the plan page shows."""
    from eyedp_core.plan import allocate, inputs_from_fixations

    df = pd.read_parquet("sample_data/fixations.parquet")
    glob = write_shards(df, tmp_path / "sample", parts=3)
    plan = StudyPlan.from_dict({"study": "sample", "cap": {"epsilon": 10}, "outputs": [
        {"kind": "heatmap", "stimulus": "*", "width": W, "height": H, "target": {"hot_spots_kept": 0.3}},
        {"kind": "aoi", "stimulus": "webpage", "n_aois": 4, "target": {"dwell_s": 0.5}}]})
    bundle = release_plan(expand_inputs(glob), plan, RunOptions(Engine.NUMPY))
    app_plan, inputs = inputs_from_fixations(df, plan)
    app = allocate(app_plan, None, inputs)
    batch = bundle.manifest["outputs"]
    assert [o["output"] for o in batch] == [r.label for r in app.outputs]
    for o, r in zip(batch, app.outputs):
        d = r.to_dict()
        for key in ("epsilon", "delta", "expected", "band_10_90", "target_met", "epsilon_needed", "people_needed", "n"):
            assert o[key] == d[key], (o["output"], key)
    assert bundle.manifest["sentence"] == app.sentence


def test_an_aoi_output_without_its_stimulus_on_several_stimuli_writes_nothing(two_stimuli, tmp_path, capsys):
    _, glob = two_stimuli
    plan = {"cap": {"epsilon": 4.0}, "outputs": [{"kind": "aoi", "shapes": SHAPES, "metrics": ["hit_ratio"]}]}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    out = tmp_path / "never"
    assert main(["plan", "--plan", str(path), "--input", glob, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "names no stimulus but the shards hold 2 (1001.jpg, 2002.jpg)" in err and not out.exists()


def test_progress_is_told_each_output_and_can_stop_the_release(two_stimuli):
    """release_plan calls progress(i, n, label) before drawing output i of n, in the allocation's order; a False
    answer stops the release with ReleaseStopped and no bundle (so nothing can be charged or written)."""
    from eyedp_core.batch.plan_run import ReleaseStopped

    _, glob = two_stimuli
    files = expand_inputs(glob)
    plan = StudyPlan.from_dict({"cap": {"epsilon": 4.0}, "outputs": [
        {"kind": "heatmap", "stimulus": s, "width": W, "height": H, "cell_px": CELL} for s in ("1001.jpg", "2002.jpg")]})
    calls: list[tuple[int, int, str]] = []
    bundle = release_plan(files, plan, progress=lambda i, n, label: calls.append((i, n, label)) or True)
    assert calls == [(0, 2, "heatmap_1001-jpg"), (1, 2, "heatmap_2002-jpg")]
    assert [o["output"] for o in bundle.manifest["outputs"]] == [c[2] for c in calls]
    seen: list[int] = []
    with pytest.raises(ReleaseStopped, match="stopped before heatmap_2002-jpg"):
        release_plan(files, plan, progress=lambda i, n, label: seen.append(i) or i < 1)
    assert seen == [0, 1]
