"""Uploads and readers: tables, recordings and images parsed and validated in memory.

The package re-exports `uploads` (so that `eyedp_core.io.<name>` keeps working for outside code) and adds
`read_recording` / `Recording` (whole recordings in one call, format detected) and `Geometry` / `PRESETS`
(screen geometry and unit conversion)."""
from eyedp_core.io.recording import FORMATS, Recording, columns_needed, read_recording  # noqa: F401
from eyedp_core.io.uploads import *  # noqa: F401,F403
from eyedp_core.io.uploads import __all__ as _uploads_all

__all__ = [*_uploads_all, "FORMATS", "Recording", "read_recording", "columns_needed"]
