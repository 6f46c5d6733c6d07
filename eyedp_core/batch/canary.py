"""The one-run canary audit of a batch heatmap release (Steinke, Nasr & Jagielski 2023; docs/PRIVACY_MODEL.md §18):
m canary observers, each included with probability 1/2, are written as one extra shard beside the user's, ONE
release runs through the engine's real path, and the canaries' cells of the released map give ε̂.

Each canary owns 2k cells in a band added below the public canvas, away from the real data: k "in" cells and k
"out" cells, k = ⌊C/m⌋ (the cells one observer can fill at the per-cell cap m). An included canary puts m
fixations in each of its "in" cells, an excluded one in each of its "out" cells, so flipping one canary is a
replace-one neighbour that moves the mean map by 2km/n in L1 and m·√(2k)/n in L2: the full sensitivity when the
total cap binds. Its score is the released sum over its "in" cells minus that over its "out" cells.
"""
from __future__ import annotations

import dataclasses
import math
import os
import tempfile
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.audit.canary import CanaryBound, guess_top_bottom
from eyedp_core.batch.run import RunOptions, release_batch
from eyedp_core.batch.settings import Engine, HeatmapSettings

__all__ = ["CanaryAudit", "canary_audit", "canary_layout"]

MAX_CELLS_PER_CANARY = 64  # a canary's "in" cells; without a total cap it cannot reach Δ₂ = m√r/n anyway


@dataclass(frozen=True)
class CanaryAudit:
    """ε̂ of one canary run beside the claimed ε, with what it took."""

    bound: CanaryBound
    epsilon_claimed: float
    delta_claimed: float
    engine: Engine
    cells_per_canary: int  # k ("in" cells; as many "out" cells)
    shift_fraction: float  # the canary's L2 move over the calibrated Δ₂ (1: the full sensitivity)
    n_observers: int  # real observers plus canaries
    seconds: float

    @property
    def epsilon(self) -> float:
        """ε̂, the lower confidence bound."""
        return self.bound.epsilon


@dataclass(frozen=True)
class CanaryLayout:
    """Where the canaries go: the audited settings (the canvas with its canary band) and each canary's cells."""

    settings: HeatmapSettings
    in_cells: np.ndarray  # (canaries, k) flat cell indices
    out_cells: np.ndarray  # (canaries, k)


def canary_layout(settings: HeatmapSettings, canaries: int) -> CanaryLayout:
    """Settings and m in, the canvas grown by a band of whole cell rows (empty rows, then 2k cells per canary)
    and each canary's cells out. The real data's cells keep their indices' rows and columns."""
    s = settings
    k = max(1, min(s.cells_per_observer, MAX_CELLS_PER_CANARY))
    rows, cols = s.grid_shape
    need = canaries * 2 * k
    # The reader keeps positions up to 10 % of the canvas beyond its edge; on the grown canvas they stay where
    # they are, so the empty rows keep them out of every canary's cells.
    gap = 1 + math.ceil(0.1 * s.height / s.cell_px)
    grown = dataclasses.replace(s, height=(rows + gap + -(-need // cols)) * s.cell_px)
    first = (rows + gap) * cols
    cells = first + np.arange(need).reshape(canaries, 2, k)
    return CanaryLayout(grown, cells[:, 0, :], cells[:, 1, :])


def _canary_shard(layout: CanaryLayout, included: np.ndarray, ids: list[str]) -> pd.DataFrame:
    """The canaries' fixations: ⌈m⌉ at the centre of each of a canary's "in" (included) or "out" cells."""
    s = layout.settings
    cols = s.grid_shape[1]
    cells = np.where(included[:, None], layout.in_cells, layout.out_cells)
    per = math.ceil(s.cap_m)
    flat = np.repeat(cells.ravel(), per)
    return pd.DataFrame({"observer": np.repeat(ids, cells.shape[1] * per),
                         "x": (flat % cols + 0.5) * s.cell_px, "y": (flat // cols + 0.5) * s.cell_px,
                         "stimulus": s.stimulus})


def canary_audit(files: list[str], settings: HeatmapSettings, engine: Engine = Engine.NUMPY, *,
                 canaries: int = 1000, seed: int = 0, confidence: float = 0.95, guesses: int | None = None,
                 tmp_dir: str | None = None) -> CanaryAudit:
    """Shards, settings and engine in, the one-run canary audit out: ε̂ (Steinke et al. Thm 5.2) beside ε.

    `seed` drives the audit's own randomness (which canaries are in); the release draws its noise as always.
    `guesses`: canaries guessed "in" (top scores) and as many "out" (bottom scores), fixed before the run;
    default m/20 each. Nothing is written outside a temporary folder."""
    if canaries < 2:
        raise ValueError(f"need at least 2 canaries, got {canaries}")
    k_each = max(1, canaries // 20) if guesses is None else int(guesses)
    if not 1 <= 2 * k_each <= canaries:
        raise ValueError(f"need 1 <= 2·guesses <= {canaries} canaries, got guesses = {k_each}")
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    included = rng.random(canaries) < 0.5
    tag = f"{rng.integers(2**63):016x}"
    ids = [f"eyedp-canary-{tag}-{i:06d}" for i in range(canaries)]
    layout = canary_layout(settings, canaries)
    with tempfile.TemporaryDirectory(prefix="eyedp-canaries-", dir=tmp_dir) as tmp:
        shard = os.path.join(tmp, "canaries.parquet")
        _canary_shard(layout, included, ids).to_parquet(shard, index=False)
        rel = release_batch([*files, shard], layout.settings, RunOptions(engine, tmp_dir=tmp_dir))
    flat = np.asarray(rel.values, dtype=float).ravel()
    scores = flat[layout.in_cells].sum(axis=1) - flat[layout.out_cells].sum(axis=1)
    guess = guess_top_bottom(scores, k_each, k_each)
    s = layout.settings
    delta = s.delta if s.gaussian else 0.0
    bound = CanaryBound.from_guesses(guess, included, delta=delta, confidence=confidence)
    n = int(rel.manifest["n_observers"])
    k = layout.in_cells.shape[1]
    cal = rel.manifest["calibration"]
    moved = s.cap_m * math.sqrt(2 * k) / n if s.gaussian else 2 * k * s.cap_m / n
    stated = cal["l2_sensitivity"] if s.gaussian else cal["l1_sensitivity"]
    return CanaryAudit(bound, s.epsilon, delta, engine, k, float(moved / stated), n, time.perf_counter() - start)
