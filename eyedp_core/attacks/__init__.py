"""Attacks on feature tables: classifier protocols for re-identification, gender and document type.

The package re-exports `protocols` so that `eyedp_core.attacks.<name>` keeps working for outside code."""
from eyedp_core.attacks.protocols import *  # noqa: F401,F403
from eyedp_core.attacks.protocols import __all__  # noqa: F401
