"""`PrivateSeries`: a time-series mechanism's output together with the calibrations its noise was drawn with.

Each mechanism *invocation* (one whole series for LPA/FPA/Steil, one chunk for CFPA/DCFPA) draws
Laplace noise at one scale. Invocations with the same parameters (length, k, ε, sensitivity) share one
`Calibration`; `group_invocations` finds those groups, the mechanism draws every invocation's noise
at its group's `calibration.scale`, and the result keeps the groups and which invocation used which.
A page that shows `PrivateSeries.used(...)` therefore shows exactly the noise that was drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.lattice import LatticeCalibration
from eyedp_core.dp.noise import NoiseMechanism, from_calibration
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.calibration import ChunkCalibration

__all__ = ["PrivateSeries", "group_invocations", "group_scales", "noise_source"]


@dataclass(frozen=True, eq=False)
class PrivateSeries:
    """Noisy output (..., T) of one mechanism run, its calibration groups and each invocation's group."""

    values: np.ndarray  # (..., T); Steil: (..., T') released samples
    mechanism: Mech
    groups: tuple[ChunkCalibration, ...]  # one per distinct calibration; count = invocations drawn with it
    invocations: np.ndarray  # (..., C) index into `groups` per invocation; −1: no DP calibration
    chunk: int | None = None  # chunk length (CFPA/DCFPA) or Steil's window w
    positions: np.ndarray | None = None  # Steil: the subsampled time indices (..., T')
    lattice: tuple[LatticeCalibration, ...] | None = None  # release: one per group, what the noise was drawn at

    @property
    def calibrations(self) -> tuple[Calibration, ...]:
        """The distinct Calibrations the noise was drawn with (none for Steil's published, non-DP sampler)."""
        return tuple(g.calibration for g in self.groups)

    @property
    def is_dp(self) -> bool:
        """Whether the mechanism run has a DP calibration at all (False for Steil's published sampler)."""
        return self.mechanism.info.is_dp and bool(self.groups)

    def _per_invocation(self, values: Sequence[float]) -> np.ndarray:
        """One number per group in, the same number per invocation (NaN without a group) out."""
        table = np.append(np.asarray(values, dtype=float), np.nan)
        return table[self.invocations]  # index −1 picks the NaN appended last

    @property
    def scale(self) -> np.ndarray:
        """Noise scale (Laplace b or λ) each invocation was drawn at, (..., C) (a release: the lattice's)."""
        if self.lattice is not None:
            return self._per_invocation([lc.scale for lc in self.lattice])
        return self._per_invocation([g.calibration.scale for g in self.groups])

    @property
    def sensitivity(self) -> np.ndarray:
        """Sensitivity each invocation was calibrated to, (..., C)."""
        return self._per_invocation([g.calibration.sensitivity for g in self.groups])

    @property
    def lengths(self) -> np.ndarray:
        """Transform length n of each invocation (T, the chunk's true length, or T'), (..., C)."""
        return self._per_invocation([g.length for g in self.groups])

    def used(self, rows: tuple = ()) -> tuple[ChunkCalibration, ...]:
        """Index into the leading axes (e.g. `(slice(None), f)`) in, the groups those invocations used
        out, with counts restricted to them: longest transform first, then by increasing scale."""
        ids, counts = np.unique(np.asarray(self.invocations[rows]), return_counts=True)
        out = [
            ChunkCalibration(length=g.length, count=int(c), k=g.k, calibration=g.calibration)
            for i, c in zip(ids.tolist(), counts.tolist(), strict=True)
            if i >= 0
            for g in (self.groups[i],)
        ]
        return tuple(sorted(out, key=lambda g: (-g.length, g.calibration.scale)))


def _codes(columns: Sequence[np.ndarray], shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Parameter columns broadcastable to `shape` in, (first flat index of every distinct combination,
    group per element of `shape`) out."""
    key = np.zeros(shape, dtype=np.int64)
    radix = 1  # an upper bound of key + 1
    for col in columns:
        arr = np.asarray(col)
        if arr.size == 0 or arr.min() == arr.max():
            continue  # a constant column does not split any group
        # Unique values on the column's own (often much smaller, broadcast) shape, then spread out.
        values, inv = np.unique(arr.ravel(), return_inverse=True)
        if radix * values.size >= 2**62:  # re-compress before the mixed-radix key could overflow int64
            _, flat = np.unique(key, return_inverse=True)
            key, radix = flat.reshape(shape).astype(np.int64), int(flat.max()) + 1
        key = key * values.size + np.broadcast_to(inv.reshape(arr.shape), shape)
        radix *= values.size
    _, first, group = np.unique(key.ravel(), return_index=True, return_inverse=True)
    return first, group.reshape(shape)


def group_invocations(
    columns: dict[str, np.ndarray],
    build: Callable[..., ChunkCalibration],
) -> tuple[tuple[ChunkCalibration, ...], np.ndarray]:
    """Parameter arrays per invocation (broadcastable, named as `build`'s keywords) in,
    (one ChunkCalibration per distinct combination, group index per invocation) out."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in columns.values()))
    first, group = _codes([np.asarray(v) for v in columns.values()], shape)
    flat = {name: np.broadcast_to(np.asarray(v), shape).ravel() for name, v in columns.items()}
    counts = np.bincount(group.ravel(), minlength=first.size)
    groups = []
    for g, i in enumerate(first.tolist()):
        built = build(**{name: a[i].item() for name, a in flat.items()})
        groups.append(ChunkCalibration(built.length, int(counts[g]), built.k, built.calibration))
    return tuple(groups), group


def noise_source(groups: Sequence[ChunkCalibration]) -> NoiseMechanism:
    """Calibration groups (one noise family) in, the mechanism object that draws their noise out."""
    families = {g.calibration.mechanism for g in groups}
    if len(families) != 1:
        raise ValueError(f"one mechanism run draws from one noise family, got {sorted(families)}")
    return from_calibration(groups[0].calibration)


def group_scales(groups: Sequence[ChunkCalibration], group: np.ndarray) -> np.ndarray:
    """Groups and the group index per invocation in, the calibrated scale per invocation out."""
    return np.array([g.calibration.scale for g in groups], dtype=float)[group]
