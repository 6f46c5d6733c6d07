"""Old import path, kept for outside code: the calibrations of `eyedp_core.dp.calibration` and the preview
samplers `laplace_noise`/`gaussian_noise`, which now live with the mechanism objects in `eyedp_core.dp.noise`."""
from eyedp_core.dp.calibration import *  # noqa: F401,F403
from eyedp_core.dp.calibration import __all__ as _calibration_names
from eyedp_core.dp.noise import gaussian_noise, laplace_noise  # noqa: F401

__all__ = [*_calibration_names, "gaussian_noise", "laplace_noise"]
