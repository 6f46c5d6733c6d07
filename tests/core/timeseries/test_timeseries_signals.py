"""Bounds, public length, empirical sensitivity, chunk helpers, feature tensors, correlation curves."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from eyedp_core.timeseries import sensitivity as sens
from eyedp_core.timeseries.setting import MechanismSetting
from eyedp_core.timeseries.signals import (
    acf_table,
    correlation_curves,
    difference_signal,
    feature_tensor,
    parse_mechanism,
    run_mechanism,
)


def test_clamp_and_public_length_fills():
    x = np.array([[-1.0, 0.5, 2.0], [0.2, np.nan, 0.4]])
    np.testing.assert_allclose(sens.clamp(x[:1], (0.0, 1.0)), [[0.0, 0.5, 1.0]])
    padded = sens.to_public_length(x, 5, fill=0.0)
    np.testing.assert_allclose(padded, [[-1, 0.5, 2, 0, 0], [0.2, 0, 0.4, 0, 0]])
    edge = sens.to_public_length(x, 5, fill="edge")
    np.testing.assert_allclose(edge, [[-1, 0.5, 2, 2, 2], [0.2, 0.2, 0.4, 0.4, 0.4]])
    ragged = sens.to_public_length([np.arange(4.0), np.arange(2.0)], 3, fill=np.array([9.0, 7.0]))
    np.testing.assert_allclose(ragged, [[0, 1, 2], [0, 1, 7]])
    lead_nan = sens.to_public_length(np.array([np.nan, 3.0, 4.0]), 3, fill="edge")
    np.testing.assert_allclose(lead_nan, [3, 3, 4])


def test_empirical_sensitivity_equals_pairwise_loop(rng):
    x = rng.normal(size=(6, 2, 50))
    for order in (1, 2):
        ref = np.zeros(2)
        for p, q in itertools.permutations(range(6), 2):
            ref = np.maximum(ref, np.linalg.norm(x[p] - x[q], ord=order, axis=-1))
        np.testing.assert_allclose(sens.empirical_sensitivity(x, order), ref)
    chunks = sens.empirical_chunk_sensitivity(x, 16, order=2)
    assert chunks.shape == (2, 4)
    np.testing.assert_allclose(chunks[:, 3], sens.empirical_sensitivity(x[..., 48:], 2))
    diff = sens.empirical_chunk_sensitivity(x, 16, order=1, difference=True)
    np.testing.assert_allclose(
        diff[:, 1], sens.empirical_sensitivity(sens.chunk_differences(x, 16)[..., 16:32], 1)
    )


def test_chunk_differences_roundtrip_and_increment_clip(rng):
    x = rng.normal(size=(3, 77))
    d = sens.chunk_differences(x, 10)
    assert np.all(d[:, ::10] == x[:, ::10])
    np.testing.assert_allclose(d[:, 1:10], np.diff(x[:, :10]))
    np.testing.assert_allclose(sens.chunk_cumsum(d, 10), x, atol=1e-12)
    clipped = sens.clip_increments(d, 10, 0.1)
    assert np.all(clipped[:, ::10] == x[:, ::10])
    mask = np.ones(77, bool)
    mask[::10] = False
    assert np.abs(clipped[:, mask]).max() <= 0.1
    assert sens.chunk_lengths(77, 10).tolist() == [10] * 7 + [7]
    parts = sens.split_chunks(x, 10)
    assert parts[0][0].shape == (3, 7, 10) and parts[1][0].shape == (3, 1, 7)


def test_lag_correlation_of_white_noise_and_random_walk(rng):
    p, ref = 3000, 100
    white = rng.normal(size=(p, 200))
    walk = np.cumsum(rng.normal(size=(p, 200)), axis=1)
    curves = (
        correlation_curves(
            {"white": white, "walk": walk, "diff": difference_signal(walk)}, ref_index=ref, max_lag=20
        )
        .set_index(["signal", "lag"])
        .cc
    )
    lags = np.arange(1, 21)
    assert np.abs(curves["white"].to_numpy()[1:]).max() < 4 / np.sqrt(p)
    assert curves["white"].iloc[0] == pytest.approx(1.0)
    # corr(W_t, W_{t+h}) = sqrt((t+1)/(t+1+h)) for a random walk started at W_0 = step 0.
    np.testing.assert_allclose(
        curves["walk"].to_numpy()[1:], np.sqrt((ref + 1) / (ref + 1 + lags)), atol=0.01
    )
    assert curves["walk"].iloc[1] > 0.99
    # The difference of a random walk is white noise: Bozkir's Figure 1(b).
    assert np.abs(curves["diff"].to_numpy()[1:]).max() < 4 / np.sqrt(p)


def test_acf_table_of_ar1(rng):
    phi, t = 0.8, 4000
    e = rng.normal(size=(3, t))
    x = np.empty_like(e)
    x[:, 0] = e[:, 0]
    for i in range(1, t):  # AR(1) generation is a recursion
        x[:, i] = phi * x[:, i - 1] + e[:, i]
    table = acf_table({"ar1": x}, max_lag=5, participants=["a", "b", "c"])
    assert len(table) == 18 and set(table.participant) == {"a", "b", "c"}
    mean = table.groupby("lag").acf.mean().to_numpy()
    np.testing.assert_allclose(mean, phi ** np.arange(6), atol=0.05)


def test_feature_tensor_orders_pads_and_reports_lengths():
    rows = []
    for p, task, n in [("P01", "comic", 4), ("P02", "comic", 3), ("P01", "textbook", 2)]:
        for w in range(n):
            rows.append(
                {
                    "participant": p,
                    "gender": "f",
                    "task": task,
                    "window": w,
                    "t_start_s": w * 0.5,
                    "a": 10 * w + 1.0,
                    "b": -w * 1.0,
                }
            )
    table = pd.DataFrame(rows).sample(frac=1.0, random_state=0)  # shuffled rows
    arr, recs = feature_tensor(table, length=4, fill="edge")
    assert arr.shape == (3, 2, 4)
    assert recs[["participant", "task", "length"]].values.tolist() == [
        ["P01", "comic", 4],
        ["P01", "textbook", 2],
        ["P02", "comic", 3],
    ]
    np.testing.assert_allclose(arr[0, 0], [1, 11, 21, 31])
    np.testing.assert_allclose(arr[1, 0], [1, 11, 11, 11])
    const, _ = feature_tensor(table, ["b"], length=3, fill=np.array([5.0]))
    np.testing.assert_allclose(const[1, 0], [0, -1, 5])


def test_run_mechanism_dispatch(rng):
    x = rng.random((2, 3, 100))
    assert parse_mechanism("cfpa-64") == ("cfpa", 64) and parse_mechanism("Steil-10") == ("steil", 10)
    for label in ["LPA", "FPA", "CFPA-32", "DCFPA-64"]:
        assert run_mechanism(x, MechanismSetting.from_label(label, epsilon=1.0, k=2), rng=rng, bounds=(0, 1)).shape == x.shape
    assert run_mechanism(x, MechanismSetting.from_label("Steil-10", epsilon=1.0), rng=rng, bounds=(0, 1)).shape == (2, 3, 10)
    assert run_mechanism(x, MechanismSetting.from_label("Steil-published-10", epsilon=1.0), rng=rng, bounds=(0, 1)).shape == (2, 3, 10)
    exact = run_mechanism(x, MechanismSetting.from_label("CFPA-32", epsilon=1e15, k=17), rng=rng, bounds=(0, 1))
    np.testing.assert_allclose(exact, x, atol=1e-6)
    with pytest.raises(ValueError):
        parse_mechanism("CFPA")
    with pytest.raises(ValueError):
        parse_mechanism("WAVELET-3")
