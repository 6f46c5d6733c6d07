"""A recording read by the upload pipeline (eyedp_core.io.pipeline), and what can be derived from it.

    rec = read_recording("P01.asc")
    samples, fmt = rec                     # tidy samples (participant, t_s, x, y, ...) and the format name
    rec.events, rec.fixations(), rec.counts, rec.warnings, rec.geometry, rec.reports
    fix, how = rec.detect_fixations("ivt")  # derive step: fixations from the gaze samples
    rec.features(window_s=10)               # derive step: feature windows (Time series, Attacks)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.gaze.geometry import PRESETS, Geometry
from eyedp_core.io.derive import Derivation, fixations_from_gaze
from eyedp_core.io.errors import DataError, DataWarning
from eyedp_core.io.person_column import PersonColumn, person_column_of, with_person_column
from eyedp_core.io.readers import READERS
from eyedp_core.io.steps import StepReport
from eyedp_core.io.windows import features_from_table

FORMATS = ("eyelink_asc", *READERS)


@dataclass
class Recording:
    """A recording read by read_recording. Iterating gives (samples, format)."""

    samples: pd.DataFrame
    format: str
    kind: str = "gaze"
    events: pd.DataFrame | None = None
    geometry: Geometry | None = None
    screen_px: tuple[int, int] | None = None
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[DataWarning] = field(default_factory=list)
    source: str = ""
    reports: list[StepReport] = field(default_factory=list)
    # The role -> column mapping the map step used ({} for an EyeLink ASC file, read by its own reader).
    mapping: dict[str, Any] = field(default_factory=dict)

    def __iter__(self):
        """-> samples, then format (so `table, fmt = read_recording(...)` works)."""
        yield self.samples
        yield self.format

    def fixations(self) -> pd.DataFrame | None:
        """-> one row per fixation (observer, stimulus, x, y, duration_ms, t_start_s, t_end_s), or None."""
        if self.kind == "fixations":
            return self.samples
        if self.events is None or self.events.empty or "type" not in self.events.columns:
            return None
        fix = self.events[self.events["type"] == "fixation"]
        fix = fix[np.isfinite(fix["x"].to_numpy(dtype=float)) & np.isfinite(fix["y"].to_numpy(dtype=float))]
        cols = [c for c in ("stimulus", "x", "y", "duration_ms", "t_start_s", "t_end_s") if c in fix.columns]
        out = with_person_column(fix[["participant", *cols]], PersonColumn.OBSERVER).reset_index(drop=True)
        if "stimulus" in out.columns and not out["stimulus"].astype("str").str.len().gt(0).any():
            out = out.drop(columns=["stimulus"])
        return out

    def detect_fixations(self, method: str = "ivt", **thresholds: float) -> tuple[pd.DataFrame, Derivation]:
        """Derive step: method ('ivt', 'idt') [and thresholds] -> (fixations detected in the gaze samples,
        Derivation naming this file and the step), on this recording's geometry (a 24" 1920 × 1080 screen at
        60 cm when it has none)."""
        if self.kind != "gaze":
            raise DataError(f"fixations are detected in gaze samples; this recording holds {self.kind}.",
                            file=self.source or None, expected="a gaze recording")
        return fixations_from_gaze(self.samples, self.geometry or PRESETS["desktop_24"], method, source=self.source or "the recording",
                                   **thresholds)

    def features(self, window_s: float, step_s: float | None = None,
                 participants: pd.DataFrame | None = None) -> pd.DataFrame:
        """Derive step: window length and step in s [, participants table (read_participants)] -> the feature
        table that attacks.evaluate and the time-series functions take as it is (participant, recording, window,
        t_start_s, features, the participants' attributes as labels; window length in attrs), on this
        recording's geometry (a 24" 1920 × 1080 screen at 60 cm when it has none)."""
        if self.kind not in ("gaze", "fixations"):
            raise DataError(f"feature windows are made from gaze samples or fixations; this recording holds "
                            f"{self.kind}.", file=self.source or None, expected="a gaze or fixation recording")
        return features_from_table(self.samples, self.geometry, window_s, step_s,
                                   source=self.source or "the recording", participants=participants)

    def summary(self) -> str:
        """-> one line: format, rows, participants, what was dropped or blanked."""
        who = person_column_of(self.kind).value
        n_who = self.samples[who].nunique() if who in self.samples.columns else 0
        noun = {"fixations": "fixations", "features": "windows"}.get(self.kind, "samples")
        parts = [f"{self.format}: {len(self.samples):,} {noun}",
                 f"{n_who} {who}{'s' if n_who != 1 else ''}"]
        if self.events is not None and not self.events.empty:
            parts.append(f"{len(self.events):,} events")
        quiet = ("rows_read", "rows_kept", "sample_lines")
        shown = {k: v for k, v in self.counts.items() if k not in quiet and v}
        if shown:
            parts.append(", ".join(f"{k.replace('_', ' ')}: {v:,}" for k, v in shown.items()))
        return "; ".join(parts)
