"""Per-observer AOI contributions, clipped to the public bounds: the rows the AOI metrics sum.

The unit of privacy is one observer (all their fixations on the stimulus). Every per-observer quantity is
clipped here, before anything is summed, so each observer's contribution to every sum is bounded by the
public `AoiBounds` (docs/PRIVACY_MODEL.md §15).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.aoi.mapping import membership, primary
from eyedp_core.aoi.shapes import Aoi
from eyedp_core.io.errors import DataError

__all__ = ["FIXATION_COLUMNS", "START_COLUMNS", "AoiBounds", "ObserverTable", "clip_rows", "observer_table", "timing"]

FIXATION_COLUMNS = ("observer", "x", "y")
# Optional: the fixation start (t_start_s, the canonical name; start_s is still read because batch shards do not
# pass the upload's role guesser) and its duration. Without a start the row order is the fixation order (TTFF
# then counts fixations' durations); without a duration dwell is 0.
START_COLUMNS = ("t_start_s", "start_s")


@dataclass(frozen=True)
class AoiBounds:
    """Public per-observer bounds: each observer's contribution to each AOI is clipped to these."""

    max_fixations: int = 15  # fixations per observer and AOI
    max_dwell_s: float = 5.0  # dwell seconds per observer and AOI
    max_ttff_s: float = 10.0  # time to first fixation, seconds
    max_revisits: int = 5  # re-entries per observer and AOI
    max_transitions: int = 40  # AOI-to-AOI transitions per observer (the first ones kept)
    # Totals over all AOIs per observer (None: no total cap). An observer's row is scaled down to the total,
    # so one observer moves the K sums by at most min(K·max, 2·total) in L1 (docs/PRIVACY_MODEL.md §15.2).
    max_total_fixations: float | None = 40.0
    max_total_dwell_s: float | None = 10.0

    def __post_init__(self) -> None:
        for name in ("max_fixations", "max_dwell_s", "max_ttff_s", "max_revisits", "max_transitions"):
            v = float(getattr(self, name))
            if not (np.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a finite number > 0, got {getattr(self, name)!r}")
        for name in ("max_total_fixations", "max_total_dwell_s"):
            v = getattr(self, name)
            if v is not None and not (np.isfinite(float(v)) and float(v) > 0):
                raise ValueError(f"{name} must be None or a finite number > 0, got {v!r}")


@dataclass(frozen=True)
class ObserverTable:
    """Clipped per-observer contributions on one stimulus: arrays (n observers x K AOIs), transitions
    (n x (K+1) x (K+1), the last state "elsewhere")."""

    observers: tuple[str, ...]
    aoi_names: tuple[str, ...]
    hit: np.ndarray  # 1 if the observer fixated the AOI at least once
    fixations: np.ndarray  # clipped fixation counts
    dwell_s: np.ndarray  # clipped dwell seconds
    ttff_s: np.ndarray  # clipped time to first fixation where hit, 0 where not (so sums run over lookers)
    revisits: np.ndarray  # clipped re-entries: entries − 1 for lookers
    transitions: np.ndarray  # clipped transition counts between primary labels
    bounds: AoiBounds
    elsewhere_fixations: np.ndarray  # per observer: fixations outside every AOI (clean context only)
    # What the table's columns hold (its structure, not any value): without durations every dwell is 0, and
    # without start times as well every fixation starts at 0, so every time to first fixation is 0.
    has_durations: bool = True
    has_starts: bool = True

    @property
    def n(self) -> int:
        """Number of observers (public under the replace-one relation)."""
        return len(self.observers)

    @property
    def k(self) -> int:
        """Number of AOIs."""
        return len(self.aoi_names)


def clip_rows(values: np.ndarray, per_aoi: float, total: float | None) -> np.ndarray:
    """(n, K) non-negative contributions, per-AOI cap and optional total cap in, each value clipped to the cap
    and each row scaled down (proportionally) so it sums to at most the total out."""
    out = np.minimum(values, per_aoi)
    if total is None:
        return out
    s = out.sum(axis=1, keepdims=True)
    return out * np.minimum(1.0, float(total) / np.where(s > 0, s, 1.0))


def timing(fixations: pd.DataFrame) -> tuple[bool, bool]:
    """Fixation table in, (has durations, has start times) out: a column counts when it is there and not empty."""
    return _holds(fixations, "duration_ms"), any(_holds(fixations, c) for c in START_COLUMNS)


def _holds(fixations: pd.DataFrame, column: str) -> bool:
    """Whether the table has this column with at least one value in it."""
    return column in fixations.columns and bool(fixations[column].notna().any())


def _normalised(fixations: pd.DataFrame, file: str) -> pd.DataFrame:
    """Fixation table in, columns observer, x, y, duration_ms, t_start_s out (DataError naming missing columns or an
    empty table)."""
    missing = [c for c in FIXATION_COLUMNS if c not in fixations.columns]
    if missing:
        raise DataError(f"a fixation table needs the columns {', '.join(FIXATION_COLUMNS)}; missing "
                        f"{', '.join(missing)}", file=file, column=missing[0], expected="observer, x and y columns")
    if fixations.empty:
        raise DataError("no fixations to map to the AOIs", file=file, expected="at least one fixation")
    dur = (_numbers(fixations, "duration_ms") if "duration_ms" in fixations.columns
           else np.zeros(len(fixations)))
    start_col = next((c for c in START_COLUMNS if c in fixations.columns), None)
    if start_col is not None:
        start = _numbers(fixations, start_col)
    else:  # consecutive fixations in row order: each starts where the previous one ended
        start = np.cumsum(np.r_[0.0, np.nan_to_num(dur[:-1]) / 1000.0]) if len(dur) else dur
    return pd.DataFrame({"observer": fixations["observer"].astype(str).to_numpy(),
                         "x": _numbers(fixations, "x"), "y": _numbers(fixations, "y"),
                         "duration_ms": dur, "t_start_s": start})


def _numbers(fixations: pd.DataFrame, column: str) -> np.ndarray:
    """A column in, its floats out (text that is no number: missing, like an empty cell)."""
    return pd.to_numeric(fixations[column], errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def observer_table(fixations: pd.DataFrame, aois: tuple[Aoi, ...], bounds: AoiBounds, *,
                   file: str = "fixation table") -> ObserverTable:
    """Fixations of ONE stimulus (FIXATION_COLUMNS, optional duration_ms and start), AOIs and public bounds in, clipped per-observer
    contributions out. Fixations are taken in start order per observer; time to first fixation counts from
    the observer's first fixation on the stimulus; rows with missing x or y count as elsewhere."""
    f = _normalised(fixations, file).sort_values(["observer", "t_start_s"], kind="stable")
    obs_codes, observers = pd.factorize(f["observer"].astype(str), sort=True)
    n, k = len(observers), len(aois)
    member = membership(aois, f["x"].to_numpy(float), f["y"].to_numpy(float))  # NaN compares False: elsewhere
    dur = np.clip(f["duration_ms"].to_numpy(float) / 1000.0, 0.0, None)
    dur = np.where(np.isfinite(dur), dur, 0.0)
    start = f["t_start_s"].to_numpy(float)
    onset = np.full(n, np.inf)
    np.minimum.at(onset, obs_codes, np.where(np.isfinite(start), start, np.inf))
    rel = start - onset[obs_codes]

    counts = np.zeros((n, k))
    dwell = np.zeros((n, k))
    np.add.at(counts, obs_codes, member.astype(float))
    np.add.at(dwell, obs_codes, member * dur[:, None])
    hit = (counts > 0).astype(float)

    first = np.full((n, k), np.inf)
    rel_m = np.where(member & np.isfinite(rel)[:, None], rel[:, None], np.inf)
    np.minimum.at(first, obs_codes, rel_m)
    ttff = np.where(hit > 0, np.clip(np.where(np.isfinite(first), first, bounds.max_ttff_s), 0.0, bounds.max_ttff_s),
                    0.0)

    # An entry starts where the observer is in the AOI and was not at their previous fixation.
    new_obs = np.r_[True, obs_codes[1:] != obs_codes[:-1]]
    prev = np.vstack([np.zeros((1, k), bool), member[:-1]]) & ~new_obs[:, None]
    entries = np.zeros((n, k))
    np.add.at(entries, obs_codes, (member & ~prev).astype(float))
    revisits = np.clip(entries - 1.0, 0.0, bounds.max_revisits)

    label = primary(member)
    same_obs = ~new_obs
    moved = same_obs & np.r_[False, label[1:] != label[:-1]]
    src = np.r_[0, label[:-1]][moved]
    dst = label[moved]
    who = obs_codes[moved]
    # Keep each observer's first max_transitions transitions: rank within observer by order of appearance.
    rank = np.arange(who.size) - np.searchsorted(who, who, side="left") if who.size else np.zeros(0, int)
    keep = rank < bounds.max_transitions
    trans = np.zeros((n, k + 1, k + 1))
    np.add.at(trans, (who[keep], src[keep], dst[keep]), 1.0)
    elsewhere = np.zeros(n)
    np.add.at(elsewhere, obs_codes, (~member.any(axis=1)).astype(float))
    return ObserverTable(tuple(str(o) for o in observers), tuple(a.name for a in aois), hit,
                         clip_rows(counts, bounds.max_fixations, bounds.max_total_fixations),
                         clip_rows(dwell, bounds.max_dwell_s, bounds.max_total_dwell_s), ttff,
                         revisits, trans, bounds, elsewhere, *timing(fixations))
