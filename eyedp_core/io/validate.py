"""Column mapping -> canonical table, with vectorised checks that name the first offending row.

Decisions documented here (the page shows str() of the errors and warnings):
* Gaze timestamps must strictly increase within each recording (participant, and stimulus when it is
  mapped, because the clock may restart per trial). Going backwards or repeating is an error: the
  event detector needs a positive time step, and a silent re-sort would hide a wrong mapping.
* x/y must be pixels. Values that look like degrees of visual angle (all within ±60, some negative)
  or normalised 0-1 coordinates are refused with a message saying so.
* Feature tables whose recordings (participant [x task]) differ a lot in length are accepted with a
  DataWarning listing the lengths: the time-series mechanisms pad or truncate every recording to a
  public length T, so this is a utility concern, not an error.
* Signal loss: in pixel data, x = y = 0 is a lost sample and becomes NaN (a lost fixation is dropped);
  rows with a zero timestamp after the recording started (trailing) or long before it (leading) are tracker
  padding and are dropped. Both are counted.
* With `drop_missing`, rows with an empty cell in a chosen column that must not be empty are dropped and
  counted instead of refused. Positions may come in px, norm, mm or deg (mapping["units"]); anything but px
  needs an `io.Geometry`, and samples further off the screen than a margin become NaN and are counted.
Warnings are returned in `out.attrs["warnings"]` (a list of DataWarning), counts in `out.attrs["counts"]`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.gaze.geometry import ON_SCREEN_TOLERANCE, UNITS, Geometry
from eyedp_core.io.checks import (
    ID_ROLES,
    _expected,
    _file_label,
    as_number,
    as_text,
    check_increasing,
    check_lengths,
    check_pixel_units,
)
from eyedp_core.io.errors import DataError, DataWarning, first_row, row_numbers, shown
from eyedp_core.io.roles import (
    CONFLICT_WHAT,
    FEATURES_KEY,
    LABELS_KEY,
    ROLES,
    TIME_UNIT_KEY,
    TIME_UNITS,
    UNITS_KEY,
    WHOLE_FILE,
    Y_UP_KEY,
    canonical_unit,
    guess_time_unit,
    name_conflict,
    role_candidates,
)
from eyedp_core.io.sample_clock import Timeless, check_rate, timeless

__all__ = ["canonical_table"]

# A frame with more columns than this is refused before any column is looked at (the parser refuses the
# same for files).
MAX_COLUMNS = 5000
# A leading zero timestamp is tracker padding when the next time is this many median steps later.
LEADING_ZERO_GAP_STEPS = 100
# Samples further off the screen than this fraction of its size become NaN (and are counted): the app's one
# tolerance (gaze.geometry).
OFF_SCREEN_MARGIN = ON_SCREEN_TOLERANCE


def _resolve(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str) -> dict[str, str]:
    """Mapping -> {role: column or WHOLE_FILE}; DataError for a missing required role or unknown column."""
    cols: dict[str, str] = {}
    for role in ROLES[kind]:
        col = mapping.get(role.name)
        if col is None or (isinstance(col, str) and not col.strip()):
            if role.required:
                taken = [c for c in mapping.values() if isinstance(c, str)]
                found = role_candidates(df, role.name, taken)
                hint = (" Candidates in this file: " + ", ".join(f"'{c}'" for c in found) + ".") if found else ""
                raise DataError(f"no column is chosen for the required role '{role.name}' "
                                f"({role.description}){hint}", file=filename,
                                expected=f"a column for '{role.name}'")
            continue
        if not isinstance(col, str):
            raise DataError(f"the column chosen for '{role.name}' must be given by its name.", file=filename,
                            column=shown(col), expected="a column name")
        if col == WHOLE_FILE and role.name in ID_ROLES:
            cols[role.name] = WHOLE_FILE
            continue
        if col not in df.columns:
            names = ", ".join(f"'{c}'" for c in list(df.columns)[:30])
            raise DataError(f"the column chosen for '{role.name}' is not in the table (its columns are "
                            f"{names}).", file=filename, column=str(col), expected="a column of the table")
        cols[role.name] = col
    used = [c for c in cols.values() if c != WHOLE_FILE]
    for col in set(used):
        roles = [r for r, c in cols.items() if c == col]
        if len(roles) > 1:
            raise DataError(f"the same column is chosen for {' and '.join(repr(r) for r in roles)}; "
                            "choose a different column for each.", file=filename, column=str(col))
    return cols


def _feature_columns(df: pd.DataFrame, mapping: dict[str, Any], used: set[str],
                     filename: str) -> tuple[list[str], list[str]]:
    """Feature table and mapping -> (feature columns, text columns skipped in automatic mode)."""
    explicit = mapping.get(FEATURES_KEY)
    used = used | set(_label_columns(df, mapping, used, filename))
    if explicit is not None:
        missing = [c for c in explicit if c not in df.columns]
        if missing:
            raise DataError("the feature column chosen is not in the table.", file=filename,
                            column=str(missing[0]), expected="a column of the table")
        return [c for c in explicit if c not in used], []
    # A column empty in every row says nothing (a feature the recording cannot give, e.g. pupil size from
    # fixations): it is ignored, not taken as a feature that empties every row or as a label.
    filled = dict(zip(df.columns, df.notna().any(axis=0).to_numpy()))
    dtypes = dict(zip(df.columns, df.dtypes))
    rest = [c for c in df.columns if c not in used and filled[c]]
    # In automatic mode a column without a single number is a label, not a feature with a typo.
    text = [c for c in rest if pd.api.types.is_bool_dtype(dtypes[c])
            or (not pd.api.types.is_numeric_dtype(dtypes[c])
                and pd.to_numeric(df[c], errors="coerce").isna().all())]
    labels = set(text)
    return [c for c in rest if c not in labels], text


def _label_columns(df: pd.DataFrame, mapping: dict[str, Any], used: set[str], filename: str) -> list[str]:
    """Feature table and mapping -> the label columns chosen with mapping["labels"] (checked), else []."""
    labels = mapping.get(LABELS_KEY)
    if labels is None:
        return []
    if isinstance(labels, str) or not all(isinstance(c, str) for c in labels):
        raise DataError("the label columns must be given as a list of column names.", file=filename,
                        expected="a list of column names")
    for c in labels:
        if c not in df.columns:
            raise DataError("the label column chosen is not in the table.", file=filename, column=c,
                            expected="a column of the table")
        if c in used:
            raise DataError("this column is already chosen for a role; a label column must be another one.",
                            file=filename, column=c, expected="a column not used by a role")
        if c in {r.name for r in ROLES["features"]}:
            raise DataError("a label column has the name of a role; rename it in the file or choose it for "
                            "that role.", file=filename, column=c)
    return list(dict.fromkeys(labels))


def _add_labels(df: pd.DataFrame, names: list[str], columns: dict[str, Any], filename: str) -> None:
    """Label column names -> their cells as text (empty cells allowed) added to `columns`."""
    for c in names:
        columns[c] = as_text(df, c, filename, True, "a label (text; empty cells allowed)")


def _add_features(df: pd.DataFrame, mapping: dict[str, Any], cols: dict[str, str], columns: dict[str, Any],
                  filename: str) -> list[DataWarning]:
    """Feature table and resolved roles -> feature and label arrays added to `columns`; -> warnings."""
    used = {c for c in cols.values() if c != WHOLE_FILE}
    labels = _label_columns(df, mapping, used, filename)
    feats, skipped = _feature_columns(df, mapping, used, filename)
    if not feats:
        raise DataError("there are no numeric feature columns besides the ones chosen for roles.",
                        file=filename, expected="at least one numeric feature column")
    # A feature called e.g. 'window' would be mistaken downstream for the role of that name.
    clash = [c for c in feats if c in {r.name for r in ROLES["features"]}]
    if clash:
        raise DataError("a feature column has the name of a role; rename it in the file or choose it for "
                        "that role.", file=filename, column=str(clash[0]))
    for c in feats:
        # Empty cells are allowed: a window without a saccade has no saccade amplitude (the views handle NaN).
        columns[c] = as_number(df, c, filename, allow_missing=True)
    if mapping.get(LABELS_KEY) is None:
        # Automatic mode: a column without a single number is a label (a passage, a condition), kept as text.
        # True/false columns (e.g. 'trial recycled') stay out: they rarely name a class worth attacking.
        labels = [c for c in skipped if c not in {r.name for r in ROLES["features"]}
                  and not pd.api.types.is_bool_dtype(df[c].dtype)]
        kept_as_labels = set(labels)
        skipped = [c for c in skipped if c not in kept_as_labels]
    _add_labels(df, labels, columns, filename)
    out = []
    filled = dict(zip(df.columns, df.notna().any(axis=0).to_numpy()))
    empty = [c for c in df.columns if c not in used and not filled[c]]
    if empty and mapping.get(FEATURES_KEY) is None:
        names = ", ".join(f"'{c}'" for c in empty)
        out.append(DataWarning(f"these columns are empty in every row and are ignored: {names}.", file=filename,
                               details={"empty_columns": empty}))
    if labels:
        names = ", ".join(f"'{c}'" for c in labels)
        out.append(DataWarning(f"these columns hold text, not numbers, and are kept as labels (each one a task "
                               f"on the Attacks page), not as features: {names}.", file=filename,
                               details={"labels": labels}))
    if skipped:
        names = ", ".join(f"'{c}'" for c in skipped)
        out.append(DataWarning(f"these columns hold text or true/false, not numbers, and are not used as "
                               f"features: {names}.", file=filename, details={"skipped": skipped}))
    return out


def _text_columns(df: pd.DataFrame, filename: str) -> pd.DataFrame:
    """Frame -> the same cells under text column names, without attrs; DataError when it is not a table or is too
    wide."""
    if not isinstance(df, pd.DataFrame):
        raise DataError("the data is not a table.", file=filename, expected="a table (DataFrame)")
    if df.shape[1] > MAX_COLUMNS:
        raise DataError(f"the table has {df.shape[1]:,} columns; the limit is {MAX_COLUMNS:,}.",
                        file=filename,
                        expected=f"at most {MAX_COLUMNS} columns", found=f"{df.shape[1]} columns")
    names = [str(c) for c in df.columns]
    df = df.set_axis(names, axis=1) if names != list(df.columns) else df.copy(deep=False)
    # pandas copies a frame's attrs into every column it hands out, and a parser's attrs grow with the number of
    # columns: left on, each of the column-by-column checks below would cost as much as the whole header.
    df.attrs = {}
    return df


def _check_unique(df: pd.DataFrame, columns: list[str], filename: str) -> None:
    """Frame and the columns in use -> None, or DataError when one of them names two columns."""
    dup = set(df.columns[df.columns.duplicated()])
    clash = [c for c in columns if c in dup]
    if clash:
        raise DataError("two columns of the table have this name (perhaps they differed only by spaces); "
                        "rename one in the file.", file=filename, column=str(clash[0]),
                        expected="unique column names")


def _drop_missing(df: pd.DataFrame, columns: list[str], filename: str,
                  hints: dict[str, str] | None = None) -> tuple[pd.DataFrame, DataWarning | None]:
    """Frame and the columns that must not be empty [and, per column, a better offer than leaving it out] ->
    (rows with all of them filled, counted warning)."""
    if not columns or df.empty:
        return df, None
    empty = df[columns].isna().to_numpy()
    rows_bad = empty.any(axis=1)
    n = int(rows_bad.sum())
    if n == 0:
        return df, None
    per_col = {c: int(k) for c, k in zip(columns, empty.sum(axis=0)) if k}
    worst = ", ".join(f"'{c}': {k:,}" for c, k in sorted(per_col.items(), key=lambda kv: -kv[1])[:6])
    first = int(row_numbers(df)[rows_bad].min())
    kept = df[~rows_bad]
    if kept.empty:
        culprit, _ = _main_culprit(empty, columns, rows_bad)
        which = f"'{culprit}'" if culprit else "the mostly empty column"
        raise DataError(f"every row has an empty cell in a chosen column ({worst}), so no row is left. Leave "
                        f"{which} out, or map another one.", file=filename,
                        expected="rows with values", count=n)
    culprit, alone = _main_culprit(empty, columns, rows_bad)
    offer = (f" {alone:,} of them are empty only in '{culprit}': leave that column out (or do not map it) to "
             "keep them." if culprit is not None else "")
    for col, hint in (hints or {}).items():
        if col in per_col:
            offer = hint if col == culprit else offer + hint
    warn = DataWarning(f"{n:,} of {len(df):,} rows had an empty cell in a chosen column and were left out "
                       f"(first at row {first}; empty cells per column: {worst}).{offer}", file=filename,
                       details={"dropped_missing": n, "per_column": per_col,
                                **({"culprit": culprit, "culprit_rows": alone} if culprit else {})})
    return kept, warn


def _main_culprit(empty: np.ndarray, columns: list[str], rows_bad: np.ndarray) -> tuple[str | None, int]:
    """Empty-cell mask (rows × columns) -> (the column that alone empties most of the dropped rows, how many of
    them it alone empties), or (None, 0) when no column causes more than half of the drops by itself."""
    only = empty & (empty.sum(axis=1) == 1)[:, None]
    alone = only.sum(axis=0)
    k = int(np.argmax(alone)) if alone.size else 0
    if alone.size and alone[k] * 2 > int(rows_bad.sum()):
        return columns[k], int(alone[k])
    return None, 0


def _zero_time_rows(out: pd.DataFrame, raw_t: np.ndarray) -> np.ndarray:
    """Canonical gaze table and raw times -> mask of leading/trailing zero-timestamp padding rows.

    One pass over the rows sorted by recording (no pass per recording: a file of one-row recordings would
    otherwise cost the square of its length)."""
    drop = np.zeros(len(out), dtype=bool)
    zero = np.asarray(raw_t) == 0
    if not zero.any():
        return drop
    keys = [k for k in ("participant", "stimulus") if k in out.columns]
    codes = out.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    z, t = zero[order], np.asarray(raw_t, dtype=float)[order]
    n = len(order)
    starts = np.flatnonzero(np.r_[True, codes[order][1:] != codes[order][:-1]])
    sizes = np.diff(np.r_[starts, n])
    gid = np.repeat(np.arange(starts.size), sizes)
    pos = np.arange(n) - starts[gid]
    stamped = np.flatnonzero(~z)
    # First and last stamped (non-zero) row of each recording; recordings of zeros only are left alone.
    has = np.bincount(gid[stamped], minlength=starts.size) > 0
    first = np.full(starts.size, -1)
    last = np.full(starts.size, -1)
    first[gid[stamped][::-1]] = pos[stamped][::-1]
    last[gid[stamped]] = pos[stamped]
    # Trailing zeros: the clock cannot go back to 0 inside a recording.
    trailing = z & has[gid] & (pos > last[gid])
    # Leading zeros: several of them, or one far before the real start (LEADING_ZERO_GAP_STEPS median steps).
    leading = z & has[gid] & (pos < first[gid])
    lone = has & (first == 1)
    far = np.zeros(starts.size, dtype=bool)
    if lone.any():
        step = _median_positive_steps(t[stamped], gid[stamped], starts.size)
        t0 = np.full(starts.size, np.nan)
        t0[gid[stamped][::-1]] = t[stamped][::-1]
        with np.errstate(invalid="ignore"):
            far = (step > 0) & (t0 > LEADING_ZERO_GAP_STEPS * step)
    padding_lead = has & ((first > 1) | (lone & far))
    drop[order] = trailing | (leading & padding_lead[gid])
    return drop


def _median_positive_steps(t: np.ndarray, gid: np.ndarray, groups: int) -> np.ndarray:
    """Times in row order and their recording numbers (rows of a recording together) -> each recording's median
    positive step (0 when it has none), from one sort of all steps."""
    same = gid[1:] == gid[:-1]
    with np.errstate(invalid="ignore"):
        d = np.diff(t)
        ok = same & (d > 0)
    d, g = d[ok], gid[1:][ok]
    o = np.lexsort((d, g))
    d, g = d[o], g[o]
    count = np.bincount(g, minlength=groups)
    begin = np.cumsum(count) - count
    out = np.zeros(groups)
    some = count > 0
    lo = begin[some] + (count[some] - 1) // 2
    hi = begin[some] + count[some] // 2
    out[some] = (d[lo] + d[hi]) / 2
    return out


def _note(counts: dict[str, int], key: str, n: int) -> None:
    """Add n to counts[key] (only when n > 0)."""
    if n:
        counts[key] = counts.get(key, 0) + int(n)


def _conflict_warnings(cols: dict[str, str], filename: str) -> list[DataWarning]:
    """Resolved roles -> warnings for roles mapped to a column whose name says it is something else."""
    out = []
    for role, col in cols.items():
        if col == WHOLE_FILE:
            continue
        what = name_conflict(role, col)
        if what is not None:
            out.append(DataWarning(f"'{col}' was chosen for {role} ({CONFLICT_WHAT.get(role, role)}), but "
                                   f"its name says it is a {what}. Check that this is the column you mean.",
                                   file=filename, column=str(col), details={"role": role}))
    return out


def _positions(columns: dict[str, Any], mapping: dict[str, Any], kind: str, filename: str, x_col: str,
               geometry: Geometry | None, counts: dict[str, int]) -> tuple[str, list[DataWarning]]:
    """Convert x/y in `columns` to pixels; x = y = 0 -> lost, far off-screen -> NaN. -> (units, warnings)."""
    units = str(mapping.get(UNITS_KEY) or "px")
    if units not in UNITS:
        raise DataError(f"the position units must be one of {', '.join(UNITS)}, got {units!r}.",
                        file=filename,
                        column=str(x_col), expected="px, norm, mm or deg")
    x, y = np.asarray(columns["x"], dtype=float), np.asarray(columns["y"], dtype=float)
    warnings: list[DataWarning] = []
    if units in ("px", "norm", "mm"):
        # x = y = 0 exactly is how trackers write a lost sample (in degrees, 0,0 is the screen centre).
        lost = (x == 0) & (y == 0)
        if lost.any():
            x, y = np.where(lost, np.nan, x), np.where(lost, np.nan, y)
            _note(counts, "lost_xy_zero", int(lost.sum()))
    if units != "px":
        if geometry is None:
            raise DataError(f"positions in {units} need the screen geometry (resolution, size and viewing "
                            "distance) to become pixels; give it in the geometry form or as geometry=.",
                            file=filename, column=str(x_col), expected="a screen geometry")
        x, y = geometry.to_px(x, y, units, y_up=bool(mapping.get(Y_UP_KEY, False)))
    if geometry is not None:
        off = geometry.off_screen(x, y, OFF_SCREEN_MARGIN) & np.isfinite(x) & np.isfinite(y)
        if off.any():
            x, y = np.where(off, np.nan, x), np.where(off, np.nan, y)
            _note(counts, "off_screen", int(off.sum()))
            warnings.append(DataWarning(
                f"{int(off.sum()):,} positions lie more than {OFF_SCREEN_MARGIN:.0%} of the screen size "
                f"outside the {geometry.width_px} × {geometry.height_px} px screen; they were set to "
                "missing.",
                file=filename, details={"off_screen": int(off.sum())}))
    columns["x"], columns["y"] = x, y
    return units, warnings


@dataclass
class _Build:
    """One canonical_table call: the resolved mapping and what its steps report (the table's attrs)."""

    kind: str
    mapping: dict[str, Any]
    filename: str
    cols: dict[str, str]
    warnings: list[DataWarning]
    counts: dict[str, int]
    notes: list[str] = field(default_factory=list)
    clock: Timeless | None = None
    rate: float | None = None


def canonical_table(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str,
                    min_length_ratio: float = 0.5, *, drop_missing: bool = False,
                    geometry: Geometry | None = None, sampling_rate_hz: float | None = None) -> pd.DataFrame:
    """Raw table, mapping, kind -> canonical table (index = spreadsheet row); warnings, counts and the steps'
    notes in attrs. sampling_rate_hz: the rate of gaze recordings whose time column is empty throughout (their
    time is rebuilt as sample number / rate; without it their rows are dropped or refused as empty)."""
    df, b = _start(df, mapping, kind, filename, sampling_rate_hz)
    df, hints = _stamp_timeless(df, b)
    if drop_missing:
        df = _drop_empty_cells(df, b, hints)
    columns, raw_times = _read_columns(df, b)
    rebuilt = (b.clock.rows.reindex(df.index).to_numpy(dtype=bool) if b.clock is not None and b.rate is not None
               else None)
    unit = _times_in_seconds(df, b, columns, raw_times, rebuilt)
    if kind == "gaze":
        _check_gaze_positions(columns, b)
    if kind == "features":
        b.warnings += _add_features(df, mapping, b.cols, columns, filename)
    index = df.index
    if kind == "gaze":
        index, columns, raw_t = _drop_padding(index, columns, raw_times["t_s"], b)
    if kind in ("gaze", "fixations"):
        units, more = _positions(columns, mapping, kind, filename, str(b.cols["x"]), geometry, b.counts)
        b.warnings += more
    out = pd.DataFrame(columns, index=index)
    if kind == "gaze":
        check_increasing(out, raw_t, filename, str(b.cols["t_s"]), unit)
    if kind == "fixations":
        out, more = _fixation_times(out, mapping, b.cols, filename, b.counts)
        b.warnings += more
    if kind in ("gaze", "fixations"):
        _check_positions(out, b, units)
    if kind == "features":
        warn = check_lengths(out, filename, min_length_ratio)
        if warn is not None:
            b.warnings.append(warn)
    b.counts["rows_kept"] = len(out)
    out.attrs = {"warnings": b.warnings, "source_file": filename, "counts": b.counts, "notes": b.notes}
    return out


def _start(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str,
           sampling_rate_hz: float | None) -> tuple[pd.DataFrame, _Build]:
    """Raw table and the call's arguments -> (text columns made text, the build with the mapping resolved,
    conflicting names warned about, the sampling rate checked and the empty gaze clock found)."""
    if kind not in ROLES:
        raise ValueError(f"kind must be one of {tuple(ROLES)}, got {kind!r}")
    if not isinstance(mapping, dict):
        raise DataError("the column mapping is not a dict of role -> column.", file=filename,
                        expected="a mapping of roles to columns")
    df = _text_columns(df, filename)
    cols = _resolve(df, mapping, kind, filename)
    _check_unique(df, [c for c in cols.values() if c != WHOLE_FILE], filename)
    b = _Build(kind, mapping, filename, cols, list(_conflict_warnings(cols, filename)), {"rows_read": len(df)})
    b.rate = check_rate(sampling_rate_hz, filename)
    b.clock = timeless(df, cols) if kind == "gaze" else None
    return df, b


def _stamp_timeless(df: pd.DataFrame, b: _Build) -> tuple[pd.DataFrame, dict[str, str]]:
    """Gaze rows without a clock -> (with a placeholder time when the rate is given, else unchanged; the hint
    the empty-cell step gives for the time column)."""
    hints: dict[str, str] = {}
    if b.clock is not None and b.rate is not None:
        # A placeholder keeps these rows through the empty-cell step; the rebuilt time replaces it below.
        t_col = b.cols["t_s"]
        df = df.assign(**{t_col: df[t_col].where(~b.clock.rows, b.clock.position / b.rate)})
        _note(b.counts, "time_rebuilt", b.clock.n_rows)
        b.notes.append(b.clock.note(b.rate))
        note = b.clock.note(b.rate)
        b.warnings.append(DataWarning(note[:1].upper() + note[1:] + ".", file=b.filename, column=str(t_col),
                                      details={"time_rebuilt": b.clock.n_rows, "recordings": b.clock.recordings}))
    elif b.clock is not None:
        hints[b.cols["t_s"]] = b.clock.hint()
        b.notes.append(b.clock.missing_note())
    return df, hints


def _drop_empty_cells(df: pd.DataFrame, b: _Build, hints: dict[str, str]) -> pd.DataFrame:
    """drop_missing: rows with an empty cell in a column that must not be empty are dropped and counted."""
    roles = {r.name: r for r in ROLES[b.kind]}
    strict = [c for r, c in b.cols.items() if c != WHOLE_FILE and not roles[r].allow_missing]
    if b.kind == "features":
        used = {c for c in b.cols.values() if c != WHOLE_FILE}
        feats, _ = _feature_columns(df, b.mapping, used, b.filename)
        chosen = set(strict)
        strict += [c for c in feats if c in df.columns and c not in chosen]
        _check_unique(df, strict, b.filename)
    df, warn = _drop_missing(df, strict, b.filename, hints)
    if warn is not None and hints and b.clock is not None:
        warn.details.update(no_time_recordings=b.clock.recordings, no_time_rows=b.clock.n_rows)
    if warn is not None:
        b.warnings.append(warn)
        _note(b.counts, "dropped_missing", warn.details["dropped_missing"])
    return df


def _read_columns(df: pd.DataFrame, b: _Build) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The mapped columns as the roles' values -> ({role: values}, {time role: its raw numbers})."""
    columns: dict[str, Any] = {}
    raw_times: dict[str, np.ndarray] = {}
    for role in ROLES[b.kind]:
        col = b.cols.get(role.name)
        if col is None:
            continue
        if col == WHOLE_FILE:
            columns[role.name] = pd.Series(_file_label(b.filename), index=df.index, dtype="str")
        elif role.expected == "text":
            columns[role.name] = as_text(df, col, b.filename, role.allow_missing, _expected(role))
        else:
            values = as_number(df, col, b.filename, role.allow_missing, role.nonnegative, _expected(role))
            if role.expected == "time":
                raw_times[role.name] = values
            columns[role.name] = values
    return columns, raw_times


def _times_in_seconds(df: pd.DataFrame, b: _Build, columns: dict[str, Any], raw_times: dict[str, np.ndarray],
                      rebuilt: np.ndarray | None) -> str:
    """Time columns (in `columns`) converted to seconds, the rebuilt clock's rows given their time -> the unit
    the times came in (given or guessed; "s" for a table without times)."""
    unit = "s"
    if b.kind in ("gaze", "fixations") and raw_times:
        unit_given = b.mapping.get(TIME_UNIT_KEY)
        first_time = next(iter(raw_times))
        if unit_given is None:
            stamped = df[b.cols[first_time]] if rebuilt is None else df[b.cols[first_time]][~rebuilt]
            unit = guess_time_unit(stamped, b.cols[first_time], events=b.kind == "fixations")
        else:
            unit = canonical_unit(unit_given)
        if unit is None:
            raise DataError(f"the time unit must be one of {', '.join(TIME_UNITS)}, got {unit_given!r}.",
                            file=b.filename, column=str(b.cols[first_time]), expected="s, ms, us or ns")
        for name, values in raw_times.items():
            columns[name] = values * TIME_UNITS[unit]
    if rebuilt is not None and b.clock is not None and b.rate is not None:
        seconds = b.clock.position.reindex(df.index).to_numpy(dtype=float) / b.rate
        columns["t_s"] = np.where(rebuilt, seconds, columns["t_s"])
        # No raw value exists for these rows: NaN is never taken for tracker padding (a zero timestamp).
        raw_times["t_s"] = np.where(rebuilt, np.nan, raw_times["t_s"])
    return unit


def _check_gaze_positions(columns: dict[str, Any], b: _Build) -> None:
    """DataError when the gaze x or y column is empty in every row."""
    for c in ("x", "y"):
        if np.isnan(columns[c]).all():
            raise DataError("every cell of this column is empty.", file=b.filename, column=str(b.cols[c]),
                            expected="gaze positions")


def _drop_padding(index: pd.Index, columns: dict[str, Any], raw_t: np.ndarray,
                  b: _Build) -> tuple[pd.Index, dict[str, Any], np.ndarray]:
    """Gaze rows with a zero timestamp at a recording's start or end (tracker padding) -> dropped and counted."""
    ids = pd.DataFrame({k: columns[k] for k in ("participant", "stimulus") if k in columns}, index=index)
    pad = _zero_time_rows(ids, raw_t)
    if b.clock is not None:
        # A recording whose only stamps are zeros has no clock: those rows are padding (dropped, counted).
        pad |= b.clock.padding.reindex(index).to_numpy(dtype=bool)
    if pad.any():
        keep = ~pad
        columns = {k: (v[keep] if isinstance(v, (pd.Series, np.ndarray)) else v) for k, v in columns.items()}
        index, raw_t = index[keep], raw_t[keep]
        _note(b.counts, "zero_time_dropped", int(pad.sum()))
        b.warnings.append(DataWarning(f"{int(pad.sum()):,} rows with a zero timestamp at the start or end of a "
                                      "recording (tracker padding) were left out.", file=b.filename,
                                      column=str(b.cols["t_s"])))
    return index, columns, raw_t


def _check_positions(out: pd.DataFrame, b: _Build, units: str) -> None:
    """Gaze or fixations with positions in pixels: the x = y = 0 rows told about, pixel units checked, and a
    table with no position left refused."""
    if b.counts.get("lost_xy_zero"):
        n = b.counts["lost_xy_zero"]
        what = "set to missing (signal loss)" if b.kind == "gaze" else "left out (no position: signal loss)"
        b.warnings.append(DataWarning(f"{n:,} rows with x = y = 0 were {what}.", file=b.filename,
                                      details={"lost_xy_zero": n}))
    if units == "px":
        check_pixel_units(out, b.filename, str(b.cols["x"]))
    if out.empty:
        raise DataError("no row with a position is left.", file=b.filename, expected="rows with positions")


def _fixation_times(out: pd.DataFrame, mapping: dict[str, Any], cols: dict[str, str], filename: str,
                    counts: dict[str, int]) -> tuple[pd.DataFrame, list[DataWarning]]:
    """Canonical fixations -> lost ones dropped, duration derived from start/end when not mapped."""
    warnings: list[DataWarning] = []
    lost = (out["x"].isna() | out["y"].isna()).to_numpy()
    if lost.any():
        out = out[~lost]
    if "t_start_s" in out.columns and "t_end_s" in out.columns:
        span = (out["t_end_s"] - out["t_start_s"]).to_numpy()
        bad = span < 0
        hit = first_row(out, bad)
        if hit is not None:
            raise DataError(f"a fixation ends before it starts. {int(bad.sum()):,} rows have this problem.",
                            file=filename, row=hit[1], column=str(cols["t_end_s"]),
                            expected="end time ≥ start time", count=int(bad.sum()))
        if "duration_ms" not in out.columns:
            out = out.assign(duration_ms=span * 1000.0)
            warnings.append(DataWarning("fixation durations were computed as end time − start time.",
                                        file=filename))
    return out, warnings
