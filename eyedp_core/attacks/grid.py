"""`sweep`: the attacks over grids of mechanisms, ε, scenarios, classifiers and repetitions, yielding as they finish.

A grid *point* is one privacy setting (mechanism, ε, scenario, repetition); all tasks and classifiers of a
point share its releases, which are drawn once. `plan_points` lists the points, `run_point` computes one
(the page caches it per point, so an interrupted run resumes where it stopped), `sweep` chains both and
yields one `SweepRow` per (point, task, classifier). `summarise` averages the repetitions (mean and sd) and
`paper_table` lays a summary out like Tables 1-3 of Bozkir et al.: methods × ε, each cell "k-NN|SVM|DT|RF".
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TypedDict, Unpack

import numpy as np
import pandas as pd

from eyedp_core.attacks.ceiling import person_calls
from eyedp_core.attacks.classifiers import PAPER_ORDER, Classifier
from eyedp_core.attacks.engine import (
    DEFAULT_MAX_TRAIN,
    EvalResult,
    Point,
    PointData,
    TrainOn,
    below_chance,
    collapsed,
    run_task,
    with_overrides,
)
from eyedp_core.attacks.privatize import resolve_bounds
from eyedp_core.attacks.splits import TaskSpec, task_spec
from eyedp_core.attacks.tables import AttackTable, prepare

__all__ = ["DEFAULT_EPSILONS", "DEFAULT_MECHANISMS", "DEFAULT_SCENARIOS", "PAPER_EPSILONS", "GridOptions", "GridSpec", "Runner", "RunnerOptions", "SweepRow",
           "available_tasks", "paper_table", "plan_points",
           "rows_frame", "run_point", "summarise", "sweep"]

# Bozkir et al.'s seven methods; ε per participant from strong protection (0.1) to none (10⁵), two points
# per decade (1 and 3 × 10ᵈ), so a chart of the transition has no jumps.
DEFAULT_MECHANISMS: tuple[str, ...] = ("FPA", "CFPA-32", "CFPA-64", "CFPA-128", "DCFPA-32", "DCFPA-64", "DCFPA-128")
DEFAULT_EPSILONS: tuple[float, ...] = tuple(float(f"{m}e{d}") for d in range(-1, 5) for m in (1, 3)) + (1e5,)
# The paper's own grid (accounting="paper": Σ over 48 features per recording, chunks in parallel).
PAPER_EPSILONS: tuple[float, ...] = (0.48, 2.4, 4.8, 24.0, 48.0)
# The strongest attacker first (trained on its own private release), the clean-trained one as the labelled second.
DEFAULT_SCENARIOS: tuple[TrainOn, ...] = (TrainOn.PRIVATE, TrainOn.CLEAN)


@dataclass(frozen=True)
class SweepRow:
    """One (setting, task, classifier) result: accuracies, chance, and the budget it was bought with."""

    mechanism: str
    epsilon: float | None
    train_on: str
    accounting: str
    repetition: int
    task: str
    classifier: str
    accuracy: float
    chance: float
    window_accuracy: float
    window_chance: float
    vote_accuracy: float | None
    participant_epsilon: float | None  # what one person is guaranteed by the release under attack
    per_call_epsilon: float | None
    k: int | None
    seconds: float
    plan: str = ""
    prediction_share: float = float("nan")  # largest share of test units predicted as one class
    n_units: int = 0  # test units the accuracy is over (voted recordings, else windows)
    n_classes: int = 0  # classes the attacker chooses among
    calls: tuple[tuple[int, float], ...] = ()  # per person of the attacked release: (mechanism calls, ε per call)


def available_tasks(at: AttackTable) -> tuple[str, ...]:
    """Prepared table -> the tasks it supports: 'task' and 'gender' if they vary, 'identity' with 2+ people."""
    out = []
    for label in ("task", "gender"):
        if label in at.frame.columns and at.frame[label].dropna().astype(str).nunique() > 1:
            out.append(label)
    if at.n_participants >= 2:
        out.append("identity")
    return tuple(out)


def plan_points(mechanisms: Sequence[str] = DEFAULT_MECHANISMS, epsilons: Sequence[float] = DEFAULT_EPSILONS, *,
                train_on: Sequence[TrainOn | str] = DEFAULT_SCENARIOS, repetitions: int = 1,
                accounting: str = "participant",
                k: int | str = "public", increment_bound: float | None = None,
                include_clean: bool = True) -> list[Point]:
    """Grid -> the points to run, clean baseline first, then mechanism by mechanism, ε ascending."""
    if repetitions < 1:
        raise ValueError(f"repetitions must be >= 1, got {repetitions!r}")
    points: list[Point] = [Point()] if include_clean else []
    for mech in mechanisms:
        for eps in sorted(float(e) for e in epsilons):
            for scenario in train_on:
                for r in range(int(repetitions)):
                    points.append(Point(mechanism=mech, epsilon=eps, train_on=scenario, accounting=accounting,
                                        k=k, increment_bound=increment_bound, repetition=r))
    return points


class Runner:
    """One table with fixed protocol settings; runs grid points and keeps what they can share.

    It caches each task's rows (per repetition) and, inside them, the classifiers trained on clean data,
    so every "trained on clean data" point after the first only predicts. Settings that change the rows
    or the models (gap, subsampling, seed, bounds, training cap, folds) make a new Runner.
    """

    def __init__(self, at: AttackTable, *, gap: str | int = "window", subsample: int | None = None, seed: int = 0,
                 n_jobs: int = 2, bounds: str | Mapping[str, tuple[float, float]] = "public",
                 max_train: int | None = DEFAULT_MAX_TRAIN, folds: int | None = None) -> None:
        self.at, self.gap, self.subsample, self.seed = at, gap, subsample, int(seed)
        self.n_jobs, self.max_train, self.folds = int(n_jobs), max_train, folds
        self.bounds_rule = bounds
        self._bounds = None
        self._specs: dict[tuple[str, int], TaskSpec] = {}

    def spec(self, task: str, repetition: int = 0) -> TaskSpec:
        """Task, repetition -> its rows and folds (made once)."""
        key = (task, int(repetition))
        if key not in self._specs:
            self._specs[key] = task_spec(self.at, task, gap=self.gap, subsample=self.subsample, seed=self.seed,
                                         repetition=repetition, folds=self.folds)
        return self._specs[key]

    def run_point(self, point: Point, *, tasks: Sequence[str], classifiers: Sequence[Classifier] = (Classifier.SVM,),
                  majority_vote: bool = True) -> Iterator[SweepRow]:
        """One setting -> one SweepRow per task × classifier, as each finishes (its releases drawn once)."""
        if point.mechanism is not None and self._bounds is None:
            self._bounds = resolve_bounds(self.at, self.bounds_rule)
        data = PointData(self.at, point, bounds=self._bounds if point.mechanism else None, seed=self.seed)
        for task in tasks:
            spec = self.spec(task, point.repetition)
            for clf in classifiers:
                res = run_task(self.at, spec, data, clf, majority_vote=majority_vote, seed=self.seed,
                               n_jobs=self.n_jobs, max_train=self.max_train)
                yield _row(point, task, clf, res, n_classes=len(spec.classes))


def _row(point: Point, task: str, clf: str, res: EvalResult, n_classes: int = 0) -> SweepRow:
    plan = res.plans[0] if res.plans else None  # the release under attack
    return SweepRow(mechanism=point.label, epsilon=point.epsilon, train_on=TrainOn(point.train_on).value,
                    accounting=point.accounting, repetition=point.repetition, task=task, classifier=clf,
                    accuracy=res.accuracy, chance=res.chance, window_accuracy=res.window_accuracy,
                    window_chance=res.window_chance, vote_accuracy=res.vote_accuracy,
                    participant_epsilon=plan.participant_total if plan else None,
                    per_call_epsilon=float(plan.per_call.min()) if plan else None,
                    k=int(plan.k.max()) if plan else None, seconds=res.seconds, plan=plan.words if plan else "",
                    prediction_share=res.prediction_share,
                    n_units=len(res.units) if res.majority_vote else int(res.n_test), n_classes=int(n_classes),
                    calls=person_calls(plan) if plan else ())


class RunnerOptions(TypedDict, total=False):
    """Runner's protocol settings as keyword arguments (see Runner)."""

    gap: str | int
    subsample: int | None
    seed: int
    n_jobs: int
    bounds: str | Mapping[str, tuple[float, float]]
    max_train: int | None
    folds: int | None


