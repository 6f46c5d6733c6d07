"""Mechanism objects: one class per noise law, validated at construction, calibrated to a `Calibration`.

Modelled on diffprivlib: a mechanism object checks ε, δ and the sensitivity with precise errors, knows
its own scale and variance, and draws *preview* noise from a numpy Generator the caller passes.
Releases (anything charged to the ledger or exported) never go through `sample`: they use
`eyedp_core.dp.release` (OpenDP, cryptographic randomness). docs/PRIVACY_MODEL.md §0.1, §6.2, §6.3, §11.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import replace

import numpy as np

from eyedp_core.dp.calibration import (
    Calibration,
    calibrate_gaussian,
    calibrate_laplace,
    gaussian_delta,
    gaussian_sigma,
    tex_number,
)
from eyedp_core.dp.lattice import LatticeCalibration, Metric, lattice_calibration
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.dp.release_source import ReleaseSource

__all__ = [
    "GaussianMechanism",
    "LaplaceMechanism",
    "LiuGaussianMechanism",
    "NoiseMechanism",
    "from_calibration",
    "gaussian_noise",
    "laplace_noise",
    "liu_thm34_sigma",
    "r_star",
    "sample_noise",
    "standard_laplace",
]


def standard_laplace(rng: np.random.Generator, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """Generator, shape and dtype in, i.i.d. Lap(1) array out, drawn as S·E (E standard exponential,
    S a fair sign from raw bits): exactly Lap(1), and faster than `rng.laplace` for large arrays."""
    z = rng.standard_exponential(shape, dtype=dtype)
    size = z.size
    signs = np.unpackbits(np.frombuffer(rng.bytes(-(-size // 8)), dtype=np.uint8), count=size)
    np.negative(z, out=z, where=signs.reshape(z.shape).astype(bool))
    return z


def _unit_laplace(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    # Looked up at call time, so a test can watch every Lap(1) array drawn here.
    return standard_laplace(rng, shape, dtype)


def _unit_normal(rng: np.random.Generator, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    return rng.standard_normal(shape, dtype=dtype)


# Unit-scale noise of each additive family: Lap(1) or N(0, 1).
_STANDARD = {Family.LAPLACE: _unit_laplace, Family.GAUSSIAN: _unit_normal}


def sample_noise(rng: np.random.Generator | ReleaseSource, family: Family, scale: float | np.ndarray,
                 shape: int | tuple[int, ...], dtype: type = np.float64,
                 lattice_k: int | np.ndarray | None = None) -> np.ndarray:
    """Generator (preview) or ReleaseSource, family (Laplace: scale = b, Gaussian: scale = σ; an array scale
    broadcasts against the last axes), shape and dtype in, i.i.d. noise alone out. The plain sampler: no
    calibration, no ε or δ; with a ReleaseSource OpenDP draws it on the lattice 2^lattice_k (for noise that never
    meets a data value unrounded; data values go through `NoiseMechanism.perturb`)."""
    shp = (shape,) if isinstance(shape, int) else tuple(shape)
    if isinstance(rng, ReleaseSource):  # release mode: OpenDP's samplers, no seed (§11)
        return rng.draw(family, shp, scale, lattice_k).astype(dtype, copy=False)
    if not isinstance(rng, np.random.Generator):
        raise TypeError("preview noise needs a numpy.random.Generator; releases go through eyedp_core.dp.release")
    z = _STANDARD[family](rng, shp, dtype)
    if np.isscalar(scale):
        z *= dtype(scale)
    else:
        z *= np.asarray(scale, dtype=dtype)
    return z


class NoiseMechanism(ABC):
    """An additive noise mechanism with a fixed calibration: `sample` draws preview noise, `randomise` adds it."""

    family: Family
    calibration: Calibration

    @property
    def scale(self) -> float:
        """The calibrated scale: Laplace b, or Gaussian σ."""
        return self.calibration.scale

    @property
    @abstractmethod
    def variance(self) -> float:
        """Per-coordinate variance of the noise (2b² for Laplace, σ² for Gaussian)."""

    def sample(self, rng: np.random.Generator, shape: int | tuple[int, ...], dtype: type = np.float64,
               scale: float | np.ndarray | None = None, lattice_k: int | np.ndarray | None = None) -> np.ndarray:
        """Generator and shape in, i.i.d. PREVIEW noise out; `scale` (broadcast against the last axes)
        overrides the calibrated one where rows have their own calibrations of the same family. With a
        ReleaseSource: OpenDP noise alone on the lattice 2^lattice_k (for noise that never meets a data
        value unrounded; data values go through `perturb`)."""
        return sample_noise(rng, self.family, self.scale if scale is None else scale, shape, dtype, lattice_k)

    def perturb(self, rng: np.random.Generator, values: np.ndarray, scale: float | np.ndarray,
                lattice_k: int | np.ndarray) -> np.ndarray:
        """Generator or ReleaseSource, values, scale and lattice exponent (broadcast) in, noisy values out (a new
        array). Release: OpenDP rounds each value to the lattice 2^k, then adds its noise (§11.2); preview:
        values + sample(...), the lattice unused."""
        if isinstance(rng, ReleaseSource):
            return rng.perturb(self.family, values, scale, lattice_k)
        arr = np.asarray(values, dtype=float)
        return arr + self.sample(rng, arr.shape, scale=scale)

    def randomise(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Values and generator in, values + i.i.d. preview noise out (a new array). With a ReleaseSource the
        array is one invocation (Laplace only): rounded to the lattice of its LatticeCalibration (m = its size)
        and noised at the scale calibrated to the inflated sensitivity (docs/PRIVACY_MODEL.md §11.2)."""
        arr = np.asarray(values, dtype=float)
        if isinstance(rng, ReleaseSource):
            if self.family is not Family.LAPLACE:
                # The analytic σ is for continuous noise; OpenDP accounts its discrete Gaussian in zCDP.
                raise TypeError("a Gaussian release is calibrated by OpenDP's own accounting: use "
                                "eyedp_core.dp.release.release_gaussian with opendp_gaussian_sigma")
            cal = self.release_lattice(arr.size)
            return rng.perturb(self.family, arr, cal.scale, cal.k)
        return arr + self.sample(rng, arr.shape)

    def release_lattice(self, values: int) -> LatticeCalibration:
        """Number of values released together in, their LatticeCalibration (lattice, inflated Δ and scale) out."""
        c = self.calibration
        metric = Metric.L1 if self.family is Family.LAPLACE else Metric.L2
        return lattice_calibration(metric=metric, epsilon=c.epsilon, base_scale=c.scale, sensitivity=c.sensitivity,
                                   values=values)

    def __repr__(self) -> str:
        c = self.calibration
        return (f"{type(self).__name__}(epsilon={c.epsilon:g}, delta={c.delta:g}, sensitivity={c.sensitivity:g}, "
                f"method={c.method!r}, scale={c.scale:.6g})")


