"""The clean baseline and the two protocol traps, measured on the loaded table.

`clean_baseline` is the Attacks page's reference before any noise: every task
the table supports, SVM, honest split. `measure_traps` puts a number on each published-protocol flaw:
* overlap: clean re-identification with the papers' halves (neighbouring windows share samples) versus
  with a gap of one window length;
* same draw: re-identification under a private release when the attacker trains on the same release
  (first part) as the one attacked (second part), versus on an independent release.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from eyedp_core.attacks.classifiers import Classifier
from eyedp_core.attacks.engine import DEFAULT_MAX_TRAIN, TrainOn, evaluate
from eyedp_core.attacks.grid import available_tasks
from eyedp_core.attacks.splits import TASKS
from eyedp_core.attacks.tables import AttackTable

__all__ = ["Traps", "clean_baseline", "measure_traps"]

_NAMES = {"task": "Document type", "gender": "Gender", "identity": "Re-identification"}


def clean_baseline(at: AttackTable, *, classifier: Classifier = Classifier.SVM, seed: int = 0, n_jobs: int = 2) -> pd.DataFrame:
    """Prepared table -> one row per supported task: accuracy per window and voted, chance, protocol (clean data)."""
    rows = []
    for task in available_tasks(at):
        res = evaluate(at, task, classifier=classifier, seed=seed, n_jobs=n_jobs)
        rows.append({"attack": _NAMES.get(task, task), "task": task, "protocol": TASKS.get(task, ""),
                     "per window": res.window_accuracy, "majority vote": res.vote_accuracy,
                     "chance": res.chance, "test windows": res.n_test})
    return pd.DataFrame(rows, columns=["attack", "task", "protocol", "per window", "majority vote", "chance",
                                       "test windows"])


@dataclass(frozen=True)
class Traps:
    """Measured inflation of re-identification by each protocol flaw, with one sentence each."""

    chance: float
    overlap_paper: float
    overlap_honest: float
    gap_windows: int
    same_draw: float
    independent: float
    mechanism: str
    epsilon: float
    overlap_sentence: str
    same_draw_sentence: str


def measure_traps(at: AttackTable, *, mechanism: str = "FPA", epsilon: float = 1.0, classifier: Classifier = Classifier.SVM,
                  seed: int = 0, n_jobs: int = 2,
                  bounds: str | Mapping[str, tuple[float, float]] = "auto",
                  max_train: int | None = DEFAULT_MAX_TRAIN) -> Traps:
    """Prepared table -> Traps: re-identification (voted) with and without each flaw, on this table."""
    common = dict(classifier=classifier, seed=seed, n_jobs=n_jobs, max_train=max_train)
    paper = evaluate(at, "identity", gap="paper", **common)
    honest = evaluate(at, "identity", **common)
    same = evaluate(at, "identity", mechanism=mechanism, epsilon=epsilon, train_on=TrainOn.SAME_RELEASE,
                    bounds=bounds, **common)
    indep = evaluate(at, "identity", mechanism=mechanism, epsilon=epsilon, train_on=TrainOn.PRIVATE,
                     bounds=bounds, **common)
    g = honest.gap_windows
    if at.step_s is not None and at.step_s < at.window_s:
        split = "halves whose neighbouring windows share samples"
    else:
        split = "halves that touch (no gap between the parts)"
    overlap = (f"Overlapping windows: splitting each recording into {split} gives clean re-identification "
               f"{paper.accuracy:.2f}; with a gap of {g} window{'s' if g != 1 else ''} (one window length) it is "
               f"{honest.accuracy:.2f} (chance {honest.chance:.2f}).")
    draw = (f"Same noise draw: training on the first part and testing on the second part of ONE {mechanism} release "
            f"at ε = {epsilon:g} per person gives re-identification {same.accuracy:.2f}; with independent "
            f"releases it is {indep.accuracy:.2f} (chance {indep.chance:.2f}).")
    return Traps(chance=honest.chance, overlap_paper=paper.accuracy, overlap_honest=honest.accuracy, gap_windows=g,
                 same_draw=same.accuracy, independent=indep.accuracy, mechanism=mechanism, epsilon=float(epsilon),
                 overlap_sentence=overlap, same_draw_sentence=draw)
