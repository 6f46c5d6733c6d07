"""Bench of the batch heatmap release (eyedp_core.batch): wall time, CPU time of the whole process tree (the JVM and
Spark's Python workers included) and peak memory (sum of the tree's resident sets, sampled every 0.1 s) for
N observers × 50 fixations on each engine, with the growth exponent between sizes.

    python bench/batch_scale.py --sizes 10000 100000 --engines numpy pipelinedp spark
    python bench/batch_scale.py --sizes 1000000 --engines numpy

Synthetic fixations (three hot spots on a 1280 × 800 canvas) in 20 Parquet shards, observers spread over the shards;
settings: ε = 1, δ = 1e-6, 32 px cells (1,000 cells), m = 1, C = 30.
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

W, H = 1280, 800
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def make_shards(n: int, folder: str, per: int = 50, shards: int = 20, seed: int = 0) -> str:
    """N observers × `per` fixations in Parquet shards, generated block by block (bounded memory)."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    block = max(1, n // shards)
    for s in range(shards):
        lo, hi = s * block, n if s == shards - 1 else (s + 1) * block
        m = (hi - lo) * per
        obs = np.repeat(np.arange(lo, hi), per)
        rng.shuffle(obs)  # rows of an observer in any order
        # Half of each observer's rows go to the next shard's file: observers span files.
        hot = rng.integers(0, 3, m)
        x = np.clip(rng.normal(np.array([200.0, 640.0, 1100.0])[hot], 80), 0, W - 1)
        y = np.clip(rng.normal(np.array([150.0, 400.0, 700.0])[hot], 80), 0, H - 1)
        df = pd.DataFrame({"observer": pd.Series(obs).map("u{:07d}".format), "x": x, "y": y, "stimulus": "img1"})
        df.iloc[: m // 2].to_parquet(os.path.join(folder, f"a-{s:03d}.parquet"), index=False)
        df.iloc[m // 2:].to_parquet(os.path.join(folder, f"b-{(s + 1) % shards:03d}-{s:03d}.parquet"), index=False)
    return os.path.join(folder, "*.parquet")


def _tree(root: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def _stat(pid: int) -> tuple[float, int] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / TICK, int(parts[21]) * PAGE
    except (OSError, IndexError, ValueError):
        return None


def measure(cmd: list[str]) -> dict[str, float]:
    """Command in, wall s, CPU s of the process tree and peak tree RSS in MB out."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    cpu_seen: dict[int, float] = {}
    peak = 0
    while proc.poll() is None:
        rss = 0
        for pid in _tree(proc.pid):
            st = _stat(pid)
            if st:
                cpu_seen[pid] = max(cpu_seen.get(pid, 0.0), st[0])
                rss += st[1]
        peak = max(peak, rss)
        time.sleep(0.1)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{err[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    waited = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = max(peak, after.ru_maxrss * 1024)
    return {"wall_s": wall, "cpu_s": max(waited, sum(cpu_seen.values())), "peak_mb": peak / 1e6}


def main() -> None:
    """Run the bench and print a Markdown table."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--engines", nargs="+", default=["numpy", "pipelinedp", "spark"])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="eyedp-bench-", dir=args.tmp) as tmp:
        for n in args.sizes:
            pattern = make_shards(n, os.path.join(tmp, f"n{n}"))
            for engine in args.engines:
                out = os.path.join(tmp, f"out-{engine}-{n}")
                cmd = [sys.executable, "-m", "eyedp_core.batch", "heatmap", "--input", pattern, "--engine", engine,
                       "--stimulus", "img1", "--epsilon", "1", "--delta", "1e-6", "--cell-px", "32", "--cap-m", "1",
                       "--cap-total", "30", "--width", str(W), "--height", str(H), "--out", out,
                       "--master", args.master]
                r = measure(cmd)
                rows.append({"engine": engine, "observers": n, **r})
                print(f"{engine:10s} n={n:>9,}  wall {r['wall_s']:7.1f} s  CPU {r['cpu_s']:7.1f} s  "
                      f"peak {r['peak_mb']:7.0f} MB", flush=True)
    df = pd.DataFrame(rows)
    print("\n| engine | observers × 50 | wall s | CPU s (tree) | peak MB | CPU growth exponent |")
    print("|---|---|---|---|---|---|")
    for engine, g in df.groupby("engine", sort=False):
        g = g.sort_values("observers")
        prev = None
        for _, r in g.iterrows():
            exp = "" if prev is None else f"{math.log(r.cpu_s / prev.cpu_s) / math.log(r.observers / prev.observers):.2f}"
            print(f"| {engine} | {r.observers:,} | {r.wall_s:.1f} | {r.cpu_s:.1f} | {r.peak_mb:.0f} | {exp} |")
            prev = r


if __name__ == "__main__":
    main()
