"""Planar Laplace noise (geo-indistinguishability, Andrés et al. 2013), the publishing step of Kaleido.

docs/PRIVACY_MODEL.md §8.2: with ε' per pixel the density around the true point g is
(ε'²/2π)·exp(−ε'·‖z − g‖). Sampled by the polar method: an angle θ ~ U[0, 2π) and a radius
R ~ Gamma(shape 2, scale 1/ε'), so E[R] = 2/ε', median ≈ 1.678/ε', 95 % quantile ≈ 4.744/ε'.

This is PREVIEW noise from a caller-supplied numpy Generator (docs/PRIVACY_MODEL.md §11: floating-point
planar Laplace has the same last-bit caveats as 1-D Laplace; a release would need a lattice sampler and a
cryptographic source). The mechanism object mirrors `eyedp_core.dp.noise`: it validates ε', knows its
variance and draws only from a Generator it is given.
"""
from __future__ import annotations

import math

import numpy as np

from eyedp_core.dp.registry import Family
from eyedp_core.dp.release_source import ReleaseSource

__all__ = ["PlanarLaplaceMechanism", "planar_laplace", "radius_quantile"]


def _check_eps(epsilon: float | np.ndarray) -> np.ndarray:
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(np.isfinite(eps)) or np.any(eps <= 0):
        raise ValueError(f"planar Laplace needs ε per pixel finite and > 0, got {epsilon!r}")
    return eps


def radius_quantile(q: float, epsilon: float) -> float:
    """Probability q in (0, 1) and ε' per px -> the radius R with P(‖noise‖ <= R) = q (Lambert-W form)."""
    from scipy.special import lambertw

    if not 0.0 < q < 1.0:
        raise ValueError(f"q must lie strictly between 0 and 1, got {q!r}")
    eps = float(_check_eps(epsilon))
    return float(-(lambertw((q - 1.0) / math.e, k=-1).real + 1.0) / eps)


def _preview_only(rng: object) -> None:
    """Refuse a ReleaseSource where noise would be added to points that are not on a lattice."""
    if isinstance(rng, ReleaseSource):
        raise TypeError("planar Laplace on raw points is a preview; release gaze through Kaleido's release path, "
                        "which rounds the points to its lattice first (docs/PRIVACY_MODEL.md §11.2)")


class PlanarLaplaceMechanism:
    """Planar Laplace with ε' per pixel (= ε/r for budget ε at radius r); preview draws only."""

    family = Family.PLANAR_LAPLACE

    def __init__(self, *, epsilon: float) -> None:
        self.epsilon = float(_check_eps(epsilon))


    @property
    def variance(self) -> float:
        """Per-coordinate variance E[R²]/2 = 3/ε'² (px²)."""
        return 3.0 / self.epsilon ** 2

    def sample(self, rng: np.random.Generator, n: int, epsilon: float | np.ndarray | None = None) -> np.ndarray:
        """Generator and count -> (n, 2) PREVIEW displacements; `epsilon` (scalar or (n,)) overrides ε'."""
        eps = self.epsilon if epsilon is None else _check_eps(epsilon)
        if isinstance(rng, ReleaseSource):  # release mode: built from OpenDP draws (release_source)
            return rng.planar_unit(n) / (eps[..., None] if np.ndim(eps) else eps)
        if not isinstance(rng, np.random.Generator):
            raise TypeError("preview noise needs a numpy.random.Generator")
        radius = rng.standard_gamma(2.0, size=n) / eps
        theta = rng.uniform(0.0, 2.0 * math.pi, size=n)
        return np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=-1)

    def randomise(self, points: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(n, 2) points -> the same points moved by i.i.d. planar Laplace noise (a new array). Preview only:
        a release must put the points on a lattice first (Kaleido's release does, docs/PRIVACY_MODEL.md §11.2)."""
        _preview_only(rng)
        pts = np.asarray(points, dtype=float)
        flat = pts.reshape(-1, 2)
        return (flat + self.sample(rng, flat.shape[0])).reshape(pts.shape)


def planar_laplace(points: np.ndarray, epsilon: float | np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(n, 2) pixel points, ε per pixel unit (ε/r; scalar or one per point) and a Generator -> noisy points.

    Preview noise (docs/PRIVACY_MODEL.md §8.2, §11). NaN points stay NaN."""
    _preview_only(rng)
    pts = np.asarray(points, dtype=float)
    flat = pts.reshape(-1, 2)
    eps = _check_eps(epsilon)
    if eps.ndim and eps.size != flat.shape[0]:
        raise ValueError(f"epsilon has {eps.size} values for {flat.shape[0]} points")
    mech = PlanarLaplaceMechanism(epsilon=float(eps.flat[0]) if eps.size else 1.0)
    noise = mech.sample(rng, flat.shape[0], epsilon=eps if eps.ndim else None)
    return (flat + noise).reshape(pts.shape)
