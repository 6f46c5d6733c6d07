"""Differential-privacy building blocks: the mechanism registry, mechanism objects and calibrations,
the ledger, OpenDP release and the plain-words explanations (docs/PRIVACY_MODEL.md)."""
from eyedp_core.dp.calibration import Calibration  # noqa: F401
from eyedp_core.dp.noise import (  # noqa: F401
                                 GaussianMechanism,
                                 LaplaceMechanism,
                                 LiuGaussianMechanism,
                                 NoiseMechanism,
                                 from_calibration,
)
from eyedp_core.dp.registry import Family, Mech  # noqa: F401
