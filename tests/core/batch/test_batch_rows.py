"""eyedp_core.batch's input rules, through the command line where they are its behaviour: every row is used or
counted and named (malformed CSV lines, blank lines, non-finite and off-canvas positions, the page's edge rule), one
rule for non-finite coordinates on the local engines (Spark: test_batch_spark.py), noise below the calibrated one
refused, and every path argument checked before any work."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core.batch.numpy_engine import clean_aggregate
from eyedp_core.batch.pdp_engine import engine_noise_std
from eyedp_core.batch.run import RunOptions, check_noise, reference_calibration, release_batch
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import MAX_NAMED, RowFate, RowReport, expand_inputs, read_chunks
from eyedp_core.heatmaps.calibration import heatmap_sensitivity
from eyedp_core.heatmaps.maps import aggregate, gaze_maps
from eyedp_core.heatmaps.preview import fixations_for_stimulus
from eyedp_core.io.errors import DataError

ROOT = Path(__file__).resolve().parents[3]
OSIE = ROOT.parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"
W, H, CELL = 800, 600, 25


def cli(*args: str, env: dict | None = None, timeout: int = 300) -> subprocess.CompletedProcess:
    """`python -m eyedp_core.batch heatmap ...` in a fresh interpreter at the repository root."""
    return subprocess.run([sys.executable, "-m", "eyedp_core.batch", "heatmap", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=env)


def canvas_args(stimulus: str = "1001.jpg", epsilon: str = "1") -> list[str]:
    return ["--stimulus", stimulus, "--epsilon", epsilon, "--delta", "1e-6", "--cell-px", str(CELL),
            "--cap-m", "1", "--cap-total", "30", "--width", str(W), "--height", str(H)]


def settings(**kw) -> HeatmapSettings:
    base = dict(stimulus="1001.jpg", width=W, height=H, cell_px=CELL, epsilon=1.0, delta=1e-6, cap_m=1,
                cap_total=30)
    base.update(kw)
    return HeatmapSettings(**base)


@pytest.fixture(scope="module")
def osie() -> pd.DataFrame:
    """Three OSIE images (15 observers each, 800 × 600 px) in the batch's column names."""
    if not OSIE.exists():
        pytest.skip("../shared/realdata is not available")
    d = pd.read_csv(OSIE)
    d = d[d["image"].isin(["1001.jpg", "1002.jpg", "1003.jpg"])]
    return pd.DataFrame({"observer": "s" + d["subject"].astype(str), "x": d["x"], "y": d["y"],
                         "stimulus": d["image"]}).reset_index(drop=True)


# Lines added to a real shard, each with its fate: the three malformed rows of a hand-edited CSV (a field
# missing, a decimal comma that shifts the fields, an extra field), a blank line, non-finite positions (one is an
# observer's only fixation), positions 1 px off the canvas on each side and one on its far edge.
ODD = [("s1,400.5,300\n", "field_count"), ("s2,400,5,300.0,1001.jpg\n", "field_count"),
       ("s3,10,10,1001.jpg,extra\n", "field_count"), ("\n", "blank"), ("ghost,inf,5,1001.jpg\n", "non_finite"),
       ("s4,NaN,7,1001.jpg\n", "non_finite"), ("s5,-1,300,1001.jpg\n", "moved_to_edge"),
       ("s5,300,601,1001.jpg\n", "far_edge"), ("s6,801,300,1001.jpg\n", "far_edge"),
       ("s6,800,10,1001.jpg\n", "far_edge")]


