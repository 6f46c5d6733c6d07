"""Where the transition is: the strongest attack per ε, the ε where it leaves chance and where the utility task
recovers, and which ε a grid that stops short of both should add.

Works on a `grid.summarise` table. The *strongest* attack at a setting is the higher accuracy of the two
scenarios (the attacker trained on its own private release, and the one trained on clean data); the scenario
that gave it is named. "Leaves chance" and "recovers" are read off the grid and must hold at that ε and at
every larger ε of the grid (one noisy point does not count as a crossing). These are accuracies measured on
the private data themselves: choosing ε from them is tuning that is not itself private.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.attacks.classifiers import Classifier
from eyedp_core.attacks.engine import TrainOn

__all__ = ["EXTEND_FACTOR", "EXTEND_LIMIT", "SCENARIO_WORDS", "Transition", "epsilon_unit", "epsilons_to_add",
           "find_transitions", "strongest"]

# A grid that shows no crossing grows by this factor per step, up to this ε (beyond it nothing is private).
EXTEND_FACTOR = 10.0
EXTEND_LIMIT = 1e6
SCENARIO_WORDS = {TrainOn.PRIVATE.value: "attacker trained on its own private release",
                  TrainOn.CLEAN.value: "attacker trained on clean data",
                  TrainOn.SAME_RELEASE.value: "trained on the same release (flawed protocol)"}
_TASK_WORDS = {"task": "document type", "gender": "gender inference", "identity": "re-identification"}


def _fmt(e: float) -> str:
    return f"{e:,.0f}" if 1 <= e < 1e6 and float(e).is_integer() else f"{e:g}"


def epsilon_unit(summary: pd.DataFrame) -> str:
    """Summary -> 'per person', or 'as in the paper' when the run used the paper's accounting."""
    if "accounting" in summary and (summary["accounting"].dropna() == "paper").any():
        return "as in the paper"
    return "per person"


def strongest(summary: pd.DataFrame, *, classifier: Classifier = Classifier.SVM,
              scenarios: Sequence[TrainOn | str] = (TrainOn.PRIVATE, TrainOn.CLEAN)) -> pd.DataFrame:
    """Summary -> one row per (mechanism, ε, task): the higher accuracy of the scenarios, `train_on` naming the
    scenario that gave it (ties go to the first scenario); clean rows kept as they are."""
    names = [TrainOn(s).value for s in scenarios]
    s = summary[(summary["classifier"] == classifier)
                & (summary["train_on"].isin(names) | (summary["mechanism"] == "clean"))].copy()
    if s.empty:
        return s
    s["_order"] = s["train_on"].map({n: i for i, n in enumerate(names)}).fillna(len(names))
    s = s.sort_values(["accuracy", "_order"], ascending=[False, True], kind="stable")
    s = s.drop_duplicates(["mechanism", "epsilon", "task"], keep="first").drop(columns="_order")
    return s.sort_values(["mechanism", "epsilon", "task"], kind="stable").reset_index(drop=True)


def _from_here_on(ok: np.ndarray) -> int | None:
    """Booleans along ascending ε -> first index from which every value is True (None if the last is False)."""
    if ok.size == 0 or not ok[-1]:
        return None
    bad = np.flatnonzero(~ok)
    return int(bad[-1] + 1) if bad.size else 0


@dataclass(frozen=True)
class Transition:
    """One mechanism: where the strongest attack leaves chance and where the utility task recovers (grid ε)."""

    mechanism: str
    attack_leaves: float | None  # smallest grid ε from which the strongest attack stays above chance + margin
    attack_task: str | None
    attack_scenario: str | None
    utility_recovers: float | None  # smallest grid ε from which the utility task stays ≥ target
    utility_scenario: str | None
    largest_epsilon: float
    sentence: str
    has_attacks: bool = True
    has_utility: bool = True

    @property
    def complete(self) -> bool:
        """True when the grid shows both crossings (of those that apply to the run's tasks)."""
        return ((self.attack_leaves is not None or not self.has_attacks)
                and (self.utility_recovers is not None or not self.has_utility))


@dataclass(frozen=True)
class _Goal:
    """What a transition is looked for: the utility task and its target accuracy, the attacks and their margin."""

    utility: str | None
    attacks: Sequence[str]
    target: float
    margin: float


def _crossings(m: pd.DataFrame, eps: np.ndarray, goal: _Goal) -> tuple[tuple[float, str, str] | None,
                                                                        tuple[float, str] | None]:
    """One mechanism's strongest rows -> (ε, task, scenario) where the first attack leaves chance for good, and
    (ε, scenario) where the utility task reaches its target for good (None where it does not)."""
    leaves: tuple[float, str, str] | None = None
    for a in goal.attacks:
        t = m[m["task"] == a].set_index("epsilon").reindex(eps)
        i = _from_here_on((t["accuracy"] - t["chance"]).to_numpy(float) > goal.margin)
        if i is not None and (leaves is None or eps[i] < leaves[0]):
            leaves = (float(eps[i]), a, str(t["train_on"].iloc[i]))
    recovers: tuple[float, str] | None = None
    if goal.utility is not None:
        t = m[m["task"] == goal.utility].set_index("epsilon").reindex(eps)
        i = _from_here_on(t["accuracy"].to_numpy(float) >= goal.target)
        if i is not None:
            recovers = (float(eps[i]), str(t["train_on"].iloc[i]))
    return leaves, recovers


