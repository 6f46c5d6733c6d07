"""Private feature time series (Bozkir et al., Steil et al.): LPA, FPA, CFPA, DCFPA and around them.

The package re-exports `mechanisms` so that `eyedp_core.timeseries.<name>` keeps working for outside code."""
from eyedp_core.timeseries.mechanisms import *  # noqa: F401,F403
from eyedp_core.timeseries.mechanisms import __all__  # noqa: F401