def odd_shard(osie: pd.DataFrame, folder: Path) -> tuple[Path, dict[int, str], pd.DataFrame]:
    """OSIE rows with the ODD lines spread among them in, (the CSV, {line: fate} of the odd lines, the table the
    Heatmaps page would get from the well-formed rows: NaN for the non-finite positions) out."""
    folder.mkdir(exist_ok=True)
    good = osie[["observer", "x", "y", "stimulus"]]
    text = good.to_csv(index=False, lineterminator="\n").splitlines(keepends=True)
    header, body = text[0], text[1:]
    fates: dict[int, str] = {}
    out, step = [header], len(body) // (len(ODD) + 1)
    odd_rows = []
    for i, line in enumerate(body):
        out.append(line)
        k = i // step
        if (i + 1) % step == 0 and k < len(ODD):
            out.append(ODD[k][0])
            fates[len(out)] = ODD[k][1]  # line numbers count from the header's 1
            if ODD[k][1] not in ("field_count", "blank"):
                o, x, y, s = ODD[k][0].strip().split(",")
                odd_rows.append({"observer": o, "x": float(x), "y": float(y), "stimulus": s})
    path = folder / "osie.csv"
    path.write_text("".join(out), encoding="utf-8")
    page = pd.concat([good, pd.DataFrame(odd_rows)], ignore_index=True)
    page.loc[~np.isfinite(page["x"]), ["x", "y"]] = np.nan
    return path, fates, page


def test_every_row_of_a_real_shard_is_used_or_counted_and_named(osie, tmp_path):
    path, fates, page = odd_shard(osie, tmp_path / "in")
    out = tmp_path / "release"
    done = cli("--input", str(path), *canvas_args(), "--out", str(out), "--report", str(tmp_path / "run.json"))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["input_rows"]
    assert json.loads((tmp_path / "run.json").read_text())["input_rows"] == rows
    lines = path.read_text().count("\n") - 1
    want = pd.Series(list(fates.values())).value_counts().to_dict()
    n_here = int((osie["stimulus"] == "1001.jpg").sum())
    assert rows["rows_read"] == lines == len(osie) + len(ODD)
    assert sum(rows["counts"].values()) == lines
    assert rows["counts"] == {"used": n_here, "moved_to_edge": want["moved_to_edge"],
                              "other_stimulus": len(osie) - n_here, "blank": 1, "field_count": 3,
                              "non_finite": 2, "far_edge": 3}
    # Every odd line is named by file and line with its fate, and nothing else is.
    named = {(r["file"], r["line"]): r["fate"] for r in rows["named"]}
    assert named == {("osie.csv", line): fate for line, fate in fates.items()}
    assert any("5 fields where the header has 4" in r["why"] for r in rows["named"])
    # The manifest states the rules but no count: the counts describe the private input.
    man = json.loads((out / "manifest.json").read_text())
    assert "field_count" in man["input_rows"]["rules"] and "not differentially private" in man["input_rows"]["counts"]
    assert str(n_here) not in json.dumps(man["input_rows"])
    # n counts the observer whose only fixation was non-finite, as the page's roster does (an empty map).
    n_page = page.loc[page["stimulus"] == "1001.jpg", "observer"].nunique()
    assert man["n_observers"] == n_page == 16  # 15 OSIE observers and the one whose only fixation is at x = inf


def test_streamed_map_of_odd_rows_equals_the_heatmaps_page(osie, tmp_path):
    path, _, page = odd_shard(osie, tmp_path / "in")
    s = settings()
    report = RowReport()
    streamed = clean_aggregate([str(path)], s, partitions=5, chunk_rows=301, report=report)
    # The page's own path: its canvas rule (fit_to_canvas: 1 px off moves to the edge), then its maps and caps.
    sub, how = fixations_for_stimulus(page, "osie.csv", "1001.jpg", W, H)
    assert "moved to its edge" in how
    maps = gaze_maps(sub, W, H, CELL)
    assert streamed.n_observers == len(maps.observers) == 16
    assert set(streamed.observers) == set(map(str, maps.observers))
    np.testing.assert_allclose(streamed.aggregate, aggregate(maps, 1, 30), rtol=0, atol=1e-12)
    assert report.counts[RowFate.MOVED_TO_EDGE] == 1 and report.counts[RowFate.FAR_EDGE] == 3


