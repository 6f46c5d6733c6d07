"""Fixations derived from raw gaze samples (I-VT / I-DT): the upload pipeline's derive step.

Pure functions: tables in, tables out, with the derivation described in words (source file, step, method,
thresholds, screen, counts) so a page can say what was derived from what.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from eyedp_core.gaze.events import GROUP_COLUMNS, detect_events
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.io.checks import fit_to_canvas
from eyedp_core.io.errors import DataError
from eyedp_core.io.person_column import PersonColumn, with_person_column
from eyedp_core.io.steps import Step, StepReport

METHODS = {"ivt": "I-VT (velocity threshold)", "idt": "I-DT (dispersion threshold)"}
# The defaults of eyedp_core.gaze.events, named for the page's inputs.
DEFAULT_THRESHOLDS: dict[str, dict[str, float]] = {
    "ivt": {"velocity_threshold_deg_s": 30.0, "min_fixation_ms": 60.0},
    "idt": {"dispersion_threshold_deg": 1.0, "min_duration_ms": 100.0},
}
THRESHOLD_LABELS = {"velocity_threshold_deg_s": "velocity threshold (°/s)",
                    "min_fixation_ms": "shortest fixation (ms)",
                    "dispersion_threshold_deg": "dispersion threshold (°)",
                    "min_duration_ms": "shortest fixation (ms)"}
FIXATION_COLUMNS = ("observer", "stimulus", "x", "y", "duration_ms", "t_start_s", "t_end_s")
STEPS = {"ivt": Step.IVT, "idt": Step.IDT}


@dataclass(frozen=True)
class Derivation:
    """How a fixation table was derived from gaze samples: method, thresholds, geometry and counts."""

    source: str
    method: str
    thresholds: dict[str, float]
    geometry: Geometry
    samples: int
    recordings: int
    fixations: int
    people: int
    counts: dict[str, int] = field(default_factory=dict)
    fitted: str = ""  # what was clipped to the screen or left out beyond it (io.fit_to_canvas), or ""

    @property
    def step(self) -> Step:
        """-> the pipeline step that made the table (the I-VT or I-DT step)."""
        return STEPS[self.method]

    def report(self) -> StepReport:
        """-> the step's report: samples in, fixations out, what was left out (counted)."""
        dropped = {k: v for k, v in self.counts.items() if k not in ("saccades", "blinks")}
        return StepReport(self.step, self.source, self.samples, self.fixations, dropped,
                          (self.fitted,) if self.fitted else (), what="fixations")

    def describe(self) -> str:
        """-> one sentence naming the source file and the step: what was detected, with which thresholds and
        screen."""
        th = ", ".join(f"{THRESHOLD_LABELS.get(k, k)} {v:g}" for k, v in self.thresholds.items())
        g = self.geometry
        # The same pixels-per-degree figure as the screen's own description (Geometry.describe), one formula.
        text = (f"{self.fixations:,} fixations of {self.people} people detected by {METHODS[self.method]} in "
                f"{self.samples:,} gaze samples ({self.recordings:,} recordings); {th}; screen "
                f"{g.width_px} × {g.height_px} px, {g.width_cm:.1f} × {g.height_cm:.1f} cm at {g.distance_cm:.0f} cm "
                f"({g.px_per_deg:.1f} px/deg).")
        return self.report().message(text + (f" {self.fitted}" if self.fitted else ""))


def _thresholds_used(samples: pd.DataFrame, method: str, source: str,
                     thresholds: dict[str, float]) -> dict[str, float]:
    """Gaze table, method and thresholds given -> every threshold used; DataError for a bad method, value or table."""
    if method not in METHODS:
        raise DataError(f"unknown event detection method {method!r}; choose one of {', '.join(METHODS)}.",
                        file=source, expected="ivt or idt")
    unknown = set(thresholds) - set(DEFAULT_THRESHOLDS[method])
    if unknown:
        raise DataError(f"unknown threshold(s) {sorted(unknown)} for {METHODS[method]}.", file=source,
                        expected=", ".join(DEFAULT_THRESHOLDS[method]))
    bad = {k: v for k, v in thresholds.items() if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0)}
    if bad:
        raise DataError(f"thresholds must be positive numbers, got {bad}.", file=source,
                        expected="positive thresholds")
    missing = [c for c in ("participant", "t_s", "x", "y") if c not in samples.columns]
    if missing:
        raise DataError(f"the gaze table lacks the column(s) {', '.join(missing)}.", file=source,
                        column=missing[0], expected="a canonical gaze table (participant, t_s, x, y)")
    return {**DEFAULT_THRESHOLDS[method], **{k: float(v) for k, v in thresholds.items()}}


