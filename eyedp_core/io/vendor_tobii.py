"""Tobii Studio and Tobii Pro Lab sample and fixation exports (column names as Tobii documents them)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.reader_base import TOBII_BAD_VALIDITY, Mapping, _col, _drop_trailer, _first, _keys, _Notes, _num, key
from eyedp_core.io.roles import TIME_UNIT_KEY, guess_time_unit

# --- Tobii Studio / Tobii Pro Lab ----------------------------------------------------------------

_TOBII_TIME = ("recordingtimestamp", "recordingtimestampms", "recordingtimestampus")
# Media coordinates (MCS) are pixels of the stimulus image, which is what heatmaps are drawn on;
# screen coordinates (ADCS/DACS) come next.
_TOBII_X = ("gazepointxmcspx", "gazepointx", "gazepointxadcspx", "gazepointxdacspx")
_TOBII_Y = ("gazepointymcspx", "gazepointy", "gazepointyadcspx", "gazepointydacspx")
_TOBII_FIX_X = ("fixationpointxmcspx", "fixationpointx", "mappedfixationx", "mappedfixationxmcspx",
                "fixationpointxadcspx", "fixationpointxdacspx")
_TOBII_FIX_Y = ("fixationpointymcspx", "fixationpointy", "mappedfixationy", "mappedfixationymcspx",
                "fixationpointyadcspx", "fixationpointydacspx")
_TOBII_PUPIL_L = ("pupilleft", "pupildiameterleft", "pupildiameterleftmm")
_TOBII_PUPIL_R = ("pupilright", "pupildiameterright", "pupildiameterrightmm")
_TOBII_VALID_L = ("validityleft",)
_TOBII_VALID_R = ("validityright",)
_TOBII_STIMULUS = ("medianame", "presentedstimulusname", "presentedmedianame", "stimulus", "imagefile",
                   "image", "recordingname")
_TOBII_EVENT_TYPE = ("gazeeventtype", "eyemovementtype")
_TOBII_EVENT_INDEX = ("fixationindex", "eyemovementtypeindex")
_TOBII_DURATION = ("gazeeventduration", "gazeeventdurationms")
TOBII_PUPIL_COLUMN = "PupilMean"


def _tobii_time_unit(df: pd.DataFrame, t_col: str) -> str:
    """Tobii time column -> its unit: a [ms]/[μs] suffix, 'RecordingTimestamp' (Studio: ms), else guessed."""
    k = key(t_col)
    if k.endswith("us"):
        return "us"
    if k.endswith("ms") or t_col == "RecordingTimestamp":
        return "ms"
    return guess_time_unit(_col(df, t_col), t_col)


def _tobii_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like a Tobii Studio / Pro Lab gaze export."""
    keys = _keys(df_or_header)
    return ("participantname" in keys and _first(keys, _TOBII_TIME) is not None
            and _first(keys, _TOBII_X) is not None and _first(keys, _TOBII_Y) is not None)


def _tobii_validity_bad(df: pd.DataFrame, col: str | None) -> np.ndarray:
    """Validity column (Studio codes 0-4, Pro Lab 'Valid'/'Invalid') -> mask of untrusted samples."""
    if col is None:
        return np.zeros(len(df), dtype=bool)
    s = _col(df, col)
    if pd.api.types.is_numeric_dtype(s.dtype):
        v = s.to_numpy(dtype=float, na_value=np.nan)
        return np.nan_to_num(v, nan=0.0) >= TOBII_BAD_VALIDITY
    return s.astype("str").str.strip().str.lower().eq("invalid").to_numpy(dtype=bool, na_value=False)


def _tobii_samples(df: pd.DataFrame, notes: _Notes) -> pd.DataFrame:
    """Tobii export -> only eye-tracker sample rows (Pro Lab event rows and other sensors dropped)."""
    keys = _keys(df)
    keep = np.ones(len(df), dtype=bool)
    sensor = keys.get("sensor")
    if sensor is not None:
        s = _col(df, sensor).astype("str").str.strip().str.lower()
        eye = s.str.contains("eye", regex=False).to_numpy(dtype=bool, na_value=False)
        if eye.any():
            keep &= eye
    event = keys.get("event")
    if event is not None:
        has_event = _col(df, event).notna().to_numpy()
        x = _num(df, _first(keys, _TOBII_X))
        keep &= ~(has_event & ~np.isfinite(x))
    dropped = int((~keep).sum())
    notes.add("event_rows", dropped,
              "{n} rows that are events or other sensors, not gaze samples, were left out.")
    return df[keep] if dropped else df