def _with_observer(x: float) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"observer": np.repeat([f"p{i}" for i in range(4)], 6), "x": rng.uniform(0, W - 1, 24),
                       "y": rng.uniform(0, H - 1, 24)})
    return pd.concat([df, pd.DataFrame({"observer": ["e"], "x": [x], "y": [120.0]})], ignore_index=True)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_non_finite_only_fixation_neighbours_keep_n_on_local_engines(tmp_path, fmt):
    # Neighbours: observer e's only fixation is at x = +inf in one, on the canvas in the other. n is public, so it
    # must be the same in both, on every engine; the clean maps differ by at most the stated sensitivity.
    s = settings(stimulus="img", epsilon=50.0)
    files = []
    for name, x in (("inf", math.inf), ("on", 333.0)):
        folder = tmp_path / name
        folder.mkdir()
        df = _with_observer(x)
        path = folder / f"shard.{fmt}"
        df.to_parquet(path) if fmt == "parquet" else df.to_csv(path, index=False)
        files.append([str(path)])
    report = RowReport()
    a = clean_aggregate(files[0], s, report=report)
    b = clean_aggregate(files[1], s)
    assert a.n_observers == b.n_observers == 5
    assert [(r.line, r.fate.name) for r in report.named] == [(26, "NON_FINITE")]
    sens = heatmap_sensitivity(s.n_cells, 5, 1, 30)
    assert 0 < np.linalg.norm(a.aggregate - b.aggregate) <= sens.l2 + 1e-12
    for f in files:
        rel = release_batch(f, s, RunOptions(Engine.PIPELINEDP))
        assert rel.manifest["n_observers"] == 5
    assert rel.report.rows == 25


def test_read_chunks_names_at_most_max_named_per_reason_and_counts_all(tmp_path):
    path = tmp_path / "many.csv"
    path.write_text("observer,x,y\n" + "a,1,2\n" * 3 + "b,1,2,3\n" * (MAX_NAMED + 7) + "c,,5\n" * 30)
    report = RowReport()
    chunks = list(read_chunks([str(path)], "any", W, H, chunk_rows=10, report=report))
    assert sum(len(c.observer) for c in chunks) == 33 and report.rows == 3 + MAX_NAMED + 7 + 30
    fates = pd.Series([r.fate.name for r in report.named]).value_counts().to_dict()
    assert fates == {"FIELD_COUNT": MAX_NAMED, "NON_FINITE": MAX_NAMED}
    assert [r.line for r in report.named if r.fate.name == "NON_FINITE"][:2] == [3 + MAX_NAMED + 7 + 2, 3 + MAX_NAMED + 7 + 3]


def test_far_off_canvas_is_still_refused_with_the_pages_message(tmp_path):
    path = tmp_path / "far.csv"
    path.write_text("observer,x,y\na,1,2\nb,881,5\nc,5,5\n")  # 10 % of 800 px is 80 px: 881 is beyond
    with pytest.raises(DataError) as err:
        list(read_chunks([str(path)], "any", W, H))
    assert err.value.row == 3 and err.value.column == "x" and "moved to its edge" in str(err.value)


