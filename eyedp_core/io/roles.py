"""Canonical roles of each upload kind, and guessing which column plays which role.

A mapping is a dict role -> column name (or None when unmapped), plus for gaze and fixations the key
"time_unit" ("s", "ms", "us" or "ns"; "µs" is accepted too) and "units" of x/y ("px", "norm", "mm", "deg";
default px, with "y_up": True when y grows upwards), and for features optionally "features": the list of
feature columns (default: every column not mapped to a role) and "labels": the label columns kept as text
(default: every column without a single number, e.g. a passage or condition name). Identifier roles (participant,
observer) may be mapped to WHOLE_FILE: the whole file is one person, named after the file.

A guess never picks a column whose name says it is something else (a display, trial or stimulus duration
for the fixation duration, a duration for a time): `guess_notes` says which columns were passed over and
why, and `name_conflict` lets the validator warn when a user picks such a column anyway.
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
# Feature tables: the text label columns to keep besides gender and task (each a task on the Attacks page).
LABELS_KEY = "labels"
UNITS_KEY = "units"
Y_UP_KEY = "y_up"
# Factor to seconds; "µs" (micro sign) and "μs" (Greek mu) are accepted as spellings of "us".
TIME_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
TIME_UNIT_ALIASES = {"µs": "us", "μs": "us", "sec": "s", "msec": "ms", "usec": "us", "nsec": "ns"}
# Median step (us) above which a gaze clock is taken to count nanoseconds: 2 kHz is 500,000 ns per sample.
STEP_US_MAX = 200_000.0
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
        Role("t_start_s", False, "time", "Fixation start time; choose its unit below (converted to seconds). "
             "Keeps the order of fixations."),
        Role("t_end_s", False, "time", "Fixation end time, in the same unit as the start time."),
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
                 r"image_(file|name|id)", r"img", r"media_?name", r"presented_stimulus_name",
                 r"chart(_(name|id|file))?",
                 r"picture", r"photo", r"scene", r"trial",
                 r"trial_?(id|index|name|nr)", r"task", r"page_name", r"page", r"image_index"],
    "duration_ms": [r"duration_ms", r"duration", r"dur", r"fix(ation)?_?dur(ation)?(_ms)?",
                    r"gaze_event_duration", r".*duration.*"],
    "gender": [r"gender", r"sex", r"participant_gender", r".*gender.*", r".*_sex"],
    "task": [r"task", r"task_(name|id)", r"book", r"document", r"doc_?type", r"stimulus", r"condition",
             r"text"],
    "window": [r"window", r"window_(index|id|nr|no|idx)", r"win", r"chunk", r"segment"],
    "t_start_s": [r"t_start_s", r"t_start", r"start_s", r"window_start(_s)?", r"start_time(_s)?", r"t0",
                  r"start_ts", r"start_timestamp(_(s|ms|us|ns))?", r"start(_(s|ms|us|ns))?", r"onset(_.*)?",
                  r"(fix(ation)?_)?start(_time)?(_.*)?", r"current_fix_start"],
    "t_end_s": [r"t_end_s", r"t_end", r"end_s", r"end_time(_s)?", r"end_ts", r"end_timestamp(_(s|ms|us|ns))?",
                r"end(_(s|ms|us|ns))?", r"offset(_.*)?", r"(fix(ation)?_)?end(_time)?(_.*)?",
                r"current_fix_end"],
}
# Words that, in a column's name, say it holds something other than the role (matched as whole words of
# the normalised name). A guess skips such a column and says so; a user's choice of one gets a warning.
CONFLICTS: dict[str, tuple[str, ...]] = {
    "duration_ms": ("display", "trial", "stimulus", "stim", "screen", "page", "image", "blink", "saccade",
                    "sacc", "recording", "session", "task", "total", "reaction", "rt", "response", "interval",
                    "isi", "video", "clip", "block"),
    "t_s": ("duration", "dur", "trial", "display", "stimulus", "reaction", "rt", "response", "start", "end"),
    "t_start_s": ("duration", "dur", "trial", "display", "stimulus", "recording", "session", "block",
                  "window"),
    "t_end_s": ("duration", "dur", "trial", "display", "stimulus", "recording", "session", "block", "window"),
    "x": ("target", "stimulus", "media", "resolution", "width", "velocity", "vel", "head", "mouse"),
    "y": ("target", "stimulus", "media", "resolution", "height", "velocity", "vel", "head", "mouse"),
    "pupil": ("validity", "valid", "confidence"),
}
CONFLICT_WHAT = {
    "duration_ms": "a fixation duration", "t_s": "a sample timestamp", "t_start_s": "a fixation start time",
    "t_end_s": "a fixation end time", "x": "a gaze position", "y": "a gaze position", "pupil": "a pupil size",
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


def guess_time_unit(values: Any, column: str = "", events: bool = False) -> str:
    """Timestamp values and their column name -> 's', 'ms', 'us' or 'ns' (name first, then the step).

    events=True: the values are event (fixation) start times, a few hundred ms apart, not samples.
    """
    words = set(norm(column).split("_"))
    if words & {"ns", "nsec", "nano", "nanoseconds"}:
        return "ns"
    if words & {"us", "usec", "micro", "microseconds", "microsec"}:
        return "us"
    if words & {"ms", "msec", "millis", "milliseconds", "millisec"}:
        return "ms"
    if words & {"s", "sec", "secs", "seconds"}:
        return "s"
    if str(column) in ("RecordingTimestamp", "TIMESTAMP"):  # Tobii Studio and EyeLink export ms
        return "ms"
    try:
        t = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        return "s"
    step = np.diff(t[np.isfinite(t)])
    step = step[step > 0]
    if step.size == 0:
        return "s"
    median = float(np.median(step))
    if events:
        # Fixations start 0.1-1 s apart: 0.1-1 in s, 100-1000 in ms, 1e5-1e6 in us, 1e8-1e9 in ns.
        return "s" if median < 20 else "ms" if median < 2e4 else "us" if median < 2e7 else "ns"
    return ("s" if median < STEP_S_MAX else "ms" if median < STEP_MS_MAX else
            "us" if median < STEP_US_MAX else "ns")


def name_conflict(role: str, column: Any) -> str | None:
    """Role and column name -> why the name says it holds something else ('a display duration'), or None."""
    words = norm(column).split("_")
    hits = [w for w in words if w in CONFLICTS.get(role, ())]
    if not hits:
        return None
    other = [w for w in words if w not in ("ms", "s", "us", "ns", "sec", "msec", "px", "mm")]
    return " ".join(other) or hits[0]


def _role_regex(role: str) -> re.Pattern[str]:
    """Role -> one regex whose first matching alternative (named p0, p1, ...) is the best pattern."""
    if role not in _ROLE_REGEX:
        alts = "|".join(f"(?P<p{i}>{p})" for i, p in enumerate(PATTERNS[role]))
        _ROLE_REGEX[role] = re.compile(f"(?:{alts})")
    return _ROLE_REGEX[role]


_ROLE_REGEX: dict[str, re.Pattern[str]] = {}


def _pick(columns: list[str], normed: list[str], role: str, taken: set[str],
          passed_over: dict[str, list[str]] | None = None) -> str | None:
    """Columns (and their normalised names), a role, the columns already used -> best free column or None."""
    regex = _role_regex(role)
    best: tuple[int, int] | None = None
    for i, (col, n) in enumerate(zip(columns, normed)):
        if col in taken:
            continue
        m = regex.fullmatch(n)
        if m is None or m.lastgroup is None:
            continue
        rank = int(m.lastgroup[1:])
        if name_conflict(role, col) is not None:
            if passed_over is not None:
                passed_over.setdefault(role, []).append(col)
            continue
        if best is None or rank < best[0]:
            best = (rank, i)
    return None if best is None else columns[best[1]]


def _guess_headerless(df: pd.DataFrame) -> dict[str, str | None]:
    """Headerless table (col1..colN) -> t, x, y by position: first non-decreasing numeric column, next two;
    a table of two numeric columns is bare x, y samples (its time comes from a stated rate)."""
    numeric = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])]
    out: dict[str, str | None] = {"t_s": None, "x": None, "y": None}
    if len(numeric) == 2 == df.shape[1]:
        return {**out, "x": numeric[0], "y": numeric[1]}
    for i, col in enumerate(numeric):
        t = df[col].to_numpy(dtype=float, na_value=np.nan)
        if np.all(np.diff(t[np.isfinite(t)]) >= 0) and len(numeric) - i >= 3:
            out.update(t_s=col, x=numeric[i + 1], y=numeric[i + 2])
            break
    return out


def plain(df: pd.DataFrame) -> pd.DataFrame:
    """Table -> the same cells under text column names, each name once (its first column), without attrs.

    Every guess and check looks at columns one by one: pandas copies a frame's attrs into every column it hands
    out, and a parser's attrs grow with the number of columns (a list of renamed ones), so on the original frame
    each look costs as much as the whole header and a wide upload costs the square of its width."""
    names = [str(c) for c in df.columns]
    keep = ~pd.Index(names).duplicated()
    out = df.iloc[:, np.flatnonzero(keep)] if not keep.all() else df.copy(deep=False)
    out = out.set_axis([n for n, k in zip(names, keep) if k], axis=1)
    out.attrs = {}
    return out


def _series(df: pd.DataFrame, column: str) -> pd.Series:
    """Frame from `plain` and a column name -> that column (a hash look-up, not a scan of the header)."""
    return df[column]


def stimulus_columns(df: pd.DataFrame) -> list[str]:
    """Table (or its first rows) -> the columns whose values can decide the stimulus guess: those named like a
    stimulus and those holding text (file names). Read over the whole file, they give the guess of the whole file
    from the names of its head."""
    df = plain(df)
    regex = _role_regex("stimulus")
    dtypes = dict(zip(df.columns, df.dtypes))
    return [c for c in df.columns if regex.fullmatch(norm(c))
            or not (pd.api.types.is_numeric_dtype(dtypes[c]) or pd.api.types.is_bool_dtype(dtypes[c]))]


def _guess(df: pd.DataFrame, kind: str,
           values: pd.DataFrame | None = None) -> tuple[dict[str, Any], dict[str, list[str]], list[str]]:
    """Table and kind [and `values`: its stimulus_columns read over the whole file, when df is only its head] ->
    (guessed mapping, {role: columns passed over because their name conflicts}, sentences on ambiguous
    choices)."""
    if kind not in ROLES:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    df = plain(df)
    columns = list(df.columns)
    normed = [norm(c) for c in columns]
    headerless = bool(columns) and all(_HEADERLESS.fullmatch(c) for c in columns)
    guess: dict[str, Any] = {}
    passed: dict[str, list[str]] = {}
    taken: set[str] = set()
    if headerless and kind == "gaze":
        guess.update(_guess_headerless(df))
        taken.update(c for c in guess.values() if c)
    for role in ROLES[kind]:
        if role.name in guess:
            continue
        col = None if headerless else _pick(columns, normed, role.name, taken, passed)
        if col is None and role.name in ("participant", "observer"):
            col = WHOLE_FILE
        guess[role.name] = col
        if col:
            taken.add(col)
    said: list[str] = []
    by_position = [f"{role} ← {guess[role]}" for role in ("t_s", "x", "y") if headerless and guess.get(role)]
    if by_position:
        # Column names made up from positions say nothing: the user must know the choice rests on order alone.
        said.append("The file has no header row, so its columns were chosen by their position: "
                    + ", ".join(by_position) + ". Check the choice below.")
    if guess.get("stimulus") and not headerless:
        others = taken - {guess["stimulus"]}
        # Which column names the stimulus depends on values anywhere in the file (an index reused for other images
        # far below the head): with the whole file's candidate columns at hand, those decide.
        whole = plain(values) if values is not None else None
        look = whole if whole is not None and guess["stimulus"] in whole.columns else df
        guess["stimulus"], note = _stimulus_choice(look, guess, others)
        said += [note] if note else []
    out: dict[str, Any] = {r.name: guess[r.name] for r in ROLES[kind]}
    if kind == "gaze":
        t = guess.get("t_s")
        out[TIME_UNIT_KEY] = guess_time_unit(_series(df, t), t) if t in columns else "s"
    elif kind == "fixations":
        t = guess.get("t_start_s") or guess.get("t_end_s")
        out[TIME_UNIT_KEY] = guess_time_unit(_series(df, t), t, events=True) if t in columns else "ms"
    return out, passed, said


# Words that, in a column's name, hint at a role no pattern matched (e.g. IR_hor / IR_ver for x / y).
_HINTS: dict[str, tuple[str, ...]] = {
    "x": ("hor", "horiz", "horizontal", "h", "x", "azimuth", "az", "lon", "left", "col", "column"),
    "y": ("ver", "vert", "vertical", "v", "y", "elevation", "el", "lat", "top", "row"),
    "t_s": ("time", "t", "ts", "timestamp", "sample", "ms", "us", "clock", "frame"),
    "duration_ms": ("dur", "duration", "length", "ms"),
}
MAX_CANDIDATES = 6


def role_candidates(df: pd.DataFrame, role: str, taken: Any = ()) -> list[str]:
    """Table, a role no column was found for, the columns already used -> the likely columns for it, best first:
    for numbers, numeric columns (with a name hinting at the role first), else any free column."""
    taken = {str(c) for c in taken if c}
    df = plain(df)
    filled = df.notna().any(axis=0)
    free = [c for c in df.columns if c not in taken and filled[c]]
    if role in ("x", "y", "t_s", "duration_ms", "pupil", "t_start_s", "t_end_s", "window"):
        dtypes = df.dtypes
        free = [c for c in free if pd.api.types.is_numeric_dtype(dtypes[c])
                and not pd.api.types.is_bool_dtype(dtypes[c])]
    hints = _HINTS.get(role, ())
    hinted = [c for c in free if any(w in hints for w in norm(c).split("_"))]
    first = set(hinted)
    return (hinted + [c for c in free if c not in first])[:MAX_CANDIDATES]


_FILE_NAME = re.compile(r".+\.[A-Za-z][A-Za-z0-9]{1,4}$")


def _file_name_share(s: pd.Series) -> float:
    """Column -> share of its filled cells that look like file names ('face01.jpg')."""
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
        return 0.0
    v = s.dropna().astype(str)
    return float(v.str.match(_FILE_NAME).mean()) if len(v) else 0.0


def _collision(df: pd.DataFrame, index_col: str, name_col: str) -> tuple[Any, list[str]] | None:
    """Two candidate stimulus columns -> (a value of `index_col`, the names it stands for) when one value of
    index_col stands for several values of name_col (an index reused across image sets), else None."""
    pairs = pd.DataFrame({"i": _series(df, index_col), "n": _series(df, name_col)}).dropna().drop_duplicates()
    many = pairs.groupby("i", sort=False)["n"].nunique()
    many = many[many > 1]
    if many.empty:
        return None
    value = many.index[0]
    return value, sorted(map(str, pairs.loc[pairs["i"] == value, "n"]))[:3]


def _stimulus_choice(df: pd.DataFrame, guess: dict[str, Any], taken: set[str]) -> tuple[str | None, str | None]:
    """Table and the guessed mapping -> (the stimulus column to use, a sentence when the choice was ambiguous).

    A column of file names is preferred over another candidate (an index, a trial number) that stands for
    several of its names: such an index merges different images into one stimulus."""
    chosen = guess.get("stimulus")
    if chosen is None:
        return None, None
    regex = _role_regex("stimulus")
    share = {c: _file_name_share(_series(df, c)) for c in df.columns if c not in taken}
    others = [c for c in df.columns if c not in taken and c != chosen
              and (regex.fullmatch(norm(c)) or share[c] > 0.9)]
    if not others:
        return chosen, None
    named = [c for c in others if share[c] > 0.9]
    if share[chosen] <= 0.9:
        for c in named:
            hit = _collision(df, chosen, c)
            if hit is not None:
                value, names = hit
                return c, (f"'{c}' was chosen for the stimulus, not '{chosen}': one value of '{chosen}' "
                           f"({shown_value(value)}) stands for different images in '{c}' ({', '.join(names)}), "
                           "so it would merge them into one stimulus.")
    return chosen, (f"Several columns could name the stimulus: '{chosen}' (chosen), "
                    + ", ".join(f"'{c}'" for c in others) + ". Check the choice below.")


def shown_value(value: Any) -> str:
    """A cell value -> short text for a note."""
    text = str(value)
    return text if len(text) <= 30 else text[:29] + "…"


# Gaze samples come at least every 50 ms (20 Hz); fixations last about 100-400 ms.
SAMPLE_STEP_MAX_S = 0.05


def _median_step_s(df: pd.DataFrame, column: str, unit: str) -> float | None:
    """Time column and its unit -> median positive step in seconds, or None."""
    t = pd.to_numeric(_series(df, column), errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    d = np.diff(t[np.isfinite(t)])
    d = d[d > 0]
    if not d.size:
        return None
    return float(np.median(d)) / {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}.get(unit, 1.0)


def kind_note(df: pd.DataFrame, kind: str, mapping: dict[str, Any]) -> str | None:
    """Table, the kind it is read as and its guessed mapping -> a sentence when it looks like the other kind
    (a fixation export read as gaze samples, or gaze samples read as fixations), else None."""
    df = plain(df)
    columns = list(df.columns)
    normed = [norm(c) for c in columns]
    if kind == "gaze":
        dur = _pick(columns, normed, "duration_ms", {c for c in mapping.values() if isinstance(c, str)})
        if dur is None:
            return None
        d = pd.to_numeric(_series(df, dur), errors="coerce")
        d_med = float(d[d > 0].median()) if (d > 0).any() else float("nan")
        t = mapping.get("t_s")
        # The time unit guessed for samples misreads a fixation table's steps, so the steps are compared with the
        # durations themselves: rows about one duration apart are one fixation each.
        step = _median_step_s(df, t, "s") if t in columns else None
        like = step is None or not np.isfinite(d_med) or any(
            0.5 * d_med <= step * k <= 4 * d_med for k in (1.0, 1e3, 1e-3))
        if like:
            return (f"This file looks like fixations, not gaze samples: it has a duration column ('{dur}')"
                    + (", and its rows are about one duration apart" if step is not None else "")
                    + ". If each row is one fixation, choose 'Fixations' above.")
    if kind == "fixations" and not mapping.get("duration_ms"):
        t = _pick(columns, normed, "t_s", {c for c in mapping.values() if isinstance(c, str)})
        if t is not None:
            step = _median_step_s(df, t, guess_time_unit(_series(df, t), t))
            if step is not None and step <= SAMPLE_STEP_MAX_S:
                return (f"This file looks like gaze samples, not fixations: it has no duration column and its "
                        f"times ('{t}') are {step * 1000:.3g} ms apart. If each row is one sample, choose 'Raw gaze "
                        "samples' above.")
    return None


def guess_mapping(df: pd.DataFrame, kind: str, *, values: pd.DataFrame | None = None) -> dict[str, Any]:
    """Table and kind -> role -> column (or None; WHOLE_FILE for a missing ID) plus 'time_unit'. values: the
    table's stimulus_columns read over the whole file when df holds only its first rows."""
    return _guess(df, kind, values)[0]


