"""ReleaseSource: the noise source of release mode, drawing every value from OpenDP's samplers (§11).

A mechanism object's `sample(rng, ...)` accepts a ReleaseSource in place of a numpy Generator, so the same
mechanism code (time-series FFT mechanisms, Kaleido) runs as a preview (seeded Generator) or as a release
(this source: OpenDP's discrete Laplace/Gaussian on a 2^k lattice, cryptographic RNG, no seed).

Planar Laplace has no OpenDP sampler. It is built from OpenDP draws: the radius of planar Laplace with
parameter ε' is Gamma(2, 1/ε'), and Gamma(2, 1) is the sum of two independent Exp(1) = |Lap(1)|; the
direction is uniform on the circle, taken as (G1, G2)/‖(G1, G2)‖ of two independent Gaussians (rotation
invariance). See docs/PRIVACY_MODEL.md §11 for what this construction does and does not claim.
"""
from __future__ import annotations

import numpy as np

from eyedp_core.dp.registry import Family

__all__ = ["ReleaseSource"]


class ReleaseSource:
    """Release-mode noise: OpenDP lattice samplers with a cryptographic RNG; no seed, no numpy.random."""

    seeded = False

    def __init__(self) -> None:
        self.values_drawn = 0  # counted for the manifest

    def _by_scale(self, family: Family, shape: tuple[int, ...], scale: float | np.ndarray) -> np.ndarray:
        """i.i.d. noise of `family` with a scale per element (broadcast), one OpenDP call per distinct scale."""
        # Imported here: OpenDP's prelude pulls in scikit-learn (~1 s), which app start and previews never need.
        from eyedp_core.dp.release import release_gaussian, release_laplace

        s = np.broadcast_to(np.asarray(scale, dtype=float), shape)
        out = np.zeros(shape, dtype=float)
        positive = s > 0  # a zero scale means "no noise here" (e.g. a bin that is not kept)
        for value in np.unique(s[positive]):
            where = positive & (s == value)
            n = int(where.sum())
            if family is Family.GAUSSIAN:
                noise, _ = release_gaussian(np.zeros(n), float(value))
            else:
                noise, _ = release_laplace(np.zeros(n), float(value))
            out[where] = noise
            self.values_drawn += n
        return out

    def draw(self, family: Family | str, shape: tuple[int, ...], scale: float | np.ndarray) -> np.ndarray:
        """Family (laplace | gaussian), shape and scale (b or σ, broadcastable) in, release noise out."""
        fam = Family(family)
        if fam not in (Family.LAPLACE, Family.GAUSSIAN):
            raise ValueError(f"release noise is Laplace or Gaussian, got {fam.value}")
        return self._by_scale(fam, tuple(shape), scale)

    def planar_unit(self, n: int) -> np.ndarray:
        """(n, 2) planar Laplace displacements with ε' = 1 (divide by ε' for another ε')."""
        if n == 0:
            return np.zeros((0, 2))
        exp = np.abs(self._by_scale(Family.LAPLACE, (2, n), 1.0))  # |Lap(1)| ~ Exp(1)
        radius = exp[0] + exp[1]  # Gamma(2, 1)
        g = self._by_scale(Family.GAUSSIAN, (2, n), 1.0)
        norm = np.hypot(g[0], g[1])
        bad = norm == 0  # probability ~0; redraw rather than divide by zero
        while bad.any():
            g[:, bad] = self._by_scale(Family.GAUSSIAN, (2, int(bad.sum())), 1.0)
            norm = np.hypot(g[0], g[1])
            bad = norm == 0
        return np.stack([radius * g[0] / norm, radius * g[1] / norm], axis=-1)
