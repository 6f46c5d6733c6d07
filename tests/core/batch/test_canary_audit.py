"""eyedp_core.batch.canary: the one-run canary audit of a batch heatmap release. Flipping one canary is a
replace-one neighbour at the full sensitivity; a correct release gives ε̂ ≤ ε over several seeds, one whose noise
is a tenth of the calibrated one gives ε̂ > ε; the audit runs the engine's real path once and writes no release."""
from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pandas as pd
import pytest

import eyedp_core.batch.canary as canary_mod
import eyedp_core.batch.run as run_mod
from eyedp_core.audit.canary import canary_epsilon
from eyedp_core.batch.canary import _canary_shard, canary_audit, canary_layout
from eyedp_core.batch.cli import main
from eyedp_core.batch.numpy_engine import clean_aggregate
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.heatmaps.calibration import calibrate_heatmap

W, H, CELL = 320, 240, 32
CANARIES = 1000


def settings(**kw) -> HeatmapSettings:
    """Small canvas, m = 1, C = 2 (k = 2 cells per canary)."""
    base = dict(stimulus="img1", width=W, height=H, cell_px=CELL, epsilon=1.0, delta=1e-6, cap_m=1, cap_total=2)
    base.update(kw)
    return HeatmapSettings(**base)


@pytest.fixture()
def shards(tmp_path) -> list[str]:
    """40 real observers with 20 fixations each, in two Parquet shards."""
    rng = np.random.default_rng(7)
    n, per = 40, 20
    df = pd.DataFrame({"observer": np.repeat([f"p{i}" for i in range(n)], per), "x": rng.uniform(0, W, n * per),
                       "y": rng.uniform(0, H, n * per), "stimulus": "img1"})
    folder = tmp_path / "in"
    folder.mkdir()
    paths = [str(folder / "a.parquet"), str(folder / "b.parquet")]
    df.iloc[: n * per // 2].to_parquet(paths[0])
    df.iloc[n * per // 2:].to_parquet(paths[1])
    return paths


def test_flipping_one_canary_is_a_neighbour_at_the_full_sensitivity(shards, tmp_path):
    """Two inputs differing in one canary (in its 'in' cells vs its 'out' cells): the clean maps differ by exactly
    the calibrated Δ₁ = 2C/n and Δ₂ = √(2mC)/n, and only in that canary's cells."""
    s = settings(cap_m=2, cap_total=6)  # k = 3
    layout = canary_layout(s, 50)
    included = np.random.default_rng(0).random(50) < 0.5
    flipped = included.copy()
    flipped[17] = not flipped[17]
    ids = [f"c{i}" for i in range(50)]
    maps = []
    for bits, name in ((included, "x"), (flipped, "y")):
        path = str(tmp_path / f"canaries-{name}.parquet")
        _canary_shard(layout, bits, ids).to_parquet(path)
        maps.append(clean_aggregate([*shards, path], layout.settings, partitions=4).aggregate.ravel())
    diff = maps[1] - maps[0]
    n = 40 + 50
    sens, _ = run_mod.reference_calibration(layout.settings, n, Engine.NUMPY)
    assert np.abs(diff).sum() == pytest.approx(sens.l1, rel=1e-12) == pytest.approx(2 * 6 / n)
    assert np.sqrt((diff**2).sum()) == pytest.approx(sens.l2, rel=1e-12) == pytest.approx(np.sqrt(2 * 2 * 6) / n)
    cells = np.concatenate([layout.in_cells[17], layout.out_cells[17]])
    assert set(np.flatnonzero(diff)) == set(cells.tolist())
    assert cells.min() >= (s.grid_shape[0] + 1) * s.grid_shape[1]  # below the real canvas and its gap row


def test_correct_gaussian_release_gives_bound_below_epsilon(shards):
    """ε = 1, δ = 1e-6: the top/bottom 50 guesses are right 62 ± 4.9 times in 100 (μ = Δ₂/σ = 0.237; 10⁵
    simulated runs, none reached 84), and at 99 % confidence ε̂ > 1 needs 84 right."""
    for seed in range(3):
        audit = canary_audit(shards, settings(), Engine.NUMPY, canaries=CANARIES, seed=seed, confidence=0.99)
        assert audit.bound.guesses == 100 and audit.shift_fraction == pytest.approx(1.0)
        assert audit.epsilon <= audit.epsilon_claimed == 1.0, audit


def test_correct_laplace_release_gives_bound_below_epsilon(shards):
    """Pure ε = 1 (δ = 0 in the bound): the guesses are right 65 ± 4.7 times in 100 (6 in 10⁵ simulated runs
    reached 84), and at 99.9 % confidence ε̂ > 1 needs 87 right."""
    audit = canary_audit(shards, settings(mechanism="laplace"), Engine.NUMPY, canaries=CANARIES, seed=3,
                         confidence=0.999)
    assert audit.delta_claimed == 0.0 and audit.shift_fraction == pytest.approx(1.0)
    assert audit.epsilon <= 1.0, audit


def test_noise_a_tenth_of_the_calibrated_gives_bound_above_epsilon(shards, monkeypatch):
    """Sensitivities divided by 10 in the engine's calibration (σ/10): μ ≈ 2.3, nearly every guess right, ε̂ ≈ 3.5."""
    orig = run_mod.reference_calibration

    def too_little_noise(s, n, engine):
        sens, cal = orig(s, n, engine)
        sens = dataclasses.replace(sens, l1=sens.l1 / 10, l2=sens.l2 / 10)
        return sens, calibrate_heatmap(sens, s.epsilon, s.delta, s.mechanism, cal.method)

    monkeypatch.setattr(run_mod, "reference_calibration", too_little_noise)
    audit = canary_audit(shards, settings(), Engine.NUMPY, canaries=CANARIES, seed=0)
    assert audit.epsilon > audit.epsilon_claimed, audit
    assert audit.bound.correct >= 95


def test_one_release_through_the_engine_path(shards, monkeypatch):
    """release_batch runs once, on the user's shards plus the one canary shard and the grown canvas."""
    calls = []
    real = canary_mod.release_batch

    def spy(files, s, run, **kw):
        calls.append((list(files), s, run.engine))
        return real(files, s, run, **kw)

    monkeypatch.setattr(canary_mod, "release_batch", spy)
    audit = canary_audit(shards, settings(), Engine.NUMPY, canaries=200, seed=1)
    assert len(calls) == 1
    files, s, engine = calls[0]
    assert files[:2] == shards and len(files) == 3 and engine is Engine.NUMPY
    assert s.width == W and s.height > H and s.epsilon == 1.0 and audit.n_observers == 240


def test_pipelinedp_engine_audit(shards):
    """The same audit through PipelineDP (its own bounding and noise): every canary kept, ε̂ ≤ ε (99 %)."""
    audit = canary_audit(shards, settings(), Engine.PIPELINEDP, canaries=CANARIES, seed=2, confidence=0.99)
    assert audit.engine is Engine.PIPELINEDP and audit.shift_fraction == pytest.approx(1.0)
    assert audit.epsilon <= 1.0, audit


def test_command_line_prints_bound_and_writes_nothing(shards, tmp_path, capsys):
    before = sorted(os.listdir(tmp_path))
    rc = main(["audit-canaries", "--input", os.path.join(os.path.dirname(shards[0]), "*.parquet"),
               "--stimulus", "img1", "--width", str(W), "--height", str(H), "--cell-px", str(CELL),
               "--cap-m", "1", "--cap-total", "2", "--epsilon", "1", "--delta", "1e-6", "--canaries", "400",
               "--seed", "5", "--confidence", "0.99", "--tmp-dir", str(tmp_path)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and sorted(os.listdir(tmp_path)) == before
    assert out["epsilon"] == 1.0 and out["canaries"] == 400 and out["guesses"] == 40 and out["confidence"] == 0.99
    assert out["epsilon_hat"] == canary_epsilon(400, 40, out["correct"], delta=1e-6, confidence=0.99)
    assert out["seconds"] > 0 and out["shift_over_sensitivity"] == pytest.approx(1.0)
