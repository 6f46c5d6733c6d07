"""Canonical roles of each upload kind, and guessing which column plays which role.

A mapping is a dict role -> column name (or None when unmapped), plus for gaze the key "time_unit"
("s", "ms" or "us"; "µs" is accepted too) and for features optionally "features": the list of
feature columns (default: every column not mapped to a role). Identifier roles (participant,
observer) may be mapped to WHOLE_FILE: the whole file is one person, named after the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

KINDS = ("gaze", "fixations", "features")
WHOLE_FILE = "(whole file = one person)"
TIME_UNIT_KEY = "time_unit"
FEATURES_KEY = "features"
# Factor to seconds; "µs" (micro sign) and "μs" (Greek mu) are accepted as spellings of "us".
TIME_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
TIME_UNIT_ALIASES = {"µs": "us", "μs": "us", "sec": "s", "msec": "ms", "usec": "us"}
# Median step between samples that separates the units, for sampling rates of 15 Hz to 2 kHz:
# steps are 0.0005-0.067 in s, 0.5-67 in ms, 500-66,667 in µs; the cuts sit between these bands.
STEP_S_MAX = 0.2
STEP_MS_MAX = 200.0


@dataclass(frozen=True)
class Role:
    """One canonical column of an upload kind: name, required?, expected type, description."""

    name: str
    required: bool
    expected: str  # "text" | "number" | "time"
    description: str
    allow_missing: bool = False
    nonnegative: bool = False


ROLES: dict[str, tuple[Role, ...]] = {
    "gaze": (
        Role("participant", True, "text", "Who was recorded: participant ID. Choose "
             f"'{WHOLE_FILE}' when the file holds a single person."),
        Role("t_s", True, "time", "Sample timestamp; choose its unit (s, ms, µs) below, it is converted to "
             "seconds. Must strictly increase within each participant (and stimulus, if mapped)."),
        Role("x", True, "number", "Horizontal gaze position in stimulus/screen pixels, origin top-left, "
             "x to the right. Empty cells (blinks, tracking loss) are allowed.", allow_missing=True),
        Role("y", True, "number", "Vertical gaze position in stimulus/screen pixels, origin top-left, "
             "y downwards. Empty cells (blinks, tracking loss) are allowed.", allow_missing=True),
        Role("pupil", False, "number", "Pupil diameter (mm). Empty cells (blinks) are allowed.",
             allow_missing=True),
        Role("stimulus", False, "text", "Stimulus, trial or task shown; the clock may restart for each."),
    ),
    "fixations": (
        Role("observer", True, "text", "Who looked: observer/participant ID. Choose "
             f"'{WHOLE_FILE}' when the file holds a single person."),
        Role("x", True, "number", "Fixation centre, horizontal, in stimulus pixels (origin top-left)."),
        Role("y", True, "number", "Fixation centre, vertical, in stimulus pixels (origin top-left, y down)."),
        Role("stimulus", False, "text", "Image or stimulus the fixation belongs to."),
        Role("duration_ms", False, "number", "Fixation duration in milliseconds (not negative).",
             nonnegative=True),
    ),
    "features": (
        Role("participant", True, "text", "Participant ID: the person whose windows these are."),
        Role("gender", False, "text", "Self-reported gender (for the gender-inference attack); may be empty.",
             allow_missing=True),
        Role("task", False, "text", "Task or document type of the recording (e.g. reading, video)."),
        Role("window", False, "number", "Window index within the recording (0, 1, 2, ...)."),
        Role("t_start_s", False, "number", "Window start time in seconds (not a feature)."),
    ),
}

# Names are normalised (see norm) and matched in full against these patterns, best first.
_ID = [r"participant", r"participant_?(id|name|nr|no|code|label)", r"subject", r"subj",
       r"subject_?(id|name|nr|no)", r"subj_?id", r"sub", r"sub_?id", r"pid", r"ppt", r"person", r"user",
       r"user_?id", r"observer", r"observer_?id", r"viewer", r"recording_session_label", r"session_?label",
       r"id"]
_XY = [r"{a}", r"{a}_?px", r"gaze_?{a}", r"gaze_?{a}_?px", r"gaze_?point_?{a}_mcspx", r"gaze_?point_?{a}",
       r"gaze_?point_?{a}_.*", r"gaze_?pos(ition)?_?{a}", r"pos_?{a}", r"{a}_?pos", r"por_?{a}",
       r"(average|avg|mean)_(gaze_)?{a}", r"fix(ation)?_?(point_?|pos_?)?{a}(_.*)?", r"current_fix_{a}",
       r"(right|left|r|l)_gaze_{a}", r"{a}_(coord|coordinate|position)"]
PATTERNS: dict[str, list[str]] = {
    "participant": _ID,
    "observer": [r"observer", r"observer_?id", *_ID],
    "t_s": [r"t", r"t_s", r"time", r"time_s", r"t_ms", r"time_ms", r"t_us", r"time_us", r"timestamp",
            r"timestamp_(s|ms|us)", r"ts", r"recording_?timestamp(_(s|ms|us))?", r"sample_?time(_.*)?",
            r"time_?stamp", r"gaze_timestamp", r"t_(sec|msec|usec)", r"time_(sec|msec|usec)", r"seconds",
            r"n", r"(?!.*dur).*timestamp.*", r"(?!.*dur).*time(_(s|ms|us))?"],
    "x": [p.format(a="x") for p in _XY],
    "y": [p.format(a="y") for p in _XY],
    "pupil": [r"pupil", r"pupil_mm", r"pupil_(size|diameter|diam|dia|area)(_mm)?", r"pupil_.*", r"d_?p",
              r"ps", r".*pupil.*"],
    "stimulus": [r"stimulus", r"stimulus_(name|id|file)", r"stim", r"stim_(name|id)", r"image",
                 r"image_(file|name|id)", r"img", r"media_?name", r"presented_stimulus_name", r"trial",
                 r"trial_?(id|index|name|nr)", r"task", r"page_name", r"page", r"image_index"],
    "duration_ms": [r"duration_ms", r"duration", r"dur", r"fix(ation)?_?dur(ation)?(_ms)?",
                    r"gaze_event_duration", r".*duration.*"],
    "gender": [r"gender", r"sex", r"participant_gender", r".*gender.*", r".*_sex"],
    "task": [r"task", r"task_(name|id)", r"book", r"document", r"doc_?type", r"stimulus", r"condition",
             r"text"],
    "window": [r"window", r"window_(index|id|nr|no|idx)", r"win", r"chunk", r"segment"],
    "t_start_s": [r"t_start_s", r"t_start", r"start_s", r"window_start(_s)?", r"start_time(_s)?", r"t0"],
}
_HEADERLESS = re.compile(r"col\d+")


def norm(name: Any) -> str:
    """Column name -> lower-case words joined by '_' (camelCase split, µ -> u)."""
    text = str(name).replace("µ", "u").replace("μ", "u")
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def is_id_name(name: str) -> bool:
    """Column name -> whether it looks like a participant/observer identifier."""
    n = norm(name)
    return n != "id" and any(re.fullmatch(p, n) for p in PATTERNS["observer"])


def canonical_unit(unit: Any) -> str | None:
    """A time-unit spelling -> 's', 'ms', 'us', or None when unknown."""
    u = TIME_UNIT_ALIASES.get(str(unit).strip(), str(unit).strip())
    return u if u in TIME_UNITS else None


def guess_time_unit(values: Any, column: str = "") -> str:
    """Timestamp values and their column name -> 's', 'ms' or 'us' (name first, then the sampling step)."""
    words = set(norm(column).split("_"))
    if words & {"us", "usec", "micro", "microseconds", "microsec"}:
        return "us"
    if words & {"ms", "msec", "millis", "milliseconds", "millisec"}:
        return "ms"
    if words & {"s", "sec", "secs", "seconds"}:
        return "s"
    if str(column) in ("RecordingTimestamp", "TIMESTAMP"):  # Tobii Studio and EyeLink export ms
        return "ms"
    t = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    step = np.diff(t[np.isfinite(t)])
    step = step[step > 0]
    if step.size == 0:
        return "s"
    median = float(np.median(step))
    return "s" if median < STEP_S_MAX else "ms" if median < STEP_MS_MAX else "us"


def _pick(columns: list[str], role: str, taken: set[str]) -> str | None:
    """Columns, a role and the columns already used -> the best-matching free column or None."""
    normed = [norm(c) for c in columns]
    for pattern in PATTERNS[role]:
        for col, n in zip(columns, normed):
            if col not in taken and re.fullmatch(pattern, n):
                return col
    return None


def _guess_headerless(df: pd.DataFrame) -> dict[str, str | None]:
    """Headerless table (col1..colN) -> t, x, y by position: first non-decreasing numeric column, next two."""
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
    out: dict[str, str | None] = {"t_s": None, "x": None, "y": None}
    for i, col in enumerate(numeric):
        t = df[col].to_numpy(dtype=float)
        if np.all(np.diff(t[np.isfinite(t)]) >= 0) and len(numeric) - i >= 3:
            out.update(t_s=col, x=numeric[i + 1], y=numeric[i + 2])
            break
    return out


def guess_mapping(df: pd.DataFrame, kind: str) -> dict[str, str | None]:
    """Table and kind -> role -> column (or None; WHOLE_FILE for a missing ID) plus 'time_unit' for gaze."""
    if kind not in ROLES:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    columns = [str(c) for c in df.columns]
    headerless = all(_HEADERLESS.fullmatch(c) for c in columns)
    guess: dict[str, str | None] = {}
    taken: set[str] = set()
    if headerless and kind == "gaze":
        guess.update(_guess_headerless(df))
        taken.update(c for c in guess.values() if c)
    for role in ROLES[kind]:
        if role.name in guess:
            continue
        col = None if headerless else _pick(columns, role.name, taken)
        if col is None and role.name in ("participant", "observer"):
            col = WHOLE_FILE
        guess[role.name] = col
        if col:
            taken.add(col)
    if kind == "gaze":
        t = guess.get("t_s")
        guess[TIME_UNIT_KEY] = guess_time_unit(df[t], t) if t in df.columns else "s"
    return {r.name: guess[r.name] for r in ROLES[kind]} | (
        {TIME_UNIT_KEY: guess[TIME_UNIT_KEY]} if kind == "gaze" else {})
