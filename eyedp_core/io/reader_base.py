"""The reader registry's building blocks: the Reader record, column-name keys and the
notes a reader keeps of what it dropped (shared by the vendor modules; see eyedp_core.io.readers)."""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError, DataWarning

Mapping = dict[str, Any]
# Pupil Labs recommend discarding gaze and fixations whose confidence is below 0.6.
DEFAULT_MIN_CONFIDENCE = 0.6
# Tobii Studio validity codes: 0 certain ... 4 eye not found; codes 2 and above are not trusted per eye.
TOBII_BAD_VALIDITY = 2


@dataclass(frozen=True)
class Reader:
    """A named export format: how to recognise it and how to map it to canonical columns."""

    name: str
    label: str
    detect: Callable[[Any], bool]
    to_canonical: Callable[..., tuple[pd.DataFrame, Mapping]]
    supported: bool = True
    kind: str = "gaze"
    geometry_preset: str | None = None
    # The columns the format cannot do without: (name shown in messages, keys of the names it may go by).
    needs: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def missing(self, df_or_header: Any) -> list[str]:
        """Table or column names -> the names (as messages show them) of needed columns it lacks."""
        keys = _keys(df_or_header)
        return [shown for shown, alternatives in self.needs if not any(k in keys for k in alternatives)]

    def convert(self, df: pd.DataFrame, **options: Any) -> tuple[pd.DataFrame, Mapping]:
        """Table and options (e.g. min_confidence) -> (cleaned table, mapping); unknown options ignored.
        DataError naming the format and the columns when the table lacks columns the format needs."""
        missing = self.missing(df)
        if missing:
            raise self._not_this_format(df, missing)
        accepted = inspect.signature(self.to_canonical).parameters
        try:
            return self.to_canonical(df, **{k: v for k, v in options.items() if k in accepted})
        except KeyError as err:  # a column a variant of the format needs, not covered by `needs`
            raise self._not_this_format(df, [str(err.args[0]) if err.args else "?"]) from None

    def _not_this_format(self, df: pd.DataFrame, missing: list[str]) -> DataError:
        """-> the DataError for a table read as this format that lacks the columns in `missing`."""
        cols = [str(c) for c in df.columns]
        listed = ", ".join(repr(c) for c in cols[:8]) + (f" and {len(cols) - 8:,} more" if len(cols) > 8 else "")
        plural = "s" if len(missing) > 1 else ""
        return DataError(f"format '{self.name}' ({self.label}) needs the column{plural} {'; '.join(missing)}, "
                         f"which the table lacks. Its columns are {listed}. Choose another format, or format=None "
                         "to have it detected.", file=_source(df), expected=f"the columns of a {self.label}",
                         found=f"{len(cols)} other columns")


def key(name: Any) -> str:
    """Column name -> lower-case alphanumeric key ('Gaze point X [DACS px]' -> 'gazepointxdacspx')."""
    return re.sub(r"[^a-z0-9]", "", str(name).lower().replace("µ", "u").replace("μ", "u"))


def _keys(df_or_header: Any) -> dict[str, str]:
    """DataFrame or column names -> {lower-case alphanumeric key: original name}."""
    names: Iterable[Any] = df_or_header.columns if isinstance(df_or_header, pd.DataFrame) else df_or_header
    out: dict[str, str] = {}
    try:
        for name in names:
            out.setdefault(key(name), str(name))
    except TypeError:
        return {}
    return out


def _first(keys: dict[str, str], candidates: Iterable[str]) -> str | None:
    """Key map and candidate keys, best first -> the original name of the first present one."""
    return next((keys[k] for k in candidates if k in keys), None)


def _source(df: pd.DataFrame) -> str | None:
    """Frame -> the upload's file name if read_table recorded it."""
    return df.attrs.get("source_file")


def _col(df: pd.DataFrame, name: str) -> pd.Series:
    """Frame and column name -> that column (the first, if the name is repeated)."""
    hit = df.loc[:, df.columns == name]
    return hit.iloc[:, 0]


def _num(df: pd.DataFrame, name: str | None) -> np.ndarray:
    """Frame and column (or None) -> float array (unreadable or missing cells NaN)."""
    if name is None:
        return np.full(len(df), np.nan)
    s = _col(df, name)
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.to_numpy(dtype=float, na_value=np.nan)
    return pd.to_numeric(s, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


class _Notes:
    """Counts and warnings a reader collects; stored on the frame it returns."""

    def __init__(self, df: pd.DataFrame) -> None:
        """Start from what the frame already carries."""
        self.counts: dict[str, int] = dict(df.attrs.get("counts", {}))
        self.warnings: list[DataWarning] = list(df.attrs.get("warnings", []))
        self.file = _source(df)

    def add(self, count_key: str, n: int, message: str) -> None:
        """Count n under count_key and add the message (when n > 0)."""
        if n > 0:
            self.counts[count_key] = self.counts.get(count_key, 0) + int(n)
            self.warnings.append(DataWarning(message.format(n=f"{int(n):,}"), file=self.file,
                                             details={count_key: int(n)}))

    def store(self, df: pd.DataFrame, source: pd.DataFrame) -> pd.DataFrame:
        """Frame -> the frame with attrs (source file, counts, warnings) set."""
        df.attrs = {**source.attrs, "counts": self.counts, "warnings": self.warnings}
        return df


def _drop_trailer(df: pd.DataFrame, t_col: str, notes: _Notes) -> pd.DataFrame:
    """Drop trailing rows whose time is not a number (export trailers, summary lines); count them."""
    t = _num(df, t_col)
    ok = np.flatnonzero(np.isfinite(t))
    if ok.size == 0:
        raise DataError("no row has a readable timestamp.", file=notes.file, column=t_col,
                        expected="timestamps")
    last = int(ok[-1])
    if last + 1 < len(df):
        notes.add("trailer_rows", len(df) - last - 1,
                  "{n} rows at the end of the file have no timestamp (an export trailer) and were left out.")
        df = df.iloc[: last + 1]
    return df
