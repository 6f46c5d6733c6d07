"""Time-series view, data side: the feature table checked, its bounds (public or declared) and series at a public T."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.gaze.contributions import contributions
from eyedp_core.gaze.feature_specs import FEATURE_SPECS, feature_bounds
from eyedp_core.timeseries.signals import RECORDING_COLUMNS, feature_columns, feature_tensor
from ui import settings

# Widget keys that depend on the dataset: dropped when the sidebar selection changes.
DATA_KEYS = ("ts_features", "ts_feature", "ts_participant", "ts_task", "ts_length", "ts_length_from_data",
             "ts_bounds_public")
DATA_KEY_PREFIXES = ("ts_lo_", "ts_hi_")
PREFERRED_FEATURE = "sacc_large_ratio"  # the feature Bozkir et al. show in their Figure 1


class SeriesProblem(ValueError):
    """The feature table cannot be turned into time series; str() is the message shown on the page."""


@dataclass(frozen=True)
class TableInfo:
    """What the page needs to know about a feature table before any series is built."""

    features: tuple[str, ...]  # usable numeric feature columns
    excluded: dict[str, str]  # feature -> why it cannot be used
    participants: tuple[str, ...]
    tasks: tuple[str, ...]  # empty when the table has no task column
    data_length: int  # windows in the longest recording
    min_length: int
    n_recordings: int  # most recordings of any one participant (gaze.contributions: counted, not the tasks)
    step_s: float | None  # seconds between windows, None without t_start_s
    notes: tuple[str, ...] = field(default=())  # the upload's own warnings (they name the file)


@dataclass(frozen=True)
class Series:
    """Released features as a read-only tensor (recordings, F, T) at the public length T, with bounds."""

    names: tuple[str, ...]
    lo: np.ndarray
    hi: np.ndarray
    x: np.ndarray
    recs: pd.DataFrame  # participant, [task], length (true windows) per recording row of x
    length: int

    def row(self, participant: str, task: str | None) -> int | None:
        """Participant and task in, the recording's row in x out (None if there is no such recording)."""
        # The recordings table holds strings already (_tensor): compare numpy arrays, no pandas copies per move.
        m = self.recs["participant"].to_numpy() == str(participant)
        if task is not None and "task" in self.recs.columns:
            m &= self.recs["task"].to_numpy() == str(task)
        idx = np.flatnonzero(m)
        return int(idx[0]) if idx.size else None

    def task_rows(self, task: str | None) -> np.ndarray:
        """Task (or None) in, the rows of x of that task (every participant once) out."""
        if task is None or "task" not in self.recs.columns:
            return np.arange(len(self.recs))
        return np.flatnonzero((self.recs["task"].astype(str) == str(task)).to_numpy())


def _order_col(df: pd.DataFrame) -> str:
    """Column that orders the windows of a recording: window, else t_start_s, else file order."""
    return "window" if "window" in df.columns else ("t_start_s" if "t_start_s" in df.columns else "__none__")


def _rec_cols(df: pd.DataFrame) -> list[str]:
    """Columns that identify one recording: participant and, when present, task, session, recording, stimulus
    and trial."""
    return [c for c in RECORDING_COLUMNS if c == "participant" or c in df.columns]


@st.cache_data(max_entries=16, show_spinner=False)
def inspect(token: str, _df: pd.DataFrame) -> TableInfo:
    """Feature table (cached on its token) in, TableInfo out; SeriesProblem with a clear message if unusable."""
    df = _df
    if "participant" not in df.columns:
        raise SeriesProblem("the feature table has no participant column. On the Your data page, choose which "
                            "column names the participant (or '(whole file = one person)').")
    feats = feature_columns(df)
    if not feats:
        raise SeriesProblem("the feature table has no numeric feature columns besides participant, task and "
                            "window. Each feature must be a column of numbers, one row per window.")
    keys = _rec_cols(df)
    groups = df.groupby(keys, sort=False, observed=True)
    sizes = groups.size()
    excluded: dict[str, str] = {}
    finite = df[feats].notna() & np.isfinite(df[feats].astype(float))
    any_per_rec = finite.groupby([df[k] for k in keys], sort=False, observed=True).any()
    for f in feats:
        if not finite[f].any():
            excluded[f] = "has no values at all"
        elif not any_per_rec[f].all():
            bad = any_per_rec.index[~any_per_rec[f].to_numpy()][0]
            who = " / ".join(map(str, bad)) if isinstance(bad, tuple) else str(bad)
            excluded[f] = f"has no values in recording {who}"
    usable = [f for f in feats if f not in excluded]
    if not usable:
        raise SeriesProblem("no feature has values in every recording: " +
                            "; ".join(f"'{k}' {v}" for k, v in excluded.items()) + ".")
    if int(sizes.max()) < 2:
        made_by = df.attrs.get("made_by")
        fix = (f"This table was made by the app ({made_by}): on the Your data page, make feature windows with a "
               "shorter window or step, so that a recording holds at least two." if made_by else
               "Upload one row per window (e.g. 30-s windows every 0.5 s), with the participant column naming the "
               "person, not the window.")
        raise SeriesProblem(f"every recording ({' × '.join(keys)}) has a single window, so there is no time "
                            f"series to protect. {fix}")
    step = None
    if "t_start_s" in df.columns:
        d = df.sort_values([*keys, "t_start_s"]).groupby(keys, sort=False, observed=True)["t_start_s"].diff()
        d = d[np.isfinite(d) & (d > 0)]
        step = float(d.median()) if len(d) else None
    notes = [str(w) for w in df.attrs.get("warnings", [])]
    people = tuple(sorted(map(str, df["participant"].dropna().unique())))
    tasks = tuple(sorted(map(str, df["task"].dropna().unique()))) if "task" in df.columns else ()
    return TableInfo(
        features=tuple(usable), excluded=excluded, participants=people, tasks=tasks,
        data_length=int(sizes.max()), min_length=int(sizes.min()),
        n_recordings=contributions(df, splits=keys[1:]).max_recordings,
        step_s=step, notes=tuple(notes))


