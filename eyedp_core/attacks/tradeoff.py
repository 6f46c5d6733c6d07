"""The trade-off finder: which ε keeps the useful task working while the attacks stay near chance, in a sentence.

Works on a `grid.summarise` table (mean accuracy per mechanism, ε, scenario, task, classifier). Only ε values
of the grid are claimed; `epsilon_for_accuracy` interpolates between grid points on a log scale and says so.
By default (train_on=None) every accuracy is the strongest scenario's (`transition.strongest`), and each
sentence names the scenario it used and says that ε was chosen from accuracies measured on the private data
(tuning that is not itself private). Under the paper's accounting the sentences say "ε as in the paper".
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.attacks.classifiers import Classifier
from eyedp_core.attacks.engine import TrainOn
from eyedp_core.attacks.transition import SCENARIO_WORDS, epsilon_unit, strongest

__all__ = ["TradeOff", "epsilon_for_accuracy", "find_tradeoff", "k_one_phrase"]

_TASK_WORDS = {"task": "document-type accuracy", "gender": "gender inference", "identity": "re-identification"}


def _words(task: str) -> str:
    return _TASK_WORDS.get(task, f"{task} accuracy")


def k_one_phrase(plan: str) -> str | None:
    """A release plan's words -> the plain-words consequence of k = 1 (None if the plan kept more)."""
    marker = "k = 1 Fourier coefficient: "
    if marker not in plan:
        return None
    rest = plan.split(marker, 1)[1]
    return rest.split(" (noise sd", 1)[0].rstrip(".")


def _flagged(rows: pd.DataFrame, attacks: Sequence[str], eps: Sequence[float]) -> list[float]:
    """Rows used, attack tasks, ε found -> the ε where some attack's result was collapsed or far below chance."""
    cols = [c for c in ("collapsed", "below_chance") if c in rows]
    if not cols:
        return []
    r = rows[rows["task"].isin(attacks) & rows["epsilon"].isin(eps)]
    bad = r[r[cols].fillna(False).astype(bool).any(axis=1)]
    return sorted(float(e) for e in bad["epsilon"].unique())


@dataclass(frozen=True)
class TradeOff:
    """One mechanism's answer: the grid ε that satisfy the targets, their range, and the sentence."""

    mechanism: str
    epsilons: tuple[float, ...]
    low: float | None
    high: float | None
    sentence: str


def _fmt(e: float) -> str:
    return f"{e:g}"


TUNING_WORDS = ("ε chosen from accuracies measured on the private data itself: tuning that is not itself "
                "private")


def _scenario_rows(summary: pd.DataFrame, classifier: str, train_on: TrainOn | str | None) -> pd.DataFrame:
    """Summary -> the rows the finder reads: one scenario's, or (None) the strongest of both per setting."""
    if train_on is None:
        s = strongest(summary, classifier=classifier)
    else:
        s = summary[(summary["classifier"] == classifier) & (summary["train_on"] == TrainOn(train_on).value)]
    return s[s["mechanism"] != "clean"]


def _scenario_phrase(rows: pd.DataFrame, train_on: TrainOn | str | None) -> str:
    """The rows used -> which scenario(s) the answer rests on, in words."""
    used = [SCENARIO_WORDS.get(v, v) for v in dict.fromkeys(rows["train_on"])] if "train_on" in rows else []
    if train_on is None:
        return "strongest attacker at each ε: " + (" or ".join(used) if used else "none")
    return SCENARIO_WORDS.get(TrainOn(train_on).value, str(train_on))


def _why_not(table: pd.DataFrame, utility: str | None, attacks: Sequence[str], target: float,
             margin: float) -> list[str]:
    """Accuracy/chance per ε and task -> why no ε meets both targets, with the nearest miss."""
    why = []
    if utility is not None:
        u = table[("accuracy", utility)]
        if (u < target).all():
            why.append(f"{_words(utility)} never reaches {target:.2f} "
                       f"(best {u.max():.2f} at ε = {_fmt(u.idxmax())})")
    for a in attacks:
        excess = table[("accuracy", a)] - table[("chance", a)]
        if (excess > margin).all():
            why.append(f"{_words(a)} is above chance + {margin:.2f} at every ε "
                       f"(lowest {table[('accuracy', a)].min():.2f} "
                       f"vs chance {table[('chance', a)].mean():.2f})")
    if not why:
        why.append("the ε that keep the attacks near chance are smaller than those that keep the task working")
    return why


