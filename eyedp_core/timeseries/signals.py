"""Feature tables to series tensors, mechanism dispatch by label, correlation curves and ACFs.

Glue for the Time-series view: turns the wide feature table (participant, task, window, t_start_s,
one column per feature) into a (recordings, features, T) array at a public length, runs a mechanism
chosen by its label (through `mechanisms.run`), and computes Bozkir et al.'s correlation-versus-lag
curves (Figures 1, 3–6) and
per-participant ACFs through `metrics`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from eyedp_core import metrics
from eyedp_core.gaze.contributions import RECORDING_SPLITS
from eyedp_core.timeseries.labels import SWEEP_LABELS, parse_label
from eyedp_core.timeseries.mechanisms import run
from eyedp_core.timeseries.sensitivity import chunk_differences, to_public_length
from eyedp_core.timeseries.setting import MechanismSetting

__all__ = [
    "DEFAULT_MECHANISMS",
    "acf_table",
    "correlation_curves",
    "difference_signal",
    "feature_columns",
    "feature_tensor",
    "parse_mechanism",
    "run_mechanism",
]

# The sweep's default labels, declared once in timeseries.labels (kept here under their old name).
DEFAULT_MECHANISMS: tuple[str, ...] = SWEEP_LABELS
# Columns that identify one recording, in key order: the same groups gaze.contributions counts per person, so
# the rows of a tensor are the recordings every per-person bound composes over.
RECORDING_COLUMNS: tuple[str, ...] = ("participant", *RECORDING_SPLITS)
# Never features: identifiers, window positions and the window length (a column, so it survives pd.concat).
_ID_COLUMNS = (*RECORDING_COLUMNS, "gender", "window", "t_start_s", "t_end_s", "document", "window_s", "step_s")


def parse_mechanism(label: str) -> tuple[str, int | None]:
    """Label like "CFPA-64", "FPA", "Steil-10" in, (lower-case name, chunk or window or None) out.

    Kept for older callers; new code uses `timeseries.labels.parse_label`, which returns the `Mech`.
    """
    mech, size = parse_label(label)
    return mech.name.lower().replace("_", "-"), size


def feature_columns(table: pd.DataFrame) -> list[str]:
    """Wide feature table in, the names of its numeric feature columns (identifier columns excluded) out."""
    return [c for c in table.columns if c not in _ID_COLUMNS and pd.api.types.is_numeric_dtype(table[c])]


def feature_tensor(
    table: pd.DataFrame,
    features: Sequence[str] | None = None,
    *,
    length: int | None = None,
    fill: float | np.ndarray | str = "edge",
    recording_cols: Sequence[str] = RECORDING_COLUMNS,
    order_col: str = "window",
) -> tuple[np.ndarray, pd.DataFrame]:
    """Wide table in, (array (recordings, features, T), recordings table with true lengths) out.

    Every recording's series are sorted by `order_col` and padded/truncated to the PUBLIC length T
    (docs/PRIVACY_MODEL.md §0.5). length=None takes the longest recording — fine for exploration, but the
    length is then read from the data; pass a public T for anything shown as private.
    """
    feats = list(features) if features is not None else feature_columns(table)
    cols = [c for c in recording_cols if c in table.columns]
    if not cols:
        raise ValueError(f"the table needs at least one of the recording columns {tuple(recording_cols)}")
    df = table.sort_values(cols + ([order_col] if order_col in table.columns else []), kind="stable")
    codes = df.groupby(cols, sort=False, observed=True).ngroup().to_numpy()
    pos = df.groupby(cols, sort=False, observed=True).cumcount().to_numpy()
    recs = df[cols].drop_duplicates().reset_index(drop=True)
    recs["length"] = np.bincount(codes, minlength=len(recs))
    t_max = int(recs["length"].max())
    raw = np.full((len(recs), len(feats), t_max), np.nan)
    raw[codes, :, pos] = df[feats].to_numpy(dtype=float)
    t = t_max if length is None else int(length)
    if isinstance(fill, str):
        return to_public_length(raw, t, fill), recs
    per_feature = np.broadcast_to(np.asarray(fill, dtype=float), (len(feats),))
    return to_public_length(raw, t, np.broadcast_to(per_feature, (len(recs), len(feats)))), recs


def run_mechanism(
    x: np.ndarray,
    setting: MechanismSetting,
    *,
    rng: np.random.Generator,
    bounds: tuple,
    sensitivity: float | np.ndarray | None = None,
) -> np.ndarray:
    """Series (..., T), mechanism setting (from its label: `MechanismSetting.from_label("CFPA-32", epsilon=…)`),
    rng, public bounds in, the mechanism's output out.

    Steil labels ("Steil-w", "Steil-published-w") return the subsampled length ⌈T/w⌉; every other
    label returns (..., T). `mechanisms.run` gives the same output with its calibrations.
    """
    return run(x, setting, rng=rng, bounds=bounds, sensitivity=sensitivity).values


def difference_signal(x: np.ndarray) -> np.ndarray:
    """Series (..., T) in, Bozkir Eq. 8 difference signal (d_1 = x_1, d_t = x_t − x_{t−1}) out."""
    arr = np.asarray(x, dtype=float)
    return chunk_differences(arr, arr.shape[-1])


def correlation_curves(
    signals: Mapping[str, np.ndarray], ref_index: int = 4, max_lag: int | None = None
) -> pd.DataFrame:
    """{name: (participants, T)} in, tidy DataFrame signal, lag, cc (CC across participants vs Δt) out.

    Bozkir et al.'s Figures 1, 3–6: correlation between the sample at `ref_index` (default the fifth)
    and the sample Δt later, across participants, via metrics.lag_correlation.
    """
    frames = []
    for name, sig in signals.items():
        cc = metrics.lag_correlation(np.asarray(sig, dtype=float), ref_index=ref_index, max_lag=max_lag)
        frames.append(pd.DataFrame({"signal": name, "lag": np.arange(cc.size), "cc": cc}))
    return pd.concat(frames, ignore_index=True)


def acf_table(
    signals: Mapping[str, np.ndarray], max_lag: int, participants: Sequence[str] | None = None
) -> pd.DataFrame:
    """{name: (participants, T)} in, tidy DataFrame signal, participant, lag, acf (metrics.acf) out."""
    frames = []
    for name, sig in signals.items():
        arr = np.atleast_2d(np.asarray(sig, dtype=float))
        r = metrics.acf(arr, max_lag)
        ids = list(participants) if participants is not None else [str(i) for i in range(arr.shape[0])]
        frames.append(
            pd.DataFrame(
                {
                    "signal": name,
                    "participant": np.repeat(ids, max_lag + 1),
                    "lag": np.tile(np.arange(max_lag + 1), arr.shape[0]),
                    "acf": r.reshape(-1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)
