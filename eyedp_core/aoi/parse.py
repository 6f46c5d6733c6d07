"""AOI definitions from CSV, JSON or an edited table, with messages that name the file, row and column.

Table form (CSV and the page's editor): one row per AOI, columns `name`, `kind` (rect | polygon), `x0`, `y0`,
`x1`, `y1` (a rectangle's corners) and `points` (a polygon's vertices, "x y; x y; ..."). JSON: a list of
objects {"name", "kind": "rect", "x0", "y0", "x1", "y1"} or {"name", "kind": "polygon", "points": [[x, y], ...]},
or {"aois": [...]}. Nothing read is written anywhere.
"""
from __future__ import annotations

import csv
import io
import json
import math
import warnings
from typing import Any

import pandas as pd

from eyedp_core.aoi.shapes import MAX_AOIS, MAX_VERTICES, Aoi, ShapeKind, polygon, rectangle
from eyedp_core.io.errors import DataError

__all__ = ["MAX_AOI_BYTES", "TABLE_COLUMNS", "aois_from_records", "aois_from_table", "aois_to_table",
           "read_aois"]

MAX_AOI_BYTES = 1_000_000
TABLE_COLUMNS = ("name", "kind", "x0", "y0", "x1", "y1", "points")
_CORNERS = ("x0", "y0", "x1", "y1")
# Integer literals longer than this are read as floats: every coordinate is a float in the end.
_INT_DIGITS = 300


