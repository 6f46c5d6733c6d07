"""Uploads and readers: tables, recordings and images parsed and validated in memory.

The package lists the public names of reading data, `eyedp_core.io.<name>`: those of `uploads` (tables and
images, mapping, limits), the upload pipeline (`Upload`, `Limits`, `ReadOptions`, `read_recording`: whole
recordings in one call, format detected; `Step` / `StepReport`: what each step did), `Recording`,
`read_recordings` (many files, a zip or a folder, each file one recording) and `read_participants`."""
from __future__ import annotations

import importlib
from typing import Any

from eyedp_core.io.names import UPLOADS as _UPLOADS  # the light list: no uploads (pandas) import

# The names are loaded on first use (PEP 562): `eyedp_core.io.errors`, imported by the app's error guard at start,
# then costs no pandas/pyarrow import.
_RECORDING = ("FORMATS", "Recording")
_PIPELINE = ("Upload", "ReadOptions", "read_recording")
_LIMITS = ("Limits",)
_STEPS = ("Step", "StepReport")
_PARTICIPANTS = ("read_participants",)
_RECORDINGS = ("read_recordings",)
__all__ = [*_UPLOADS, *_RECORDING, *_PIPELINE, *_LIMITS, *_STEPS, *_PARTICIPANTS, *_RECORDINGS]


def __getattr__(name: str) -> Any:
    """A re-exported name -> the object from eyedp_core.io.uploads, .pipeline, .limits, .steps, .recording(s) or
    .participants (imported on first use)."""
    if name in _RECORDINGS:
        return getattr(importlib.import_module("eyedp_core.io.recordings"), name)
    if name in _PARTICIPANTS:
        return getattr(importlib.import_module("eyedp_core.io.participants"), name)
    if name in _LIMITS:
        return getattr(importlib.import_module("eyedp_core.io.limits"), name)
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
