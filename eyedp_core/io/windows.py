"""Feature windows from a recording: the table Time series and Attacks use, from gaze samples or fixations.

`features_from_table(table, geometry, window_s, step_s)` turns a canonical gaze or fixation table into one row per
window of each recording: `participant`, `recording` (the key the attacks know), `window`, `t_start_s`,
`window_s` (the window length, a column so that it survives `pd.concat` and file round trips, where frame
metadata is dropped), one float column per feature (gaze.feature_specs), and the participants' attributes as text
labels when a participants table is given. attacks.prepare reads the window length from that column, so the honest
gap between training and test parts is right without passing it again; `attrs` keeps it too, with the step.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

import numpy as np
import pandas as pd

from eyedp_core.gaze.contributions import RECORDING_SPLITS
from eyedp_core.gaze.features import window_features
from eyedp_core.gaze.geometry import PRESETS, Geometry
from eyedp_core.io.errors import DataError
from eyedp_core.io.person_column import PersonColumn, with_person_column
from eyedp_core.io.steps import Step, StepReport

__all__ = ["WindowSettings", "add_participants", "features_from_table",
           "suggested_window_s"]

# Columns of a gaze or fixation table that split it into recordings (besides the participant), in key order: the
# one definition every per-person count uses.
_SPLIT_COLUMNS = RECORDING_SPLITS


@dataclass(frozen=True)
class WindowSettings:
    """Window length and step in seconds (step None: windows do not overlap)."""

    window_s: float = 30.0
    step_s: float | None = None

    def step(self) -> float:
        """-> the step in seconds (the window length when none was given)."""
        return float(self.window_s if self.step_s is None else self.step_s)


def _canonical(table: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Gaze or fixation table -> (the table window_features reads, "gaze" or "fixations")."""
    t = table.reset_index(drop=True)
    t = with_person_column(t, PersonColumn.PARTICIPANT)
    if "duration_ms" in t.columns and {"x", "y"} <= set(t.columns):
        return t, "fixations"
    if {"t_s", "x", "y"} <= set(t.columns):
        return t, "gaze"
    raise DataError("feature windows are made from gaze samples (t_s, x, y) or fixations (x, y, duration_ms); "
                    f"this table has {', '.join(map(str, t.columns))}.", expected="a gaze or fixation table")


def features_from_table(table: pd.DataFrame, geometry: Geometry | None, window_s: float,
                        step_s: float | None = None, *, source: str = "the recording",
                        participants: pd.DataFrame | None = None) -> pd.DataFrame:
    """Canonical gaze or fixation table, screen geometry (None: a 24" 1920 × 1080 screen at 60 cm), window
    length and step in s -> feature table (participant, recording, window, t_start_s, window_s, features[,
    labels]).

    One recording is one participant's rows sharing task / session / recording / stimulus / trial; its key
    (those values joined by " / ", else the source's name) is the `recording` column. DataError when no
    recording is as long as one window."""
    settings = WindowSettings(float(window_s), None if step_s is None else float(step_s))
    if not (np.isfinite(settings.window_s) and settings.window_s > 0 and settings.step() > 0):
        raise DataError(f"window length and step must be positive seconds, got {window_s!r} and {step_s!r}.",
                        file=source, expected="positive seconds")
    t, kind = _canonical(table)
    if "participant" not in t.columns:
        raise DataError("the table has no participant column.", file=source, column="participant")
    t["participant"] = t["participant"].astype(str)
    splits = [c for c in _SPLIT_COLUMNS if c in t.columns]
    for c in splits:
        t[c] = t[c].astype(str)
    geo = geometry if geometry is not None else PRESETS["desktop_24"]
    out = window_features(t, settings.window_s, settings.step(), geo, group_cols=["participant", *splits])
    name = PurePath(source).name
    step = StepReport(Step.WINDOWS, name, len(t), len(out), what="feature windows")
    if out.empty:
        span = _longest_recording_s(t, kind, ["participant", *splits])
        raise DataError(step.message(
            f"no recording is as long as one window of {settings.window_s:g} s (the longest lasts {span:.3g} s). "
            "Choose a shorter window."), file=source, expected=f"recordings of at least {settings.window_s:g} s")
    n_all = t.groupby(["participant", *splits], sort=False).ngroups
    n_made = out.groupby(["participant", *splits], sort=False).ngroups
    if "recording" not in splits:
        keys = [c for c in splits if c not in ("task", "session")]
        out["recording"] = (out[keys].astype(str).agg(" / ".join, axis=1) if keys else name)
    # Stimulus and trial are in the recording key; a numeric trial would otherwise count as a feature.
    out = out.drop(columns=[c for c in ("trial",) if c in out.columns and c != "recording"])
    out["window_s"] = settings.window_s
    lead = ["participant", *[c for c in _SPLIT_COLUMNS if c != "trial" and c in out.columns]]
    tail = [c for c in out.columns if c not in lead and c != "window_s"]
    at = tail.index("t_start_s") + 1 if "t_start_s" in tail else 0
    out = out[[*lead, *tail[:at], "window_s", *tail[at:]]]
    if participants is not None:
        out = add_participants(out, participants, source)
    # Recordings shorter than one window give no rows: counted, so the page can say what was left out.
    out.attrs.update({"window_s": settings.window_s, "step_s": settings.step(), "source": name,
                      "recordings_too_short": n_all - n_made,
                      "made_by": step.prefix() + f": windows of {settings.window_s:g} s every {settings.step():g} s "
                                                 f"from the {kind}"})
    return out


