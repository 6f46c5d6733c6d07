"""The Time-series page's choices that shape the release, made in the core: the public length T and k.

docs/PRIVACY_MODEL.md §0.5 (public length), §0.7 and §2.6 (tuning on private data). Both choices change
the noise scale, so both must be public: T is DECLARED (a fixed default the user overrides with the
study protocol's value); the longest recording of the data is offered too, but only as a flagged
option that the ledger records as a data-derived parameter. k comes from a data-free rule by default;
the analytic minimum and the paper's search read the private data and are flagged as tuned.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import pandas as pd

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.calibration import max_bins
from eyedp_core.timeseries.k import public_k
from eyedp_core.timeseries.k_search import OptimalK

__all__ = [
    "DEFAULT_LENGTH",
    "MAX_LENGTH",
    "KChoice",
    "KSource",
    "LengthSource",
    "PublicLength",
    "analytic_k",
    "choose_k",
    "public_length",
    "rule_k",
]

# A round public number of windows: 5 minutes at the 0.5-s step of Bozkir et al.'s feature windows.
# It is the same for every dataset, so the default itself reveals nothing about the data.
DEFAULT_LENGTH = 600
MAX_LENGTH = 100_000  # a fixed ceiling for the input box (a data-derived maximum would leak the length)


class LengthSource(str, Enum):
    """Where the public length T comes from."""

    DECLARED = "declared"  # typed by the user (or the fixed default): public
    DATA = "data"  # the longest recording of this data: read off the private data


@dataclass(frozen=True)
class PublicLength:
    """The length T every series is cut or padded to, and whether it was read off the data."""

    value: int
    source: LengthSource

    @property
    def data_derived(self) -> bool:
        """Whether T was read off the private data (then it is a caveat, not a public parameter)."""
        return self.source is LengthSource.DATA

    @property
    def caveats(self) -> tuple[str, ...]:
        """The ledger's `data_derived_parameters` for this T (empty when it was declared)."""
        return (f"length T = {self.value} windows (longest recording)",) if self.data_derived else ()


def public_length(source: LengthSource | str, *, declared: int = DEFAULT_LENGTH,
                  longest: int | None = None) -> PublicLength:
    """Source, the declared T, the data's longest recording in, the PublicLength to use out."""
    src = LengthSource(source)
    if src is LengthSource.DATA:
        if longest is None:
            raise ValueError("the data-derived length needs the longest recording")
        value = int(longest)
    else:
        value = int(declared)
    if not 1 <= value <= MAX_LENGTH:
        raise ValueError(f"the length T must lie in 1 … {MAX_LENGTH}, got {value}")
    return PublicLength(value, src)


class KSource(str, Enum):
    """How k (Fourier coefficients kept per invocation) is chosen."""

    RULE = "rule"  # data-free public rule (timeseries.k.public_k)
    ANALYTIC = "analytic"  # minimum of the expected-error curve: reads the private data
    OPTIMAL = "optimal"  # the paper's search over noisy runs on the private data
    MANUAL = "manual"

    @property
    def reads_private_data(self) -> bool:
        """Whether this way of choosing k looks at the private data."""
        return self in (KSource.ANALYTIC, KSource.OPTIMAL)


@dataclass(frozen=True)
class KChoice:
    """The k a setting uses, how it was chosen, and whether that tuned it on the private data."""

    k: int
    source: KSource
    k_max: int
    tuned_on_private_data: bool


def rule_k(mech: Mech, n: int, epsilon: float) -> int:
    """Mechanism, transform length n, per-invocation ε in, the data-free public k out."""
    return int(public_k(int(n), epsilon=float(epsilon), difference=mech is Mech.DCFPA))


def analytic_k(curve: pd.DataFrame) -> int:
    """Expected-error curve (timeseries.k.expected_error_curve) in, the k at its minimum out."""
    return int(curve.loc[curve["total"].idxmin(), "k"])


def choose_k(mech: Mech, n: int, epsilon: float, source: KSource | str, *, manual: int = 1,
             curve: pd.DataFrame | None = None, search: OptimalK | None = None) -> KChoice:
    """Mechanism, transform length n, per-invocation ε, source (with the curve or the search it needs)
    in, the KChoice clipped to 1 … ⌊n/2⌋+1 out. LPA keeps no coefficients: k is never tuned there."""
    src = KSource(source)
    k_max = int(max_bins(int(n)))
    if mech is Mech.LPA or src is KSource.MANUAL:
        k = int(manual)
    elif src is KSource.RULE:
        k = rule_k(mech, n, epsilon)
    elif src is KSource.ANALYTIC:
        if curve is None:
            raise ValueError("the analytic minimum needs the expected-error curve")
        k = analytic_k(curve)
    else:
        if search is None:
            raise ValueError("the paper's optimal k needs the search result")
        k = int(search.k)
    return KChoice(k=min(max(k, 1), k_max), source=src, k_max=k_max,
                   tuned_on_private_data=mech is not Mech.LPA and src.reads_private_data)