class LaplaceMechanism(NoiseMechanism):
    """Laplace mechanism: ε-DP with b = Δ1/ε; `sensitivity` is the L1 sensitivity."""

    family = Family.LAPLACE

    def __init__(self, *, epsilon: float, sensitivity: float, calibration: Calibration | None = None) -> None:
        self.calibration = calibration if calibration is not None else calibrate_laplace(sensitivity, epsilon)

    @property
    def variance(self) -> float:
        return 2.0 * self.scale ** 2


class GaussianMechanism(NoiseMechanism):
    """Gaussian mechanism: (ε, δ)-DP with σ from the L2 sensitivity; method "analytic" (Balle–Wang, exact
    for every ε > 0) or "classical" (Dwork–Roth, refused for ε >= 1)."""

    family = Family.GAUSSIAN

    def __init__(self, *, epsilon: float, delta: float, sensitivity: float,
                 method: GaussianMethod = GaussianMethod.ANALYTIC, calibration: Calibration | None = None) -> None:
        self.calibration = (calibration if calibration is not None
                            else calibrate_gaussian(sensitivity, epsilon, delta, method=method))

    @property
    def variance(self) -> float:
        return self.scale ** 2


def liu_thm34_sigma(l2_sensitivity: float, epsilon: float, delta: float, r: float) -> float:
    """Δ2, ε, δ, r in, Liu Thm 3.4 σ = Δ2·√(ε/2 + ln(r/δ))/ε out (as in the paper; wrong for r < r*)."""
    return l2_sensitivity * math.sqrt(epsilon / 2.0 + math.log(r / delta)) / epsilon