def _number(value: Any, *, file: str, row: int, column: str) -> float:
    """Cell in, finite float out (DataError naming the cell otherwise)."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer beyond the float range
        v = math.nan
    if not math.isfinite(v):
        raise DataError("expected a number of pixels", file=file, row=row, column=column,
                        expected="a finite number", found=str(value)[:40])
    return v


def _points(value: Any, *, file: str, row: int, column: str) -> list[tuple[float, float]]:
    """'x y; x y; ...' text or a list of pairs in, vertices out."""
    if isinstance(value, str):
        pairs = [p.replace(",", " ").split() for p in value.split(";") if p.strip()]
    elif isinstance(value, (list, tuple)):
        pairs = [list(p) if isinstance(p, (list, tuple)) else [p] for p in value]
    else:
        pairs = []
    if not 3 <= len(pairs) <= MAX_VERTICES:
        raise DataError(f"a polygon needs 3 to {MAX_VERTICES} vertices", file=file, row=row, column=column,
                        expected="'x y; x y; x y' (at least 3 points)", found=str(value)[:40])
    out = []
    for p in pairs:
        if len(p) != 2:
            raise DataError("each vertex needs an x and a y", file=file, row=row, column=column,
                            expected="'x y' pairs separated by ';'", found=str(p)[:40])
        out.append((_number(p[0], file=file, row=row, column=column),
                    _number(p[1], file=file, row=row, column=column)))
    return out


def _one(rec: dict[str, Any], *, file: str, row: int) -> Aoi:
    """One record in, its AOI out."""
    name = rec.get("name")
    if name is None or (isinstance(name, float) and math.isnan(name)) or not str(name).strip():
        raise DataError("every AOI needs a name", file=file, row=row, column="name", expected="a non-empty name")
    raw_kind = rec.get("kind")
    kind_text = "" if raw_kind is None or (isinstance(raw_kind, float) and math.isnan(raw_kind)) else str(raw_kind)
    kind_text = kind_text.strip().lower() or ("polygon" if _present(rec.get("points")) else "rect")
    kind_text = {"rectangle": "rect"}.get(kind_text, kind_text)
    try:
        kind = ShapeKind(kind_text)
    except ValueError:
        raise DataError(f"AOI '{str(name).strip()[:40]}': unknown AOI kind", file=file, row=row, column="kind",
                        expected="rect or polygon", found=kind_text[:40]) from None
    try:
        if kind is ShapeKind.RECTANGLE:
            x0, y0, x1, y1 = (_number(rec.get(c), file=file, row=row, column=c) for c in _CORNERS)
            return rectangle(str(name), x0, y0, x1, y1)
        return polygon(str(name), _points(rec.get("points"), file=file, row=row, column="points"))
    except DataError as err:  # the cell's message, with the AOI it belongs to
        raise DataError(f"AOI '{str(name).strip()[:40]}': {err.message}", file=err.file, row=err.row,
                        column=err.column, expected=err.expected, found=err.found) from None
    except ValueError as err:
        raise DataError(str(err), file=file, row=row) from None


def _present(value: Any) -> bool:
    """Cell in, whether it holds something (not None, NaN or blank) out."""
    if value is None:
        return False
    if isinstance(value, float):
        return not math.isnan(value)
    return bool(str(value).strip()) if isinstance(value, str) else True


def aois_from_records(records: list[dict[str, Any]], *, file: str = "AOI list", first_row: int = 1) -> tuple[Aoi, ...]:
    """Records in (one dict per AOI), AOIs out; names must be unique; at most MAX_AOIS."""
    if not records:
        raise DataError("no AOIs defined", file=file, expected="at least one AOI")
    if len(records) > MAX_AOIS:
        raise DataError(f"too many AOIs ({len(records)})", file=file, expected=f"at most {MAX_AOIS}")
    out: list[Aoi] = []
    seen: dict[str, int] = {}
    for i, rec in enumerate(records):
        row = first_row + i
        if not isinstance(rec, dict):
            raise DataError("each AOI must be an object", file=file, row=row, expected='{"name": ..., "kind": ...}')
        a = _one(rec, file=file, row=row)
        if a.name in seen:
            raise DataError(f"the name '{a.name}' is used twice (also row {seen[a.name]})", file=file, row=row,
                            column="name", expected="unique names")
        seen[a.name] = row
        out.append(a)
    return tuple(out)


def aois_from_table(table: pd.DataFrame, *, file: str = "AOI table") -> tuple[Aoi, ...]:
    """Table in (TABLE_COLUMNS; blank rows skipped), AOIs out; row numbers as in a spreadsheet (header = 1)."""
    cols = {str(c).strip().lower(): c for c in table.columns}
    if "name" not in cols:
        raise DataError("no 'name' column", file=file, expected="columns " + ", ".join(TABLE_COLUMNS))
    if "points" not in cols and not all(c in cols for c in _CORNERS):
        raise DataError("no shape columns", file=file, expected="x0, y0, x1, y1 (rectangles) or points (polygons)")
    records, rows = [], []
    for i, r in enumerate(table.to_dict("records")):
        rec = {c: r[orig] for c, orig in cols.items()}
        if not any(_present(v) for v in rec.values()):
            continue
        records.append(rec)
        rows.append(i + 2)
    if not records:
        raise DataError("no AOIs defined", file=file, expected="at least one row with a name and a shape")
    out = []
    for rec, row in zip(records, rows, strict=True):
        out.extend(aois_from_records([rec], file=file, first_row=row))
    names = [a.name for a in out]
    for j, n in enumerate(names):
        if n in names[:j]:
            raise DataError(f"the name '{n}' is used twice", file=file, row=rows[j], column="name",
                            expected="unique names")
    if len(out) > MAX_AOIS:
        raise DataError(f"too many AOIs ({len(out)})", file=file, expected=f"at most {MAX_AOIS}")
    return tuple(out)


def _json_int(text: str) -> int | float:
    """A JSON integer literal in, the number out: a long one as a float (inf beyond the float range, refused as
    a coordinate later), since Python refuses to convert integer text of more than 4,300 digits."""
    return int(text) if len(text) <= _INT_DIGITS else float(text)


def read_aois(data: bytes, filename: str) -> tuple[Aoi, ...]:
    """File bytes and name (.csv or .json) in, AOIs out; DataError with file, row and column otherwise."""
    if len(data) > MAX_AOI_BYTES:
        raise DataError(f"{filename} is {len(data) / 1e6:.1f} MB", file=filename,
                        expected=f"an AOI file of at most {MAX_AOI_BYTES / 1e6:g} MB")
    text = data.decode("utf-8-sig", errors="replace")
    if filename.lower().endswith(".json") or text.lstrip().startswith(("[", "{")):
        try:
            obj = json.loads(text, parse_int=_json_int)
        except json.JSONDecodeError as err:
            raise DataError(f"not valid JSON ({err.msg})", file=filename, row=err.lineno,
                            expected="a JSON list of AOIs") from None
        except RecursionError:  # the decoder recurses once per nesting level; an AOI list needs four
            raise DataError("JSON nested too deeply to be an AOI list", file=filename,
                            expected='[{"name": ..., "kind": ..., "points": [[x, y], ...]}, ...]') from None
        if isinstance(obj, dict):
            obj = obj.get("aois")
        if not isinstance(obj, list):
            raise DataError("expected a list of AOIs", file=filename, expected='[{"name": ..., "kind": ...}, ...]'
                            ' or {"aois": [...]}')
        # JSON "rows" are list positions counted from 1.
        return aois_from_records(obj, file=filename, first_row=1)
    try:
        with warnings.catch_warnings():
            # index_col=False: a row longer than the header is not read as a many-level index (seconds of work
            # for a line of commas) but warned about, and refused here.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            table = pd.read_csv(io.StringIO(text), sep=None, engine="python", dtype=str, keep_default_na=False,
                                index_col=False)
    except pd.errors.ParserWarning:
        raise DataError("a row has more fields than the header", file=filename,
                        expected="as many fields per row as columns " + ", ".join(TABLE_COLUMNS)) from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeError, csv.Error) as err:
        raise DataError(f"not a readable CSV table ({str(err).splitlines()[0][:80]})", file=filename,
                        expected="a CSV table with columns " + ", ".join(TABLE_COLUMNS)) from None
    return aois_from_table(table, file=filename)


def aois_to_table(aois: tuple[Aoi, ...] | list[Aoi]) -> pd.DataFrame:
    """AOIs in, the table form out (rectangles by corners, polygons by 'x y; ...' points)."""
    rows = []
    for a in aois:
        if a.kind is ShapeKind.RECTANGLE:
            x0, y0, x1, y1 = a.bounds
            rows.append({"name": a.name, "kind": a.kind.value, "x0": x0, "y0": y0, "x1": x1, "y1": y1, "points": ""})
        else:
            pts = "; ".join(f"{x:g} {y:g}" for x, y in a.vertices)
            rows.append({"name": a.name, "kind": a.kind.value, "x0": None, "y0": None, "x1": None, "y1": None,
                         "points": pts})
    return pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
