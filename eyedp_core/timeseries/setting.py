"""`MechanismSetting`: the settings every time-series mechanism shares, in one frozen object.

The mechanisms (`mechanisms.run`), their calibration (`calibration.fpa_calibration`, `chunk_calibrations`), the
paper's k search (`k_search.optimal_k`) and the label dispatch (`signals.run_mechanism`) all take the same few
settings: which mechanism, ε per invocation, k, chunk length, Steil's window, DCFPA's increment bound, the FFT norm
and whether the sensitivity is public. They travel together as one `MechanismSetting` instead of as long keyword
lists. ε, k and the increment bound may be arrays (per series or per chunk, as `mechanisms.run` broadcasts them);
a setting of plain numbers is hashable, so cached functions can key on it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.labels import as_mech, parse_label

__all__ = ["MechanismSetting"]


@dataclass(frozen=True, kw_only=True)
class MechanismSetting:
    """One time-series mechanism setting: mechanism, ε per invocation (per series for LPA/FPA/Steil, per chunk for
    CFPA/DCFPA), k kept bins, chunk length (CFPA/DCFPA), Steil's window w, DCFPA's public increment bound B, the
    numpy FFT norm and the sensitivity type ("public" | "data-derived": calibrations are marked so)."""

    mech: Mech
    epsilon: float | np.ndarray
    k: int | np.ndarray = 1
    chunk: int | None = None
    w: int = 1
    increment_bound: float | np.ndarray | None = None
    norm: str = "backward"  # one of calibration.NORMS (a Literal there: calibration imports this module)
    sensitivity_type: str = "public"

    def __post_init__(self) -> None:
        """Accept a mechanism's name ("cfpa", "CFPA") as well as the Mech."""
        object.__setattr__(self, "mech", as_mech(self.mech))

    @classmethod
    def from_label(cls, label: str, **settings: object) -> MechanismSetting:
        """A label like "CFPA-64", "FPA", "Steil-10" and the other settings in, the setting out (the label's number
        is the chunk length of CFPA/DCFPA and the window w of the Steil samplers)."""
        mech, size = parse_label(label)
        return cls(mech=mech, chunk=size, w=size or 1, **settings)

    @property
    def difference(self) -> bool:
        """Whether the mechanism transforms the within-chunk differences (DCFPA)."""
        return self.mech is Mech.DCFPA

    def replace(self, **changes: object) -> MechanismSetting:
        """The same setting with some fields changed (e.g. one calibration group's k and ε)."""
        return dataclasses.replace(self, **changes)
