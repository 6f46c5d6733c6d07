"""Attacks view, compute side: cached wrappers around eyedp_core.attacks, keyed on the data token and parameters.

* `prepared` turns the selected feature table into an AttackTable once per token;
* `runner` is one eyedp_core Runner per (token, protocol settings), shared by every run: it keeps the
  task rows and the classifiers trained on clean data, so "trained on clean data" settings only predict;
* `point_rows` is one grid point × task, cached with st.cache_data: an unchanged setting is instant, and a
  stopped run resumes where it stopped;
* `baseline` and `traps` are the clean accuracies and the measured protocol flaws shown before any run.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eyedp_core import attacks
from eyedp_core.attacks import ceiling, store
from eyedp_core.attacks.classifiers import Classifier
from eyedp_core.attacks.engine import Point
from eyedp_core.attacks.grid import Runner
from eyedp_core.attacks.privatize import resolve_bounds
from eyedp_core.attacks.tables import AttackTable
from ui.attacks import figs

BOUNDS_RULE = "auto"  # documented public bounds where known; observed range (flagged) for unknown features
SEED = 0
N_JOBS = 2
# Training windows per fold: on the sample, 1,000 windows (one per recording block) gives the same attack strength
# as 4,000 within the noise of the grid (bench/bench_attacks_page.py) at a fifth of the SVM's cost.
MAX_TRAIN = 1000


@dataclass(frozen=True)
class RunSettings:
    """Everything a run depends on, chosen in the settings form (hashable: it names the run)."""

    mechanisms: tuple[str, ...]
    epsilons: tuple[float, ...]
    scenarios: tuple[str, ...]
    classifiers: tuple[Classifier, ...]
    tasks: tuple[str, ...]
    majority_vote: bool = True
    repetitions: int = 1
    accounting: str = "participant"
    gap: str = "window"
    k: int | str = "public"
    subsample: int | None = None  # None: the papers' 10 (LOPO) and 5 (re-identification)
    extend: bool = True  # run larger ε until each mechanism shows the transition (up to EXTEND_LIMIT)

    def points(self) -> list[Point]:
        """The grid points of this run, clean baseline first."""
        return attacks.plan_points(self.mechanisms, self.epsilons, train_on=self.scenarios,
                                   repetitions=self.repetitions, accounting=self.accounting, k=self.k)


@dataclass(frozen=True)
class FinderTargets:
    """The trade-off finder's question: the task accuracy wanted (target), how far above chance the attacks may
    stay (margin), the utility task (None: the attacks alone), the classifier and the training scenario (None: the
    strongest per setting)."""

    target: float
    margin: float
    utility: str | None
    classifier: str
    train_on: str | None = None


@st.cache_resource(max_entries=8, show_spinner="Preparing the feature table…")
def prepared(token: str, _frame: pd.DataFrame) -> AttackTable:
    """Data token (+ table, not hashed) -> the AttackTable (ValueError with a plain message if unusable)."""
    return attacks.prepare(_frame)


@st.cache_resource(max_entries=4, show_spinner=False)
def runner(token: str, gap: str, subsample: int | None, _at: AttackTable) -> Runner:
    """Data token, gap rule, subsampling -> the shared Runner (task rows and clean-trained classifiers live in it)."""
    return Runner(_at, gap=gap, subsample=subsample, seed=SEED, n_jobs=N_JOBS, bounds=BOUNDS_RULE,
                  max_train=MAX_TRAIN)


@st.cache_resource(max_entries=8, show_spinner=False)
def fingerprint(token: str, _at: AttackTable) -> str:
    """Data token -> the table's content fingerprint (what disk-kept results are keyed on)."""
    return store.table_fingerprint(_at)


def result_store() -> store.ResultStore:
    """The disk store of attack results (EYEDP_ATTACK_CACHE, else the user's cache; plus the shipped file)."""
    return store.ResultStore()


def _protocol(gap: str, subsample: int | None) -> dict:
    """Every protocol setting of the shared Runner a result depends on."""
    return {"gap": gap, "subsample": subsample, "seed": SEED, "bounds": BOUNDS_RULE, "max_train": MAX_TRAIN}