def _sentence(mech: str, unit: str, top: float, leaves: tuple[float, str, str] | None,
              recovers: tuple[float, str] | None, goal: _Goal) -> str:
    """The crossings of one mechanism in one sentence, with the gap between them (or that there is none)."""
    utility, margin, target = goal.utility, goal.margin, goal.target
    parts = []
    if leaves is not None:
        parts.append(f"the strongest attack, {_TASK_WORDS.get(leaves[1], leaves[1])} by the "
                     f"{SCENARIO_WORDS.get(leaves[2], leaves[2])}, leaves chance (more than chance + "
                     f"{margin:.2f}) from ε = {_fmt(leaves[0])}")
    elif goal.attacks:
        parts.append(f"every attack stays within chance + {margin:.2f} somewhere up to ε = {_fmt(top)}")
    if utility is not None:
        if recovers is not None:
            parts.append(f"{_TASK_WORDS.get(utility, utility)} accuracy stays ≥ {target:.2f} from "
                         f"ε = {_fmt(recovers[0])} ({SCENARIO_WORDS.get(recovers[1], recovers[1])})")
        else:
            parts.append(f"{_TASK_WORDS.get(utility, utility)} accuracy does not reach {target:.2f} for good "
                         f"up to ε = {_fmt(top)}")
    sentence = f"With {mech} (ε {unit}): " + "; ".join(parts) + "."
    if leaves is not None and recovers is not None:
        if recovers[0] < leaves[0]:
            sentence += (f" The gap: from ε = {_fmt(recovers[0])} to below {_fmt(leaves[0])} the task works "
                         "while the attacks stay near chance.")
        else:
            sentence += (" No gap: the attack leaves chance at or before the ε where the task recovers, so "
                         "no ε of this grid serves both.")
    elif leaves is None and recovers is None and goal.attacks and utility is not None:
        sentence = (f"With {mech}, up to ε = {_fmt(top)} {unit} (the largest tried) neither does the strongest "
                    f"attack leave chance for good nor does {_TASK_WORDS.get(utility, utility)} accuracy reach "
                    f"{target:.2f}.")
    return sentence


def find_transitions(summary: pd.DataFrame, *, target: float = 0.8, margin: float = 0.05,
                     utility: str | None = "task", attacks: Sequence[str] | None = None,
                     classifier: Classifier = Classifier.SVM) -> list[Transition]:
    """Summary -> per mechanism, the grid ε where the strongest attack leaves chance (+ margin) and where the
    utility task reaches `target`, with one sentence naming the scenarios; 'up to which ε' when neither shows."""
    best = strongest(summary, classifier=classifier)
    best = best[best["mechanism"] != "clean"]
    unit = epsilon_unit(summary)
    tasks = set(best["task"])
    if utility not in tasks:
        utility = None
    attack_tasks = [t for t in (attacks if attacks is not None else sorted(tasks)) if t in tasks and t != utility]
    goal = _Goal(utility, attack_tasks, target, margin)
    out: list[Transition] = []
    for mech, m in best.groupby("mechanism", sort=False):
        eps = np.sort(m["epsilon"].astype(float).unique())
        top = float(eps.max())
        leaves, recovers = _crossings(m, eps, goal)
        out.append(Transition(mechanism=str(mech), attack_leaves=leaves[0] if leaves else None,
                              attack_task=leaves[1] if leaves else None,
                              attack_scenario=leaves[2] if leaves else None,
                              utility_recovers=recovers[0] if recovers else None,
                              utility_scenario=recovers[1] if recovers else None,
                              largest_epsilon=top, sentence=_sentence(str(mech), unit, top, leaves, recovers, goal),
                              has_attacks=bool(attack_tasks), has_utility=utility is not None))
    return out


def epsilons_to_add(transitions: Sequence[Transition], *, limit: float = EXTEND_LIMIT,
                    factor: float = EXTEND_FACTOR) -> dict[str, float]:
    """Transitions of a grid -> {mechanism: next ε to run (its largest × factor)} for every mechanism whose grid
    misses a crossing and is still below `limit`; {} when nothing is missing or the limit is reached."""
    out: dict[str, float] = {}
    for t in transitions:
        nxt = t.largest_epsilon * factor
        if not t.complete and nxt <= limit * (1 + 1e-9):
            out[t.mechanism] = float(nxt)
    return out
