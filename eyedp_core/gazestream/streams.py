"""Raw gaze streams in, checked streams out: plain messages for every problem, never a traceback.

A *stream* is the samples of one participant on one stimulus/task/recording, in time order. Uploaded or
real recordings come with problems the privacy methods cannot run on; `prepare_streams` fixes what can be
fixed without guessing and says what it did, per participant:

* timestamps out of order -> sorted (stable), with the first offending row named;
* duplicated timestamps -> the first sample of each time kept;
* missing timestamps -> the row dropped;
* NaN gaze (blinks, tracking loss) -> kept as gaps (every method treats them explicitly);
* positions far off the screen (more than `far` screen sizes beyond an edge: a unit or export error, not
  a glance past the edge) -> set to NaN, counted;
* a participant with fewer than `min_samples` samples (e.g. one sample: no time axis at all) -> left out,
  with the reason; if nobody is left, `StreamError` explains what a usable table needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from eyedp_core.gaze.contributions import RECORDING_SPLITS

__all__ = ["GROUP_COLUMNS", "Note", "PreparedStreams", "StreamError", "prepare_streams", "stream_columns",
           "selection_column"]

# Columns that split one participant's samples into separate streams: one stream per recording, the groups
# every per-person count composes over (a session never continues another session's stream).
GROUP_COLUMNS: tuple[str, ...] = ("participant", *RECORDING_SPLITS)
# The column that names what was looked at (the "selection class" of k-same-select), in order of preference:
# the stimulus first (it names the image itself), then the other splits in key order; a session names when,
# not what, so it never is a selection class.
SELECTION_COLUMNS: tuple[str, ...] = tuple(sorted((c for c in RECORDING_SPLITS if c != "session"),
                                                  key=lambda c: c != "stimulus"))
MIN_SAMPLES = 3


class StreamError(ValueError):
    """A gaze table the samples view cannot use at all; str() is the plain message for the page."""


@dataclass(frozen=True)
class Note:
    """One finding about the input: level ("error" | "warning" | "info"), who it concerns, plain text."""

    level: str
    participant: str
    text: str


@dataclass(frozen=True)
class PreparedStreams:
    """Checked samples (sorted, de-duplicated, far off-screen samples set to NaN) and what was done."""

    frame: pd.DataFrame
    notes: tuple[Note, ...]
    excluded: dict[str, str] = field(default_factory=dict)
    rate_hz: float = float("nan")

    @cached_property  # the Protect view asks on every slider move; the frame never changes
    def participants(self) -> list[str]:
        """Participants with a usable stream, sorted."""
        return sorted(self.frame["participant"].astype(str).unique()) if len(self.frame) else []


def stream_columns(frame: pd.DataFrame) -> list[str]:
    """Table -> the grouping columns present that split it into streams (participant first)."""
    return [c for c in GROUP_COLUMNS if c in frame.columns]


def selection_column(frame: pd.DataFrame) -> str | None:
    """Table -> the column naming the stimulus/task (k-same-select classes), or None when there is one."""
    return next((c for c in SELECTION_COLUMNS if c in frame.columns), None)


def _example(t_prev: float, t_now: float, row: object) -> str:
    return f"row {row}: t = {t_now:.4f} s after t = {t_prev:.4f} s"


def _numeric(frame: pd.DataFrame, notes: list[Note]) -> pd.DataFrame:
    """Raw table -> a copy with a participant column (one "all" if absent) and float t_s, x, y; unreadable values
    become missing, with a note."""
    df = frame.copy()
    if "participant" not in df.columns:
        df.insert(0, "participant", "all")
    df["participant"] = df["participant"].astype(str)
    for col in ("t_s", "x", "y"):
        vals = pd.to_numeric(df[col], errors="coerce")
        bad = vals.isna() & df[col].notna()
        if bad.any():
            who = str(df.loc[bad.idxmax(), "participant"])
            notes.append(Note("warning", who, f"{int(bad.sum())} value(s) of {col} are not numbers "
                                              f"(first at row {bad.idxmax()}: {df.loc[bad.idxmax(), col]!r}); "
                                              "treated as missing."))
        df[col] = vals.astype(float)
    df["_row"] = np.arange(len(df))
    return df


def _in_time_order(df: pd.DataFrame, notes: list[Note]) -> pd.DataFrame:
    """Numeric table -> samples with a timestamp, sorted by time within each stream (`_code`), the first of each
    repeated time kept; each fix noted."""
    keys = stream_columns(df)
    no_t = ~np.isfinite(df["t_s"].to_numpy())
    if no_t.any():
        for who, n in df.loc[no_t, "participant"].value_counts().items():
            notes.append(Note("warning", str(who), f"{n} sample(s) without a timestamp were dropped."))
        df = df.loc[~no_t]

    # Order problems are reported on the order as uploaded, then fixed by a stable sort.
    codes = df.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    t = df["t_s"].to_numpy()
    same = np.r_[False, codes[1:] == codes[:-1]]
    step = np.r_[np.inf, np.diff(t)]
    back = same & (step < 0)
    if back.any():
        for who in pd.unique(df["participant"].to_numpy()[back]):
            mask = back & (df["participant"].to_numpy() == who)
            i = int(np.flatnonzero(mask)[0])
            notes.append(Note("warning", str(who),
                              f"{int(mask.sum())} sample(s) were out of time order ("
                              f"{_example(t[i - 1], t[i], df.index[i])}); the samples were sorted by time."))
    df = df.assign(_code=codes).sort_values(["_code", "t_s"], kind="mergesort")
    t = df["t_s"].to_numpy()
    codes = df["_code"].to_numpy()
    dup = np.r_[False, (codes[1:] == codes[:-1]) & (t[1:] == t[:-1])]
    if dup.any():
        for who in pd.unique(df["participant"].to_numpy()[dup]):
            mask = dup & (df["participant"].to_numpy() == who)
            i = int(np.flatnonzero(mask)[0])
            notes.append(Note("warning", str(who),
                              f"{int(mask.sum())} duplicated timestamp(s) (first t = {t[i]:.4f} s at row "
                              f"{df.index[i]}); the first sample of each time was kept."))
        df = df.loc[~dup]
    return df


def _far_off_screen(df: pd.DataFrame, width_px: float, height_px: float, far: float, notes: list[Note]) -> None:
    """Gaze more than `far` screen sizes off the screen -> missing gaze (in place), with a note per person."""
    x, y = df["x"].to_numpy(), df["y"].to_numpy()
    far_mask = ((x < -far * width_px) | (x > (1 + far) * width_px)
                | (y < -far * height_px) | (y > (1 + far) * height_px))
    if far_mask.any():
        for who in pd.unique(df["participant"].to_numpy()[far_mask]):
            mask = far_mask & (df["participant"].to_numpy() == who)
            i = int(np.flatnonzero(mask)[0])
            notes.append(Note("warning", str(who),
                              f"{int(mask.sum())} sample(s) lie far off the {width_px:g} × {height_px:g} px screen "
                              f"(e.g. x = {x[i]:.6g}, y = {y[i]:.6g} at t = {df['t_s'].to_numpy()[i]:.3f} s); "
                              "treated as missing gaze. Check the pixel units and the screen size."))
        df.loc[far_mask, ["x", "y"]] = np.nan


def _too_short(df: pd.DataFrame, min_samples: int, notes: list[Note]) -> dict[str, str]:
    """Participant -> why they are left out, for those with fewer than `min_samples` samples with gaze; the
    others' gaps are noted."""
    valid = np.isfinite(df["x"].to_numpy()) & np.isfinite(df["y"].to_numpy())
    per = pd.DataFrame({"participant": df["participant"].to_numpy(), "valid": valid})
    counts = per.groupby("participant")["valid"].agg(["size", "sum"])
    excluded: dict[str, str] = {}
    for who, row in counts.iterrows():
        n, nv = int(row["size"]), int(row["sum"])
        if n < min_samples or nv < min_samples:
            what = f"only {n} sample{'s' if n != 1 else ''}" if n < min_samples else f"only {nv} with gaze"
            excluded[str(who)] = (f"participant {who} has {what}: a stream needs at least {min_samples} samples "
                                  "with gaze to have a time axis, events and a protected version; left out.")
        elif nv < n:
            notes.append(Note("info", str(who), f"{n - nv} of {n} samples ({(n - nv) / n:.1%}) have no gaze "
                                                "(blinks or tracking loss); kept as gaps."))
    for who, why in excluded.items():
        notes.append(Note("error", who, why))
    return excluded


