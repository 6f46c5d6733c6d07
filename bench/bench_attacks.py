"""Timing figures of the attacks core (eyedp_core.attacks), each against a baseline measured in the same run.
Run alone: python bench/bench_attacks.py [--quick]; or via bench/run.py --only attacks.

Figures:
* one point: one mechanism (CFPA-32), one ε (10 per person), the three tasks, SVM, no repetitions, on the
  bundled sample - cold (nothing cached) and warm (the clean-trained classifiers already exist, as on the page
  after its first view); baseline: the clean baseline with the published protocols on one core;
* the grid: 7 mechanisms × 5 ε × 3 tasks × 4 classifiers (trained on clean data, tested on the release), one
  Runner sharing the clean-trained classifiers; baseline: the same grid with nothing shared, timed on two
  points and scaled;
* scale: the clean baseline (three tasks, SVM, honest protocol) at 20, 40 and 80 participants (the sample
  tiled with jitter), with the growth exponent of a log-log fit; baseline: the published protocols at 20 and
  40 participants (the cost measured n^2.5 for them). The SVM approximation ("svm-fast") is timed at 80.
  Tiled copies are the same people with jitter, so at 40 and 80 a near-twin of every test person is in the
  training data: the accuracies printed there are not meaningful, the times are.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eyedp_core import attacks  # noqa: E402
from eyedp_core.attacks import protocols  # noqa: E402
from eyedp_core.data import bundled  # noqa: E402

TASKS = ("task", "gender", "identity")


def tiled(n_people: int, seed: int = 0) -> pd.DataFrame:
    """The bundled sample tiled to n_people participants; copies get feature jitter of 5 % of each feature's sd."""
    base = bundled.load_sample("reading_features")
    feats = attacks.prepare(base).features
    sd = base[list(feats)].std().to_numpy()
    rng = np.random.default_rng(seed)
    people = sorted(base["participant"].unique())
    frames = []
    for copy in range(-(-n_people // len(people))):
        t = base.copy()
        if copy:
            t["participant"] = t["participant"] + f"-{copy}"
            t[list(feats)] = t[list(feats)].to_numpy() + rng.normal(0, 0.05, (len(t), len(feats))) * sd
        frames.append(t)
    out = pd.concat(frames, ignore_index=True)
    keep = sorted(out["participant"].unique())[:n_people]
    return out[out["participant"].isin(keep)].reset_index(drop=True)


def _legacy_clean(table: pd.DataFrame) -> None:
    protocols.reidentify(table)
    protocols.classify_documents(table)
    protocols.infer_gender(table)


def one_point() -> list[dict]:
    """Cold and warm single point against the clean baseline with the published protocols."""
    table = bundled.load_sample("reading_features")
    t0 = time.perf_counter()
    _legacy_clean(table)
    legacy = time.perf_counter() - t0
    point = attacks.Point(mechanism="CFPA-32", epsilon=10.0)
    t0 = time.perf_counter()
    at = attacks.prepare(table)
    runner = attacks.Runner(at)
    rows = list(runner.run_point(point, tasks=TASKS, classifiers=("svm",)))
    cold = time.perf_counter() - t0
    warm_point = attacks.Point(mechanism="CFPA-32", epsilon=100.0)
    t0 = time.perf_counter()
    list(runner.run_point(warm_point, tasks=TASKS, classifiers=("svm",)))
    warm = time.perf_counter() - t0
    acc = ", ".join(f"{r.task} {r.accuracy:.2f} (chance {r.chance:.2f})" for r in rows)
    print(f"one point CFPA-32, ε = 10 per person, 3 tasks, SVM: cold {cold:.2f} s, warm {warm:.2f} s; {acc}")
    return [dict(name="attacks: one point, cold (3 tasks, SVM)", seconds=cold, baseline_seconds=legacy),
            dict(name="attacks: one point, warm (clean classifiers cached)", seconds=warm, baseline_seconds=legacy)]


def grid(quick: bool = False) -> list[dict]:
    """The 7 × 5 × 3 × 4 grid with sharing, against the unshared cost scaled from two points."""
    at = attacks.prepare(bundled.load_sample("reading_features"))
    mechs = attacks.DEFAULT_MECHANISMS[:2] if quick else attacks.DEFAULT_MECHANISMS
    eps = attacks.DEFAULT_EPSILONS
    t0 = time.perf_counter()
    rows = list(attacks.sweep(at, mechanisms=mechs, epsilons=eps, classifiers=attacks.PAPER_ORDER, tasks=TASKS))
    shared = time.perf_counter() - t0
    n_points = len(mechs) * len(eps) + 1
    t0 = time.perf_counter()
    for p in (attacks.Point(), attacks.Point(mechanism="FPA", epsilon=10.0)):
        list(attacks.Runner(at).run_point(p, tasks=TASKS, classifiers=attacks.PAPER_ORDER))
    unshared = (time.perf_counter() - t0) / 2 * n_points
    print(f"grid {len(mechs)} mechanisms × {len(eps)} ε × 3 tasks × 4 classifiers (+ clean): {shared:.1f} s "
          f"({len(rows)} results); unshared estimate {unshared:.1f} s")
    summary = attacks.summarise(rows)
    for task in TASKS:
        print(f"\n{task} (k-NN|SVM|DT|RF, voted; trained clean, tested on the release)")
        print(attacks.paper_table(summary, task).to_string())
    return [dict(name=f"attacks: grid {len(mechs)}x{len(eps)}x3x4 (clean-trained)", seconds=shared,
                 baseline_seconds=unshared)]


def scale(sizes: tuple[int, ...] = (20, 40, 80), legacy_sizes: tuple[int, ...] = (20, 40)) -> list[dict]:
    """Clean baseline at growing n with the fitted growth exponent, against the published protocols."""
    times, legacy = [], []
    for n in sizes:
        table = tiled(n)
        t0 = time.perf_counter()
        at = attacks.prepare(table)
        res = {t: attacks.evaluate(at, t) for t in TASKS}
        times.append(time.perf_counter() - t0)
        acc = ", ".join(f"{t} {r.accuracy:.2f}" for t, r in res.items())
        print(f"clean baseline, {n} participants: {times[-1]:.1f} s ({acc})")
        if n == max(sizes):
            t0 = time.perf_counter()
            fast = {t: attacks.evaluate(at, t, classifier="svm-fast") for t in TASKS}
            tf = time.perf_counter() - t0
            print(f"  svm-fast at {n}: {tf:.1f} s ({', '.join(f'{t} {r.accuracy:.2f}' for t, r in fast.items())})")
    for n in legacy_sizes:
        t0 = time.perf_counter()
        _legacy_clean(tiled(n))
        legacy.append(time.perf_counter() - t0)
        print(f"published protocols, {n} participants: {legacy[-1]:.1f} s")
    slope = float(np.polyfit(np.log(sizes), np.log(times), 1)[0])
    legacy_slope = float(np.polyfit(np.log(legacy_sizes), np.log(legacy), 1)[0]) if len(legacy) > 1 else float("nan")
    print(f"growth exponent: t ∝ n^{slope:.2f} (published protocols: n^{legacy_slope:.2f})")
    out = [dict(name=f"attacks: clean baseline, {n} participants", seconds=t,
                baseline_seconds=legacy[sizes.index(n)] if n in legacy_sizes and sizes.index(n) < len(legacy) else None)
           for n, t in zip(sizes, times, strict=True)]
    out.append(dict(name="attacks: growth exponent (ratio column = exponent)", seconds=float("nan"),
                    baseline_seconds=legacy_slope, ratio=slope))
    return out


def run(quick: bool = False) -> list[dict]:
    """All figures, as rows for bench/run.py."""
    return one_point() + grid(quick) + scale()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="two mechanisms in the grid instead of seven")
    ap.add_argument("--only", choices=["point", "grid", "scale"])
    args = ap.parse_args()
    if args.only == "point":
        one_point()
    elif args.only == "grid":
        grid(args.quick)
    elif args.only == "scale":
        scale()
    else:
        run(args.quick)
