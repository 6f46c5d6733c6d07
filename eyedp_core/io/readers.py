"""Registry of readers that recognise an eye tracker's export and map it to the canonical roles.

A reader has `detect(df_or_header) -> bool` (a DataFrame or just its column names) and
`to_canonical(df, **options) -> (df, mapping)`: the frame, cleaned (signal loss and vendor validity codes
set to missing, event rows and trailer rows dropped, derived columns such as the mean of two pupils added)
and a mapping ready for `io.apply_mapping(df, mapping, reader.kind, filename)`. What a reader dropped or
blanked is counted in `df.attrs["counts"]` and explained in `df.attrs["warnings"]`; apply_mapping carries
both over. `detect_reader` returns the first specific reader that recognises the table, else "generic".

Formats (column names as the vendors document them):
* Tobii Studio and Tobii Pro Lab sample exports (TSV/CSV, either decimal separator), and their fixation
  exports (one row per fixation, or per sample with a fixation index: collapsed to one row per fixation);
* EyeLink Data Viewer sample and fixation reports (RECORDING_SESSION_LABEL, TIMESTAMP, *_GAZE_X,
  CURRENT_FIX_*; '.' is a missing value);
* Pupil Labs: Pupil Player gaze_positions.csv / fixations.csv (normalised coordinates, origin bottom-left,
  confidence 0-1), surface-mapped gaze and fixations (x_norm/y_norm, on_surf), Pupil Cloud gaze.csv /
  fixations.csv (scene-camera pixels, nanosecond clock, worn and blink id);
* GazeBase recordings (n in ms, x/y in degrees with y up, val = 0 valid);
* the generic reader: any table, columns guessed by name.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError, DataWarning
from eyedp_core.io.roles import TIME_UNIT_KEY, UNITS_KEY, WHOLE_FILE, Y_UP_KEY, guess_mapping, guess_time_unit

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

    def convert(self, df: pd.DataFrame, **options: Any) -> tuple[pd.DataFrame, Mapping]:
        """Table and options (e.g. min_confidence) -> (cleaned table, mapping); unknown options ignored."""
        accepted = inspect.signature(self.to_canonical).parameters
        return self.to_canonical(df, **{k: v for k, v in options.items() if k in accepted})


READERS: dict[str, Reader] = {}


def register_reader(reader: Reader, replace: bool = False) -> None:
    """Reader -> added to READERS (ValueError if the name is taken and replace is False)."""
    if reader.name in READERS and not replace:
        raise ValueError(f"a reader named {reader.name!r} is already registered")
    READERS[reader.name] = reader


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


# --- generic -------------------------------------------------------------------------------------

def _generic_detect(df_or_header: Any) -> bool:
    """Anything -> True: the generic reader accepts every table."""
    return True


def _generic_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Table -> (the same table, the guessed gaze mapping)."""
    return df, guess_mapping(df, "gaze")


def _generic_fixations(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Table -> (the same table, the guessed fixations mapping)."""
    return df, guess_mapping(df, "fixations")


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
    df = _drop_trailer(df, t_col, notes).copy()
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
    frame = pd.DataFrame({"observer": _col(df, who).astype("str").to_numpy(),
                          "stimulus": _col(df, stim).astype("str").to_numpy() if stim else "",
                          "x": _num(df, fx), "y": _num(df, fy), "duration_ms": _num(df, dur),
                          "t": _num(df, t_col) if t_col else np.nan,
                          "index": _num(df, eidx) if eidx else np.arange(len(df), dtype=float),
                          "row": (np.asarray(df.index, dtype=np.int64)
                                  if pd.api.types.is_integer_dtype(df.index)
                                  else np.arange(len(df), dtype=np.int64) + 2)},
                         index=df.index)
    if etype is not None:
        is_fix = _col(df, etype).astype("str").str.lower().eq("fixation")
        frame = frame[is_fix.to_numpy(dtype=bool, na_value=False)]
    frame = frame[np.isfinite(frame["x"].to_numpy()) & np.isfinite(frame["y"].to_numpy())
                  & np.isfinite(frame["index"].to_numpy())]
    if frame.empty:
        return frame.drop(columns=["t", "index", "row"])
    unit = _tobii_time_unit(df, t_col) if t_col else "ms"
    scale = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]
    g = frame.groupby(["observer", "stimulus", "index"], sort=False)
    out = g.agg(x=("x", "first"), y=("y", "first"), duration_ms=("duration_ms", "first"),
                t_start=("t", "min"), t_end=("t", "max"), row=("row", "min"))
    out = out.reset_index()
    out["t_start_s"] = out["t_start"] * scale
    out["t_end_s"] = out["t_end"] * scale
    out.index = pd.Index(out["row"].to_numpy(dtype=np.int64), name="row")
    out = out.drop(columns=["index", "t_start", "t_end", "row"]).sort_index()
    if not np.isfinite(out["t_start_s"]).any():
        out = out.drop(columns=["t_start_s", "t_end_s"])
    if not np.isfinite(out["duration_ms"]).any():
        out = out.drop(columns=["duration_ms"])
    if not stim:
        out = out.drop(columns=["stimulus"])
    return out


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


register_reader(Reader("tobii", "Tobii Studio / Pro Lab export", _tobii_detect, _tobii_to_canonical))
register_reader(Reader("tobii_fixations", "Tobii Studio / Pro Lab fixation export", _tobii_fix_detect,
                       _tobii_fix_to_canonical, kind="fixations"))
register_reader(Reader("eyelink", "EyeLink Data Viewer sample report", _eyelink_detect,
                       _eyelink_to_canonical))
register_reader(Reader("eyelink_fixations", "EyeLink Data Viewer fixation report", _eyelink_fix_detect,
                       _eyelink_fix_to_canonical, kind="fixations"))
register_reader(Reader("pupil_labs", "Pupil Labs (Player / surface / Cloud) gaze export", _pupil_labs_detect,
                       _pupil_labs_to_canonical))
register_reader(Reader("pupil_labs_fixations", "Pupil Labs (Player / surface / Cloud) fixation export",
                       _pupil_labs_fix_detect, _pupil_labs_fix_to_canonical, kind="fixations"))
register_reader(Reader("gazebase", "GazeBase recording (degrees)", _gazebase_detect, _gazebase_to_canonical,
                       geometry_preset="gazebase"))
# The generic reader accepts everything, so it is registered last and detect_reader falls back to it.
register_reader(Reader("generic", "Generic table (map the columns yourself)", _generic_detect,
                       _generic_to_canonical))


def detect_reader(df: Any, kind: str | None = None) -> str:
    """Table (or its column names) -> name of the first specific reader (of `kind`, if given) that
    recognises it, else 'generic'."""
    for name, reader in READERS.items():
        if name == "generic" or (kind is not None and reader.kind != kind):
            continue
        try:
            if reader.detect(df):
                return name
        except (TypeError, ValueError, KeyError):
            continue
    return "generic"
