"""ReleaseSource: the noise source of release mode, drawing every value from OpenDP's samplers (§11).

A mechanism object's `sample(rng, ...)` accepts a ReleaseSource in place of a numpy Generator, so the same
mechanism code (time-series FFT mechanisms, Kaleido) runs as a preview (seeded Generator) or as a release
(this source: OpenDP's discrete Laplace/Gaussian on a 2^k lattice, cryptographic RNG, no seed).

A value that depends on the data is never added to a lattice draw in floating point: `perturb` hands the
values themselves to OpenDP's measurement, which rounds each to the lattice 2^k before adding the noise, so
every output is a lattice point (docs/PRIVACY_MODEL.md §11.2; the caller calibrates the scale and k with
`eyedp_core.dp.lattice`). `draw` gives noise alone, for noise that never meets a data value unrounded.

Planar Laplace has no OpenDP sampler. It is built from OpenDP draws: the radius of planar Laplace with
parameter ε' is Gamma(2, 1/ε'), and Gamma(2, 1) is the sum of two independent Exp(1) = |Lap(1)|; the
direction is uniform on the circle, taken as (G1, G2)/‖(G1, G2)‖ of two independent Gaussians (rotation
invariance). See docs/PRIVACY_MODEL.md §11 for what this construction does and does not claim.
"""
from __future__ import annotations

import numpy as np

from eyedp_core.dp.registry import Family

__all__ = ["PLANAR_UNIT_K", "ReleaseSource"]

# Lattice of the unit draws planar Laplace is built from (Lap(1), N(0, 1)): fixed, so it never depends on
# how many values one export draws; 2^-52 is far below any displacement's lattice step.
PLANAR_UNIT_K = -52


class ReleaseSource:
    """Release-mode noise: OpenDP lattice samplers with a cryptographic RNG; no seed, no numpy.random."""

    seeded = False

    def __init__(self) -> None:
        self.values_drawn = 0  # counted for the manifest

    def _measure(self, family: Family, values: np.ndarray, scale: float | np.ndarray,
                 lattice_k: int | np.ndarray | None) -> np.ndarray:
        """Values, scale and lattice exponent per element (broadcast) in, OpenDP's measurement applied to the
        values out (rounded to the lattice, then noised); one OpenDP call per distinct (scale, k). A zero
        scale means "no noise here" (e.g. a bin that is not kept): that value is returned unchanged."""
        # Imported here: OpenDP's prelude pulls in scikit-learn (~1 s), which app start and previews never need.
        from eyedp_core.dp.release import release_gaussian, release_laplace

        fam = Family(family)
        if fam not in (Family.LAPLACE, Family.GAUSSIAN):
            raise ValueError(f"release noise is Laplace or Gaussian, got {fam.value}")
        vals = np.asarray(values, dtype=float)
        s = np.broadcast_to(np.asarray(scale, dtype=float), vals.shape)
        ks = None if lattice_k is None else np.broadcast_to(np.asarray(lattice_k, dtype=np.int64), vals.shape)
        out = vals.copy()
        positive = s > 0
        pairs = np.unique(np.stack([s[positive], ks[positive] if ks is not None else np.zeros(int(positive.sum()))]),
                          axis=1)
        release = release_gaussian if fam is Family.GAUSSIAN else release_laplace
        for value, k in pairs.T.tolist():
            where = positive & (s == value)
            if ks is not None:
                where &= ks == int(k)
            noisy, _ = release(vals[where], float(value), k=None if ks is None else int(k))
            out[where] = noisy
            self.values_drawn += int(where.sum())
        return out

    def draw(self, family: Family | str, shape: tuple[int, ...], scale: float | np.ndarray,
             lattice_k: int | np.ndarray | None = None) -> np.ndarray:
        """Family (laplace | gaussian), shape, scale (b or σ) and lattice exponent (broadcastable; None:
        `lattice_k` of the scale and count) in, release noise alone out."""
        return self._measure(Family(family), np.zeros(tuple(shape)), scale, lattice_k)

    def perturb(self, family: Family | str, values: np.ndarray, scale: float | np.ndarray,
                lattice_k: int | np.ndarray) -> np.ndarray:
        """Family, values, scale and lattice exponent k (broadcastable) in, each value rounded to the lattice
        2^k and noised by OpenDP out: a lattice point wherever the scale is > 0 (unchanged where it is 0)."""
        return self._measure(Family(family), values, scale, lattice_k)

    def planar_unit(self, n: int) -> np.ndarray:
        """(n, 2) planar Laplace displacements with ε' = 1 (divide by ε' for another ε')."""
        if n == 0:
            return np.zeros((0, 2))
        exp = np.abs(self.draw(Family.LAPLACE, (2, n), 1.0, PLANAR_UNIT_K))  # |Lap(1)| ~ Exp(1)
        radius = exp[0] + exp[1]  # Gamma(2, 1)
        g = self.draw(Family.GAUSSIAN, (2, n), 1.0, PLANAR_UNIT_K)
        norm = np.hypot(g[0], g[1])
        bad = norm == 0  # probability ~0; redraw rather than divide by zero
        while bad.any():
            g[:, bad] = self.draw(Family.GAUSSIAN, (2, int(bad.sum())), 1.0, PLANAR_UNIT_K)
            norm = np.hypot(g[0], g[1])
            bad = norm == 0
        return np.stack([radius * g[0] / norm, radius * g[1] / norm], axis=-1)