def _tobii_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Tobii export -> (samples with validity applied and a PupilMean column, gaze mapping with time unit)."""
    notes = _Notes(df)
    keys = _keys(df)
    t_col = _first(keys, _TOBII_TIME)
    src = df
    df = _tobii_samples(df, notes)
    # A shallow copy: only whole columns are replaced below, so the export's cells are shared, not copied
    # (a full copy of a 2-million-row export costs about 300 MB).
    df = _drop_trailer(df, t_col, notes).copy(deep=False)
    keys = _keys(df)
    x_col, y_col = _first(keys, _TOBII_X), _first(keys, _TOBII_Y)
    mapping: Mapping = {"participant": keys["participantname"], "t_s": t_col, "x": x_col, "y": y_col,
                        "pupil": None, "stimulus": _first(keys, _TOBII_STIMULUS),
                        TIME_UNIT_KEY: _tobii_time_unit(df, t_col)}
    bad_l = _tobii_validity_bad(df, _first(keys, _TOBII_VALID_L))
    bad_r = _tobii_validity_bad(df, _first(keys, _TOBII_VALID_R))
    has_validity = _first(keys, _TOBII_VALID_L) is not None and _first(keys, _TOBII_VALID_R) is not None
    if has_validity:
        both = bad_l & bad_r & (np.isfinite(_num(df, x_col)) | np.isfinite(_num(df, y_col)))
        if both.any():
            df[x_col] = np.where(both, np.nan, _num(df, x_col))
            df[y_col] = np.where(both, np.nan, _num(df, y_col))
        notes.add("invalid_validity", int(both.sum()),
                  "{n} samples whose validity codes mark both eyes as not found were set to missing.")
    left, right = _first(keys, _TOBII_PUPIL_L), _first(keys, _TOBII_PUPIL_R)
    eyes = [(c, bad) for c, bad in ((left, bad_l), (right, bad_r)) if c is not None]
    if eyes:
        pupils = np.column_stack([_num(df, c) for c, _ in eyes])
        bad = np.column_stack([b for _, b in eyes])
        # Tobii writes -1 (or 0) for an eye it lost; average only the eyes that were measured.
        with np.errstate(invalid="ignore"):
            pupils[(pupils <= 0) | bad] = np.nan
        counts = np.isfinite(pupils).sum(axis=1)
        mean = np.divide(np.nansum(pupils, axis=1), counts, out=np.full(len(df), np.nan), where=counts > 0)
        df[TOBII_PUPIL_COLUMN] = mean
        mapping["pupil"] = TOBII_PUPIL_COLUMN
    return notes.store(df, src), mapping


def _tobii_fix_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like a Tobii fixation export (fixation point columns, no gaze points)."""
    keys = _keys(df_or_header)
    return ("participantname" in keys and _first(keys, _TOBII_FIX_X) is not None
            and _first(keys, _TOBII_FIX_Y) is not None and _first(keys, _TOBII_X) is None)