def _mechanism_tradeoff(mech: str, m: pd.DataFrame, utility: str | None, attacks: Sequence[str], target: float,
                        margin: float, unit: str, train_on: TrainOn | str | None) -> TradeOff:
    """One mechanism's summary rows -> its TradeOff: the grid ε that meet both targets, or why none does."""
    table = m.pivot_table(index="epsilon", columns="task", values=["accuracy", "chance"], aggfunc="mean")
    table = table.sort_index()
    eps = table.index.to_numpy(float)
    ok = np.ones(eps.size, bool)
    if utility is not None:
        ok &= table[("accuracy", utility)].to_numpy() >= target
    for a in attacks:
        ok &= table[("accuracy", a)].to_numpy() <= table[("chance", a)].to_numpy() + margin
    good = tuple(float(e) for e in eps[ok])
    if not good:
        sentence = (f"With {mech}, no ε in the grid (ε {unit}) meets both targets: "
                    + "; ".join(_why_not(table, utility, attacks, target, margin))
                    + f" ({_scenario_phrase(m, train_on)}).")
        return TradeOff(mech, (), None, None, sentence)
    parts = [f"{_words(utility)} stays ≥ {target:.2f}"] if utility else []
    if attacks:
        verb = "stays" if len(attacks) == 1 else "stay"
        parts.append(" and ".join(_words(a) for a in attacks) + f" {verb} ≤ chance + {margin:.2f}")
    need = " while ".join(parts)
    plans = m[m["epsilon"].isin(good)]["plan"] if "plan" in m else pd.Series(dtype=str)
    k1 = next((p for p in (k_one_phrase(str(x)) for x in plans) if p), None)
    contiguous = ok[np.flatnonzero(ok)[0]:np.flatnonzero(ok)[-1] + 1].all()
    where = (f"for ε = {_fmt(good[0])}" if len(good) == 1 else
             f"for ε from {_fmt(good[0])} to {_fmt(good[-1])}" if contiguous else
             "for ε in {" + ", ".join(map(_fmt, good)) + "}")
    sentence = (f"With {mech}, {need} {where} (ε {unit}, grid values; "
                f"{_scenario_phrase(m, train_on)}; {TUNING_WORDS}).")
    if k1:
        sentence += f" There honest accounting forces k = 1: {k1}."
    flagged = _flagged(m, attacks, good)
    if flagged:
        sentence += (f" Caution: at ε = {', '.join(map(_fmt, flagged))} an attack's classifier collapsed or "
                     "scored far below chance, which is not evidence of protection.")
    return TradeOff(mech, good, good[0], good[-1], sentence)


def find_tradeoff(summary: pd.DataFrame, *, target: float = 0.8, margin: float = 0.05, utility: str | None = "task",
                  attacks: Sequence[str] | None = None, classifier: Classifier = Classifier.SVM,
                  train_on: TrainOn | str | None = None) -> list[TradeOff]:
    """Summary -> per mechanism, the grid ε where utility accuracy ≥ target and every attack ≤ chance + margin.

    utility None (or absent from the summary) looks for the ε where the attacks alone stay near chance.
    attacks None means every other task in the summary. train_on None: the strongest scenario per setting.
    """
    s = _scenario_rows(summary, classifier, train_on)
    unit = epsilon_unit(summary)
    tasks = set(s["task"])
    if utility not in tasks:
        utility = None
    attacks = [t for t in (attacks if attacks is not None else sorted(tasks)) if t in tasks and t != utility]
    return [_mechanism_tradeoff(str(mech), m, utility, attacks, target, margin, unit, train_on)
            for mech, m in s.groupby("mechanism", sort=False)]


def epsilon_for_accuracy(summary: pd.DataFrame, accuracy: float, *, task: str = "task", classifier: Classifier = Classifier.SVM,
                         train_on: TrainOn | str | None = None) -> dict[str, tuple[float | None, str]]:
    """Summary, wanted accuracy -> per mechanism (smallest ε reaching it, sentence); interpolated on log ε.

    train_on None: the better scenario per setting (named in the sentence)."""
    s = _scenario_rows(summary, classifier, train_on)
    s = s[s["task"] == task]
    unit = epsilon_unit(summary)
    out: dict[str, tuple[float | None, str]] = {}
    for mech, m in s.groupby("mechanism", sort=False):
        m = m.sort_values("epsilon")
        e = m["epsilon"].to_numpy(float)
        a = m["accuracy"].to_numpy(float)
        hit = np.flatnonzero(a >= accuracy)
        if hit.size == 0:
            out[mech] = (None, f"{mech} does not reach {_words(task)} {accuracy:.2f} at any ε up to {_fmt(e.max())} "
                               f"{unit} (best {a.max():.2f}; {_scenario_phrase(m, train_on)}).")
            continue
        i = int(hit[0])
        if i == 0:
            out[mech] = (float(e[0]), f"{mech} reaches {_words(task)} {accuracy:.2f} already at the smallest ε tried, "
                                      f"{_fmt(e[0])} {unit} ({a[0]:.2f}; {_scenario_phrase(m, train_on)}).")
            continue
        # Linear in log ε between the last miss and the first hit (an estimate between grid points).
        frac = (accuracy - a[i - 1]) / (a[i] - a[i - 1]) if a[i] != a[i - 1] else 1.0
        est = float(np.exp(np.log(e[i - 1]) + frac * (np.log(e[i]) - np.log(e[i - 1]))))
        out[mech] = (est, f"{mech} needs ε ≈ {est:.3g} {unit} for {_words(task)} {accuracy:.2f} (between the "
                          f"grid points {_fmt(e[i - 1])} → {a[i - 1]:.2f} and {_fmt(e[i])} → {a[i]:.2f}; "
                          f"{_scenario_phrase(m, train_on)}; {TUNING_WORDS}).")
    return out