def prepare_streams(frame: pd.DataFrame, *, width_px: float, height_px: float, far: float = 1.0,
                    min_samples: int = MIN_SAMPLES) -> PreparedStreams:
    """Raw gaze table (participant?, t_s, x, y, ...) and screen size -> PreparedStreams with notes.

    Raises StreamError when required columns are missing or no participant has a usable stream.
    """
    if frame is None or len(frame) == 0:
        raise StreamError("The gaze table is empty: it needs rows of participant, t_s (seconds), x and y (pixels).")
    missing = [c for c in ("t_s", "x", "y") if c not in frame.columns]
    if missing:
        raise StreamError(f"The gaze table lacks the column(s) {missing}; it has {list(frame.columns)}. "
                          "Map them on the Your data page (time in s/ms/µs, positions in screen pixels).")
    notes: list[Note] = []
    df = _in_time_order(_numeric(frame, notes), notes)
    _far_off_screen(df, width_px, height_px, far, notes)
    excluded = _too_short(df, min_samples, notes)
    df = df[~df["participant"].isin(list(excluded))]
    if df.empty:
        raise StreamError("No participant has a usable gaze stream: "
                          + " ".join(excluded.values()) if excluded else "No usable samples.")
    t = df["t_s"].to_numpy()
    codes = df["_code"].to_numpy()
    steps = np.diff(t)[codes[1:] == codes[:-1]]
    rate = float(1.0 / np.median(steps)) if steps.size else float("nan")
    out = df.drop(columns=["_code", "_row"]).reset_index(drop=True)
    return PreparedStreams(out, tuple(notes), excluded, rate)
