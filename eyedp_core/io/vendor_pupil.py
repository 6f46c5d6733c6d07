"""Pupil Labs exports (Pupil Player, surface-mapped, Pupil Cloud) with a confidence threshold, and GazeBase
recordings (degrees, y up)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.reader_base import DEFAULT_MIN_CONFIDENCE, Mapping, _col, _drop_trailer, _keys, _Notes, _num
from eyedp_core.io.roles import TIME_UNIT_KEY, UNITS_KEY, WHOLE_FILE, Y_UP_KEY

# --- Pupil Labs ----------------------------------------------------------------------------------

def _pupil_labs_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like a Pupil Player, surface or Pupil Cloud gaze export."""
    keys = _keys(df_or_header)
    player = "gazetimestamp" in keys and ("normposx" in keys or "xnorm" in keys)
    cloud = "timestampns" in keys and "gazexpx" in keys
    return player or cloud


def _confidence_filter(df: pd.DataFrame, keys: dict[str, str], min_confidence: float, notes: _Notes,
                       what: str) -> np.ndarray:
    """Frame with a confidence column -> mask of rows below the threshold (counted)."""
    col = keys.get("confidence")
    if col is None:
        return np.zeros(len(df), dtype=bool)
    conf = _num(df, col)
    low = ~(conf >= float(min_confidence))
    notes.add("low_confidence", int(low.sum()),
              "{n} " + what + f" with confidence below {min_confidence:g} were set aside.")
    return low


def _on_surface_filter(df: pd.DataFrame, keys: dict[str, str], notes: _Notes, what: str) -> np.ndarray:
    """Surface export -> mask of rows not on the surface (counted)."""
    col = keys.get("onsurf")
    if col is None:
        return np.zeros(len(df), dtype=bool)
    s = _col(df, col)
    on = s.astype("str").str.strip().str.lower().isin(["true", "1", "1.0"])
    on = on.to_numpy(dtype=bool, na_value=False)
    notes.add("off_surface", int((~on).sum()), "{n} " + what + " were off the surface and were set aside.")
    return ~on


def _dedupe_times(df: pd.DataFrame, t_col: str, notes: _Notes,
                  score: np.ndarray | None = None) -> pd.DataFrame:
    """Pupil gaze -> sorted by time, one row per timestamp (the most confident), repeats counted."""
    t = _num(df, t_col)
    order = np.lexsort((-(score if score is not None else np.zeros(len(df))), t))
    df = df.iloc[order]
    t = t[order]
    repeat = np.r_[False, t[1:] == t[:-1]]
    notes.add("repeated_timestamps", int(repeat.sum()),
              "{n} samples repeated a timestamp (two gaze mappers) and only the most confident was kept.")
    return df[~repeat]


def _pupil_labs_to_canonical(df: pd.DataFrame, min_confidence: float = DEFAULT_MIN_CONFIDENCE
                             ) -> tuple[pd.DataFrame, Mapping]:
    """Pupil Labs gaze export -> (low-confidence/off-surface/blink samples blanked, gaze mapping)."""
    notes = _Notes(df)
    keys = _keys(df)
    src = df
    if "timestampns" in keys:  # Pupil Cloud / Neon / Invisible: scene camera pixels, ns clock
        t_col = keys["timestampns"]
        df = _drop_trailer(df, t_col, notes).copy()
        keys = _keys(df)
        x, y = _num(df, keys["gazexpx"]), _num(df, keys.get("gazeypx"))
        lost = np.zeros(len(df), dtype=bool)
        if "worn" in keys:
            worn = _num(df, keys["worn"])
            not_worn = np.isfinite(worn) & (worn == 0)
            notes.add("not_worn", int(not_worn.sum()),
                      "{n} samples while the glasses were not worn were set to missing.")
            lost |= not_worn
        if "blinkid" in keys:
            blink = _col(df, keys["blinkid"]).notna().to_numpy()
            notes.add("blink", int((blink & ~lost).sum()), "{n} samples during blinks were set to missing.")
            lost |= blink
        df["GAZE_X"], df["GAZE_Y"] = np.where(lost, np.nan, x), np.where(lost, np.nan, y)
        who = keys.get("recordingid")
        mapping: Mapping = {"participant": who or WHOLE_FILE, "t_s": t_col, "x": "GAZE_X", "y": "GAZE_Y",
                            "pupil": None, "stimulus": keys.get("sectionid") if who is None else None,
                            TIME_UNIT_KEY: "ns", UNITS_KEY: "px"}
        return notes.store(df, src), mapping
    # Pupil Player: gaze_positions.csv or gaze_positions_on_surface_<name>.csv; normalised, origin
    # bottom-left.
    t_col = keys["gazetimestamp"]
    df = _drop_trailer(df, t_col, notes)
    keys = _keys(df)
    surface = "xnorm" in keys
    x_col, y_col = (keys["xnorm"], keys.get("ynorm")) if surface else (keys["normposx"], keys.get("normposy"))
    conf = _num(df, keys["confidence"]) if "confidence" in keys else None
    df = _dedupe_times(df, t_col, notes, conf).copy()
    keys = _keys(df)
    low = _confidence_filter(df, keys, min_confidence, notes, "samples")
    off = _on_surface_filter(df, keys, notes, "samples") if surface else np.zeros(len(df), dtype=bool)
    blank = low | off
    df["GAZE_X"] = np.where(blank, np.nan, _num(df, x_col))
    df["GAZE_Y"] = np.where(blank, np.nan, _num(df, y_col))
    mapping = {"participant": WHOLE_FILE, "t_s": t_col, "x": "GAZE_X", "y": "GAZE_Y", "pupil": None,
               "stimulus": None, TIME_UNIT_KEY: "s", UNITS_KEY: "norm", Y_UP_KEY: True}
    return notes.store(df, src), mapping