def sync_to_data(token: str) -> None:
    """Forget the dataset-dependent widget states when the sidebar switches to another feature table."""
    previous = st.session_state.get("ts_data_token")
    st.session_state["ts_data_token"] = token
    if previous is None or previous == token:  # first visit: keep what a link or a settings file restored
        return
    settings.forget(*[str(k) for k in st.session_state.keys()
                      if k in DATA_KEYS or str(k).startswith(DATA_KEY_PREFIXES)], *DATA_KEYS)


def default_feature(features: tuple[str, ...] | list[str]) -> str:
    """Features on offer in, the one shown first (Bozkir's 'ratio large saccade' when present) out."""
    return PREFERRED_FEATURE if PREFERRED_FEATURE in features else features[0]


def feature_label(name: str) -> str:
    """Feature name in, 'name (unit)' for known features out."""
    spec = FEATURE_SPECS.get(name)
    if spec is None:
        return name
    return f"{name} ({'fraction' if spec.unit == '1' else spec.unit})"


def unit_of(name: str) -> str:
    """Feature name in, its unit ('' when the feature is not a known one) out."""
    spec = FEATURE_SPECS.get(name)
    return spec.unit if spec else ""


def source_of(name: str) -> str:
    """Feature name in, the reference its public bound comes from ('declared' data has none) out."""
    spec = FEATURE_SPECS.get(name)
    return spec.source.reference if spec else "—"


def has_public_bounds(name: str) -> bool:
    """Feature name in, whether FEATURE_SPECS gives it public clamp bounds out."""
    return name in FEATURE_SPECS


def _nice(lo: float, hi: float) -> tuple[float, float]:
    """Data min and max in, round numbers just outside them out (a starting point for declared bounds)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return 0.0, 1.0
    if hi <= lo:
        return lo - 1.0, hi + 1.0
    step = 10.0 ** math.floor(math.log10(hi - lo))
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


@st.cache_data(max_entries=16, show_spinner=False)
def data_ranges(token: str, names: tuple[str, ...], _df: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Feature names in, round numbers around each feature's observed min/max out (pre-fill only)."""
    return {n: _nice(float(_df[n].min()), float(_df[n].max())) for n in names}


def public_bounds(names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Feature names with FEATURE_SPECS entries in, their public (L, U) arrays out."""
    return feature_bounds(list(names))


@st.cache_resource(max_entries=4, show_spinner="Building the feature series…")
def _tensor(token: str, names: tuple[str, ...], length: int, _df: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """Table, features, public T in, read-only (recordings, F, T) series and the recordings table out.

    cache_resource, not cache_data: the tensor is tens of MB and is read on every slider move, so it is
    shared without a copy; it is marked read-only so no caller can change the cached array.
    """
    order = _order_col(_df)
    x, recs = feature_tensor(_df, list(names), length=int(length), fill="edge", order_col=order)
    x.setflags(write=False)
    recs["participant"] = recs["participant"].astype(str)
    if "task" in recs.columns:
        recs["task"] = recs["task"].astype(str)
    return x, recs


def series(token: str, df: pd.DataFrame, names: tuple[str, ...], lo: np.ndarray, hi: np.ndarray,
           length: int) -> Series:
    """Table, released features, bounds, public T in, Series out (SeriesProblem on unusable values)."""
    try:
        x, recs = _tensor(token, tuple(names), int(length), df)
    except ValueError as err:
        raise SeriesProblem(f"cannot build the feature series: {err}") from err
    return Series(tuple(names), np.asarray(lo, float), np.asarray(hi, float), x, recs, int(length))


@st.cache_data(max_entries=16, show_spinner=False)
def clamped_share(token: str, names: tuple[str, ...], length: int, lo: tuple[float, ...], hi: tuple[float, ...],
                  _x: np.ndarray) -> np.ndarray:
    """Series and bounds in, the share of values outside [L, U] (clamped by the mechanisms) per feature out."""
    lo_a, hi_a = np.asarray(lo)[None, :, None], np.asarray(hi)[None, :, None]
    return ((_x < lo_a) | (_x > hi_a)).mean(axis=(0, 2))
