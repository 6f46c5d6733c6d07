"""A feature table made ready for the attacks: recordings, window positions, features, labels, window overlap.

One row of a feature table is one window of one recording. A *recording* is one participant reading one
document (or doing one task): the rows sharing `participant` and, when present, `task`, `session` and
`recording`. Rows are ordered within a recording by `window`, else by `t_start_s`, else as given.

The window overlap decides the honest gap between the parts of a recording used for training and for
testing a re-identification attack: with windows of `window_s` seconds every `step_s` seconds, two windows
share samples unless they start at least `window_s` apart, so the gap is ⌈window_s / step_s⌉ windows.
Without `t_start_s` the rows are taken to be non-overlapping (the gap is then one row), and the table
says so in its notes.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from eyedp_core.gaze.contributions import RECORDING_SPLITS
from eyedp_core.gaze.feature_specs import DEFAULT_WINDOW_S, FEATURE_NAMES

__all__ = ["AttackTable", "RECORDING_KEYS", "ROLE_COLUMNS", "WINDOW_COLUMN", "label_columns", "numeric_features",
           "prepare", "window_length"]

# Columns that identify a recording (besides `participant`), in this order when present: the recording splits
# without stimulus and trial, because a feature table's `recording` column already names them (io.windows folds
# them into it) and `stimulus` stays a label column an attack may predict, not a split.
RECORDING_KEYS: tuple[str, ...] = tuple(c for c in RECORDING_SPLITS if c not in {"stimulus", "trial"})
# Columns that are never features.
ROLE_COLUMNS: tuple[str, ...] = ("participant", "window", "t_start_s", "window_s", "step_s", "gender", *RECORDING_KEYS)
# The column that carries the window length (io.windows writes it; frame metadata is lost by pd.concat).
WINDOW_COLUMN = "window_s"


def numeric_features(table: pd.DataFrame, features: Sequence[str] | None = None) -> list[str]:
    """Feature table [, wanted names] -> the numeric feature columns to use (not roles, not all missing)."""
    if features is not None:
        missing = [c for c in features if c not in table.columns]
        if missing:
            raise ValueError(f"the table has no feature column(s) {missing}")
        names = list(features)
    else:
        known = [c for c in FEATURE_NAMES if c in table.columns]
        rest = [c for c in table.columns if c not in known and c not in ROLE_COLUMNS]
        names = known + [c for c in rest if pd.api.types.is_numeric_dtype(table[c].dtype)
                         and not pd.api.types.is_bool_dtype(table[c].dtype)]
    out = []
    for c in names:
        values = pd.to_numeric(table[c], errors="coerce").to_numpy(float)
        if np.isfinite(values).any():
            out.append(str(c))
    return out


def label_columns(table: pd.DataFrame) -> list[str]:
    """Feature table -> the columns an attack can predict: task and gender first, then every text column."""
    out = [c for c in ("task", "gender") if c in table.columns]
    for c in table.columns:
        if c in out or c in ("participant", "window", "t_start_s"):
            continue
        if not pd.api.types.is_numeric_dtype(table[c].dtype) or pd.api.types.is_bool_dtype(table[c].dtype):
            out.append(str(c))
    return out


@dataclass(frozen=True, eq=False)
class AttackTable:
    """A feature table sorted by recording and window, with everything the attacks need as arrays.

    frame: the sorted table (index 0..n-1); x: (rows, features) clean feature values (NaN allowed);
    rec: recording number of every row; pos: window position inside its recording (0, 1, ...); pid: participant
    number of every row;
    lengths: windows per recording; rec_participant: participant of every recording;
    gap_windows: windows between the training and test parts that keep them free of shared samples.
    """

    frame: pd.DataFrame
    features: tuple[str, ...]
    x: np.ndarray
    rec_keys: tuple[str, ...]
    rec: np.ndarray
    pos: np.ndarray
    lengths: np.ndarray
    rec_participant: np.ndarray
    participants: tuple[str, ...]
    pid: np.ndarray  # participant of every row as an index into `participants`
    labels: tuple[str, ...]
    step_s: float | None
    window_s: float
    gap_windows: int
    notes: tuple[str, ...] = field(default=())

    @property
    def n_participants(self) -> int:
        """Number of distinct participants."""
        return len(self.participants)

    @property
    def n_recordings(self) -> int:
        """Number of recordings (participant × task/session)."""
        return int(self.lengths.size)


    def column(self, name: str) -> np.ndarray:
        """Column name -> its values per row (participant as text)."""
        if name not in self.frame.columns:
            raise ValueError(f"the table has no column {name!r}")
        return self.frame[name].to_numpy()


def window_length(table: pd.DataFrame, window_s: float | None = None) -> tuple[float, str]:
    """Feature table [, explicit length] -> (window length in s, where it came from): the argument, else the
    `window_s` column (one value for the whole table), else attrs["window_s"], else Steil et al.'s 30 s.
    ValueError when the column holds several lengths or a value that is not a positive number of seconds."""
    if window_s is not None:
        w, where = float(window_s), "given"
    elif WINDOW_COLUMN in table.columns:
        values = pd.to_numeric(table[WINDOW_COLUMN], errors="coerce").dropna().unique()
        if values.size > 1:
            raise ValueError(f"the feature table mixes windows of {', '.join(f'{v:g}' for v in sorted(values))} s "
                             f"(column '{WINDOW_COLUMN}'): make all its parts with one window length")
        if values.size == 0:
            raise ValueError(f"the column '{WINDOW_COLUMN}' holds no number: give the window length in seconds")
        w, where = float(values[0]), "column"
    elif "window_s" in table.attrs:
        w, where = float(table.attrs["window_s"]), "attrs"
    else:
        return float(DEFAULT_WINDOW_S), "default"
    if not (math.isfinite(w) and w > 0):
        raise ValueError(f"the window length must be a positive number of seconds, got {w!r}")
    return w, where


def _order_column(t: pd.DataFrame) -> str | None:
    for c in ("window", "t_start_s"):
        if c in t.columns and pd.to_numeric(t[c], errors="coerce").notna().all():
            return c
    return None


def prepare(table: pd.DataFrame, *, features: Sequence[str] | None = None,
            window_s: float | None = None) -> AttackTable:
    """Feature table [, feature names, window length s] -> AttackTable; ValueError with a plain message if unusable.

    window_s: length of one window in seconds (default: the table's `window_s` column, else its
    attrs["window_s"], else 30 s as in Steil et al.); only used with a `t_start_s` column to find how many
    windows overlap.
    """
    if not isinstance(table, pd.DataFrame) or table.empty:
        raise ValueError("the feature table is empty")
    if "participant" not in table.columns:
        raise ValueError("the feature table needs a 'participant' column")
    t = table.copy()
    t["participant"] = t["participant"].astype(str)
    feats = numeric_features(t, features)
    if not feats:
        raise ValueError("the feature table has no numeric feature column")
    keys = ("participant", *[c for c in RECORDING_KEYS if c in t.columns])
    for c in keys[1:]:
        t[c] = t[c].astype(str)
    order = _order_column(t)
    sort_cols = list(keys) + ([order] if order else [])
    t = t.reset_index(drop=True)
    t["_row"] = np.arange(len(t))
    t = t.sort_values(sort_cols + ["_row"], kind="stable").reset_index(drop=True).drop(columns="_row")
    codes = t.groupby(list(keys), sort=False).ngroup().to_numpy()
    # Recording codes in sorted order are non-decreasing: positions are offsets from each start.
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    lengths = np.diff(np.r_[starts, len(t)])
    rec = np.repeat(np.arange(lengths.size), lengths)
    pos = np.arange(len(t)) - starts[rec]
    rec_participant = t["participant"].to_numpy()[starts]
    x = np.array(t[feats].apply(pd.to_numeric, errors="coerce").to_numpy(float), dtype=float, copy=True)
    x[~np.isfinite(x)] = np.nan

    notes: list[str] = []
    w, where = window_length(table, window_s)
    step = None
    if "t_start_s" in t.columns:
        ts = pd.to_numeric(t["t_start_s"], errors="coerce").to_numpy(float)
        d = np.diff(ts)
        same = rec[1:] == rec[:-1]
        d = d[same & np.isfinite(d) & (d > 0)]
        step = float(np.median(d)) if d.size else None
    if step is None:
        gap = 1
        notes.append("no window start times (t_start_s): rows are taken to be non-overlapping windows, so the "
                     "honest gap between training and test parts is one row")
    else:
        gap = max(1, math.ceil(w / step - 1e-9))
        if where == "default":
            notes.append(f"window length taken as {w:g} s (Steil et al.); windows start every {step:g} s, so the "
                         f"honest gap is {gap} windows")
    participants, pid = np.unique(t["participant"].to_numpy().astype(str), return_inverse=True)
    return AttackTable(frame=t, features=tuple(feats), x=x, rec_keys=keys, rec=rec, pos=pos, lengths=lengths,
                       rec_participant=rec_participant, participants=tuple(participants.tolist()), pid=pid,
                       labels=tuple(label_columns(t)), step_s=step, window_s=w, gap_windows=int(gap),
                       notes=tuple(notes))