def test_pipelinedp_at_epsilon_1000_is_refused_before_any_output(tmp_path, osie):
    folder = tmp_path / "in"
    folder.mkdir()
    osie.to_csv(folder / "osie.csv", index=False)
    # PipelineDP's own σ at ε = 1,000 is the smallest double: no noise at all, against the calibrated σ.
    s = settings(epsilon=1000.0)
    _, cal = reference_calibration(s, 1, Engine.PIPELINEDP)
    assert engine_noise_std(s) < 1e-300 < cal.std
    with pytest.raises(ValueError, match="below"):
        check_noise(s, Engine.PIPELINEDP)
    check_noise(settings(epsilon=1.0), Engine.PIPELINEDP)
    assert engine_noise_std(settings(epsilon=1.0)) >= reference_calibration(settings(), 1, Engine.PIPELINEDP)[1].std
    out = tmp_path / "release"
    done = cli("--input", str(folder / "*.csv"), "--engine", "pipelinedp", *canvas_args(epsilon="1000"),
               "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "noise" in done.stderr and "below" in done.stderr and "not be private" in done.stderr
    assert not out.exists() and done.stdout == ""


def test_numpy_engine_at_epsilon_1e5_says_why(tmp_path, osie):
    folder = tmp_path / "in"
    folder.mkdir()
    osie.to_csv(folder / "osie.csv", index=False)
    out = tmp_path / "release"
    done = cli("--input", str(folder / "*.csv"), *canvas_args(epsilon="1e5"), "--out", str(out))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "ε = 100000" in done.stderr and "smaller ε" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize("case", ["tmp_missing", "tmp_file", "out_is_input", "out_inside_input", "out_is_file",
                                  "settings_missing", "out_under_a_file"])
def test_every_path_argument_is_checked_before_any_work(tmp_path, case):
    inputs = tmp_path / "in"
    inputs.mkdir()
    _with_observer(5.0).assign(stimulus="img").to_csv(inputs / "a.csv", index=False)
    (tmp_path / "file.txt").write_text("not a folder")
    out, extra = tmp_path / "release", []
    if case == "tmp_missing":
        extra = ["--tmpdir", str(tmp_path / "nowhere")]
    elif case == "tmp_file":
        extra = ["--tmp-dir", str(tmp_path / "file.txt")]
    elif case == "out_is_input":
        out = inputs
    elif case == "out_inside_input":
        out = inputs / "release"
    elif case == "out_is_file":
        out = tmp_path / "file.txt"
    elif case == "out_under_a_file":
        out = tmp_path / "file.txt" / "release"
    else:
        extra = ["--settings", str(tmp_path / "missing.json")]
    before = sorted(p.name for p in tmp_path.rglob("*"))
    done = cli("--input", str(inputs / "*.csv"), *canvas_args("img"), "--out", str(out), *extra, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("eyedp batch: --") and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_tmp_dir_is_used_and_left_clean(tmp_path):
    inputs, scratch = tmp_path / "in", tmp_path / "scratch"
    inputs.mkdir()
    scratch.mkdir()
    _with_observer(5.0).assign(stimulus="img").to_csv(inputs / "a.csv", index=False)
    for engine in ("numpy", "pipelinedp"):
        done = cli("--input", str(inputs / "*.csv"), "--engine", engine, *canvas_args("img"), "--out",
                   str(tmp_path / f"out-{engine}"), "--tmpdir", str(scratch), timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["n_observers"] == 5
    assert os.listdir(scratch) == []
    assert expand_inputs(str(inputs / "*")) == [str(inputs / "a.csv")]  # nothing written among the shards


@pytest.mark.parametrize("engine", [Engine.NUMPY, Engine.PIPELINEDP])
@pytest.mark.parametrize("epsilon,words", [(1e300, "no noise scale can be calibrated"),
                                           (1e-300, "no noise scale can be calibrated"),
                                           (1e5, "100000, 1e-06|ε = 100000, δ = 1e-06")])
def test_extreme_epsilon_is_a_message_on_every_engine(engine, epsilon, words):
    with pytest.raises(ValueError, match=words):
        check_noise(settings(epsilon=epsilon), engine)


def test_stand_alone_script_refuses_pipelinedps_missing_noise():
    from eyedp_core.batch.script import pipelinedp_script

    rows = [(f"o{i}", 10.0 * i, 20.0) for i in range(30)]
    for epsilon, refused in ((1000.0, True), (1.0, False)):
        scope: dict = {}
        exec(compile(pipelinedp_script(settings(epsilon=epsilon)), "script", "exec"), scope)  # noqa: S102 - ours
        if refused:
            with pytest.raises(RuntimeError, match="below the calibrated"):
                scope["release"](rows, 30)
        else:
            assert scope["release"](rows, 30).shape == settings().grid_shape
