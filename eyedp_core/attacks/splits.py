"""Which windows train and test each attack task: labels, folds (leave one participant out, or first part
-> second part with a gap of one window length), window subsampling and voting units, all fixed before
any noise is drawn (the honest protocol described in eyedp_core.attacks.engine)."""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from eyedp_core.attacks.tables import AttackTable

__all__ = ["GAPS", "TASKS", "TaskSpec", "seeded", "task_spec"]

TASKS: dict[str, str] = {
    "task": "document type (utility task; leave-one-participant-out)",
    "gender": "gender (attacker without prior knowledge; leave-one-participant-out)",
    "identity": "re-identification (attacker with prior knowledge; first part of every recording → second part)",
}
GAPS: dict[str, str] = {
    "window": "a gap of one window length between training and test parts (no shared samples)",
    "paper": "the papers' split into halves (neighbouring windows share samples)",
}
DEFAULT_SUBSAMPLE = {"identity": 5}
LOPO_SUBSAMPLE = 10
# Subsampling never leaves fewer than this many windows per recording part by default.
_MIN_WINDOWS_PER_PART = 12


@dataclass(frozen=True, eq=False)
class TaskSpec:
    """Which rows train and test one task, its folds, labels and voting units (fixed before any noise)."""

    task: str
    label: str
    protocol: str  # "lopo" or "prior knowledge"
    classes: np.ndarray  # label values; y holds indices into it
    y: np.ndarray  # per table row, −1 where the label is missing
    train_rows: np.ndarray  # subsampled rows the attacker may train on (all folds)
    test_rows: np.ndarray  # subsampled rows under attack
    train_part: np.ndarray  # rows of the training part(s) before subsampling (what is released for training)
    test_part: np.ndarray  # rows of the test part(s) before subsampling
    folds: tuple[tuple[str, np.ndarray, np.ndarray], ...]  # (name, mask over train_rows, mask over test_rows)
    vote: bool
    gap_windows: int
    subsample: int
    notes: tuple[str, ...] = field(default=())
    # Classifiers trained on CLEAN windows, by (classifier, fold, max_train, seed): they do not depend on the
    # privacy setting, so every "trained on clean data" point of a sweep reuses them.
    fitted: dict = field(default_factory=dict, repr=False)


def seeded(seed: int, *key: int) -> np.random.Generator:
    """Seed and a key path -> an independent generator for that (task, fold, release, ...) only."""
    return np.random.default_rng(np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(int(k) for k in key)))


