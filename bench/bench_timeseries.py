"""Timing figures of the Time-series core (eyedp_core.timeseries and friends), each against a baseline
measured in the same run. Run alone: python bench/bench_timeseries.py; or via bench/run.py --only timeseries.

Baselines:
* mechanisms: a straightforward implementation looping in Python over recordings, features and chunks
  (one rfft/irfft per chunk), the way the paper's algorithms read;
* utility sweep: calling the batched mechanism once per (mechanism, ε, run) and computing the NMSE on
  the materialised output, timed on a subset and extrapolated to the full grid;
* optimal k: evaluating every candidate k separately (one batched mechanism call over all runs per k),
  timed on up to 8 k and scaled to all candidates.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import mechanisms as ts
from eyedp_core.timeseries.experiments import SweepSpec, sweep_utility
from eyedp_core.timeseries.k_search import optimal_k
from eyedp_core.timeseries.labels import SWEEP_LABELS
from eyedp_core.timeseries.signals import feature_tensor, run_mechanism

from bench.timing import median_time  # noqa: E402

EPSILONS = np.logspace(-1, 3, 10)


def _data() -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], str]:
    """(recordings, features, T) reading features with public bounds; synthetic if the sample is missing."""
    try:
        from eyedp_core.data import samples as datasets
        from eyedp_core.gaze.feature_specs import feature_bounds
        from eyedp_core.timeseries.signals import feature_columns

        table = datasets.load_sample("reading_features")
        names = feature_columns(table)
        lo, hi = feature_bounds(names)
        x, _ = feature_tensor(table, names, fill="edge")
        return x, (lo, hi), f"sample, {x.shape[0]} recordings × {x.shape[1]} features × {x.shape[2]}"
    except (ImportError, FileNotFoundError, KeyError):
        # Sample data not generated yet: same shape, synthetic AR(1) features in [0, 1].
        rng = np.random.default_rng(0)
        rec, feat, t = 60, 35, 541
        x = np.empty((rec, feat, t))
        x[..., 0] = rng.random((rec, feat))
        steps = rng.normal(0, 0.02, size=(rec, feat, t))
        for i in range(1, t):  # generating the synthetic AR(1) is a recursion
            x[..., i] = 0.97 * x[..., i - 1] + 0.015 + steps[..., i]
        return np.clip(x, 0, 1), (np.zeros(feat), np.ones(feat)), "synthetic AR(1), 60 × 35 × 541"


_time = median_time


def _loop_fpa_chunk(seg: np.ndarray, k: int, lam: float, rng: np.random.Generator) -> np.ndarray:
    spec = np.fft.rfft(seg)
    spec[k:] = 0
    noise = rng.laplace(scale=lam, size=k) + 1j * rng.laplace(scale=lam, size=k)
    noise[0] = noise[0].real
    if seg.size % 2 == 0 and k > seg.size // 2:
        noise[seg.size // 2] = noise[seg.size // 2].real
    spec[:k] += noise
    return np.fft.irfft(spec, seg.size)


def loop_cfpa(
    x: np.ndarray,
    bounds: tuple[np.ndarray, np.ndarray],
    eps: float,
    k: int,
    chunk: int,
    rng: np.random.Generator,
    difference: bool = False,
) -> np.ndarray:
    """Baseline: per recording, per feature, per chunk Python loops (CFPA, or DCFPA with difference=True)."""
    lo, hi = bounds
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        for f in range(x.shape[1]):
            r = hi[f] - lo[f]
            series = np.clip(x[i, f], lo[f], hi[f])
            for start in range(0, series.size, chunk):
                seg = series[start : start + chunk]
                n = seg.size
                if difference:
                    seg = np.concatenate([[seg[0]], np.diff(seg)])
                    d2 = np.sqrt(4 * n - 3) * r
                else:
                    d2 = np.sqrt(n) * r
                kk = min(k, n // 2 + 1)
                rec = _loop_fpa_chunk(seg, kk, np.sqrt(kk * n) * d2 / eps, rng)
                out[i, f, start : start + n] = np.cumsum(rec) if difference else rec
    return out


def loop_lpa(
    x: np.ndarray, bounds: tuple[np.ndarray, np.ndarray], eps: float, rng: np.random.Generator
) -> np.ndarray:
    """Baseline: per recording, per feature loop of the Laplace mechanism."""
    lo, hi = bounds
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        for f in range(x.shape[1]):
            b = x.shape[2] * (hi[f] - lo[f]) / eps
            out[i, f] = np.clip(x[i, f], lo[f], hi[f]) + rng.laplace(scale=b, size=x.shape[2])
    return out


def _naive_sweep_estimate(x: np.ndarray, bounds: tuple, rng: np.random.Generator) -> float:
    """Seconds of the naive sweep (mechanism call + NMSE per mechanism, ε, run, mode), extrapolated."""
    from eyedp_core import metrics

    t0 = time.perf_counter()
    for label in SWEEP_LABELS:
        out = run_mechanism(x, label, epsilon=10.0, rng=rng, bounds=bounds, k=2)
        metrics.nmse(x, out, kind="var", bounds=bounds)
    per_setting = time.perf_counter() - t0  # one (ε, run, mode) for all mechanisms
    return per_setting * len(EPSILONS) * 20 * 2


def run() -> list[dict]:
    """Measure every figure; list of dicts name, seconds, baseline_seconds, ratio (seconds/baseline)."""
    x, bounds, what = _data()
    rng = np.random.default_rng(1)
    rows: list[dict] = []

    def add(name: str, seconds: float, base: float) -> None:
        rows.append(
            {
                "name": name,
                "seconds": seconds,
                "baseline_seconds": base,
                "ratio": seconds / base,
                "data": what,
            }
        )

    base_cfpa = _time(lambda: loop_cfpa(x, bounds, 1.0, 4, 32, rng), repeats=1)
    add(
        "CFPA-32, all recordings × features, one setting",
        _time(lambda: ts.cfpa(x, epsilon=1.0, k=4, chunk=32, bounds=bounds, rng=rng)),
        base_cfpa,
    )
    base_dc = _time(lambda: loop_cfpa(x, bounds, 1.0, 4, 32, rng, difference=True), repeats=1)
    add(
        "DCFPA-32, all recordings × features, one setting",
        _time(lambda: ts.dcfpa(x, epsilon=1.0, k=4, chunk=32, bounds=bounds, rng=rng)),
        base_dc,
    )
    base_fpa = _time(lambda: loop_cfpa(x, bounds, 1.0, 4, x.shape[2], rng), repeats=1)
    add(
        "FPA, all recordings × features, one setting",
        _time(lambda: ts.fpa(x, epsilon=1.0, k=4, bounds=bounds, rng=rng)),
        base_fpa,
    )
    add(
        "LPA, all recordings × features, one setting",
        _time(lambda: ts.lpa(x, epsilon=1.0, bounds=bounds, rng=rng)),
        _time(lambda: loop_lpa(x, bounds, 1.0, rng), repeats=1),
    )

    def sweep() -> None:
        sweep_utility(x, bounds, SweepSpec(epsilons=tuple(EPSILONS), runs=20, n_recordings=3), rng=rng)

    add(
        "utility sweep 8 mech × 10 ε × 20 runs × 2 modes (extrap. base)",
        _time(sweep, repeats=1),
        _naive_sweep_estimate(x, bounds, rng),
    )

    one = x[:, 0]  # one feature, every recording
    one_bounds = (bounds[0][0], bounds[1][0])
    for method, chunk in [(Mech.FPA, None), (Mech.CFPA, 32), (Mech.DCFPA, 32)]:

        def search(method=method, chunk=chunk) -> None:
            optimal_k(one, method=method, epsilon=50.0, chunk=chunk, bounds=one_bounds, runs=100, rng=rng)

        n_bins = (one.shape[-1] if chunk is None else chunk) // 2 + 1
        sample_ks = np.unique(np.linspace(1, n_bins, min(n_bins, 8)).astype(int))

        def naive(method=method, chunk=chunk, sample_ks=sample_ks) -> None:
            reps = np.broadcast_to(one, (100,) + one.shape)
            for k in sample_ks:  # timed on a few k and scaled to all of them below
                kw = {} if chunk is None else {"chunk": chunk}
                fn = {Mech.FPA: ts.fpa, Mech.CFPA: ts.cfpa, Mech.DCFPA: ts.dcfpa}[method]
                out = fn(reps, epsilon=50.0, k=k, bounds=one_bounds, rng=rng, **kw)
                np.mean((out - one) ** 2)

        label = method.label(chunk)
        add(
            f"optimal k, 1 feature, {n_bins} k × 100 runs: {label} (extrap. base)",
            _time(search, repeats=1),
            _time(naive, repeats=1) * n_bins / sample_ks.size,
        )
    return rows


if __name__ == "__main__":
    results = run()
    print(f"data: {results[0]['data']}")
    print(f"{'figure':64s} {'seconds':>9s} {'baseline':>9s} {'ratio':>8s} {'speed-up':>9s}")
    for r in results:
        print(
            f"{r['name'][:64]:64s} {r['seconds']:9.3f} {r['baseline_seconds']:9.3f} {r['ratio']:8.3f}"
            f" {1 / r['ratio']:8.1f}x"
        )