@st.cache_data(max_entries=4000, show_spinner=False)
def point_rows(token: str, gap: str, subsample: int | None, point: tuple, task: str, classifiers: tuple[Classifier, ...],
               majority_vote: bool, _at: AttackTable) -> list[dict]:
    """One grid point (Point fields as a tuple) and task -> one result row per classifier (cached in memory and
    on disk, keyed on the table's content, so another session or a restart reads it back)."""
    disk = result_store()
    key = store.result_key(fingerprint(token, _at), _protocol(gap, subsample), point, task, classifiers,
                           majority_vote)
    kept = disk.get(key)
    if kept is not None:
        rows, shipped = kept
        return [{**r, "stored": "shipped" if shipped else "disk"} for r in rows]
    run = runner(token, gap, subsample, _at)
    p = Point(*point)
    rows = [dataclasses.asdict(r) for r in run.run_point(p, tasks=(task,), classifiers=classifiers,
                                                         majority_vote=majority_vote)]
    disk.put(key, rows)
    return [{**r, "stored": ""} for r in rows]


def point_key(point: Point) -> tuple:
    """Point -> the tuple of its fields (what point_rows is cached on)."""
    return dataclasses.astuple(point)


@st.cache_data(max_entries=8, show_spinner="Training the attack classifiers on clean data…")
def baseline(token: str, _at: AttackTable) -> pd.DataFrame:
    """Data token -> clean accuracies of every supported task (SVM, honest split), through the shared Runner."""
    rows = []
    for task in attacks.available_tasks(_at):
        rows += point_rows(token, "window", None, point_key(Point()), task, (Classifier.SVM,), True, _at)
    names = {"task": "Document type", "gender": "Gender", "identity": "Re-identification"}
    return pd.DataFrame([{"attack": names.get(r["task"], r["task"]), "task": r["task"],
                          "per window": r["window_accuracy"], "majority vote": r["vote_accuracy"],
                          "chance": r["chance"], "chance per window": r["window_chance"],
                          "seconds": r["seconds"]} for r in rows])


@st.cache_data(max_entries=8, show_spinner="Measuring the two protocol traps on this table…")
def traps(token: str, _at: AttackTable) -> attacks.Traps:
    """Data token -> re-identification with and without each published-protocol flaw, measured here."""
    return attacks.measure_traps(_at, bounds=BOUNDS_RULE, seed=SEED, n_jobs=N_JOBS, max_train=MAX_TRAIN)


def extension_points(settings: RunSettings, rows: list[dict]) -> list[Point]:
    """Finished rows of a run -> the next larger-ε points for the mechanisms whose grid shows no transition yet
    ([] when every mechanism shows it, the limit is reached, or the run does not extend)."""
    if not settings.extend or not rows:
        return []
    s = attacks.summarise(pd.DataFrame(rows))
    found = attacks.find_transitions(s, classifier=settings.classifiers[0],
                                     utility="task" if "task" in settings.tasks else None)
    more = attacks.epsilons_to_add(found)
    return [Point(mechanism=m, epsilon=e, train_on=scen, accounting=settings.accounting, k=settings.k, repetition=r)
            for m, e in more.items() for scen in settings.scenarios for r in range(settings.repetitions)]


# Cost of one (setting, task) relative to the clean baseline's own fit of that task, measured on the sample:
# an attacker trained on a release fits anew (about the baseline's time), one trained on clean data only predicts.
_COST = {"private": 2.0, "clean": 0.5, "same-release": 2.0}


def estimate_seconds(base: pd.DataFrame, settings: RunSettings, cached: int = 0) -> float:
    """Clean baseline (with its `seconds`) and a run -> its expected seconds on this machine, from the baseline's
    timing (before the possible extension); `cached` steps already finished cost nothing."""
    if base.empty or "seconds" not in base:
        return float("nan")
    per_task = dict(zip(base["task"], base["seconds"].astype(float), strict=True))
    fit = sum(per_task.get(t, float(base["seconds"].mean())) for t in settings.tasks) * len(settings.classifiers)
    points = [p for p in settings.points() if p.mechanism is not None]
    total = sum(_COST.get(str(p.train_on), 1.0) for p in points) * fit
    steps = max(1, len(points) * len(settings.tasks))
    return max(0.0, total * (1 - min(cached, steps) / steps))