def _pupil_labs_fix_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like a Pupil Player / surface / Cloud fixation export."""
    keys = _keys(df_or_header)
    player = "starttimestamp" in keys and "duration" in keys and ("normposx" in keys or "xnorm" in keys)
    cloud = "starttimestampns" in keys and "fixationxpx" in keys
    return player or cloud


def _pupil_labs_fix_to_canonical(df: pd.DataFrame, min_confidence: float = DEFAULT_MIN_CONFIDENCE
                                 ) -> tuple[pd.DataFrame, Mapping]:
    """Pupil Labs fixation export -> (fixations above the confidence threshold, on the surface; mapping)."""
    notes = _Notes(df)
    keys = _keys(df)
    src = df
    if "starttimestampns" in keys:
        who = keys.get("recordingid")
        mapping: Mapping = {"observer": who or WHOLE_FILE, "x": keys["fixationxpx"],
                            "y": keys.get("fixationypx"),
                            "stimulus": keys.get("sectionid") if who is None else None,
                            "duration_ms": keys.get("durationms"), "t_start_s": keys["starttimestampns"],
                            "t_end_s": keys.get("endtimestampns"), TIME_UNIT_KEY: "ns", UNITS_KEY: "px"}
        return notes.store(df.copy(), src), mapping
    surface = "xnorm" in keys and "normposx" not in keys
    x_col, y_col = (keys["xnorm"], keys.get("ynorm")) if surface else (keys["normposx"], keys.get("normposy"))
    drop = _confidence_filter(df, keys, min_confidence, notes, "fixations")
    if "onsurf" in keys:
        drop = drop | _on_surface_filter(df, keys, notes, "fixations")
    df = df[~drop]
    if df.empty:
        raise DataError(f"no fixation is left after setting aside those below confidence {min_confidence:g} "
                        "(or off the surface).", file=notes.file, expected="confident fixations")
    mapping = {"observer": WHOLE_FILE, "x": x_col, "y": y_col, "stimulus": None,
               "duration_ms": keys["duration"],
               "t_start_s": keys["starttimestamp"], "t_end_s": None, TIME_UNIT_KEY: "s", UNITS_KEY: "norm",
               Y_UP_KEY: True}
    return notes.store(df.copy(), src), mapping




# --- GazeBase ------------------------------------------------------------------------------------

_GAZEBASE = {"n", "x", "y", "val", "dp", "lab", "xt", "yt"}


def _gazebase_detect(df_or_header: Any) -> bool:
    """Columns -> whether they are a GazeBase recording (n, x, y, val, dP, lab, xT, yT)."""
    return _GAZEBASE <= set(_keys(df_or_header))


def _gazebase_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """GazeBase recording -> (invalid samples blanked, gaze mapping: ms clock, degrees with y up)."""
    notes = _Notes(df)
    keys = _keys(df)
    src = df
    df = df.copy()
    val = _num(df, keys["val"])
    bad = np.isfinite(val) & (val != 0)
    x, y = _num(df, keys["x"]), _num(df, keys["y"])
    notes.add("invalid_validity", int((bad & (np.isfinite(x) | np.isfinite(y))).sum()),
              "{n} samples flagged invalid (val ≠ 0) were set to missing.")
    df["GAZE_X"], df["GAZE_Y"] = np.where(bad, np.nan, x), np.where(bad, np.nan, y)
    mapping: Mapping = {"participant": WHOLE_FILE, "t_s": keys["n"], "x": "GAZE_X", "y": "GAZE_Y",
                        "pupil": keys["dp"], "stimulus": None, TIME_UNIT_KEY: "ms", UNITS_KEY: "deg",
                        Y_UP_KEY: True}
    return notes.store(df, src), mapping