def r_star(epsilon: float, delta: float) -> float:
    """ε, δ in, r* = exp((ε·σ_an/Δ2)² − ε/2 + ln δ) out: Liu's σ is (ε, δ)-DP iff r >= r* (§6.2)."""
    s = gaussian_sigma(1.0, epsilon, delta, method=GaussianMethod.ANALYTIC)
    return math.exp((epsilon * s) ** 2 - epsilon / 2.0 + math.log(delta))


_LIU_TEX = r"\sigma = \frac{\Delta_2}{\varepsilon}\sqrt{\frac{\varepsilon}{2} + \ln\frac{r}{\delta}}"


class LiuGaussianMechanism(GaussianMechanism):
    """Gaussian noise calibrated as in Liu et al. Thm 3.4 ("as in the paper"): `calibration.valid` is False
    whenever r < r*, where that σ does not give (ε, δ)-DP (docs/PRIVACY_MODEL.md §6.2)."""

    def __init__(self, *, epsilon: float, delta: float, sensitivity: float, r: int) -> None:
        base = calibrate_gaussian(sensitivity, epsilon, delta, method=GaussianMethod.ANALYTIC)  # validates ε, δ, Δ2
        sigma = liu_thm34_sigma(sensitivity, epsilon, delta, r)
        rs = r_star(epsilon, delta)
        achieved = gaussian_delta(sigma, sensitivity, epsilon)
        valid = r >= rs
        if valid:
            note = (f"r = {r} >= r* = {rs:.4g}: this σ happens to be enough (exact δ achieved "
                    f"{achieved:.3g} <= {delta:.3g}), but it is larger than the analytic σ.")
        else:
            note = (f"r = {r} < r* = {rs:.4g}, so Theorem 3.4 does not give (ε={epsilon:g}, δ={delta:.3g})-DP: "
                    f"the exact δ at this σ is {achieved:.3g} ({achieved / delta:.3g}× the target).")
        plugged = (rf"\sigma = \frac{{{tex_number(sensitivity)}}}{{{tex_number(epsilon)}}}"
                   rf"\sqrt{{{tex_number(epsilon / 2)} + \ln\frac{{{r}}}{{{tex_number(delta)}}}}}"
                   rf" = {tex_number(sigma)}")
        self.calibration = replace(base, method=GaussianMethod.LIU_THM_34, scale=sigma, std=sigma, formula_tex=_LIU_TEX,
                                   plugged_tex=plugged,
                                   guarantee="as in the paper (Liu et al. Thm 3.4); not a proof in general",
                                   valid=bool(valid), note=note)


def from_calibration(calibration: Calibration) -> NoiseMechanism:
    """A Calibration in (any method, including the paper's), the mechanism object that draws exactly that noise out."""
    if calibration.mechanism is Family.LAPLACE:
        return LaplaceMechanism(epsilon=calibration.epsilon, sensitivity=calibration.sensitivity,
                                calibration=calibration)
    if calibration.mechanism is Family.GAUSSIAN:
        return GaussianMechanism(epsilon=calibration.epsilon, delta=calibration.delta,
                                 sensitivity=calibration.sensitivity, calibration=calibration)
    raise ValueError(f"no noise mechanism for calibration family {calibration.mechanism!r}")


def laplace_noise(rng: np.random.Generator, scale: float, size: int | tuple[int, ...]) -> np.ndarray:
    """Generator, Laplace scale b and shape in, i.i.d. Lap(b) PREVIEW noise out (the mechanism objects' sampler)."""
    if not (math.isfinite(float(scale)) and float(scale) >= 0):
        raise ValueError(f"Laplace scale must be a finite number >= 0, got {scale!r}")
    shp = (size,) if isinstance(size, int) else tuple(size)
    return standard_laplace(rng, shp) * float(scale)


def gaussian_noise(rng: np.random.Generator, sigma: float, size: int | tuple[int, ...]) -> np.ndarray:
    """Generator, std σ and shape in, i.i.d. N(0, σ²) PREVIEW noise out (the mechanism objects' sampler)."""
    if not (math.isfinite(float(sigma)) and float(sigma) >= 0):
        raise ValueError(f"sigma must be a finite number >= 0, got {sigma!r}")
    shp = (size,) if isinstance(size, int) else tuple(size)
    return rng.standard_normal(shp) * float(sigma)