def _gaze_events(samples: pd.DataFrame, geometry: Geometry, method: str, used: dict[str, float],
                 source: str) -> pd.DataFrame:
    """Gaze table and thresholds -> its event table; DataError when timestamps do not increase in a recording."""
    keep = [c for c in ("participant", "t_s", "x", "y", "pupil", *GROUP_COLUMNS) if c in samples.columns]
    try:
        return detect_events(samples[list(dict.fromkeys(keep))], geometry, method, **used)
    except ValueError as err:  # timestamps that do not increase inside one recording
        raise DataError(f"fixations cannot be detected: {err}", file=source,
                        expected="strictly increasing timestamps within each recording") from None


def _fixation_rows(ev: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """Event table -> (its fixations with a position, in the fixation table's columns; which fixations had one)."""
    fix = ev[ev["type"] == "fixation"]
    finite = np.isfinite(fix["x"].to_numpy(float)) & np.isfinite(fix["y"].to_numpy(float))
    fix = fix[finite]
    out = with_person_column(fix[["participant"]].astype(str).reset_index(drop=True), PersonColumn.OBSERVER)
    if "stimulus" in fix.columns:
        out["stimulus"] = fix["stimulus"].astype(str).to_numpy()
    out["x"] = fix["x"].to_numpy(float)
    out["y"] = fix["y"].to_numpy(float)
    out["duration_ms"] = fix["duration_ms"].to_numpy(float)
    out["t_start_s"] = fix["t_start_s"].to_numpy(float)
    out["t_end_s"] = fix["t_end_s"].to_numpy(float)
    return out, finite


def _on_screen(out: pd.DataFrame, geometry: Geometry, source: str, made_by: str) -> tuple[pd.DataFrame, str]:
    """Fixation table -> (its fixations moved to the screen's edge or left out, what was done in words)."""
    if not len(out):
        return out, ""
    # Samples up to the app's tolerance off the screen are kept, so fixations there are too: every view
    # draws on the screen, so they go to its edge, and any further out are left out (both counted).
    out, fitted = fit_to_canvas(out, geometry.width_px, geometry.height_px, source, made_by)
    return out.reset_index(drop=True), fitted


def fixations_from_gaze(samples: pd.DataFrame, geometry: Geometry, method: str = "ivt", *,
                        source: str = "the gaze table", **thresholds: float) -> tuple[pd.DataFrame, Derivation]:
    """Canonical gaze table (participant, t_s, x, y[, pupil, stimulus, trial]) -> (fixation table, Derivation).

    The fixation table has the fixations kind's canonical columns (observer, [stimulus], x, y, duration_ms,
    t_start_s, t_end_s), one row per fixation. Raises DataError for an unknown method or threshold, a
    table without the gaze columns, or timestamps that do not increase within a recording.
    """
    used = _thresholds_used(samples, method, source, thresholds)
    ev = _gaze_events(samples, geometry, method, used, source)
    groups = [c for c in GROUP_COLUMNS if c in samples.columns]
    out, finite = _fixation_rows(ev)
    made_by = StepReport(STEPS[method], source, what="fixations").prefix()
    n_found = len(out)
    out, fitted = _on_screen(out, geometry, source, made_by)
    n_rec = int(samples.groupby(groups, sort=False, dropna=False).ngroups) if groups else 1
    deriv = Derivation(source=source, method=method, thresholds=used, geometry=geometry, samples=len(samples),
                       recordings=n_rec, fixations=len(out), people=int(out["observer"].nunique()),
                       counts={"saccades": int((ev["type"] == "saccade").sum()),
                               "blinks": int((ev["type"] == "blink").sum()),
                               "fixations_without_position": int((~finite).sum()),
                               "fixations_off_screen_left_out": n_found - len(out)},
                       fitted=fitted)
    out.attrs["counts"] = {"fixations": len(out), **deriv.counts}
    out.attrs["derivation"] = deriv.describe()
    out.attrs["made_by"] = made_by
    return out, deriv
