"""Column checks that name the first offending row: numbers, text labels, increasing timestamps, pixel
units, recording lengths and positions inside the stimulus (used by eyedp_core.io.validate)."""
from __future__ import annotations

from pathlib import PurePath

import numpy as np
import pandas as pd

from eyedp_core.gaze.geometry import ON_SCREEN_TOLERANCE
from eyedp_core.io.errors import DataError, DataWarning, first_row, row_numbers, shown
from eyedp_core.io.roles import Role

ID_ROLES = ("participant", "observer")
# Degrees of visual angle rarely exceed ±60 on a screen; pixel coordinates always span far more.
DEGREE_LIMIT = 60.0
MIN_VALUES_FOR_UNIT_CHECK = 20
MAX_LENGTHS_SHOWN = 12
# Labels are written as whole numbers only while a float holds them exactly.
EXACT_INT = 2.0**53


def _count_note(count: int, what: str) -> str:
    """Number of offending rows and a description -> ' N rows ...' or ''."""
    return f" {count:,} rows in this column {what}." if count > 1 else ""


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


def fit_to_canvas(df: pd.DataFrame, width: float, height: float, filename: str,
                  made_by: str | None = None) -> tuple[pd.DataFrame, str]:
    """Table with x, y and the canvas size -> (its rows on the canvas, a sentence on what was clipped or dropped,
    empty when nothing was).

    Positions up to ON_SCREEN_TOLERANCE of the canvas' width or height outside it are clipped to its edge (a
    tracker's error near the edge). Positions further out are dropped from a table the app derived (`made_by`
    says from which file and by which step) and refused in the user's own table, where they mean a wrong
    stimulus size or screen coordinates: DataError naming the first row, with a count."""
    x = df["x"].to_numpy(dtype=float, na_value=np.nan)
    y = df["y"].to_numpy(dtype=float, na_value=np.nan)
    tx, ty = ON_SCREEN_TOLERANCE * float(width), ON_SCREEN_TOLERANCE * float(height)
    with np.errstate(invalid="ignore"):
        beyond = (x < -tx) | (x > width + tx) | (y < -ty) | (y > height + ty)
        near = ~beyond & ((x < 0) | (x > width) | (y < 0) | (y > height))
    n_beyond, n_near = int(beyond.sum()), int(near.sum())
    if n_beyond and made_by is None:
        pos, row = first_row(df, beyond)
        bad_x = (x[pos] < -tx) | (x[pos] > width + tx)
        col, val, size = ("x", x[pos], width) if bad_x else ("y", y[pos], height)
        raise DataError(f"expected 0 ≤ {col} ≤ {size:g} px (stimulus {width:g} × {height:g} px; positions up to "
                        f"{ON_SCREEN_TOLERANCE:.0%} of its size outside it are moved to its edge), found {val:g}. "
                        f"{n_beyond:,} of {len(df):,} rows ({n_beyond / max(len(df), 1):.1%}) are further outside "
                        "the stimulus: check the stimulus size, or whether the coordinates are screen rather than "
                        "stimulus pixels.", file=filename, row=row, column=col, expected=f"0 ≤ {col} ≤ {size:g}",
                        found=f"{val:g}", count=n_beyond)
    if n_beyond and n_beyond == len(df):
        raise DataError(f"all {n_beyond:,} rows lie more than {ON_SCREEN_TOLERANCE:.0%} of the canvas "
                        f"({width:g} × {height:g} px) outside it. This table was made by the app: {made_by}. "
                        "Check the screen size given for the recording, or give the canvas size on Your data.",
                        file=filename, count=n_beyond)
    if not (n_beyond or n_near):
        return df, ""
    out = df.loc[~beyond].copy() if n_beyond else df.copy()
    if n_near:
        out["x"] = np.clip(out["x"].to_numpy(dtype=float, na_value=np.nan), 0.0, float(width))
        out["y"] = np.clip(out["y"].to_numpy(dtype=float, na_value=np.nan), 0.0, float(height))
    total = len(df)
    parts = []
    if n_near:
        parts.append(f"{n_near:,} of {total:,} rows lay just outside the {width:g} × {height:g} px canvas (within "
                     f"{ON_SCREEN_TOLERANCE:.0%} of its size) and were moved to its edge")
    if n_beyond:
        parts.append(f"{n_beyond:,} of {total:,} rows lay further out and were left out")
    where = made_by[0].upper() + made_by[1:] if made_by else f"In {filename}"
    return out, f"{where}: " + "; ".join(parts) + "."