def suggested_window_s(table: pd.DataFrame) -> float:
    """Gaze or fixation table -> a window length in s that most recordings hold four times: a quarter of the median
    recording's length, between 0.5 and 30 s (Steil et al.'s windows), rounded to 0.5 s. With a step of half a
    window that gives about 7 windows per recording, enough to split one for re-identification with the honest
    gap of 2 windows between its parts."""
    t, kind = _canonical(table)
    if "participant" not in t.columns or t.empty:
        return 30.0
    groups = ["participant", *[c for c in _SPLIT_COLUMNS if c in t.columns]]
    if kind == "gaze":
        g = t.groupby(groups, sort=False)["t_s"]
        spans = (g.max() - g.min()).to_numpy(float)
    elif "t_start_s" in t.columns:
        g = t.assign(_end=t["t_start_s"] + t["duration_ms"] / 1000.0).groupby(groups, sort=False)
        spans = (g["_end"].max() - g["t_start_s"].min()).to_numpy(float)
    else:
        spans = (t.groupby(groups, sort=False)["duration_ms"].sum() / 1000.0).to_numpy(float)
    spans = spans[np.isfinite(spans)]
    if not spans.size:
        return 30.0
    return float(min(30.0, max(0.5, round(float(np.median(spans)) / 4 * 2) / 2)))


def _longest_recording_s(t: pd.DataFrame, kind: str, groups: list[str]) -> float:
    if kind == "gaze":
        g = t.groupby(groups, sort=False)["t_s"]
        return float((g.max() - g.min()).max()) if len(t) else 0.0
    start = t["t_start_s"] if "t_start_s" in t.columns else None
    if start is None:
        return float(t.groupby(groups, sort=False)["duration_ms"].sum().max() / 1000.0) if len(t) else 0.0
    g = t.assign(_end=start + t["duration_ms"] / 1000.0).groupby(groups, sort=False)
    return float((g["_end"].max() - g["t_start_s"].min()).max())


def _id_key(name: str) -> str:
    """Participant name -> the form both tables are matched on: a number written with leading zeros ("007", as a
    recording names it) is the number a spreadsheet keeps ("7")."""
    text = str(name).strip()
    return str(int(text)) if text.isdigit() else text


def add_participants(features: pd.DataFrame, participants: pd.DataFrame, source: str = "the feature table"
                     ) -> pd.DataFrame:
    """Feature table and participants table (io.read_participants) -> the feature table with each attribute as a
    text label column; DataError when no participant of the features is in the participants table."""
    if "participant" not in participants.columns:
        raise DataError("the participants table has no 'participant' column.", expected="io.read_participants")
    labels = participants.copy()
    labels["participant"] = labels["participant"].astype(str).map(_id_key)
    have = set(features["participant"].astype(str))
    known = {p for p in have if _id_key(p) in set(labels["participant"])}
    if not known:
        raise DataError(f"none of the {len(have)} participants of {source} (e.g. {sorted(have)[0]!r}) is in the "
                        f"participants table {participants.attrs.get('source', '')} (e.g. "
                        f"{labels['participant'].iloc[0]!r}). Give the same participant names in both.".replace(
                            " table  (", " table ("), file=participants.attrs.get("source"),
                        column="participant", expected="the feature table's participant names")
    attrs = [c for c in labels.columns if c != "participant"]
    clash = [c for c in attrs if c in features.columns]
    if clash:
        raise DataError(f"the feature table already has the column(s) {clash}.",
                        file=participants.attrs.get("source"), expected="new attribute names")
    for c in attrs:  # labels, never features: an attack predicts them
        labels[c] = labels[c].astype(object)
    keyed = features.assign(_id=features["participant"].astype(str).map(_id_key))
    out = keyed.merge(labels.rename(columns={"participant": "_id"}), on="_id", how="left",
                      validate="many_to_one").drop(columns="_id")
    out.attrs = dict(features.attrs)
    out.attrs["participants_unmatched"] = sorted(have - known)
    return out
