"""eyedp_core.batch: the streamed numpy engine equals the in-memory heatmap, PipelineDP's calibration equals EyeDP's
replace-one calibration to PipelineDP's grid, the released noise has the manifest's law, and bad input writes nothing."""
from __future__ import annotations

import json
import math
import os
import shlex

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.batch.cli import main, parser, settings_from_args
from eyedp_core.batch.numpy_engine import clean_aggregate
from eyedp_core.batch.pdp_engine import pdp_bounds
from eyedp_core.batch.run import RunOptions, reference_calibration, release_batch
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import expand_inputs
from eyedp_core.heatmaps.calibration import calibrate_heatmap, heatmap_sensitivity
from eyedp_core.heatmaps.maps import aggregate, gaze_maps
from eyedp_core.io.errors import DataError

W, H, CELL = 1280, 800, 32
N_OBS = 1000


def heavy_fixations(rng: np.random.Generator, n: int = 300, per: int = 50) -> pd.DataFrame:
    """Observers with many fixations near a few hot spots: both caps bind."""
    obs = np.repeat([f"p{i:04d}" for i in range(n)], per)
    hot = rng.integers(0, 3, obs.size)
    cx, cy = np.array([200.0, 640.0, 1100.0])[hot], np.array([150.0, 400.0, 700.0])[hot]
    x = np.clip(rng.normal(cx, 60), 0, W - 1)
    y = np.clip(rng.normal(cy, 60), 0, H - 1)
    return pd.DataFrame({"observer": obs, "x": x, "y": y, "stimulus": "img1"})


