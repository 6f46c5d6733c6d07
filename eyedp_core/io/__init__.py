"""Uploads and readers: tables, recordings and images parsed and validated in memory.

The package re-exports `uploads` (so that `eyedp_core.io.<name>` keeps working for outside code) and adds
`read_recording` / `Recording` (whole recordings in one call, format detected: the upload pipeline,
`Upload`, which the Your data page drives step by step) and `Geometry` / `PRESETS`
(screen geometry and unit conversion)."""
from __future__ import annotations

import importlib
from typing import Any

from eyedp_core.io.names import UPLOADS as _UPLOADS  # the light list: no uploads (pandas) import

# The names are loaded on first use (PEP 562): `eyedp_core.io.errors`, imported by the app's error guard at start,
# then costs no pandas/pyarrow import. `from eyedp_core.io import X` and `eyedp_core.io.X` work as before.
_RECORDING = ("FORMATS", "Recording")
_PIPELINE = ("Upload", "Limits", "ReadOptions", "read_recording")
_STEPS = ("Step", "StepReport")
_PARTICIPANTS = ("read_participants",)
__all__ = [*_UPLOADS, *_RECORDING, *_PIPELINE, *_STEPS, *_PARTICIPANTS]


def __getattr__(name: str) -> Any:
    """A re-exported name -> the object from eyedp_core.io.uploads or .recording (imported on first use)."""
    if name in _PARTICIPANTS:
        return getattr(importlib.import_module("eyedp_core.io.participants"), name)
    if name in _PIPELINE:
        return getattr(importlib.import_module("eyedp_core.io.pipeline"), name)
    if name in _STEPS:
        return getattr(importlib.import_module("eyedp_core.io.steps"), name)
    if name in _RECORDING:
        return getattr(importlib.import_module("eyedp_core.io.recording"), name)
    if name in _UPLOADS:
        return getattr(importlib.import_module("eyedp_core.io.uploads"), name)
    if name in ("uploads", "recording", "pipeline"):
        return importlib.import_module(f"eyedp_core.io.{name}")
    raise AttributeError(f"module 'eyedp_core.io' has no attribute {name!r}")
