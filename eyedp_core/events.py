"""Old import path, kept for outside code: `eyedp_core.events` is `eyedp_core.gaze.events`."""
import sys

from eyedp_core.gaze import events as _module

sys.modules[__name__] = _module
