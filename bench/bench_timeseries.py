"""Timing figures of the Time-series core (eyedp_core.timeseries and friends), each against a baseline
measured in the same run. Run alone: python bench/bench_timeseries.py; or via bench/run.py --only timeseries.

Also:
* peak memory / input size of every mechanism, the page's preview and the utility sweeps at 20, 200 and 2000
  participants (the bundled sample, 20 participants × 3 recordings × 48 features × T = 600, tiled), each in a
  FRESH subprocess: tracemalloc's peak of the allocations made after the input was built (numpy reports its
  buffers to tracemalloc), divided by the input array's bytes;
* LPA and CFPA time against their floors, measured alternately in the same process (median of the ratios):
  LPA floor = np.clip(x, L, U) + rng.laplace(b, x.shape); CFPA floor = rfft + irfft of the chunks (tail at its
  length) + rng.laplace for the kept coefficients only (2·k per chunk), all float64 on the same array.

Baselines:
* mechanisms: a straightforward implementation looping in Python over recordings, features and chunks
  (one rfft/irfft per chunk), the way the paper's algorithms read;
* utility sweep: calling the batched mechanism once per (mechanism, ε, run) and computing the NMSE on
  the materialised output, timed on a subset and extrapolated to the full grid;
* optimal k: evaluating every candidate k separately (one batched mechanism call over all runs per k),
  timed on up to 8 k and scaled to all candidates.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.timing import median_time  # noqa: E402
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import mechanisms as ts
from eyedp_core.timeseries.experiments import SweepSpec, sweep_utility
from eyedp_core.timeseries.k_search import optimal_k
from eyedp_core.timeseries.labels import SWEEP_LABELS
from eyedp_core.timeseries.setting import MechanismSetting
from eyedp_core.timeseries.signals import feature_tensor, run_mechanism

EPSILONS = np.logspace(-1, 3, 10)


def _data() -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], str]:
    """(recordings, features, T) reading features with public bounds; synthetic if the sample is missing."""
    try:
        from eyedp_core.data import bundled
        from eyedp_core.gaze.feature_specs import feature_bounds
        from eyedp_core.timeseries.signals import feature_columns

        table = bundled.load_sample("reading_features")
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
ROOT = Path(__file__).resolve().parents[1]
MEMORY_SIZES = (20, 200, 2000)  # participants (the sample has 20: 60 recordings)
MEMORY_CASES = ("LPA", "FPA", "CFPA-32", "DCFPA-32", "preview CFPA-32", "sweep LPA", "sweep FPA", "sweep CFPA-32",
                "sweep DCFPA-32")


def page_array(people: int = 20) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The array the Time series page builds (public T = 600, every feature), tiled to `people` participants."""
    from eyedp_core.data import bundled
    from eyedp_core.gaze.feature_specs import feature_bounds
    from eyedp_core.timeseries.choices import DEFAULT_LENGTH
    from eyedp_core.timeseries.signals import feature_columns

    table = bundled.load_sample("reading_features")
    names = feature_columns(table)
    x, recs = feature_tensor(table, names, length=DEFAULT_LENGTH, fill="edge", order_col="window")
    n_people = recs["participant"].nunique()
    return np.tile(x, (max(1, people // n_people), 1, 1)), feature_bounds(names)


def _memory_case(case: str, people: int) -> str:
    """Run one case on the tiled array under tracemalloc (in THIS process); 'case people input peak ratio s'."""
    import tracemalloc

    from eyedp_core.timeseries.preview import PreviewSetting, run_preview

    x, bounds = page_array(people)
    rng = np.random.default_rng(1)
    spec = SweepSpec(epsilons=tuple(np.logspace(-2, 4, 10)), runs=20, n_recordings=3)
    calls = {
        "LPA": lambda: ts.lpa(x, epsilon=1.0, bounds=bounds, rng=rng),
        "FPA": lambda: ts.fpa(x, epsilon=1.0, k=4, bounds=bounds, rng=rng),
        "CFPA-32": lambda: ts.cfpa(x, epsilon=1.0, k=4, chunk=32, bounds=bounds, rng=rng),
        "DCFPA-32": lambda: ts.dcfpa(x, epsilon=1.0, k=4, chunk=32, bounds=bounds, rng=rng),
        "preview CFPA-32": lambda: run_preview(x, PreviewSetting(mech=Mech.CFPA, chunk=32, epsilon=1.0, k=4,
                                                                 nmse_kind="var"), bounds=bounds, rng=rng, feature=0),
    }
    if case.startswith("sweep "):
        label = case.split(" ", 1)[1]
        calls[case] = lambda: sweep_utility(x, bounds, spec, rng=rng, mechanisms=[label])
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    calls[case]()
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return f"{case}|{people}|{x.nbytes}|{peak}|{seconds}"


def memory_table(sizes: tuple[int, ...] = MEMORY_SIZES, cases: tuple[str, ...] = MEMORY_CASES,
                 sweep_max: int = 200) -> list[dict]:
    """Peak memory / input bytes per case and size, each in a fresh subprocess (sweeps up to `sweep_max`
    participants: at 2000 one sweep of one mechanism takes minutes on this machine)."""
    rows = []
    for people in sizes:
        for case in cases:
            if case.startswith("sweep") and people > sweep_max:
                continue
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--memory-case", case, str(people)],
                                 cwd=ROOT, capture_output=True, text=True, check=True)
            name, n, size, peak, secs = out.stdout.strip().splitlines()[-1].split("|")
            rows.append({"case": name, "participants": int(n), "input_mb": int(size) / 1e6,
                         "peak_mb": int(peak) / 1e6, "ratio": int(peak) / int(size), "seconds": float(secs)})
    return rows


def _alternate(fn, floor, repeats: int = 15) -> tuple[float, float, float]:
    """Median seconds of fn and floor called alternately, and the median of their per-pair ratios."""
    fn(), floor()
    a, b, r = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        t1 = time.perf_counter()
        floor()
        t2 = time.perf_counter()
        a.append(t1 - t0)
        b.append(t2 - t1)
        r.append((t1 - t0) / (t2 - t1))
    return statistics.median(a), statistics.median(b), statistics.median(r)


def floor_ratios() -> list[dict]:
    """LPA and CFPA-32 (k = 4, a new ε each call: no cached calibration) against their floors on the page array."""
    x, (lo, hi) = page_array()
    rng = np.random.default_rng(2)
    eps = iter(np.linspace(0.5, 5.0, 1000))
    t, size, k = x.shape[-1], 32, 4
    full = t // size

    def lpa_floor() -> None:
        np.clip(x, lo[:, None], hi[:, None]) + rng.laplace(scale=3.0, size=x.shape)

    def cfpa_floor() -> None:
        body = np.fft.rfft(x[..., : full * size].reshape(x.shape[:2] + (full, size)), axis=-1)
        tail = np.fft.rfft(x[..., full * size:], axis=-1)
        rng.laplace(size=(2,) + x.shape[:2] + (full + 1, k))
        np.fft.irfft(body, n=size, axis=-1)
        np.fft.irfft(tail, n=t - full * size, axis=-1)

    rows = []
    for name, fn, floor in [
        ("LPA vs floor (clip + rng.laplace + add)", lambda: ts.lpa(x, epsilon=next(eps), bounds=(lo, hi), rng=rng),
         lpa_floor),
        ("CFPA-32 k=4 vs floor (rfft + irfft + kept-bin noise)",
         lambda: ts.cfpa(x, epsilon=next(eps), k=k, chunk=size, bounds=(lo, hi), rng=rng), cfpa_floor),
    ]:
        sec, base, ratio = _alternate(fn, floor)
        rows.append({"name": name, "seconds": sec, "baseline_seconds": base, "ratio": ratio,
                     "data": f"page array {x.shape}, float64"})
    return rows


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
        out = run_mechanism(x, MechanismSetting.from_label(label, epsilon=10.0, k=2), rng=rng, bounds=bounds)
        metrics.nmse(x, out, kind="var", bounds=bounds)
    per_setting = time.perf_counter() - t0  # one (ε, run, mode) for all mechanisms
    return per_setting * len(EPSILONS) * 20 * 2


def _optimal_k_timings(x: np.ndarray, bounds: tuple, rng: np.random.Generator) -> list[tuple[str, float, float]]:
    """The paper's search for k on one feature against the naive loop -> (name, seconds, baseline seconds)."""
    out: list[tuple[str, float, float]] = []
    one = x[:, 0]  # one feature, every recording
    one_bounds = (bounds[0][0], bounds[1][0])
    for method, chunk in [(Mech.FPA, None), (Mech.CFPA, 32), (Mech.DCFPA, 32)]:

        def search(method=method, chunk=chunk) -> None:
            optimal_k(one, MechanismSetting(mech=method, epsilon=50.0, chunk=chunk), bounds=one_bounds, runs=100, rng=rng)

        n_bins = (one.shape[-1] if chunk is None else chunk) // 2 + 1
        sample_ks = np.unique(np.linspace(1, n_bins, min(n_bins, 8)).astype(int))

        def naive(method=method, chunk=chunk, sample_ks=sample_ks) -> None:
            reps = np.broadcast_to(one, (100,) + one.shape)
            for k in sample_ks:  # timed on a few k and scaled to all of them below
                kw = {} if chunk is None else {"chunk": chunk}
                fn = {Mech.FPA: ts.fpa, Mech.CFPA: ts.cfpa, Mech.DCFPA: ts.dcfpa}[method]
                noisy = fn(reps, epsilon=50.0, k=k, bounds=one_bounds, rng=rng, **kw)
                np.mean((noisy - one) ** 2)

        label = method.label(chunk)
        out.append((f"optimal k, 1 feature, {n_bins} k × 100 runs: {label} (extrap. base)",
                    _time(search, repeats=1), _time(naive, repeats=1) * n_bins / sample_ks.size))
    return out


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
    rows += floor_ratios()
    # The memory table goes to stdout here (bench/run.py prints time ratios only).
    _print_memory(memory_table())
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

    for name, seconds, base in _optimal_k_timings(x, bounds, rng):
        add(name, seconds, base)
    return rows


def _print_memory(rows: list[dict]) -> None:
    print("\npeak memory (tracemalloc, fresh process) / input array, T = 600, 48 features")
    print(f"{'case':18s} {'participants':>12s} {'input MB':>9s} {'peak MB':>9s} {'ratio':>6s} {'seconds':>8s}")
    for r in rows:
        print(f"{r['case']:18s} {r['participants']:12d} {r['input_mb']:9.1f} {r['peak_mb']:9.1f} {r['ratio']:6.2f} "
              f"{r['seconds']:8.2f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--memory-case":
        print(_memory_case(sys.argv[2], int(sys.argv[3])))
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "--memory":
        _print_memory(memory_table())
        sys.exit(0)
    results = run()
    print(f"data: {results[0]['data']}")
    print(f"{'figure':64s} {'seconds':>9s} {'baseline':>9s} {'ratio':>8s} {'speed-up':>9s}")
    for r in results:
        print(
            f"{r['name'][:64]:64s} {r['seconds']:9.3f} {r['baseline_seconds']:9.3f} {r['ratio']:8.3f}"
            f" {1 / r['ratio']:8.1f}x"
        )
