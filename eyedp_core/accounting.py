"""Old import path, kept for outside code: `eyedp_core.accounting` is `eyedp_core.dp.accounting`."""
import sys

from eyedp_core.dp import accounting as _module

sys.modules[__name__] = _module
