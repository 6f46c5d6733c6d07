"""Old import path, kept for outside code: `eyedp_core.features` is `eyedp_core.gaze.features`."""
import sys

from eyedp_core.gaze import features as _module

sys.modules[__name__] = _module
