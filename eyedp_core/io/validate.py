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

from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError, DataWarning, first_row, row_numbers, shown
from eyedp_core.io.geometry import UNITS, Geometry
from eyedp_core.io.roles import (CONFLICT_WHAT, FEATURES_KEY, ROLES, TIME_UNIT_KEY, TIME_UNITS, UNITS_KEY,
                                 WHOLE_FILE, Y_UP_KEY, Role, canonical_unit, guess_time_unit, name_conflict)

ID_ROLES = ("participant", "observer")
# Degrees of visual angle rarely exceed ±60 on a screen; pixel coordinates always span far more.
DEGREE_LIMIT = 60.0
MIN_VALUES_FOR_UNIT_CHECK = 20
MAX_LENGTHS_SHOWN = 12
# A frame with more columns than this is refused before any column is looked at (the parser refuses the
# same for files).
MAX_COLUMNS = 5000
# Labels are written as whole numbers only while a float holds them exactly.
EXACT_INT = 2.0**53
# A leading zero timestamp is tracker padding when the next time is this many median steps later.
LEADING_ZERO_GAP_STEPS = 100
# Samples further off the screen than this fraction of its size become NaN (and are counted).
OFF_SCREEN_MARGIN = 0.1


def _count_note(count: int, what: str) -> str:
    """Number of offending rows and a description -> ' N rows ...' or ''."""
    return f" {count:,} rows in this column {what}." if count > 1 else ""


