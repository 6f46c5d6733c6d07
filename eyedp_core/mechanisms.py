"""Old import path, kept for outside code: `eyedp_core.mechanisms` is `eyedp_core.dp.mechanisms`."""
import sys

from eyedp_core.dp import mechanisms as _module

sys.modules[__name__] = _module
