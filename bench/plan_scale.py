"""Bench of `python -m eyedp_core.batch plan` (a study plan of three stimuli' heatmaps with targets and, with
--aoi, the six AOI metrics of four AOIs on the first stimulus; cap ε = 10): wall time, CPU time of the process tree
and its peak memory, for N observers × 50 fixations (with durations and start times) on each of three stimuli
(bench.batch_scale's measurement).

--aoi-paths measures the AOI output alone (no engine run), each way in a fresh interpreter: `aoi_table` (every
observer's row in memory, as the batch path held it) and `aoi_sums` (partition by partition, only the sums kept):
peak RSS of the process and the tracemalloc peak (Python and numpy allocations; pyarrow's buffers are in the RSS
only).

    python bench/plan_scale.py --sizes 10000 100000 --engines numpy pipelinedp
    python bench/plan_scale.py --sizes 10000 100000 --engines numpy --aoi
    python bench/plan_scale.py --sizes 10000 100000 --aoi-paths
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.batch_scale import H, W, measure  # noqa: E402

STIMULI = ("1001.jpg", "1002.jpg", "1003.jpg")
PLAN = {"study": "bench", "cap": {"epsilon": 10}, "outputs": [
    {"kind": "heatmap", "stimulus": "*", "width": W, "height": H, "target": {"hot_spots_kept": 0.5}}]}
AOI = {"kind": "aoi", "stimulus": STIMULI[0], "metrics": ["hit_ratio", "fixations", "dwell", "ttff", "revisits",
                                                          "transitions"],
       "shapes": [{"name": f"q{i}", "kind": "rect", "x0": (i % 2) * W / 2, "y0": (i // 2) * H / 2,
                   "x1": (i % 2 + 1) * W / 2 - 40, "y1": (i // 2 + 1) * H / 2 - 40} for i in range(4)]}


def make_shards(n: int, folder: str, per: int = 50, shards: int = 20, seed: int = 0) -> str:
    """N observers × `per` fixations on each stimulus in Parquet shards, block by block (bounded memory)."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    block = max(1, n // shards)
    centres = {s: (rng.uniform(100, W - 100, 3), rng.uniform(100, H - 100, 3)) for s in STIMULI}
    for k in range(shards):
        lo, hi = k * block, n if k == shards - 1 else (k + 1) * block
        parts = []
        for s in STIMULI:
            m = (hi - lo) * per
            obs = np.repeat(np.arange(lo, hi), per)
            hot = rng.integers(0, 3, m)
            cx, cy = centres[s]
            parts.append(pd.DataFrame({"observer": pd.Series(obs).map("u{:07d}".format),
                                       "x": np.clip(rng.normal(cx[hot], 80), 0, W - 1),
                                       "y": np.clip(rng.normal(cy[hot], 80), 0, H - 1), "stimulus": s,
                                       "duration_ms": rng.uniform(80, 600, m), "start_s": rng.uniform(0, 20, m)}))
        df = pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=k)
        half = len(df) // 2
        df.iloc[:half].to_parquet(os.path.join(folder, f"a-{k:03d}.parquet"), index=False)
        df.iloc[half:].to_parquet(os.path.join(folder, f"b-{(k + 1) % shards:03d}-{k:03d}.parquet"), index=False)
    return os.path.join(folder, "*.parquet")


def aoi_child(way: str, pattern: str) -> None:
    """In a fresh interpreter: the AOI output's table (way 'table') or streamed sums (way 'sums') of the shards;
    prints its peak RSS, tracemalloc peak and wall time as JSON."""
    from eyedp_core.batch.plan_aoi import aoi_sums, aoi_table
    from eyedp_core.batch.sources import expand_inputs
    from eyedp_core.plan.schema import AoiOutput, StudyPlan

    files = expand_inputs(pattern)
    out = next(o for o in StudyPlan.from_dict({"cap": {"epsilon": 1}, "outputs": [AOI]}).outputs
               if isinstance(o, AoiOutput))
    tracemalloc.start()
    t0 = time.perf_counter()
    n = aoi_table(files, out).n if way == "table" else aoi_sums(files, [out])[out.label].n
    wall = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1]
    print(json.dumps({"n": n, "wall_s": wall, "tracemalloc_mb": peak / 1e6,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3}))


def aoi_paths(pattern: str) -> dict[str, dict[str, float]]:
    """Shards in, each AOI way's measurement (a fresh interpreter each) out."""
    res = {}
    for way in ("table", "sums"):
        done = subprocess.run([sys.executable, __file__, "--aoi-child", way, pattern], capture_output=True,
                              text=True, check=True)
        res[way] = json.loads(done.stdout.strip().splitlines()[-1])
    return res


def main() -> None:
    """Run the bench and print one line per run and a Markdown table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--engines", nargs="*", default=["numpy", "pipelinedp"])
    ap.add_argument("--aoi", action="store_true", help="add the AOI output to the plan")
    ap.add_argument("--aoi-paths", action="store_true", help="measure the AOI output alone, in memory and streamed "
                    "(instead of the engines: a child's peak RSS would count in every later run's)")
    ap.add_argument("--aoi-child", nargs=2, metavar=("WAY", "PATTERN"), help=argparse.SUPPRESS)
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    if args.aoi_child:
        aoi_child(*args.aoi_child)
        return
    rows, aoi_rows = [], []
    with tempfile.TemporaryDirectory(prefix="eyedp-plan-bench-", dir=args.tmp) as tmp:
        plan = os.path.join(tmp, "plan.json")
        with open(plan, "w", encoding="utf-8") as f:
            json.dump({**PLAN, "outputs": PLAN["outputs"] + ([AOI] if args.aoi else [])}, f)
        for n in args.sizes:
            pattern = make_shards(n, os.path.join(tmp, f"n{n}"))
            if args.aoi_paths:
                for way, r in aoi_paths(pattern).items():
                    aoi_rows.append({"way": way, "observers": n, **r})
                    print(f"AOI {way:5s} n={n:>9,}  wall {r['wall_s']:7.1f} s  peak RSS {r['rss_mb']:7.0f} MB  "
                          f"tracemalloc peak {r['tracemalloc_mb']:7.1f} MB", flush=True)
                continue
            for engine in args.engines:
                out = os.path.join(tmp, f"out-{engine}-{n}")
                r = measure([sys.executable, "-m", "eyedp_core.batch", "plan", "--plan", plan, "--input", pattern,
                             "--engine", engine, "--out", out])
                with open(os.path.join(out, "manifest.json"), encoding="utf-8") as f:
                    man = json.load(f)
                eps = [round(o["epsilon"], 3) for o in man["outputs"]]
                rows.append({"engine": engine, "observers": n, **r, "eps": eps})
                print(f"{engine:10s} n={n:>9,}  wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  "
                      f"peak {r['peak_mb']:7.0f} MB  ε {eps}  met {[o['target_met'] for o in man['outputs']]}",
                      flush=True)
    what = "observers × 3 stimuli × 50" + (" (+ AOI output)" if args.aoi else "")
    print(f"\n| engine | {what} | wall s | CPU s (tree) | peak MB |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['engine']} | {r['observers']:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_mb']:.0f} |")
    if aoi_rows:
        print("\n| AOI output alone | observers (× 50 fixations) | wall s | peak RSS MB | tracemalloc peak MB |")
        print("|---|---|---|---|---|")
        for r in aoi_rows:
            print(f"| {r['way']} | {r['observers']:,} | {r['wall_s']:.1f} | {r['rss_mb']:.0f} | "
                  f"{r['tracemalloc_mb']:.1f} |")


if __name__ == "__main__":
    main()
