"""Uploads and readers: tables and images parsed and validated in memory (see uploads).

The package re-exports `uploads` so that `eyedp_core.io.<name>` keeps working for outside code."""
from eyedp_core.io.uploads import *  # noqa: F401,F403
from eyedp_core.io.uploads import __all__  # noqa: F401