def _resolve(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str) -> dict[str, str]:
    """Mapping -> {role: column or WHOLE_FILE}; DataError for a missing required role or unknown column."""
    cols: dict[str, str] = {}
    for role in ROLES[kind]:
        col = mapping.get(role.name)
        if col is None or (isinstance(col, str) and not col.strip()):
            if role.required:
                raise DataError(f"no column is chosen for the required role '{role.name}' "
                                f"({role.description})", file=filename,
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


def as_number(df: pd.DataFrame, col: str, filename: str, allow_missing: bool = False,
              nonnegative: bool = False, expected: str = "a number") -> np.ndarray:
    """Column -> float array; DataError at the first non-number, infinity, or disallowed empty/negative."""
    s = df[col]
    if pd.api.types.is_bool_dtype(s.dtype):
        v = np.full(len(s), np.nan)
        bad = np.ones(len(s), dtype=bool)
    elif pd.api.types.is_numeric_dtype(s.dtype):
        v = s.to_numpy(dtype=float, na_value=np.nan)
        bad = np.zeros(len(s), dtype=bool)
    else:
        v = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        bad = np.isnan(v) & s.notna().to_numpy()
    checks = [
        (bad, "are not numbers"),
        (np.isinf(v), "are infinite"),
        (np.isnan(v) & ~bad if not allow_missing else np.zeros(len(v), bool), "are empty"),
        (v < 0 if nonnegative else np.zeros(len(v), bool), "are negative"),
    ]
    for mask, what in checks:
        hit = first_row(df, mask)
        if hit is not None:
            pos, row = hit
            found = shown(s.iloc[pos])
            need = f"{expected} (not negative)" if what == "are negative" else expected
            raise DataError(f"expected {need}, found {found}.{_count_note(int(mask.sum()), what)}",
                            file=filename, row=row, column=str(col), expected=need, found=found,
                            count=int(mask.sum()))
    return v


def as_text(df: pd.DataFrame, col: str, filename: str, allow_missing: bool = False,
            expected: str = "a label") -> pd.Series:
    """Column -> string Series (whole numbers without '.0'); DataError at the first disallowed empty cell."""
    s = df[col]
    if pd.api.types.is_float_dtype(s.dtype):
        v = s.to_numpy(dtype=float, na_value=np.nan)
        finite = np.isfinite(v)
        if np.all(np.mod(v[finite], 1) == 0):
            # 3.0 came from a column with empty cells; the user wrote 3. Beyond 2^53 a float is no longer
            # an exact whole number, so those are written out digit by digit ('%.0f'), never cast to int64.
            exact = finite & (np.abs(v) < EXACT_INT)
            small = pd.Series(pd.array(np.where(exact, v, 0), dtype="Int64"), index=s.index).astype("str")
            big = [f"{x:.0f}" for x in v[finite & ~exact]]
            out = np.array(small.astype(object).to_numpy(), dtype=object, copy=True)
            out[finite & ~exact] = big
            out[~finite] = None
            s = pd.Series(out, index=s.index, dtype="str")
    elif pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
        s = s.astype("str").mask(s.isna())
    text = s.astype("str").str.strip()
    empty = text.isna().to_numpy() | (text == "").to_numpy()
    if not allow_missing:
        hit = first_row(df, empty)
        if hit is not None:
            note = _count_note(int(empty.sum()), "are empty")
            raise DataError(f"expected {expected}, found an empty cell.{note}",
                            file=filename, row=hit[1], column=str(col), expected=expected,
                            found="an empty cell", count=int(empty.sum()))
    return text.mask(empty)


def _file_label(filename: str) -> str:
    """File name -> label for a whole-file participant (name without extensions)."""
    name = PurePath(str(filename or "upload")).name
    return name.split(".")[0] or name


def _expected(role: Role) -> str:
    """Role -> how its cells are described in messages."""
    return {"time": "a timestamp", "number": "a number"}.get(role.expected, f"a {role.name} label")


def check_increasing(out: pd.DataFrame, raw_t: np.ndarray, filename: str, t_col: str, unit: str) -> None:
    """Canonical gaze table -> None, or DataError at the first repeated/backwards time in a recording."""
    keys = [k for k in ("participant", "stimulus") if k in out.columns]
    codes = out.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    t = out["t_s"].to_numpy()[order]
    bad = (codes[order][1:] == codes[order][:-1]) & (np.diff(t) <= 0)
    if not bad.any():
        return
    later, earlier = order[1:][bad], order[:-1][bad]
    rows = row_numbers(out)
    k = int(np.argmin(rows[later]))
    cur, prev = int(later[k]), int(earlier[k])
    if raw_t[cur] == raw_t[prev]:
        what = f"{raw_t[cur]:g} {unit} of row {rows[prev]} appears again"
    else:
        what = f"goes backwards from {raw_t[prev]:g} {unit} (row {rows[prev]}) to {raw_t[cur]:g} {unit}"
    who = f"participant '{out['participant'].iloc[cur]}'"
    if "stimulus" in out.columns:
        who += f", stimulus '{out['stimulus'].iloc[cur]}'"
    hint = ("Sort the file by participant and time" if "stimulus" in out.columns else
            "Sort the file by participant and time, or choose the stimulus/trial column if the clock "
            "restarts for each trial")
    raise DataError(f"timestamps must strictly increase within each recording; for {who} the time {what}. "
                    f"{int(bad.sum()):,} rows have this problem. {hint}.",
                    file=filename, row=int(rows[cur]), column=t_col, expected="increasing timestamps",
                    found=f"{raw_t[cur]:g}", count=int(bad.sum()))


def check_pixel_units(out: pd.DataFrame, filename: str, x_col: str) -> None:
    """Canonical table with x, y -> nothing, or DataError when they look like degrees or 0-1 coordinates."""
    xy = out[["x", "y"]].to_numpy(dtype=float)
    xy = xy[np.isfinite(xy)]
    if xy.size < MIN_VALUES_FOR_UNIT_CHECK:
        return
    lo, hi = (float(q) for q in np.percentile(xy, [1, 99]))
    fix = ("EyeDP works in stimulus/screen pixels (origin top-left, y down): choose the units of the file "
           "and give the screen geometry (resolution, size, viewing distance), and they are converted")
    if lo >= -0.5 and hi <= 1.5:
        looks = "normalised coordinates (0 to 1)"
        fix += " (units 'norm': multiplied by the width and height)"
    elif lo < 0 and max(abs(lo), abs(hi)) <= DEGREE_LIMIT:
        looks = "degrees of visual angle"
        fix += " (units 'deg': pixel = centre + distance × tan(angle) / pixel size)"
    else:
        return
    raise DataError(f"expected positions in pixels, but the values (1st-99th percentile {lo:.3g} to "
                    f"{hi:.3g}) look like {looks}. {fix}.", file=filename, column=str(x_col),
                    expected="pixels", found=looks)


def check_lengths(df: pd.DataFrame, filename: str, min_ratio: float = 0.5) -> DataWarning | None:
    """Feature table -> DataWarning with the lengths if the shortest recording < min_ratio × longest."""
    keys = ["participant", *(["task"] if "task" in df.columns else [])]
    sizes = df.groupby(keys, sort=False).size().sort_values()
    if sizes.empty or sizes.iloc[0] >= min_ratio * sizes.iloc[-1]:
        return None
    labels = [" / ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in sizes.index]
    lengths = dict(zip(labels, map(int, sizes.to_numpy())))
    shown_items = list(lengths.items())
    if len(shown_items) > MAX_LENGTHS_SHOWN:
        half = MAX_LENGTHS_SHOWN // 2
        shown_items = shown_items[:half] + [("…", "…")] + shown_items[-half:]
    listing = ", ".join(f"{k}: {v}" for k, v in shown_items)
    unit = "participant / task" if len(keys) > 1 else "participant"
    msg = (f"recordings ({unit}) have very different lengths: the shortest has {sizes.iloc[0]} windows, "
           f"the longest {sizes.iloc[-1]} (less than {min_ratio:.0%} of it). The time-series mechanisms pad "
           f"or truncate every recording to one public length T, so short recordings are mostly padding "
           f"or long ones are cut. Lengths: {listing}.")
    return DataWarning(msg, file=filename, details={"lengths": lengths})


def check_in_bounds(df: pd.DataFrame, width: float, height: float, filename: str,
                    tolerance_px: float = 0.0) -> None:
    """Table with x, y and stimulus size -> None, or DataError naming the first row outside, with a count."""
    x = df["x"].to_numpy(dtype=float, na_value=np.nan)
    y = df["y"].to_numpy(dtype=float, na_value=np.nan)
    tol = float(tolerance_px)
    out_x = (x < -tol) | (x > width + tol)
    out_y = (y < -tol) | (y > height + tol)
    out = out_x | out_y
    hit = first_row(df, out)
    if hit is None:
        return
    pos, row = hit
    col, val, size = ("x", x[pos], width) if out_x[pos] else ("y", y[pos], height)
    n, total = int(out.sum()), int((np.isfinite(x) | np.isfinite(y)).sum())
    raise DataError(f"expected 0 ≤ {col} ≤ {size:g} px (stimulus {width:g} × {height:g} px, tolerance "
                    f"{tol:g} px), found {val:g}. {n:,} of {total:,} rows ({n / max(total, 1):.1%}) are "
                    "outside the stimulus: check the stimulus size, or whether the coordinates are screen "
                    "rather than stimulus pixels.", file=filename, row=row, column=col,
                    expected=f"0 ≤ {col} ≤ {size:g}", found=f"{val:g}", count=n)


def _feature_columns(df: pd.DataFrame, mapping: dict[str, Any], used: set[str],
                     filename: str) -> tuple[list[str], list[str]]:
    """Feature table and mapping -> (feature columns, text columns skipped in automatic mode)."""
    explicit = mapping.get(FEATURES_KEY)
    if explicit is not None:
        missing = [c for c in explicit if c not in df.columns]
        if missing:
            raise DataError("the feature column chosen is not in the table.", file=filename,
                            column=str(missing[0]), expected="a column of the table")
        return [c for c in explicit if c not in used], []
    rest = [c for c in df.columns if c not in used]
    # In automatic mode a column without a single number is a label, not a feature with a typo.
    text = [c for c in rest if pd.api.types.is_bool_dtype(df[c].dtype)
            or (not pd.api.types.is_numeric_dtype(df[c].dtype)
                and pd.to_numeric(df[c], errors="coerce").isna().all())]
    return [c for c in rest if c not in text], text


def _add_features(df: pd.DataFrame, mapping: dict[str, Any], cols: dict[str, str], columns: dict[str, Any],
                  filename: str) -> list[DataWarning]:
    """Feature table and resolved roles -> feature arrays added to `columns`; -> warnings (skipped)."""
    used = {c for c in cols.values() if c != WHOLE_FILE}
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
        columns[c] = as_number(df, c, filename)
    if not skipped:
        return []
    names = ", ".join(f"'{c}'" for c in skipped)
    return [DataWarning(f"these columns hold text or true/false, not numbers, and are not used as features: "
                        f"{names}.",
                        file=filename, details={"skipped": skipped})]


def _text_columns(df: pd.DataFrame, filename: str) -> pd.DataFrame:
    """Frame -> the same frame with text column names; DataError when it is not a table or is too wide."""
    if not isinstance(df, pd.DataFrame):
        raise DataError("the data is not a table.", file=filename, expected="a table (DataFrame)")
    if df.shape[1] > MAX_COLUMNS:
        raise DataError(f"the table has {df.shape[1]:,} columns; the limit is {MAX_COLUMNS:,}.",
                        file=filename,
                        expected=f"at most {MAX_COLUMNS} columns", found=f"{df.shape[1]} columns")
    names = [str(c) for c in df.columns]
    if names != list(df.columns):
        df = df.set_axis(names, axis=1)
    return df


def _check_unique(df: pd.DataFrame, columns: list[str], filename: str) -> None:
    """Frame and the columns in use -> None, or DataError when one of them names two columns."""
    dup = df.columns[df.columns.duplicated()]
    clash = [c for c in columns if c in set(dup)]
    if clash:
        raise DataError("two columns of the table have this name (perhaps they differed only by spaces); "
                        "rename one in the file.", file=filename, column=str(clash[0]),
                        expected="unique column names")


def _drop_missing(df: pd.DataFrame, columns: list[str],
                  filename: str) -> tuple[pd.DataFrame, DataWarning | None]:
    """Frame and the columns that must not be empty -> (rows with all of them filled, counted warning)."""
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
        raise DataError(f"every row has an empty cell in a chosen column ({worst}), so no row is left. Leave "
                        "the mostly empty column out, or map another one.", file=filename,
                        expected="rows with values", count=n)
    warn = DataWarning(f"{n:,} of {len(df):,} rows had an empty cell in a chosen column and were left out "
                       f"(first at row {first}; empty cells per column: {worst}).", file=filename,
                       details={"dropped_missing": n, "per_column": per_col})
    return kept, warn


def _zero_time_rows(out: pd.DataFrame, raw_t: np.ndarray) -> np.ndarray:
    """Canonical gaze table and raw times -> mask of leading/trailing zero-timestamp padding rows."""
    keys = [k for k in ("participant", "stimulus") if k in out.columns]
    codes = out.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    drop = np.zeros(len(out), dtype=bool)
    zero = raw_t == 0
    if not zero.any():
        return drop
    for code in np.unique(codes[zero]):
        idx = np.flatnonzero(codes == code)
        z = zero[idx]
        if z.all():
            continue
        nonzero = np.flatnonzero(~z)
        first, last = nonzero[0], nonzero[-1]
        # Trailing zeros: the clock cannot go back to 0 inside a recording.
        drop[idx[last + 1:][z[last + 1:]]] = True
        if first > 0:
            t = raw_t[idx[~z]]
            steps = np.diff(t)
            steps = steps[steps > 0]
            step = float(np.median(steps)) if steps.size else 0.0
            # Leading zeros: several of them, or one far before the real start, are padding.
            if first > 1 or (step > 0 and t[0] > LEADING_ZERO_GAP_STEPS * step):
                drop[idx[:first]] = True
    return drop


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


def canonical_table(df: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str,
                    min_length_ratio: float = 0.5, *, drop_missing: bool = False,
                    geometry: Geometry | None = None) -> pd.DataFrame:
    """Raw table, mapping, kind -> canonical table (index = spreadsheet row); warnings and counts in attrs."""
    if kind not in ROLES:
        raise ValueError(f"kind must be one of {tuple(ROLES)}, got {kind!r}")
    if not isinstance(mapping, dict):
        raise DataError("the column mapping is not a dict of role -> column.", file=filename,
                        expected="a mapping of roles to columns")
    df = _text_columns(df, filename)
    cols = _resolve(df, mapping, kind, filename)
    used = [c for c in cols.values() if c != WHOLE_FILE]
    _check_unique(df, used, filename)
    warnings: list[DataWarning] = list(_conflict_warnings(cols, filename))
    counts: dict[str, int] = {"rows_read": len(df)}
    roles = {r.name: r for r in ROLES[kind]}
    if drop_missing:
        strict = [c for r, c in cols.items() if c != WHOLE_FILE and not roles[r].allow_missing]
        if kind == "features":
            feats, _ = _feature_columns(df, mapping, set(used), filename)
            strict += [c for c in feats if c in df.columns and c not in strict]
            _check_unique(df, strict, filename)
        df, warn = _drop_missing(df, strict, filename)
        if warn is not None:
            warnings.append(warn)
            _note(counts, "dropped_missing", warn.details["dropped_missing"])
    columns: dict[str, Any] = {}
    raw_times: dict[str, np.ndarray] = {}
    for role in ROLES[kind]:
        col = cols.get(role.name)
        if col is None:
            continue
        if col == WHOLE_FILE:
            columns[role.name] = pd.Series(_file_label(filename), index=df.index, dtype="str")
        elif role.expected == "text":
            columns[role.name] = as_text(df, col, filename, role.allow_missing, _expected(role))
        else:
            values = as_number(df, col, filename, role.allow_missing, role.nonnegative, _expected(role))
            if role.expected == "time":
                raw_times[role.name] = values
            columns[role.name] = values
    unit = "s"
    if kind in ("gaze", "fixations") and raw_times:
        unit_given = mapping.get(TIME_UNIT_KEY)
        first_time = next(iter(raw_times))
        if unit_given is None:
            unit = guess_time_unit(df[cols[first_time]], cols[first_time], events=kind == "fixations")
        else:
            unit = canonical_unit(unit_given)
        if unit is None:
            raise DataError(f"the time unit must be one of {', '.join(TIME_UNITS)}, got {unit_given!r}.",
                            file=filename, column=str(cols[first_time]), expected="s, ms, us or ns")
        for name, values in raw_times.items():
            columns[name] = values * TIME_UNITS[unit]
    if kind == "gaze":
        for c in ("x", "y"):
            if np.isnan(columns[c]).all():
                raise DataError("every cell of this column is empty.", file=filename, column=str(cols[c]),
                                expected="gaze positions")
    if kind == "features":
        warnings += _add_features(df, mapping, cols, columns, filename)
    index = df.index
    if kind == "gaze":
        raw_t = raw_times["t_s"]
        ids = pd.DataFrame({k: columns[k] for k in ("participant", "stimulus") if k in columns}, index=index)
        pad = _zero_time_rows(ids, raw_t)
        if pad.any():
            keep = ~pad
            columns = {k: (v[keep] if isinstance(v, (pd.Series, np.ndarray)) else v)
                       for k, v in columns.items()}
            index, raw_t = index[keep], raw_t[keep]
            _note(counts, "zero_time_dropped", int(pad.sum()))
            warnings.append(DataWarning(f"{int(pad.sum()):,} rows with a zero timestamp at the start or end "
                                        "of a recording (tracker padding) were left out.", file=filename,
                                        column=str(cols["t_s"])))
    if kind in ("gaze", "fixations"):
        units, more = _positions(columns, mapping, kind, filename, str(cols["x"]), geometry, counts)
        warnings += more
    out = pd.DataFrame(columns, index=index)
    if kind == "gaze":
        check_increasing(out, raw_t, filename, str(cols["t_s"]), unit)
    if kind == "fixations":
        out, more = _fixation_times(out, mapping, cols, filename, counts)
        warnings += more
    if kind in ("gaze", "fixations"):
        if counts.get("lost_xy_zero"):
            n = counts["lost_xy_zero"]
            what = ("set to missing (signal loss)" if kind == "gaze"
                    else "left out (no position: signal loss)")
            warnings.append(DataWarning(f"{n:,} rows with x = y = 0 were {what}.", file=filename,
                                        details={"lost_xy_zero": n}))
        if units == "px":
            check_pixel_units(out, filename, str(cols["x"]))
        if out.empty:
            raise DataError("no row with a position is left.", file=filename, expected="rows with positions")
    if kind == "features":
        warn = check_lengths(out, filename, min_length_ratio)
        if warn is not None:
            warnings.append(warn)
    counts["rows_kept"] = len(out)
    out.attrs = {"warnings": warnings, "source_file": filename, "counts": counts}
    return out


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