def guess_notes(df: pd.DataFrame, kind: str, *, values: pd.DataFrame | None = None) -> list[str]:
    """Table and kind -> plain sentences on columns the guess passed over because their names conflict (and on
    ambiguous choices). values: as for guess_mapping."""
    df = plain(df)
    mapping, passed, said = _guess(df, kind, values)
    notes = []
    for role, cols in passed.items():
        chosen = mapping.get(role)
        for col in cols:
            what = name_conflict(role, col)
            if chosen:
                tail = f"'{chosen}' was chosen instead"
            elif role == "duration_ms" and mapping.get("t_start_s") and mapping.get("t_end_s"):
                tail = "durations are computed from the start and end times instead"
            else:
                tail = "choose the right column yourself"
            notes.append(f"'{col}' was not chosen for {role} ({CONFLICT_WHAT.get(role, role)}): its name "
                         f"says it is a {what}; {tail}.")
    taken = {c for c in mapping.values() if isinstance(c, str) and c != WHOLE_FILE}
    for role in ROLES[kind]:
        if role.required and not mapping.get(role.name) and role.name not in passed:
            found = role_candidates(df, role.name, taken)
            if found:
                notes.append(f"No column was recognised for '{role.name}'. Candidates: "
                             + ", ".join(f"'{c}'" for c in found) + ".")
    other = kind_note(df, kind, mapping) if kind in ("gaze", "fixations") else None
    return ([other] if other else []) + notes + said