def run_point(at: AttackTable, point: Point, *, tasks: Sequence[str],
              classifiers: Sequence[Classifier] = (Classifier.SVM,),
              majority_vote: bool = True, **protocol: Unpack[RunnerOptions]) -> list[SweepRow]:
    """Prepared table, one setting -> SweepRows for every task × classifier (a one-off Runner with `protocol`)."""
    runner = Runner(at, **protocol)
    return list(runner.run_point(point, tasks=tasks, classifiers=classifiers, majority_vote=majority_vote))


@dataclass(frozen=True, kw_only=True)
class GridSpec:
    """A grid of attacks: which tasks, mechanisms, ε, scenarios, classifiers and repetitions, and the protocol.

    Every field means what the same field of EvaluateSpec means; tasks None means every task the table supports;
    include_clean adds the clean baseline as the first point.
    """

    tasks: Sequence[str] | None = None
    mechanisms: Sequence[str] = DEFAULT_MECHANISMS
    epsilons: Sequence[float] = DEFAULT_EPSILONS
    classifiers: Sequence[Classifier] = PAPER_ORDER
    train_on: Sequence[TrainOn | str] = DEFAULT_SCENARIOS
    repetitions: int = 1
    majority_vote: bool = True
    subsample: int | None = None
    accounting: str = "participant"
    k: int | str = "public"
    increment_bound: float | None = None
    gap: str | int = "window"
    seed: int = 0
    n_jobs: int = 2
    bounds: str | Mapping[str, tuple[float, float]] = "public"
    max_train: int | None = DEFAULT_MAX_TRAIN
    folds: int | None = None
    include_clean: bool = True
    features: Sequence[str] | None = None
    window_s: float | None = None


