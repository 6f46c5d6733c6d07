"""The steps of the upload pipeline and what each reports: rows in, rows out, what it dropped and why.

A `StepReport` names the file and the step, so any message about a table the app made itself (fixations
detected in gaze, feature windows) says where it came from: "fixations derived from 'rec.csv' (I-VT step): …".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np


class Step(Enum):
    """One step of the upload pipeline, in order; the value is how messages name it."""

    DETECT = "format detection"
    PREVIEW = "preview"
    CONVERT = "vendor conversion"
    MAP = "column mapping"
    VALIDATE = "validation"
    IVT = "I-VT step"
    IDT = "I-DT step"
    WINDOWS = "feature-window step"
    COMBINE = "combining files"

    @property
    def derives(self) -> bool:
        """-> whether the step makes a new table (fixations, feature windows) rather than reading the file."""
        return self in (Step.IVT, Step.IDT, Step.WINDOWS)


# Count keys that are tallies of what was read or filled in, not of what was dropped.
_QUIET_COUNTS = frozenset({"rows_read", "rows_kept", "sample_lines", "fixations", "saccades", "blinks",
                           "time_rebuilt"})


@dataclass(frozen=True)
class StepReport:
    """What one step did to one file: rows in and out, each reason rows were dropped or blanked (counted), and
    the step's own sentences (e.g. a reader's note on vendor validity codes)."""

    step: Step
    source: str
    rows_in: int | None = None
    rows_out: int | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    what: str = ""  # the table the step made, for derived tables ("fixations", "feature windows")

    def prefix(self) -> str:
        """-> how a message about this step's table starts: "fixations derived from 'rec.csv' (I-VT step)".

        The file name is quoted, not in backticks: messages are shown as markdown with the name escaped, and an
        escaped backtick prints as a literal one."""
        if self.step.derives:
            return f"{self.what or 'table'} derived from '{self.source}' ({self.step.value})"
        return f"'{self.source}' ({self.step.value})"

    def message(self, text: str) -> str:
        """A sentence about this step's table -> the sentence prefixed with the source file and the step."""
        head = self.prefix()
        return f"{head[:1].upper()}{head[1:]}: {text}"

    def sentence(self) -> str:
        """-> one line: rows in -> out and every counted reason, prefixed with the file and the step."""
        parts = []
        if self.rows_in is not None and self.rows_out is not None:
            parts.append(f"{self.rows_in:,} rows in, {self.rows_out:,} out")
        elif self.rows_out is not None:
            parts.append(f"{self.rows_out:,} rows")
        shown = {k: v for k, v in self.dropped.items() if v and k not in _QUIET_COUNTS}
        parts += [f"{k.replace('_', ' ')}: {v:,}" for k, v in shown.items()]
        parts += [n for n in self.notes if n]
        return self.message("; ".join(parts) + "." if parts else "nothing dropped.")


def counted(counts: dict[str, int], before: dict[str, int] | None = None) -> dict[str, int]:
    """Counts after a step [and before it] -> what the step itself dropped or blanked (positive differences; the
    tallies of rows read and kept left out)."""
    before = before or {}
    return {k: int(v) - int(before.get(k, 0)) for k, v in counts.items()
            if k not in _QUIET_COUNTS and isinstance(v, (int, np.integer)) and int(v) - int(before.get(k, 0)) > 0}
