"""Old import path, kept for outside code: `eyedp_core.datasets` is `eyedp_core.data.samples`."""
import sys

from eyedp_core.data import samples as _module

sys.modules[__name__] = _module