class GridOptions(TypedDict, total=False):
    """The fields of GridSpec as keyword arguments of `sweep` (each overrides the spec's value)."""

    tasks: Sequence[str] | None
    mechanisms: Sequence[str]
    epsilons: Sequence[float]
    classifiers: Sequence[Classifier]
    train_on: Sequence[TrainOn | str]
    repetitions: int
    majority_vote: bool
    subsample: int | None
    accounting: str
    k: int | str
    increment_bound: float | None
    gap: str | int
    seed: int
    n_jobs: int
    bounds: str | Mapping[str, tuple[float, float]]
    max_train: int | None
    folds: int | None
    include_clean: bool
    features: Sequence[str] | None
    window_s: float | None


def sweep(table: pd.DataFrame | AttackTable, spec: GridSpec | None = None,
          **overrides: Unpack[GridOptions]) -> Iterator[SweepRow]:
    """Feature table and grid -> SweepRow per (setting, task, classifier), yielded as each finishes.

    The grid is a GridSpec; any of its fields can also be given as a keyword, which overrides the spec's value.
    Deterministic for a given seed, whatever order or subset of the grid is run.
    """
    g = with_overrides(spec or GridSpec(), overrides)
    features = None if g.features is None else list(g.features)
    at = table if isinstance(table, AttackTable) else prepare(table, features=features, window_s=g.window_s)
    tasks = available_tasks(at) if g.tasks is None else tuple(g.tasks)
    points = plan_points(g.mechanisms, g.epsilons, train_on=g.train_on, repetitions=g.repetitions,
                         accounting=g.accounting, k=g.k, increment_bound=g.increment_bound,
                         include_clean=g.include_clean)
    runner = Runner(at, gap=g.gap, subsample=g.subsample, seed=g.seed, n_jobs=g.n_jobs, bounds=g.bounds,
                    max_train=g.max_train, folds=g.folds)
    for point in points:
        yield from runner.run_point(point, tasks=tasks, classifiers=g.classifiers, majority_vote=g.majority_vote)


def rows_frame(rows: Sequence[SweepRow]) -> pd.DataFrame:
    """SweepRows -> one long DataFrame (one row each)."""
    cols = list(SweepRow.__dataclass_fields__)
    return pd.DataFrame([asdict(r) for r in rows], columns=cols)


