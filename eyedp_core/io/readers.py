"""Registry of readers that recognise an eye tracker's export and map it to the canonical gaze roles.

A reader has `detect(df_or_header) -> bool` (a DataFrame or just its column names) and
`to_canonical(df) -> (df, mapping)`: the frame, possibly with derived columns (e.g. the mean of two
pupils), and a mapping ready for `io.apply_mapping(df, mapping, "gaze", filename)`. `detect_reader`
returns the first specific reader that recognises the table, else "generic". EyeLink and Pupil Labs
are registered as stubs: they are recognised, and their `to_canonical` raises a DataError saying
they are not supported yet.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.roles import TIME_UNIT_KEY, guess_mapping, guess_time_unit

Mapping = dict[str, Any]


@dataclass(frozen=True)
class Reader:
    """A named export format: how to recognise it and how to map it to canonical gaze columns."""

    name: str
    label: str
    detect: Callable[[Any], bool]
    to_canonical: Callable[[pd.DataFrame], tuple[pd.DataFrame, Mapping]]
    supported: bool = True
    kind: str = "gaze"


READERS: dict[str, Reader] = {}


def register_reader(reader: Reader, replace: bool = False) -> None:
    """Reader -> added to READERS (ValueError if the name is taken and replace is False)."""
    if reader.name in READERS and not replace:
        raise ValueError(f"a reader named {reader.name!r} is already registered")
    READERS[reader.name] = reader


def _keys(df_or_header: Any) -> dict[str, str]:
    """DataFrame or column names -> {lower-case alphanumeric key: original name}."""
    names: Iterable[Any] = df_or_header.columns if isinstance(df_or_header, pd.DataFrame) else df_or_header
    out: dict[str, str] = {}
    for name in names:
        key = re.sub(r"[^a-z0-9]", "", str(name).lower().replace("µ", "u").replace("μ", "u"))
        out.setdefault(key, str(name))
    return out


def _first(keys: dict[str, str], candidates: Iterable[str]) -> str | None:
    """Key map and candidate keys, best first -> the original name of the first present one."""
    return next((keys[k] for k in candidates if k in keys), None)


def _source(df: pd.DataFrame) -> str | None:
    """Frame -> the upload's file name if read_table recorded it."""
    return df.attrs.get("source_file")


# --- generic -------------------------------------------------------------------------------------

def _generic_detect(df_or_header: Any) -> bool:
    """Anything -> True: the generic reader accepts every table."""
    return True


def _generic_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Table -> (the same table, the guessed gaze mapping)."""
    return df, guess_mapping(df, "gaze")


# --- Tobii Studio / Tobii Pro Lab ----------------------------------------------------------------

_TOBII_TIME = ("recordingtimestamp", "recordingtimestampms", "recordingtimestampus")
# Media coordinates (MCS) are pixels of the stimulus image, which is what heatmaps are drawn on;
# screen coordinates (ADCS/DACS) come next.
_TOBII_X = ("gazepointxmcspx", "gazepointx", "gazepointxadcspx", "gazepointxdacspx")
_TOBII_Y = ("gazepointymcspx", "gazepointy", "gazepointyadcspx", "gazepointydacspx")
_TOBII_PUPIL_L = ("pupilleft", "pupildiameterleft", "pupildiameterleftmm")
_TOBII_PUPIL_R = ("pupilright", "pupildiameterright", "pupildiameterrightmm")
_TOBII_STIMULUS = ("medianame", "presentedstimulusname", "stimulus", "imagefile", "image")
TOBII_PUPIL_COLUMN = "PupilMean"


def _tobii_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like a Tobii Studio / Pro Lab gaze export."""
    keys = _keys(df_or_header)
    return ("participantname" in keys and _first(keys, _TOBII_TIME) is not None
            and _first(keys, _TOBII_X) is not None and _first(keys, _TOBII_Y) is not None)


