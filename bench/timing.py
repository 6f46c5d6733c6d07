"""Shared timing helper for the bench modules."""
from __future__ import annotations

import statistics
import time
from typing import Callable


def median_time(fn: Callable[[], object], repeats: int = 3) -> float:
    """Callable and repeats -> median wall seconds of one call, after one warm-up call (caches, FFT plans)."""
    fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)