def tobii_fixations(df: pd.DataFrame) -> pd.DataFrame | None:
    """Tobii sample or fixation export -> one row per fixation (observer, stimulus, x, y, duration_ms,
    t_start_s, t_end_s), or None when it has no fixation columns."""
    keys = _keys(df)
    fx, fy = _first(keys, _TOBII_FIX_X), _first(keys, _TOBII_FIX_Y)
    who = keys.get("participantname")
    if fx is None or fy is None or who is None:
        return None
    t_col = _first(keys, _TOBII_TIME)
    etype, eidx = _first(keys, _TOBII_EVENT_TYPE), _first(keys, _TOBII_EVENT_INDEX)
    stim = _first(keys, _TOBII_STIMULUS)
    dur = _first(keys, _TOBII_DURATION)
    x, y = _num(df, fx), _num(df, fy)
    index = _num(df, eidx) if eidx else np.arange(len(df), dtype=float)
    keep = np.isfinite(x) & np.isfinite(y) & np.isfinite(index)
    if etype is not None:
        keep &= _col(df, etype).astype("str").str.lower().eq("fixation").to_numpy(dtype=bool, na_value=False)
    # Observer and stimulus are grouped by integer codes and turned into text only for the fixations found:
    # as text, the ~2 million sample rows of a long export would cost hundreds of MB.
    obs, obs_names = pd.factorize(_col(df, who)[keep].astype("str"))
    if stim:
        stim_codes, stim_names = pd.factorize(_col(df, stim)[keep].astype("str"))
    else:
        stim_codes, stim_names = np.zeros(len(obs), dtype=np.intp), pd.Index([""])
    named = (obs >= 0) & (stim_codes >= 0)  # a missing name leaves the row out, as grouping on it would
    rows = df.index[keep][named]
    if not len(rows):
        return pd.DataFrame({"observer": pd.Series([], dtype="str"), "stimulus": pd.Series([], dtype="str"),
                             "x": [], "y": [], "duration_ms": []}, index=rows)
    obs, stim_codes = obs[named], stim_codes[named]
    idx, _ = pd.factorize(index[keep][named])
    # One integer per (observer, stimulus, fixation index), numbered in order of appearance; each factor is
    # below the row count, so the products stay inside int64 for any table under 2^31 rows.
    pair, _ = pd.factorize(obs.astype(np.int64) * (int(stim_codes.max()) + 1) + stim_codes)
    codes, _ = pd.factorize(pair.astype(np.int64) * (int(idx.max()) + 1) + idx)
    row = (np.asarray(rows, dtype=np.int64) if pd.api.types.is_integer_dtype(df.index)
           else np.flatnonzero(keep)[named].astype(np.int64) + 2)
    out = _per_fixation(codes, x[keep][named], y[keep][named], _num(df, dur)[keep][named],
                        _num(df, t_col)[keep][named] if t_col else np.full(len(codes), np.nan), row)
    first = out.pop("first").to_numpy()
    out.insert(0, "observer", pd.Series(np.asarray(obs_names)[obs[first]], dtype="str"))
    out.insert(1, "stimulus", pd.Series(np.asarray(stim_names)[stim_codes[first]], dtype="str"))
    unit = _tobii_time_unit(df, t_col) if t_col else "ms"
    scale = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]
    out["t_start_s"] = out["t_start"] * scale
    out["t_end_s"] = out["t_end"] * scale
    out.index = pd.Index(out["row"].to_numpy(dtype=np.int64), name="row")
    out = out.drop(columns=["t_start", "t_end", "row"]).sort_index()
    if not np.isfinite(out["t_start_s"]).any():
        out = out.drop(columns=["t_start_s", "t_end_s"])
    if not np.isfinite(out["duration_ms"]).any():
        out = out.drop(columns=["duration_ms"])
    if not stim:
        out = out.drop(columns=["stimulus"])
    return out


def _per_fixation(codes: np.ndarray, x: np.ndarray, y: np.ndarray, dur: np.ndarray, t: np.ndarray,
                  row: np.ndarray) -> pd.DataFrame:
    """Samples numbered by fixation (codes 0..G-1 in order of appearance) -> one row per fixation: the first
    position and the first known duration, first and last time (missing times skipped), first row."""
    n = int(codes.max()) + 1
    _, first = np.unique(codes, return_index=True)
    known = np.isfinite(dur)
    duration = np.full(n, np.nan)
    hit, at = np.unique(codes[known], return_index=True)
    duration[hit] = dur[known][at]
    t_start, t_end = np.full(n, np.nan), np.full(n, np.nan)
    np.fmin.at(t_start, codes, t)
    np.fmax.at(t_end, codes, t)
    first_row = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(first_row, codes, row)
    return pd.DataFrame({"first": first, "x": x[first], "y": y[first], "duration_ms": duration,
                         "t_start": t_start, "t_end": t_end, "row": first_row})


def _tobii_fix_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Tobii fixation export -> (one row per fixation, fixations mapping)."""
    notes = _Notes(df)
    keys = _keys(df)
    t_col = _first(keys, _TOBII_TIME)
    if t_col is not None:
        df = _drop_trailer(df, t_col, notes)
    fix = tobii_fixations(df)
    if fix is None or fix.empty:
        raise DataError("no fixation with a position was found in this Tobii export.", file=notes.file,
                        expected="rows with FixationPointX/Y")
    notes.add("samples_collapsed", len(df) - len(fix),
              "{n} rows were samples of the same fixation (or had no fixation point) and were merged or "
              "left out.")
    mapping: Mapping = {"observer": "observer", "x": "x", "y": "y",
                        "stimulus": "stimulus" if "stimulus" in fix.columns else None,
                        "duration_ms": "duration_ms" if "duration_ms" in fix.columns else None,
                        "t_start_s": "t_start_s" if "t_start_s" in fix.columns else None,
                        "t_end_s": "t_end_s" if "t_end_s" in fix.columns else None, TIME_UNIT_KEY: "s"}
    return notes.store(fix, df), mapping