def _subsample(rows: np.ndarray, segment: np.ndarray, offset: np.ndarray, s: int,
               rng: np.random.Generator) -> np.ndarray:
    """Rows with their segment and offset in it, block size s -> one random row per block of s (sorted)."""
    if s <= 1 or rows.size == 0:
        return rows
    block = segment.astype(np.int64) * (offset.max() // s + 2) + offset // s
    order = np.lexsort((rng.random(rows.size), block))
    last = np.r_[block[order][1:] != block[order][:-1], True]
    return np.sort(rows[order[last]])


def _auto_subsample(task: str, shortest_part: int) -> int:
    s = DEFAULT_SUBSAMPLE.get(task, LOPO_SUBSAMPLE)
    return int(max(1, min(s, shortest_part // _MIN_WINDOWS_PER_PART)))


def _labels(at: AttackTable, task: str) -> tuple[str, np.ndarray, np.ndarray]:
    """Task -> (label column, class values, class index per row with −1 for missing)."""
    if task == "identity":
        values = at.frame["participant"].to_numpy().astype(str)
        label = "participant"
    else:
        if task not in at.frame.columns:
            have = ", ".join(at.labels) or "none"
            raise ValueError(f"the table has no {task!r} column to predict (label columns: {have})")
        col = at.frame[task]
        missing = col.isna().to_numpy() | (col.astype(str).str.strip() == "").to_numpy()
        values = np.where(missing, "", col.astype(str).to_numpy())
        label = task
    classes, y = np.unique(values, return_inverse=True)
    if task != "identity" and (classes == "").any():
        y = y - 1
        classes = classes[1:]
    return label, classes, y.astype(int)


class _Split(NamedTuple):
    """The rows, folds and protocol of one task (the parts of a TaskSpec that depend on the task's kind)."""

    train_rows: np.ndarray
    test_rows: np.ndarray
    train_part: np.ndarray
    test_part: np.ndarray
    folds: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    protocol: str
    vote: bool
    gap_windows: int
    subsample: int
    notes: tuple[str, ...]


def _identity_split(at: AttackTable, gap: str | int, subsample: int | None, rng: np.random.Generator) -> _Split:
    """Re-identification: each recording's first part trains, its second part (after the gap) is attacked."""
    notes: list[str] = []
    rows = np.arange(len(at.frame))
    g = at.gap_windows if gap == "window" else 0 if gap == "paper" else int(gap)
    n = at.lengths
    n_first = (n - g) // 2 if g else n // 2
    ok = (n_first >= 1) & (n - n_first - g >= 1)
    if not ok.any():
        raise ValueError(f"recordings are too short to split into two parts with a gap of {g} windows")
    if not ok.all():
        notes.append(f"{int((~ok).sum())} recording(s) too short to split with a gap of {g} windows were left out")
    first = ok[at.rec] & (at.pos < n_first[at.rec])
    second = ok[at.rec] & (at.pos >= n_first[at.rec] + g)
    train_part, test_part = rows[first], rows[second]
    shortest = int(min(n_first[ok].min(), (n - n_first - g)[ok].min()))
    s = _auto_subsample("identity", shortest) if subsample is None else int(subsample)
    if s < 1:
        raise ValueError(f"subsample must be >= 1, got {subsample!r}")
    train_rows = _subsample(train_part, at.rec[first], at.pos[first], s, rng)
    test_rows = _subsample(test_part, at.rec[second], at.pos[second] - (n_first + g)[at.rec[second]], s, rng)
    fold_list = (("first part → second part", np.ones(train_rows.size, bool), np.ones(test_rows.size, bool)),)
    return _Split(train_rows, test_rows, train_part, test_part, fold_list, "prior knowledge", True, g, s,
                  tuple(notes))


def _label_split(at: AttackTable, task: str, label: str, y: np.ndarray, subsample: int | None, folds: int | None,
                 seed: int, rng: np.random.Generator) -> _Split:
    """A label task: leave one participant (or one group of participants) out, vote per recording if possible."""
    notes: list[str] = []
    rows = np.arange(len(at.frame))
    has = y >= 0
    if not has.all():
        notes.append(f"{int((~has).sum())} window(s) without a {label} value were left out")
    s = _auto_subsample(task, int(at.lengths.min())) if subsample is None else int(subsample)
    if s < 1:
        raise ValueError(f"subsample must be >= 1, got {subsample!r}")
    kept = _subsample(rows, at.rec, at.pos, s, rng)
    kept = kept[has[kept]]
    ptr = at.pid[kept]
    units = np.unique(ptr)
    if units.size < 2:
        raise ValueError(f"{task!r} needs labelled windows of at least two participants")
    if folds is None:
        groups = {at.participants[p]: np.array([p]) for p in units}
    else:
        k = int(min(max(2, folds), units.size))
        order = seeded(seed, 2).permutation(units)
        groups = {f"group {i + 1}": order[i::k] for i in range(k)}
    fold_list = tuple((name, ~np.isin(ptr, members), np.isin(ptr, members)) for name, members in groups.items())
    # Vote per recording when the label is constant within every recording, else not at all.
    yr = pd.Series(y[kept]).groupby(at.rec[kept]).nunique()
    vote = bool((yr <= 1).all())
    if not vote:
        notes.append(f"{label} changes within recordings, so there is no majority vote per recording")
    protocol = "lopo" if folds is None else f"{len(fold_list)} participant groups"
    return _Split(kept, kept, rows, rows, fold_list, protocol, vote, 0, s, tuple(notes))


def task_spec(at: AttackTable, task: str, *, gap: str | int = "window", subsample: int | None = None,
              seed: int = 0, repetition: int = 0, folds: int | None = None) -> TaskSpec:
    """Prepared table, task -> the rows that train and test it, the folds and the voting units.

    gap: "window" (default, one window length), "paper" (no gap) or a number of windows.
    folds: None for leave-one-participant-out; an integer K for K groups of participants (large n).
    """
    if task == "identity" and at.n_participants < 2:
        raise ValueError("re-identification needs at least two participants")
    if not (gap in GAPS or (isinstance(gap, (int, np.integer)) and not isinstance(gap, bool) and gap >= 0)):
        raise ValueError(f"gap must be 'window', 'paper' or a number of windows >= 0, got {gap!r}")
    label, classes, y = _labels(at, task)
    if classes.size < 2:
        raise ValueError(f"{task!r} needs at least two different values to predict; the table has "
                         f"{classes.size}")
    rng = seeded(seed, 1, repetition, zlib.crc32(task.encode()))
    sp = (_identity_split(at, gap, subsample, rng) if task == "identity"
          else _label_split(at, task, label, y, subsample, folds, seed, rng))
    return TaskSpec(task=task, label=label, protocol=sp.protocol, classes=classes, y=y, train_rows=sp.train_rows,
                    test_rows=sp.test_rows, train_part=sp.train_part, test_part=sp.test_part, folds=sp.folds,
                    vote=sp.vote, gap_windows=sp.gap_windows, subsample=sp.subsample, notes=sp.notes)