def data_derived_features(at: AttackTable) -> list[str]:
    """Features with no documented public bounds (their clamp range is read off the data, §0.4)."""
    return [f for f, s in zip(at.features, resolve_bounds(at, BOUNDS_RULE).source, strict=True)
            if s == "data-derived"]


@st.cache_data(max_entries=32, show_spinner=False)
def summary(token: str, settings: RunSettings, n_rows: int, _rows: list[dict]) -> pd.DataFrame:
    """Finished result rows of a run (keyed by data token, settings and how many rows are done) -> the summary."""
    return ceiling.add_ceilings(attacks.summarise(pd.DataFrame(_rows))) if _rows else pd.DataFrame()


def stored_steps(token: str, settings: RunSettings, at: AttackTable) -> tuple[int, int]:
    """A run -> (its grid steps already kept on disk, how many of them come from the shipped file)."""
    disk, fp, proto = result_store(), fingerprint(token, at), _protocol(settings.gap, settings.subsample)
    kept = shipped = 0
    for p in settings.points():
        for task in settings.tasks:
            got = disk.get(store.result_key(fp, proto, point_key(p), task, settings.classifiers,
                                            settings.majority_vote))
            if got is not None:
                kept += 1
                shipped += int(got[1])
    return kept, shipped



@st.cache_data(max_entries=256, show_spinner=False)
def transition_sentences(token: str, settings: RunSettings, n_rows: int, ask: FinderTargets,
                         _summary: pd.DataFrame) -> list[str]:
    """A run's summary and the finder's targets -> per mechanism, where the strongest attack leaves chance and
    where the task recovers (or up to which ε neither happens), one sentence each."""
    return [t.sentence for t in attacks.find_transitions(_summary, target=ask.target, margin=ask.margin,
                                                         utility=ask.utility, classifier=ask.classifier)]


@st.cache_data(max_entries=32, show_spinner=False)
def transition_figure(token: str, settings: RunSettings, n_rows: int, classifier: str, tasks: tuple[str, ...],
                      _summary: pd.DataFrame) -> go.Figure:
    """A run's summary -> utility and the strongest attacks against ε, one panel per mechanism (S-curves, gap)."""
    found = attacks.find_transitions(_summary, classifier=classifier, utility="task" if "task" in tasks else None)
    return figs.transition_chart(_summary, list(tasks), classifier, found)


@st.cache_data(max_entries=256, show_spinner=False)
def tradeoff_sentences(token: str, settings: RunSettings, n_rows: int, ask: FinderTargets,
                       _summary: pd.DataFrame) -> list[str]:
    """A run's summary (keyed like `summary`) and the trade-off finder's settings -> its answers, one sentence each."""
    return [a.sentence for a in attacks.find_tradeoff(_summary, target=ask.target, margin=ask.margin,
                                                      utility=ask.utility, classifier=ask.classifier,
                                                      train_on=ask.train_on)]


@st.cache_data(max_entries=256, show_spinner=False)
def accuracy_sentences(token: str, settings: RunSettings, n_rows: int, accuracy: float, classifier: str,
                       train_on: str | None, _summary: pd.DataFrame) -> list[str]:
    """A run's summary (keyed like `summary`) and a wanted task accuracy -> per mechanism, the ε it needs (sentences)."""
    return [sentence for _, sentence in attacks.epsilon_for_accuracy(_summary, accuracy, classifier=classifier,
                                                                     train_on=train_on).values()]


@st.cache_data(max_entries=32, show_spinner=False)
def result_figure(token: str, settings: RunSettings, n_rows: int, classifier: str, tasks: tuple[str, ...],
                  _summary: pd.DataFrame) -> go.Figure:
    """A run's summary (keyed like `summary`, plus the classifier shown) -> the accuracy-versus-ε chart."""
    unit = "as in the paper" if settings.accounting == "paper" else "per person"
    return figs.accuracy_vs_epsilon(_summary, list(tasks), classifier, list(settings.scenarios), unit)
