"""Bench of `python -m eyedp_core.batch plan` (a study plan of three stimuli' heatmaps with targets, cap ε = 10):
wall time, CPU time of the process tree and its peak memory, for N observers × 50 fixations on each of three
stimuli (bench.batch_scale's measurement).

    python bench/plan_scale.py --sizes 10000 100000 --engines numpy pipelinedp
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.batch_scale import H, W, measure  # noqa: E402

STIMULI = ("1001.jpg", "1002.jpg", "1003.jpg")
PLAN = {"study": "bench", "cap": {"epsilon": 10}, "outputs": [
    {"kind": "heatmap", "stimulus": "*", "width": W, "height": H, "target": {"hot_spots_kept": 0.5}}]}


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
                                       "y": np.clip(rng.normal(cy[hot], 80), 0, H - 1), "stimulus": s}))
        df = pd.concat(parts, ignore_index=True).sample(frac=1.0, random_state=k)
        half = len(df) // 2
        df.iloc[:half].to_parquet(os.path.join(folder, f"a-{k:03d}.parquet"), index=False)
        df.iloc[half:].to_parquet(os.path.join(folder, f"b-{(k + 1) % shards:03d}-{k:03d}.parquet"), index=False)
    return os.path.join(folder, "*.parquet")


def main() -> None:
    """Run the bench and print one line per run and a Markdown table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--engines", nargs="+", default=["numpy", "pipelinedp"])
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="eyedp-plan-bench-", dir=args.tmp) as tmp:
        plan = os.path.join(tmp, "plan.json")
        with open(plan, "w", encoding="utf-8") as f:
            json.dump(PLAN, f)
        for n in args.sizes:
            pattern = make_shards(n, os.path.join(tmp, f"n{n}"))
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
    print("\n| engine | observers × 3 stimuli × 50 | wall s | CPU s (tree) | peak MB |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['engine']} | {r['observers']:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_mb']:.0f} |")


if __name__ == "__main__":
    main()
