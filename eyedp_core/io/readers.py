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

from typing import Any

import pandas as pd

from eyedp_core.io.reader_base import DEFAULT_MIN_CONFIDENCE, Mapping, Reader, key
from eyedp_core.io.roles import guess_mapping
from eyedp_core.io.vendor_eyelink import (
    _eyelink_detect,
    _eyelink_fix_detect,
    _eyelink_fix_to_canonical,
    _eyelink_to_canonical,
)
from eyedp_core.io.vendor_pupil import (
    _gazebase_detect,
    _gazebase_to_canonical,
    _pupil_labs_detect,
    _pupil_labs_fix_detect,
    _pupil_labs_fix_to_canonical,
    _pupil_labs_to_canonical,
)
from eyedp_core.io.vendor_tobii import (
    _TOBII_FIX_X,
    _TOBII_FIX_Y,
    _TOBII_TIME,
    _TOBII_X,
    _TOBII_Y,
    TOBII_PUPIL_COLUMN,
    _tobii_detect,
    _tobii_fix_detect,
    _tobii_fix_to_canonical,
    _tobii_to_canonical,
    tobii_fixations,
)

# Other io modules and the pages import these from here: the registry is this module's public face.
__all__ = ["DEFAULT_MIN_CONFIDENCE", "READERS", "TOBII_PUPIL_COLUMN", "Mapping", "Reader", "detect_reader", "key",
           "register_reader", "tobii_fixations"]

READERS: dict[str, Reader] = {}


def register_reader(reader: Reader, replace: bool = False) -> None:
    """Reader -> added to READERS (ValueError if the name is taken and replace is False)."""
    if reader.name in READERS and not replace:
        raise ValueError(f"a reader named {reader.name!r} is already registered")
    READERS[reader.name] = reader


# --- generic -------------------------------------------------------------------------------------

def _generic_detect(df_or_header: Any) -> bool:
    """Anything -> True: the generic reader accepts every table."""
    return True


def _generic_to_canonical(df: pd.DataFrame) -> tuple[pd.DataFrame, Mapping]:
    """Table -> (the same table, the guessed gaze mapping)."""
    return df, guess_mapping(df, "gaze")


_TOBII_WHO = ("Participant name", ("participantname",))
register_reader(Reader("tobii", "Tobii Studio / Pro Lab export", _tobii_detect, _tobii_to_canonical, needs=(
    _TOBII_WHO, ("Recording timestamp", _TOBII_TIME), ("Gaze point X", _TOBII_X), ("Gaze point Y", _TOBII_Y))))
register_reader(Reader("tobii_fixations", "Tobii Studio / Pro Lab fixation export", _tobii_fix_detect,
                       _tobii_fix_to_canonical, kind="fixations", needs=(
                           _TOBII_WHO, ("Fixation point X", _TOBII_FIX_X), ("Fixation point Y", _TOBII_FIX_Y))))
register_reader(Reader("eyelink", "EyeLink Data Viewer sample report", _eyelink_detect,
                       _eyelink_to_canonical, needs=(
                           ("TIMESTAMP", ("timestamp", "time", "sampletime")),
                           ("AVERAGE_GAZE_X, LEFT_GAZE_X or RIGHT_GAZE_X",
                            ("averagegazex", "leftgazex", "rightgazex")))))
register_reader(Reader("eyelink_fixations", "EyeLink Data Viewer fixation report", _eyelink_fix_detect,
                       _eyelink_fix_to_canonical, kind="fixations",
                       needs=(("CURRENT_FIX_X", ("currentfixx",)), ("CURRENT_FIX_Y", ("currentfixy",)))))
register_reader(Reader("pupil_labs", "Pupil Labs (Player / surface / Cloud) gaze export", _pupil_labs_detect,
                       _pupil_labs_to_canonical, needs=(
                           ("gaze_timestamp (Player) or timestamp [ns] (Cloud)", ("gazetimestamp", "timestampns")),
                           ("norm_pos_x, x_norm or gaze x [px]", ("normposx", "xnorm", "gazexpx")))))
register_reader(Reader("pupil_labs_fixations", "Pupil Labs (Player / surface / Cloud) fixation export",
                       _pupil_labs_fix_detect, _pupil_labs_fix_to_canonical, kind="fixations", needs=(
                           ("start_timestamp (Player) or start timestamp [ns] (Cloud)",
                            ("starttimestamp", "starttimestampns")),
                           ("norm_pos_x, x_norm or fixation x [px]", ("normposx", "xnorm", "fixationxpx")))))
register_reader(Reader("gazebase", "GazeBase recording (degrees)", _gazebase_detect, _gazebase_to_canonical,
                       geometry_preset="gazebase",
                       needs=tuple((name, (key(name),)) for name in ("n", "x", "y", "val", "dP"))))
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