def summarise(rows: Sequence[SweepRow] | pd.DataFrame) -> pd.DataFrame:
    """SweepRows -> mean and sd over repetitions per (mechanism, ε, scenario, task, classifier).

    prediction_share is the largest over the repetitions; `collapsed` flags a classifier that answered one
    class for ≥ 90 % of the test units where the test set is not that unbalanced, `below_chance` an accuracy more
    than 0.1 under chance (a leave-one-person-out classifier answering its training majority): neither is
    protection.
    """
    df = rows if isinstance(rows, pd.DataFrame) else rows_frame(rows)
    if df.empty:
        return pd.DataFrame(columns=["mechanism", "epsilon", "train_on", "task", "classifier", "accuracy",
                                     "accuracy_sd", "chance", "window_accuracy", "runs", "k", "plan",
                                     "prediction_share", "collapsed", "below_chance", "accounting"])
    df = df.assign(epsilon=df["epsilon"].astype(float).fillna(0.0))
    if "prediction_share" not in df:
        df = df.assign(prediction_share=np.nan)
    if "accounting" not in df:
        df = df.assign(accounting="participant")
    for col, empty in (("n_units", 0), ("n_classes", 0), ("calls", ())):
        if col not in df:
            df = df.assign(**{col: [empty] * len(df)})
    df = df.assign(calls=[tuple(tuple(c) for c in v) if isinstance(v, (list, tuple)) else () for v in df["calls"]])
    df = df.assign(train_on=df["train_on"].map(lambda v: TrainOn(v).value))
    g = df.groupby(["mechanism", "epsilon", "train_on", "task", "classifier"], sort=False, dropna=False)
    out = g.agg(accuracy=("accuracy", "mean"), accuracy_sd=("accuracy", "std"), chance=("chance", "mean"),
                window_accuracy=("window_accuracy", "mean"), runs=("accuracy", "size"), k=("k", "max"),
                participant_epsilon=("participant_epsilon", "max"), plan=("plan", "first"),
                prediction_share=("prediction_share", "max"), accounting=("accounting", "first"),
                n_units=("n_units", "sum"), n_classes=("n_classes", "max"), calls=("calls", "first")).reset_index()
    out["accuracy_sd"] = out["accuracy_sd"].fillna(0.0)
    out["collapsed"] = [collapsed(p, c) for p, c in zip(out["prediction_share"], out["chance"], strict=True)]
    out["below_chance"] = [below_chance(a, c) for a, c in zip(out["accuracy"], out["chance"], strict=True)]
    out["epsilon"] = out["epsilon"].where(out["mechanism"] != "clean", np.nan)
    return out


def paper_table(summary: pd.DataFrame, task: str, *, train_on: TrainOn | str = TrainOn.PRIVATE,
                classifiers: Sequence[Classifier] = PAPER_ORDER, digits: int = 2) -> pd.DataFrame:
    """Summary -> the papers' layout for one task: rows = methods, columns = ε, cells 'k-NN|SVM|DT|RF'.

    A classifier that was not run shows '–'; the clean row (if present) has the same value in every column.
    """
    scen = TrainOn(train_on).value
    s = summary[(summary["task"] == task) & ((summary["train_on"] == scen) | (summary["mechanism"] == "clean"))]
    if s.empty:
        return pd.DataFrame()
    eps = sorted(e for e in s["epsilon"].dropna().unique())
    methods = list(dict.fromkeys(s["mechanism"]))
    if "clean" in methods:
        methods = ["clean"] + [m for m in methods if m != "clean"]
    lookup = {(r.mechanism, None if r.mechanism == "clean" else float(r.epsilon), r.classifier): r.accuracy
              for r in s.itertuples()}

    def cell(m: str, e: float | None) -> str:
        vals = [lookup.get((m, None if m == "clean" else e, c)) for c in classifiers]
        return "|".join("–" if v is None or not np.isfinite(v) else f"{v:.{digits}f}" for v in vals)

    data = {f"ε = {e:g}": [cell(m, e) for m in methods] for e in eps} or {"clean": [cell(m, None) for m in methods]}
    out = pd.DataFrame(data, index=pd.Index(methods, name=f"{'|'.join(classifiers)}"))
    return out
