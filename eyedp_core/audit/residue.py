"""The float-residue check of an exported release (docs/PRIVACY_MODEL.md §11.2): every released value must be a
point of its lattice 2^k·ℤ. Noise drawn on the lattice but added to an unrounded float keeps the float's
residue (F + z) mod 2^k = F mod 2^k, which tells two neighbouring datasets apart with certainty."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from eyedp_core.dp.lattice import round_to_lattice
from eyedp_core.dp.registry import Family
from eyedp_core.dp.release import release_gaussian, release_laplace

__all__ = ["ResidueCheck", "export_residue_check", "off_lattice"]


def off_lattice(values: np.ndarray, k: int) -> int:
    """Released values and the lattice exponent k in, how many are not multiples of 2^k out (exact arithmetic)."""
    v = np.asarray(values, dtype=float).ravel()
    return int(np.count_nonzero(round_to_lattice(v, k) != v))


@dataclass(frozen=True)
class ResidueCheck:
    """A release's values checked against their lattice, and what a naive float path would have published."""

    family: Family
    values: int
    lattice_k: int
    off_lattice: int  # released values not on the lattice: must be 0
    naive_off_lattice: int  # the same data noised without the rounding: the residue it keeps
    naive_separates: bool  # whether the naive path's residues tell the two neighbours apart

    @property
    def passed(self) -> bool:
        """Whether every released value lies on its lattice."""
        return self.off_lattice == 0


def export_residue_check(family: Family = Family.LAPLACE, values: int = 64, scale: float = 0.05,
                         sensitivity: float = 1.0, seed: int = 0) -> ResidueCheck:
    """Noise family, count, scale (Laplace b or Gaussian σ) and sensitivity (Δ1 or Δ2) in, the check of the
    exports' release path (OpenDP, values rounded to the lattice first) on float64 data whose low-order bits
    differ between two neighbours. Synthetic data, so nothing of anyone's data is drawn or charged."""
    rng = np.random.default_rng(seed)
    # Small values carry bits below any lattice step the release picks (their float spacing is far finer).
    data = rng.uniform(0.0, 2.0**-20, values)
    if family is Family.GAUSSIAN:
        released, meta = release_gaussian(data, scale, sensitivity=sensitivity)
    else:
        released, meta = release_laplace(data, scale, sensitivity=sensitivity)
    k = int(meta["lattice_k"])
    neighbour = data.copy()
    neighbour[0] += 0.375 * 2.0**k  # one value moved by less than a lattice step: only its residue changes
    # What a path that draws lattice noise but adds it to the unrounded value would publish, for both neighbours.
    z = round_to_lattice(rng.laplace(0.0, scale, values), k)
    naive_a, naive_b = data + z, neighbour + z
    residue = lambda v: v - round_to_lattice(v, k)  # noqa: E731 - a one-line helper used twice below
    separates = bool(residue(naive_a)[0] != residue(naive_b)[0])
    return ResidueCheck(family, values, k, off_lattice(released, k), off_lattice(naive_a, k), separates)
