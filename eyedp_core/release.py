"""Old import path, kept for outside code: `eyedp_core.release` is `eyedp_core.dp.release`."""
import sys

from eyedp_core.dp import release as _module

sys.modules[__name__] = _module
