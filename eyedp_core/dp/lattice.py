"""Release noise on OpenDP's lattice: the lattice step of a release and the sensitivity and scale it is
calibrated with (docs/PRIVACY_MODEL.md §11.2).

A released value is a point of the lattice 2^k·ℤ: the value is rounded to the lattice BEFORE the discrete
noise is added, so nothing of its low-order bits survives (noise added to an unrounded float keeps
(F + z) mod 2^k = F mod 2^k, an unbounded leak). Rounding moves each value by at most 2^k/2, so two
neighbours' rounded vectors of m values can differ by up to m·2^k more in L1 (√m·2^k in L2); floating-point
error of a transform computed before the rounding (the FFT) adds a relative ρ. A release is therefore
calibrated to Δ' = Δ·(1 + ρ) + slack and its scale is the formula's scale times Δ'/Δ: ε (and δ) stay
exactly what is charged. Pure arithmetic here (no OpenDP import): pages and manifests read the same numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

__all__ = ["FLOAT_INFLATION", "LatticeCalibration", "Metric", "lattice_calibration", "lattice_k",
           "round_to_lattice"]

# The relative inflation of Δ promised for floating-point error of a transform (docs/PRIVACY_MODEL.md §11):
# a floor; a larger bound computed from the public bounds replaces it.
FLOAT_INFLATION = 1e-9
# Rounding slack kept below this fraction of the sensitivity.
_SLACK_FRACTION = 1e-9
# Without a stated sensitivity, pick the lattice this many binary digits below the noise scale.
_BITS_BELOW_SCALE = 40
_MIN_K = -1074


class Metric(str, Enum):
    """The norm a sensitivity is measured in: L1 for Laplace noise, L2 for Gaussian noise."""

    L1 = "l1"
    L2 = "l2"

    def spread(self, n: int) -> float:
        """Number of values in, how much a per-value bound grows over them in this norm (n or √n) out."""
        return float(n) if self is Metric.L1 else math.sqrt(n)


def lattice_k(scale: float, n: int, sensitivity: float | None = None, norm: Metric | str = Metric.L1) -> int:
    """Noise scale, number of values, optional sensitivity and norm in, lattice exponent k out.

    OpenDP's default k (the smallest float exponent) is exact but about 3x slower; this k keeps the
    rounding slack negligible (< 1e-9 of the sensitivity, and 2^-40 of the scale per value)."""
    n = max(int(n), 1)
    spread = Metric(norm).spread(n)
    k = math.floor(math.log2(scale)) - _BITS_BELOW_SCALE - math.ceil(math.log2(spread))
    if sensitivity is not None and sensitivity > 0:
        k = min(k, math.floor(math.log2(_SLACK_FRACTION * sensitivity / spread)))
    return max(k, _MIN_K)


def round_to_lattice(values: np.ndarray, k: int) -> np.ndarray:
    """Values and lattice exponent k in, each value rounded to the nearest multiple of 2^k out.

    Exact in binary floating point: scaling by a power of two and rounding to an integer lose nothing."""
    return np.ldexp(np.round(np.ldexp(np.asarray(values, dtype=float), -int(k))), int(k))


@dataclass(frozen=True)
class LatticeCalibration:
    """One release invocation's noise on the lattice: the formula's scale and sensitivity, the m values it
    noises, the float inflation ρ and the lattice exponent k; the released scale follows."""

    metric: Metric
    epsilon: float
    base_scale: float  # the formula's scale (Laplace b or λ, Gaussian σ), as the page shows it
    sensitivity: float  # Δ of the noised values (L1 for Laplace, L2 for Gaussian), as calibrated
    values: int  # m: values noised per invocation
    float_inflation: float  # ρ: relative Δ inflation for floating-point error before the rounding
    k: int

    @property
    def step(self) -> float:
        """Lattice step g = 2^k."""
        return 2.0 ** self.k

    @property
    def rounding_slack(self) -> float:
        """What rounding to the lattice can add to the sensitivity: m·g (L1) or √m·g (L2); 0 without noise."""
        return self.step * self.metric.spread(self.values) if self.base_scale > 0 else 0.0

    @property
    def release_sensitivity(self) -> float:
        """Δ' = Δ·(1 + ρ) + slack: the sensitivity the released noise is calibrated to."""
        return self.sensitivity * (1.0 + self.float_inflation) + self.rounding_slack

    @property
    def scale(self) -> float:
        """The released scale: the formula's scale times Δ'/Δ (noise scales linearly with Δ at fixed ε, δ)."""
        if self.sensitivity <= 0:
            return self.base_scale
        return self.base_scale * self.release_sensitivity / self.sensitivity

    @property
    def inflation(self) -> float:
        """Relative growth of the scale over the formula's: Δ'/Δ − 1."""
        return self.scale / self.base_scale - 1.0 if self.base_scale > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers of this calibration (for manifests)."""
        return {"sensitivity_metric": self.metric.value, "epsilon": self.epsilon, "sensitivity": self.sensitivity,
                "scale_formula": self.base_scale, "values_per_invocation": self.values,
                "float_inflation": self.float_inflation, "lattice_k": self.k, "lattice_step": self.step,
                "rounding_slack": self.rounding_slack, "release_sensitivity": self.release_sensitivity,
                "scale": self.scale, "scale_inflation": self.inflation}


def lattice_calibration(*, metric: Metric, epsilon: float, base_scale: float, sensitivity: float, values: int,
                        float_inflation: float = 0.0) -> LatticeCalibration:
    """Norm, ε, the formula's scale and sensitivity, values per invocation and ρ in, the LatticeCalibration
    of one release invocation out (k from `lattice_k`: slack below 1e-9 of Δ)."""
    if not (math.isfinite(sensitivity) and sensitivity >= 0):
        raise ValueError(f"a release needs a finite sensitivity >= 0, got {sensitivity!r}")
    if not (math.isfinite(base_scale) and (base_scale > 0 or (base_scale == 0 and sensitivity == 0))):
        raise ValueError(f"a release needs a finite noise scale > 0, got {base_scale!r}")
    if not (math.isfinite(float_inflation) and float_inflation >= 0):
        raise ValueError(f"the float inflation must be a finite number >= 0, got {float_inflation!r}")
    m = max(int(values), 1)
    if base_scale == 0:
        # Δ = 0 (bounds L = U): the values do not depend on anyone's data, nothing is noised or rounded.
        return LatticeCalibration(Metric(metric), float(epsilon), 0.0, 0.0, m, 0.0, 0)
    k = lattice_k(base_scale, m, sensitivity, metric)
    return LatticeCalibration(Metric(metric), float(epsilon), float(base_scale), float(sensitivity), m,
                              float(float_inflation), k)
