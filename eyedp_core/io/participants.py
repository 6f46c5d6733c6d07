"""Participants tables: one row per participant with what is known about them (gender, age, group, ...).

`read_participants(path_or_buffer)` reads a CSV/TSV (gzip too) into a table with a text `participant` column
and one text column per attribute; each attribute becomes a label an attack can predict. Known attributes get
the project's names (`gender`, `age`); other columns keep theirs.
"""
from __future__ import annotations

import re
from typing import Any

import pandas as pd

from eyedp_core.io.errors import DataError, first_row, shown
from eyedp_core.io.pipeline import Upload

__all__ = ["PARTICIPANT_NAMES", "read_participants"]

# Header words (lower case, letters and digits only) that name the participant column, best first.
PARTICIPANT_NAMES = ("participant", "participantid", "participantname", "subject", "subjectid", "observer",
                     "observerid", "pid", "sid", "id")
# Attributes with one project name whatever the header says: the attacks know `gender`.
_ATTRIBUTE_NAMES = {"gender": ("gender", "sex", "selfidentifiedgender"), "age": ("age", "ageyears")}


def _key(name: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


def _participant_column(df: pd.DataFrame, filename: str) -> str:
    keys = {_key(c): c for c in reversed(list(df.columns))}
    for want in PARTICIPANT_NAMES:
        if want in keys:
            return keys[want]
    raise DataError("no column names the participant. Columns: " + ", ".join(map(str, df.columns))
                    + ". Name the participant column 'participant' (or subject, observer, id).", file=filename,
                    expected="a column 'participant'")


def _clean_text(s: pd.Series) -> pd.Series:
    """Cells -> text labels: whole numbers without '.0', blanks missing, surrounding spaces cut."""
    num = pd.to_numeric(s, errors="coerce")
    whole = num.notna() & (num == num.round())
    out = s.astype("string").str.strip()
    out = out.mask(whole, num.where(whole).astype("Int64").astype("string"))
    return out.mask(out == "").astype(object)


def read_participants(path_or_buffer: Any, filename: str | None = None) -> pd.DataFrame:
    """Path, bytes or binary file of a CSV/TSV participants table -> DataFrame (participant, then one text
    column per attribute: gender, age, group, ...), one row per participant; DataError naming file, row and
    column for a table without a participant column, without attributes, or with one participant twice."""
    upload = Upload(path_or_buffer, filename)
    raw, name = upload.full_table(), upload.name
    raw = raw.loc[:, [c for c in raw.columns if raw[c].notna().any()]]  # all-empty columns say nothing
    if raw.empty:
        raise DataError("the participants table has no rows.", file=name, expected="one row per participant")
    pcol = _participant_column(raw, name)
    ids = _clean_text(raw[pcol])
    missing = ids.isna().to_numpy()
    if missing.any():
        pos, row = first_row(raw, missing)
        raise DataError("a participant cell is empty.", file=name, row=row, column=str(pcol),
                        expected="a participant name or number", count=int(missing.sum()))
    dup = ids.duplicated().to_numpy()
    if dup.any():
        pos, row = first_row(raw, dup)
        raise DataError(f"participant {shown(ids.iloc[pos])} has a second row. Give one row per participant.",
                        file=name, row=row, column=str(pcol), expected="one row per participant",
                        found=shown(ids.iloc[pos]), count=int(dup.sum()))
    out = {"participant": ids.astype(str).to_numpy()}
    for c in raw.columns:
        if c == pcol:
            continue
        k = _key(c)
        named = next((n for n, keys in _ATTRIBUTE_NAMES.items() if k in keys), None)
        label = named if named and named not in out else str(c).strip()
        if label in out:
            raise DataError(f"two columns would both be '{label}'.", file=name, column=str(c),
                            expected="one column per attribute")
        values = _clean_text(raw[c])
        if label == "gender":  # 'male' and 'Male' are one gender
            values = values.where(values.isna(), values.astype(str).str.lower())
        out[label] = values.to_numpy()
    if len(out) == 1:
        raise DataError("the participants table has no column besides the participant: nothing to predict.",
                        file=name, expected="columns such as gender, age or group")
    table = pd.DataFrame(out)
    table.attrs["source"] = name
    return table
