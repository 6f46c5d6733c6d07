"""Uploads and readers: tables, recordings and images parsed and validated in memory.

The package re-exports `uploads` (so that `eyedp_core.io.<name>` keeps working for outside code) and adds
`read_recording` / `Recording` (whole recordings in one call, format detected) and `Geometry` / `PRESETS`
(screen geometry and unit conversion)."""
from __future__ import annotations

import importlib
from typing import Any

# The names are loaded on first use (PEP 562): `eyedp_core.io.errors`, imported by the app's error guard at start,
# then costs no pandas/pyarrow import. `from eyedp_core.io import X` and `eyedp_core.io.X` work as before.
_RECORDING = ("FORMATS", "Recording", "read_recording", "columns_needed")
_UPLOADS = (
    "DataError", "DataWarning", "Role", "Reader", "ROLES", "KINDS", "READERS", "WHOLE_FILE", "TIME_UNITS",
    "TIME_UNIT_KEY", "FEATURES_KEY", "LABELS_KEY", "UNITS_KEY", "Y_UP_KEY", "UNITS", "UNIT_LABELS", "Geometry", "PRESETS",
    "DEFAULT_MIN_CONFIDENCE", "MAX_UPLOAD_BYTES", "MAX_UNPACKED_BYTES", "MAX_ROWS", "MAX_COLUMNS",
    "MAX_IMAGE_PIXELS", "MAX_IMAGE_SIDE", "MIN_LENGTH_RATIO", "WEB_LIMITS",
    "read_table", "guess_mapping", "guess_notes", "guess_time_unit", "apply_mapping", "check_in_bounds",
    "check_lengths", "load_image", "to_csv_bytes", "register_reader", "detect_reader", "row_numbers",
    "peek_format",
)
__all__ = [*_UPLOADS, *_RECORDING]


def __getattr__(name: str) -> Any:
    """A re-exported name -> the object from eyedp_core.io.uploads or .recording (imported on first use)."""
    if name in _RECORDING:
        return getattr(importlib.import_module("eyedp_core.io.recording"), name)
    if name in _UPLOADS:
        return getattr(importlib.import_module("eyedp_core.io.uploads"), name)
    if name in ("uploads", "recording"):
        return importlib.import_module(f"eyedp_core.io.{name}")
    raise AttributeError(f"module 'eyedp_core.io' has no attribute {name!r}")