def _tobii_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Tobii export -> (table plus a PupilMean column if pupils exist, gaze mapping with the time unit)."""
    keys = _keys(df)
    t_col = _first(keys, _TOBII_TIME)
    key = re.sub(r"[^a-z0-9]", "", t_col.lower().replace("µ", "u").replace("μ", "u"))
    if key.endswith("us"):
        unit = "us"
    elif key.endswith("ms") or t_col == "RecordingTimestamp":  # Tobii Studio writes ms
        unit = "ms"
    else:
        unit = guess_time_unit(df[t_col], t_col)
    mapping: Mapping = {"participant": keys["participantname"], "t_s": t_col,
                        "x": _first(keys, _TOBII_X), "y": _first(keys, _TOBII_Y), "pupil": None,
                        "stimulus": _first(keys, _TOBII_STIMULUS), TIME_UNIT_KEY: unit}
    left, right = _first(keys, _TOBII_PUPIL_L), _first(keys, _TOBII_PUPIL_R)
    eyes = [c for c in (left, right) if c is not None]
    if eyes:
        pupils = df[eyes].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float, copy=True)
        # Tobii writes -1 (or 0) for an eye it lost; average only the eyes that were measured.
        pupils[pupils <= 0] = np.nan
        counts = np.isfinite(pupils).sum(axis=1)
        mean = np.divide(np.nansum(pupils, axis=1), counts, out=np.full(len(df), np.nan), where=counts > 0)
        df = df.assign(**{TOBII_PUPIL_COLUMN: mean})
        mapping["pupil"] = TOBII_PUPIL_COLUMN
    return df, mapping


# --- stubs ---------------------------------------------------------------------------------------

def _eyelink_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like an EyeLink Data Viewer sample report."""
    keys = _keys(df_or_header)
    gaze = any(re.fullmatch(r"(right|left|average)gazex", k) for k in keys)
    return gaze and ("recordingsessionlabel" in keys or "timestamp" in keys)


def _pupil_labs_detect(df_or_header: Any) -> bool:
    """Columns -> whether they look like a Pupil Player or Pupil Cloud gaze export."""
    keys = _keys(df_or_header)
    player = "gazetimestamp" in keys and "normposx" in keys
    cloud = "timestampns" in keys and "gazexpx" in keys
    return player or cloud


def _stub(label: str, why: str) -> Callable[[pd.DataFrame], tuple[pd.DataFrame, Mapping]]:
    """Format label and reason -> a to_canonical that raises 'not supported yet'."""
    def to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
        """Table -> never returns: DataError saying the format is not supported yet."""
        raise DataError(f"this looks like a {label} export, which is not supported yet ({why}). "
                        "Choose the generic reader and map the columns yourself, or export the samples "
                        "with timestamps and pixel coordinates.", file=_source(df),
                        expected="a supported export format")
    return to_canonical


def unsupported_text_format(head: str) -> str | None:
    """Beginning of a text file -> the name of a known but unsupported format, or None."""
    start = head.lstrip()[:4000]
    if start.startswith("**") and ("CONVERTED FROM" in start or "EYELINK" in start.upper()):
        return "an EyeLink ASC file (converted EDF)"
    if re.search(r"^(MSG|SFIX|EFIX|SSACC|ESACC)\s", start, flags=re.MULTILINE) and "START" in start:
        return "an EyeLink ASC file (converted EDF)"
    return None


register_reader(Reader("tobii", "Tobii Studio / Pro Lab export", _tobii_detect, _tobii_to_canonical))
register_reader(Reader(
    "eyelink", "EyeLink Data Viewer sample report", _eyelink_detect,
    _stub("EyeLink", "per-eye columns, '.' for missing samples and message rows need their own reader"),
    supported=False))
register_reader(Reader(
    "pupil_labs", "Pupil Labs (Player / Cloud) gaze export", _pupil_labs_detect,
    _stub("Pupil Labs", "normalised or scene-camera coordinates and nanosecond clocks need their own reader"),
    supported=False))
# The generic reader accepts everything, so it is registered last and detect_reader falls back to it.
register_reader(Reader("generic", "Generic table (map the columns yourself)", _generic_detect,
                       _generic_to_canonical))


def detect_reader(df: Any) -> str:
    """Table (or its column names) -> name of the first specific reader that recognises it, else 'generic'."""
    for name, reader in READERS.items():
        if name != "generic" and reader.detect(df):
            return name
    return "generic"