def light_fixations(rng: np.random.Generator, n: int = N_OBS, cells: int = 15) -> pd.DataFrame:
    """Each observer: `cells` distinct cells with 1 or 2 fixations each (≤ 30 in all), so m = 2, C = 40 (k = 20)
    keep every fixation on every engine and the clean capped map is the raw mean map."""
    rows, cols = -(-H // CELL), -(-W // CELL)
    prob = np.exp(-((np.arange(rows * cols) % cols - 20) ** 2) / 60.0)
    prob /= prob.sum()
    out = []
    for i in range(n):
        chosen = rng.choice(rows * cols, size=cells, replace=False, p=prob)
        reps = rng.integers(1, 3, cells)
        c = np.repeat(chosen, reps)
        x = (c % cols) * CELL + rng.uniform(0, CELL, c.size)
        y = (c // cols) * CELL + rng.uniform(0, CELL, c.size)
        out.append(pd.DataFrame({"observer": f"v{i}", "x": x, "y": y}))
    df = pd.concat(out, ignore_index=True)
    df["stimulus"] = "img1"
    return df


def write_shards(df: pd.DataFrame, folder, parts: int = 3) -> str:
    """Table in, the glob of its shards out (Parquet, CSV.gz and CSV, observers split across shards)."""
    folder.mkdir(exist_ok=True)
    cuts = np.linspace(0, len(df), parts + 1).astype(int)
    kinds = ["parquet", "csv.gz", "csv"]
    for i in range(parts):
        part = df.iloc[cuts[i]:cuts[i + 1]]
        path = folder / f"shard-{i}.{kinds[i % 3]}"
        part.to_parquet(path) if kinds[i % 3] == "parquet" else part.to_csv(path, index=False)
    return str(folder / "shard-*")


def clean_mean_map(df: pd.DataFrame) -> np.ndarray:
    """Raw mean map computed independently of eyedp_core (pandas group-by)."""
    rows, cols = -(-H // CELL), -(-W // CELL)
    cell = (df["y"] // CELL).astype(int) * cols + (df["x"] // CELL).astype(int)
    counts = cell.value_counts()
    out = np.zeros(rows * cols)
    out[counts.index.to_numpy()] = counts.to_numpy()
    return (out / df["observer"].nunique()).reshape(rows, cols)


def settings(**kw) -> HeatmapSettings:
    base = dict(stimulus="img1", width=W, height=H, cell_px=CELL, epsilon=1.0, delta=1e-6, cap_m=2, cap_total=40)
    base.update(kw)
    return HeatmapSettings(**base)


def test_streamed_clean_map_equals_in_memory_heatmap(tmp_path, rng):
    df = heavy_fixations(rng)
    files = expand_inputs(write_shards(df, tmp_path / "in"))
    s = settings(cap_m=1, cap_total=30)
    # Small chunks and an odd number of partitions: observers are split across chunks and shards.
    streamed = clean_aggregate(files, s, partitions=7, chunk_rows=997)
    in_memory = aggregate(gaze_maps(df, W, H, CELL), 1, 30)
    assert streamed.n_observers == 300
    assert np.abs(clean_mean_map(df) - in_memory).max() > 0.2  # the caps bind
    np.testing.assert_allclose(streamed.aggregate, in_memory, rtol=0, atol=1e-12)
    # Same map and same public n, so the same calibration as the page's, to the last digit.
    sens, cal = reference_calibration(s, streamed.n_observers, Engine.NUMPY)
    ref = calibrate_heatmap(heatmap_sensitivity(1000, 300, 1, 30), 1.0, 1e-6)
    assert cal.scale == ref.scale and sens.l2 == pytest.approx(math.sqrt(60) / 300)


@pytest.fixture(scope="module")
def light(tmp_path_factory):
    rng = np.random.default_rng(7)
    df = light_fixations(rng)
    folder = tmp_path_factory.mktemp("light")
    return df, expand_inputs(write_shards(df, folder / "in"))


def _standardised_noise(values, df, std):
    return ((values - clean_mean_map(df)) / std).ravel()


@pytest.mark.parametrize("engine", [Engine.NUMPY, Engine.PIPELINEDP])
def test_engines_release_clean_map_plus_noise_of_the_manifest(light, engine):
    df, files = light
    s = settings()
    rel = release_batch(files, s, RunOptions(engine))
    man = rel.manifest
    assert man["n_observers"] == N_OBS and man["engine"]["name"] == engine.value
    std = man["calibration"]["noise_std"]
    z = _standardised_noise(rel.values, df, std)
    assert z.size == 1000
    # Released − independent clean map is N(0, std²) per cell: the law (KS), its spread and no offset. The noise
    # is fresh (OpenDP, no seed), so no check may fail a correct release more than about once in 16,000 runs:
    # KS at 10⁻⁶ (a gross error of the law), the sd within 6 standard errors (a noise scale off by 20 %), the
    # means within 4 (an offset of an eighth of the noise over all 1,000 cells, of a fifth over the 521 hot ones).
    hot = clean_mean_map(df).ravel() > 0.01
    ks = stats.kstest(z, "norm")
    # Every statistic in every message: the noise is fresh (OpenDP, no seed), so a failure cannot be re-run as it
    # was; it must say at once whether the release was shifted, too wide or too narrow, or only oddly shaped.
    seen = (f"KS p = {ks.pvalue:.2g} (D = {ks.statistic:.3f} at z = {ks.statistic_location:.3f}); mean z = "
            f"{z.mean():.3f}, sd z = {z.std():.3f}; hot cells ({hot.sum()}): mean z = {z[hot].mean():.3f}")
    assert ks.pvalue > 1e-6, seen
    assert abs(z.std() - 1) < 6 / math.sqrt(2 * z.size), seen
    assert abs(z.mean()) < 4 / math.sqrt(z.size), seen
    assert abs(z[hot].mean()) < 4 / math.sqrt(hot.sum()), seen


def test_calibrations_agree_to_pipelinedps_grid(light):
    df, files = light
    s = settings()
    ref_sens, ref = reference_calibration(s, N_OBS, Engine.NUMPY)
    pdp_sens, pdp_ref = reference_calibration(s, N_OBS, Engine.PIPELINEDP)
    # m = 2 divides C = 40: k = 20 cells of ≤ 2 have the same replace-one sensitivity as the total cap C.
    assert ref_sens.l2 == pytest.approx(pdp_sens.l2, rel=1e-12) == pytest.approx(2 * math.sqrt(40) / N_OBS)
    rel = release_batch(files, s, RunOptions(Engine.PIPELINEDP)).manifest["calibration"]
    assert rel["l2_sensitivity"] == pytest.approx(ref_sens.l2, rel=1e-12)
    # python-dp's analytic σ sits on its own grid, at most 0.1 % above the exact analytic σ.
    assert ref.scale <= rel["noise_std"] <= ref.scale * 1.001
    num = release_batch(files, s, RunOptions(Engine.NUMPY)).manifest["calibration"]
    assert num["calibrated_scale"] == ref.scale
    # OpenDP's zCDP accounting of its discrete Gaussian needs a little more σ than the analytic one (as the app's export).
    assert ref.scale <= num["noise_std"] <= ref.scale * 1.25


def test_laplace_calibration_agrees():
    s = settings(mechanism="laplace")
    b = pdp_bounds(s)
    assert (b.k, b.v, b.l1) == (20, 2.0, 80)
    import pipeline_dp
    from pipeline_dp import dp_computations as dpc

    params = dpc.ScalarNoiseParams(eps=1.0, delta=0.0, min_value=0.0, max_value=b.v, min_sum_per_partition=None,
                                   max_sum_per_partition=None, max_partitions_contributed=b.k,
                                   max_contributions_per_partition=b.m, noise_kind=pipeline_dp.NoiseKind.LAPLACE)
    pdp_std = dpc._compute_noise_std(b.v * b.m, params)
    _, ref = reference_calibration(s, 1, Engine.PIPELINEDP)
    assert pdp_std == pytest.approx(ref.std, rel=1e-9) == pytest.approx(math.sqrt(2) * 80, rel=1e-12)


def test_pipelinedp_keeps_k_cells_and_m_per_cell(tmp_path):
    # One observer with 10 fixations in each of 50 cells among 200 quiet observers: m = 1, k = 5 keep 5 of them.
    big = np.repeat(np.arange(50), 10)
    rows = [pd.DataFrame({"observer": "big", "x": (big % 40) * CELL + 1.0, "y": (big // 40) * CELL + 5.0})]
    rows += [pd.DataFrame({"observer": [f"q{i}"], "x": [W - 5.0], "y": [H - 5.0]}) for i in range(200)]
    df = pd.concat(rows, ignore_index=True)
    df["stimulus"] = "img1"
    files = expand_inputs(write_shards(df, tmp_path / "in", parts=1))
    s = settings(cap_m=1, cap_total=5, epsilon=50.0, delta=1e-3)
    rel = release_batch(files, s, RunOptions(Engine.PIPELINEDP))
    std = rel.manifest["calibration"]["noise_std"]
    top_row = rel.values[0, :40].sum() + rel.values[1, :10].sum()  # the 50 cells of "big"
    sd_sum = std * 201 * math.sqrt(50)
    # 5 kept fixations, not 50 (k ignored) nor 500 (m ignored): the 5σ band excludes both.
    assert 5 * sd_sum < 45
    assert abs(top_row * 201 - 5) < 5 * sd_sum


def test_settings_file_and_command_round_trip(tmp_path):
    s = settings(epsilon=0.3, delta=2.5e-7, cap_total=None, mechanism="laplace", sigma_px=12.5)
    assert HeatmapSettings.from_json(s.to_json()) == s
    argv = shlex.split(s.command("data/*.parquet", Engine.SPARK, "out/"))[3:]
    args = parser().parse_args(argv)
    assert args.engine == "spark" and args.input == ["data/*.parquet"]
    assert settings_from_args(args) == s
    with pytest.raises(ValueError, match="unknown settings"):
        HeatmapSettings.from_dict({**s.to_dict(), "colour": "red"})


def _bad(tmp_path, name: str, df: pd.DataFrame) -> str:
    folder = tmp_path / "bad"
    folder.mkdir(exist_ok=True)
    path = folder / name
    df.to_parquet(path) if name.endswith(".parquet") else df.to_csv(path, index=False)
    return str(folder / "*")


GOOD = pd.DataFrame({"observer": ["a", "a", "b", "c"], "x": [1.0, 2.0, 3.0, 4.0], "y": [5.0, 6.0, 7.0, 8.0]})


@pytest.mark.parametrize("name,df,words", [
    ("no_y.csv", GOOD.drop(columns="y"), ["no_y.csv", "missing column", "'y'"]),
    ("text_x.csv.gz", GOOD.assign(x=["1", "2", "left", "4"]), ["text_x.csv.gz", "row 4", "column 'x'", "'left'"]),
    ("nan_id.parquet", GOOD.assign(observer=["a", None, "b", "c"]), ["nan_id.parquet", "row 3", "observer"]),
    ("nan_num_id.parquet", GOOD.assign(observer=[1.0, 2.0, np.nan, 3.0]), ["nan_num_id.parquet", "observer"]),
    ("off_canvas.parquet", GOOD.assign(x=[1.0, 2.0, 5000.0, 4.0]), ["off_canvas.parquet", "row 4", "column 'x'", "5000"]),
])
@pytest.mark.parametrize("engine", ["numpy", "pipelinedp"])
def test_bad_input_names_the_file_and_writes_nothing(tmp_path, capsys, name, df, words, engine):
    pattern = _bad(tmp_path, name, df)
    out = tmp_path / "results" / "release"
    code = main(["heatmap", "--input", pattern, "--engine", engine, "--stimulus", "img1", "--epsilon", "1",
                 "--delta", "1e-6", "--cell-px", "32", "--cap-m", "1", "--cap-total", "30", "--width", str(W),
                 "--height", str(H), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    for w in words:
        assert w in err
    assert "Traceback" not in err
    assert not out.exists()
    assert not (tmp_path / "results").exists() or os.listdir(tmp_path / "results") == []


def test_bad_input_raises_data_error_from_the_core(tmp_path):
    files = expand_inputs(_bad(tmp_path, "no_x.parquet", GOOD.drop(columns="x")))
    with pytest.raises(DataError) as err:
        release_batch(files, settings(), RunOptions(Engine.NUMPY))
    assert err.value.file == "no_x.parquet" and err.value.column == "x"


def test_cli_writes_map_png_and_manifest(tmp_path, light):
    df, files = light
    out = tmp_path / "release"
    code = main(["heatmap", "--input", os.path.join(os.path.dirname(files[0]), "shard-*"), "--stimulus", "img1",
                 "--epsilon", "1", "--delta", "1e-6", "--cell-px", "32", "--cap-m", "2", "--cap-total", "40",
                 "--width", str(W), "--height", str(H), "--out", str(out)])
    assert code == 0
    assert sorted(os.listdir(out)) == ["heatmap.csv", "heatmap.png", "manifest.json", "settings.json"]
    table = pd.read_csv(out / "heatmap.csv")
    assert len(table) == 1000 and list(table.columns) == ["row", "col", "x0_px", "y0_px", "value"]
    man = json.loads((out / "manifest.json").read_text())
    assert man["guarantee"]["epsilon"] == 1.0 and "replace one observer" in man["guarantee"]["neighbouring_relation"]
    assert man["engine"]["versions"]["opendp"] and man["release"]["library"] == "opendp"
    assert man["release"]["seeded"] is False
    assert man["calibration"]["l2_sensitivity"] == pytest.approx(2 * math.sqrt(40) / N_OBS)
    assert HeatmapSettings.from_json((out / "settings.json").read_text()) == settings()
    from PIL import Image
    assert Image.open(out / "heatmap.png").size == (W, H)


def test_stand_alone_pipelinedp_script_releases_the_same_law(light):
    from eyedp_core.batch.script import pipelinedp_script

    df, _ = light
    s = settings()
    scope: dict = {}
    exec(compile(pipelinedp_script(s), "pipelinedp_script", "exec"), scope)  # noqa: S102 - our own generated code
    values = scope["release"](list(df[["observer", "x", "y"]].itertuples(index=False, name=None)), N_OBS)
    _, ref = reference_calibration(s, N_OBS, Engine.PIPELINEDP)
    z = _standardised_noise(values, df, ref.std)
    # Fresh PipelineDP noise (no seed): the same bounds as the engines' test, so a correct release fails at most
    # about once in 16,000 runs (KS at 10⁻⁶ for the law, the sd within 6 standard errors for the scale).
    ks = stats.kstest(z, "norm")
    seen = f"KS p = {ks.pvalue:.2g} (D = {ks.statistic:.3f}); mean z = {z.mean():.3f}, sd z = {z.std():.3f}"
    assert ks.pvalue > 1e-6, seen
    assert abs(z.std() - 1) < 6 / math.sqrt(2 * z.size), seen
    assert abs(z.mean()) < 4 / math.sqrt(z.size), seen
