"""EyeLink Data Viewer sample and fixation reports ('.' is a missing value)."""
from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.reader_base import Mapping, _drop_trailer, _first, _keys, _Notes, _num
from eyedp_core.io.roles import TIME_UNIT_KEY, WHOLE_FILE

# --- EyeLink Data Viewer reports -----------------------------------------------------------------

def _eyelink_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like an EyeLink Data Viewer sample report."""
    keys = _keys(df_or_header)
    gaze = any(re.fullmatch(r"(right|left|average)gazex", k) for k in keys)
    return gaze and ("recordingsessionlabel" in keys or "timestamp" in keys)


def _mean_of(df: pd.DataFrame, cols: list[str | None]) -> np.ndarray:
    """Frame and columns -> row-wise mean over the finite values (NaN where none is)."""
    present = [c for c in cols if c is not None]
    if not present:
        return np.full(len(df), np.nan)
    v = np.column_stack([_num(df, c) for c in present])
    ok = np.isfinite(v)
    n = ok.sum(axis=1)
    return np.divide(np.where(ok, v, 0).sum(axis=1), n, out=np.full(len(df), np.nan), where=n > 0)


def _eyelink_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Data Viewer sample report -> (table with mean-of-eyes columns, gaze mapping in ms)."""
    notes = _Notes(df)
    keys = _keys(df)
    t_col = keys.get("timestamp") or _first(keys, ("time", "sampletime"))
    if t_col is None:
        raise DataError("this EyeLink sample report has no TIMESTAMP column.", file=notes.file,
                        expected="a TIMESTAMP column")
    src = df
    df = _drop_trailer(df, t_col, notes).copy()
    keys = _keys(df)
    if "averagegazex" in keys and "averagegazey" in keys:
        x = _num(df, keys["averagegazex"])
        y = _num(df, keys["averagegazey"])
    else:
        x = _mean_of(df, [keys.get("leftgazex"), keys.get("rightgazex")])
        y = _mean_of(df, [keys.get("leftgazey"), keys.get("rightgazey")])
    pupil = _mean_of(df, [keys.get("leftpupilsize"), keys.get("rightpupilsize"),
                          keys.get("averagepupilsize")])
    with np.errstate(invalid="ignore"):
        pupil[pupil <= 0] = np.nan
    df["GAZE_X"], df["GAZE_Y"], df["PUPIL"] = x, y, pupil
    who = keys.get("recordingsessionlabel")
    mapping: Mapping = {"participant": who or WHOLE_FILE, "t_s": t_col, "x": "GAZE_X", "y": "GAZE_Y",
                        "pupil": "PUPIL" if np.isfinite(pupil).any() else None,
                        "stimulus": _first(keys, ("trialindex", "trialid", "trial", "identifier")),
                        TIME_UNIT_KEY: "ms"}
    return notes.store(df, src), mapping


def _eyelink_fix_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like an EyeLink Data Viewer fixation report."""
    keys = _keys(df_or_header)
    return "currentfixx" in keys and "currentfixy" in keys


def _eyelink_fix_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Data Viewer fixation report -> (table, fixations mapping; start/end in ms from the trial start)."""
    keys = _keys(df)
    trial = _first(keys, ("trialindex", "trialid", "trial"))
    stim = _first(keys, ("image", "imagefile", "stimulus", "pagename")) or trial
    mapping: Mapping = {"observer": keys.get("recordingsessionlabel") or WHOLE_FILE,
                        "x": keys["currentfixx"], "y": keys["currentfixy"], "stimulus": stim,
                        "duration_ms": keys.get("currentfixduration"),
                        "t_start_s": keys.get("currentfixstart"),
                        "t_end_s": keys.get("currentfixend"), TIME_UNIT_KEY: "ms"}
    return df, mapping
