"""Private gaze heatmaps (Liu et al.): maps, caps, calibration, curves, attacks (see maps).

The package re-exports `maps` so that `eyedp_core.heatmaps.<name>` keeps working for outside code."""
from eyedp_core.heatmaps.maps import *  # noqa: F401,F403
from eyedp_core.heatmaps.maps import __all__  # noqa: F401
