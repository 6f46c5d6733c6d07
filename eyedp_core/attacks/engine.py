"""`evaluate`: one attack (or the utility task) on a feature table, clean or under a private release, honestly.

Tasks (Steil et al. 2019; Bozkir et al., journal version):
* "task" - document/task type, the utility task: leave-one-participant-out (LOPO);
* "gender" - an attacker WITHOUT prior knowledge: trained on other people only (LOPO);
* "identity" - re-identification by an attacker WITH prior knowledge: trained on the first part of every
  recording, tested on the second part;
* any other label column of the table: LOPO, like document type.

The protocol is honest in two ways the published protocols were not (both can be switched back, labelled,
to measure how much they inflate the attack):
1. **Independent noise draws.** The attacker's training data and the data under attack are independent
   releases. By default (train_on="private") the attacker knows the mechanism and ε, the threat model DP is
   defined against, and trains on its own private release of its prior-knowledge data: same mechanism and
   ε, its own noise draw, rows disjoint from the data under attack. train_on="clean" is the second
   scenario (trained on clean data); noise shifts and shrinks the features, so such a classifier often
   answers one class for everything (`prediction_share` says so: that is collapse, not protection). For
   re-identification the two parts of a recording are released separately, as two sessions would be. Training and testing on the same release
   (train_on="same-release") lets a few kept coefficients turn the noise itself into an identifier.
2. **No shared samples.** Windows of 30 s every 0.5 s overlap; the parts are separated by a gap of at least
   one window length (gap="window"), so no test window shares a sample with a training window. gap="paper"
   is the papers' split into halves, whose last training and first test windows overlap.

Classifiers, standardisation, window subsampling (one random window per block of `subsample`: 10 for LOPO
tasks, 5 for re-identification, fewer when recordings are short), majority voting per recording (the
participant's document for "task", the participant and recording otherwise) and chance from the actual class
balance of the test units follow the papers. Ties in a vote are broken at random. Folds run on `n_jobs`
threads; results depend only on `seed`. For large tables each fold's training windows are capped at
`max_train` (an equal share per recording), so the cost grows about linearly with the number of people.
"""
from __future__ import annotations

import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from typing import TypedDict, TypeVar, Unpack

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from eyedp_core.attacks.classifiers import CLASSIFIERS, Classifier, Fitted, fit
from eyedp_core.attacks.privatize import (
    ACCOUNTING,
    Bounds,
    ReleasePlan,
    ReleaseSetting,
    parse_mechanism,
    release,
    resolve_bounds,
)
from eyedp_core.attacks.splits import GAPS, TASKS, TaskSpec, seeded, task_spec
from eyedp_core.attacks.tables import AttackTable, prepare

__all__ = ["BELOW_CHANCE", "COLLAPSE_SHARE", "below_chance", "DEFAULT_MAX_TRAIN", "EvalResult", "EvaluateOptions", "EvaluateSpec", "GAPS", "Point", "PointData", "TASKS", "TRAIN_ON",
           "TaskSpec", "TrainOn", "collapsed", "evaluate", "prediction_share", "run_task", "task_spec",
           "with_overrides"]


class TrainOn(str, Enum):
    """What the attacker trains on (the scenario)."""

    PRIVATE = "private"  # its own independent release: knows the mechanism and ε (the strongest, the default)
    CLEAN = "clean"  # clean data, tested on the release
    SAME_RELEASE = "same-release"  # the published protocols' flaw, run only to measure it

    def __str__(self) -> str:
        return self.value


TRAIN_ON: dict[TrainOn, str] = {
    TrainOn.PRIVATE: "trained on its own independent private release (same mechanism and ε, its own noise "
                     "draw): the attacker DP is defined against",
    TrainOn.CLEAN: "trained on clean data, tested on the release",
    TrainOn.SAME_RELEASE: "trained and tested on the SAME private release (the published protocol's flaw; "
                          "shown only to measure how much it inflates the attack)",
}
# A classifier answering one class for at least this share of the test units has collapsed (unless the test
# set itself is that unbalanced): its accuracy near chance says nothing about protection.
COLLAPSE_SHARE = 0.9
# Accuracy this far below chance is no measurement of protection either: a leave-one-person-out classifier that
# learnt nothing answers the majority of its training people, which excludes the held-out person's class.
BELOW_CHANCE = 0.1


def prediction_share(predicted: np.ndarray) -> float:
    """Predicted class per test unit -> the largest share predicted as one class (1.0 for a one-class answer)."""
    predicted = np.asarray(predicted)
    if predicted.size == 0:
        return float("nan")
    _, counts = np.unique(predicted, return_counts=True)
    return float(counts.max() / predicted.size)


def below_chance(accuracy: float, chance: float) -> bool:
    """Accuracy and chance -> True when the accuracy is more than BELOW_CHANCE under chance (a degenerate answer)."""
    return bool(np.isfinite(accuracy) and np.isfinite(chance) and accuracy < chance - BELOW_CHANCE)


def collapsed(share: float, chance: float) -> bool:
    """Prediction share and chance (the test set's majority share) -> True when the classifier answered one class
    for ≥ COLLAPSE_SHARE of the test units although the test set is not that unbalanced."""
    return bool(np.isfinite(share) and share >= COLLAPSE_SHARE and share > chance + 1e-9
                and chance < COLLAPSE_SHARE)
DEFAULT_MAX_TRAIN = 4000
_PREDICT_BLOCK = 512  # test windows per prediction job


@dataclass(frozen=True)
class Point:
    """One privacy setting: mechanism label (None = clean), ε, scenario, accounting, k rule, repetition."""

    mechanism: str | None = None
    epsilon: float | None = None
    train_on: TrainOn | str = TrainOn.CLEAN
    accounting: str = "participant"
    k: int | str = "public"
    increment_bound: float | None = None
    repetition: int = 0

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "train_on", TrainOn(self.train_on))
        except ValueError:
            raise ValueError(f"train_on must be one of {tuple(t.value for t in TrainOn)}, "
                             f"got {self.train_on!r}") from None
        if self.accounting not in ACCOUNTING:
            raise ValueError(f"accounting must be one of {tuple(ACCOUNTING)}, got {self.accounting!r}")
        if self.mechanism is None:
            if self.train_on is not TrainOn.CLEAN:
                raise ValueError(f"train_on={self.train_on!r} needs a mechanism and ε")
        else:
            mech, chunk = parse_mechanism(self.mechanism)
            object.__setattr__(self, "mechanism", mech.label(chunk))
            if self.epsilon is None or not np.isfinite(self.epsilon) or self.epsilon <= 0:
                raise ValueError(f"{self.mechanism} needs a positive ε, got {self.epsilon!r}")
            object.__setattr__(self, "epsilon", float(self.epsilon))

    @property
    def label(self) -> str:
        """'clean' or the mechanism label."""
        return self.mechanism or "clean"

    def release_key(self) -> int:
        """Stable number naming the noise of this setting (not the scenario: both scenarios face the same
        test release, which keeps their comparison paired)."""
        text = f"{self.mechanism}|{self.epsilon!r}|{self.accounting}|{self.k}|{self.increment_bound!r}"
        return zlib.crc32(text.encode())


@dataclass(frozen=True, eq=False)
class EvalResult:
    """Outcome of one evaluation.

    accuracy/chance: after majority voting if it was asked for (and possible), else per window.
    prediction_share: the largest share of test units (voted units if voted, else windows) predicted as one
    class; `collapsed` when it is ≥ COLLAPSE_SHARE although the test set is not that unbalanced.
    folds: one row per fold (name, n_train, n_test, window_accuracy, vote_accuracy).
    units: one row per voting unit (recording keys, true, predicted, n_windows).
    predictions: one row per test window (row, participant, recording keys, window position, true,
    predicted, fold).
    """

    task: str
    label: str
    protocol: str
    classifier: str
    accuracy: float
    chance: float
    window_accuracy: float
    window_chance: float
    vote_accuracy: float | None
    vote_chance: float | None
    majority_vote: bool
    n_train: int
    n_test: int
    folds: pd.DataFrame
    units: pd.DataFrame
    predictions: pd.DataFrame
    point: Point
    plans: tuple[ReleasePlan, ...]
    gap_windows: int
    subsample: int
    seed: int
    seconds: float
    prediction_share: float = float("nan")
    notes: tuple[str, ...] = field(default=())

    @property
    def collapsed(self) -> bool:
        """True when the classifier answered (nearly) one class for everything: not protection."""
        return collapsed(self.prediction_share, self.chance)

    @property
    def mechanism(self) -> str:
        """'clean' or the mechanism label."""
        return self.point.label

    @property
    def epsilon(self) -> float | None:
        """ε as chosen (per participant by default)."""
        return self.point.epsilon

    @property
    def train_on(self) -> TrainOn:
        """The scenario."""
        return self.point.train_on



class PointData:
    """The feature values one privacy setting shows the attacker: clean, or releases made once and reused.

    Every release is drawn from its own generator, named by the seed, the setting, the repetition, the rows
    released and the role ("test" = the data under attack, "train" = the attacker's own release). So the
    training and test releases are independent, and each is the same whichever task asks for it first.
    """

    def __init__(self, at: AttackTable, point: Point, *, bounds: Bounds | None, seed: int) -> None:
        self.at, self.point, self.bounds, self.seed = at, point, bounds, int(seed)
        self._cache: dict[tuple[str, bytes], tuple[np.ndarray, ReleasePlan]] = {}
        if point.mechanism is not None and bounds is None:
            raise ValueError("a private release needs bounds (resolve_bounds)")

    def _release(self, rows: np.ndarray, role: str) -> tuple[np.ndarray, ReleasePlan]:
        rows_key = np.asarray(rows, dtype=np.int64).tobytes()
        key = (role, rows_key)
        if key not in self._cache:
            p = self.point
            rng = seeded(self.seed, 3, p.release_key(), p.repetition, zlib.crc32(rows_key), 0 if role == "test" else 1)
            setting = ReleaseSetting(p.mechanism, p.epsilon, p.accounting, p.k, p.increment_bound)
            self._cache[key] = release(self.at, rows, setting, bounds=self.bounds, rng=rng)
        return self._cache[key]

    def matrices(self, spec: TaskSpec) -> tuple[np.ndarray, np.ndarray, tuple[ReleasePlan, ...]]:
        """Task rows -> (training windows, test windows, plans of the releases used)."""
        x = self.at.x
        if self.point.mechanism is None:
            return x[spec.train_rows], x[spec.test_rows], ()
        if self.point.train_on is TrainOn.SAME_RELEASE:
            whole = np.union1d(spec.train_part, spec.test_part)
            if spec.task == "identity":  # the gap rows were released too: one series per recording
                whole = np.flatnonzero(np.isin(self.at.rec, self.at.rec[whole]))
            values, plan = self._release(whole, "test")
            where = np.searchsorted(whole, spec.train_rows), np.searchsorted(whole, spec.test_rows)
            return values[where[0]], values[where[1]], (plan,)
        test_values, test_plan = self._release(spec.test_part, "test")
        xte = test_values[np.searchsorted(spec.test_part, spec.test_rows)]
        if self.point.train_on is TrainOn.CLEAN:
            return x[spec.train_rows], xte, (test_plan,)
        train_values, train_plan = self._release(spec.train_part, "train")
        xtr = train_values[np.searchsorted(spec.train_part, spec.train_rows)]
        return xtr, xte, (test_plan, train_plan)


def _cap(rows_rec: np.ndarray, max_train: int | None, rng: np.random.Generator) -> np.ndarray:
    """Recording of every training window, cap -> mask keeping at most an equal share per recording."""
    keep = np.ones(rows_rec.size, bool)
    if max_train is None or rows_rec.size <= max_train:
        return keep
    recs = np.unique(rows_rec)
    q = max(1, int(max_train) // recs.size)
    order = np.lexsort((rng.random(rows_rec.size), rows_rec))
    sorted_rec = rows_rec[order]
    first = np.r_[True, sorted_rec[1:] != sorted_rec[:-1]]
    rank = np.arange(sorted_rec.size) - np.maximum.accumulate(np.where(first, np.arange(sorted_rec.size), 0))
    keep[order] = rank < q
    return keep


def _vote(unit: np.ndarray, pred: np.ndarray, n_classes: int,
          rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Voting unit and predicted class per window -> (unit ids, majority class per unit; random ties)."""
    ids, inv = np.unique(unit, return_inverse=True)
    counts = np.zeros((ids.size, n_classes))
    np.add.at(counts, (inv, pred), 1.0)
    return ids, np.argmax(counts + 0.5 * rng.random(counts.shape), axis=1)


def _chance(y: np.ndarray) -> float:
    """Class index per test unit -> accuracy of always answering the most frequent class."""
    return float(np.bincount(y).max() / y.size) if y.size else float("nan")


def _fit_predict(at: AttackTable, spec: TaskSpec, data: PointData, classifier: Classifier, *, seed: int, n_jobs: int,
                 max_train: int | None) -> tuple[np.ndarray, np.ndarray, list[int], tuple[ReleasePlan, ...]]:
    """Task rows and the setting's data -> (predicted class and fold per test window, training windows per fold,
    plans of the releases used); folds train and predict on n_jobs threads."""
    xtr, xte, plans = data.matrices(spec)
    ytr = spec.y[spec.train_rows]
    ptr = at.pid[spec.train_rows]
    rec_tr = at.rec[spec.train_rows]
    n_classes = spec.classes.size
    rep = data.point.repetition
    cls_key = zlib.crc32(classifier.encode())

    clean_train = data.point.mechanism is None or data.point.train_on is TrainOn.CLEAN
    te_people = at.pid[spec.test_rows]

    def train(i: int) -> tuple[Fitted, int]:
        name, tr_mask, te_mask = spec.folds[i]
        if spec.protocol != "prior knowledge":  # never train on the test participants (checked, not assumed)
            if np.isin(ptr[tr_mask], te_people[te_mask]).any():
                raise RuntimeError(f"fold {name} would train on its own test participant")
        key = (classifier, i, max_train, int(seed))
        cached = spec.fitted.get(key) if clean_train else None
        if cached is None:
            rng = seeded(seed, 4, rep, i, cls_key)
            idx = np.flatnonzero(tr_mask)
            idx = idx[_cap(rec_tr[idx], max_train, rng)]
            cached = (fit(classifier, xtr[idx], ytr[idx], n_classes=n_classes, seed=int(rng.integers(2**31))),
                      int(idx.size))
            if clean_train:
                spec.fitted[key] = cached
        return cached

    # Test windows of each fold in fixed blocks, so prediction also uses both threads when there is one fold
    # (re-identification) and the answer does not depend on n_jobs.
    blocks = [(i, rows[j:j + _PREDICT_BLOCK]) for i, (_, _, te_mask) in enumerate(spec.folds)
              for rows in (np.flatnonzero(te_mask),) for j in range(0, max(rows.size, 1), _PREDICT_BLOCK)]

    def predict(b: int) -> np.ndarray:
        i, rows = blocks[b]
        rng = seeded(seed, 6, rep, i, b, cls_key, data.point.release_key())
        return fitted[i][0].predict(xte[rows], rng)

    jobs = max(1, int(n_jobs))
    if jobs > 1:
        pool = Parallel(n_jobs=jobs, backend="threading")
        fitted = pool(delayed(train)(i) for i in range(len(spec.folds)))
        parts = pool(delayed(predict)(b) for b in range(len(blocks)))
    else:
        fitted = [train(i) for i in range(len(spec.folds))]
        parts = [predict(b) for b in range(len(blocks))]
    pred = np.empty(spec.test_rows.size, dtype=int)
    fold_of = np.empty(spec.test_rows.size, dtype=int)
    for (i, rows), p in zip(blocks, parts, strict=True):
        pred[rows] = p
        fold_of[rows] = i
    return pred, fold_of, [n for _, n in fitted], plans


@dataclass(frozen=True)
class _Votes:
    """Majority votes per voting unit (a recording): unit ids, each unit's first test window, true and voted class."""

    ids: np.ndarray
    first: np.ndarray
    true: np.ndarray
    pred: np.ndarray


def _votes(at: AttackTable, spec: TaskSpec, pred: np.ndarray, yte: np.ndarray, classifier: Classifier, *, seed: int,
           repetition: int) -> _Votes:
    """Predicted class per test window -> the majority vote of each recording (ties broken at random)."""
    rec_te = at.rec[spec.test_rows]
    cls_key = zlib.crc32(classifier.encode())
    vote_rng = seeded(seed, 5, repetition, cls_key, zlib.crc32(spec.task.encode()))
    unit_ids, unit_pred = _vote(rec_te, pred, spec.classes.size, vote_rng)
    first = np.searchsorted(rec_te, unit_ids) if np.all(np.diff(rec_te) >= 0) else np.array(
        [np.flatnonzero(rec_te == u)[0] for u in unit_ids])
    return _Votes(unit_ids, first, yte[first], unit_pred)


def _tables(at: AttackTable, spec: TaskSpec, pred: np.ndarray, fold_of: np.ndarray, yte: np.ndarray,
            votes: _Votes, n_train: list[int]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Predictions and votes -> (one row per test window, one per voting unit, one per fold)."""
    hit = pred == yte
    rec_te = at.rec[spec.test_rows]
    keys = list(at.rec_keys)
    predictions = at.frame.iloc[spec.test_rows][keys].reset_index(drop=True).assign(
        row=spec.test_rows, window=at.pos[spec.test_rows], true=spec.classes[yte], predicted=spec.classes[pred],
        fold=[spec.folds[i][0] for i in fold_of])
    units = at.frame.iloc[spec.test_rows[votes.first]][keys].reset_index(drop=True).assign(
        true=spec.classes[votes.true], predicted=spec.classes[votes.pred],
        n_windows=np.bincount(np.searchsorted(votes.ids, rec_te), minlength=votes.ids.size))
    fold_rows = []
    for i, (name, _, te_mask) in enumerate(spec.folds):
        in_fold = np.isin(votes.ids, rec_te[te_mask])
        fold_rows.append({"fold": name, "n_train": n_train[i], "n_test": int(te_mask.sum()),
                          "window_accuracy": float(hit[te_mask].mean()) if te_mask.any() else float("nan"),
                          "vote_accuracy": float((votes.pred[in_fold] == votes.true[in_fold]).mean())
                          if spec.vote and in_fold.any() else float("nan")})
    return predictions, units, pd.DataFrame(fold_rows)


def _notes(at: AttackTable, spec: TaskSpec, data: PointData, plans: tuple[ReleasePlan, ...], share: float,
           chance: float | None) -> tuple[str, ...]:
    """What the reader of a result must know: the table's and split's notes, the release, data-derived bounds,
    the flawed scenario, a second release of each person, and a collapsed classifier."""
    notes = list(at.notes) + list(spec.notes) + [p.words for p in plans[:1]]
    if data.bounds is not None and data.bounds.data_derived:
        names = [at.features[i] for i in data.bounds.data_derived]
        notes.append(f"bounds of {len(names)} feature(s) ({', '.join(names[:4])}{' …' if len(names) > 4 else ''}) "
                     "were read off the data: not a DP guarantee (docs/PRIVACY_MODEL.md §0.4)")
    if data.point.train_on is TrainOn.SAME_RELEASE:
        notes.append("trained and tested on the SAME release: the published protocols' flaw, run only to measure "
                     "how much it inflates the attack — not an honest result")
    if data.point.train_on is TrainOn.PRIVATE and spec.task == "identity" and plans:
        notes.append(f"the attacker's training part is a second release of each person: with both parts released, "
                     f"a person's total is {2 * plans[0].participant_total:g}")
    if collapsed(share, chance):  # type: ignore[arg-type]
        notes.append(f"the classifier answered one class for {share:.0%} of the test units (the most frequent "
                     f"class is {chance:.0%} of them): it collapsed, so its accuracy near chance is not "
                     "evidence of protection")
    return tuple(dict.fromkeys(notes))


def run_task(at: AttackTable, spec: TaskSpec, data: PointData, classifier: Classifier = Classifier.SVM, *,
             majority_vote: bool = True, seed: int = 0, n_jobs: int = 2,
             max_train: int | None = DEFAULT_MAX_TRAIN) -> EvalResult:
    """Prepared table, task rows, the setting's data, classifier -> EvalResult (folds on n_jobs threads)."""
    if classifier not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {classifier!r}; choose from {', '.join(CLASSIFIERS)}")
    t0 = time.perf_counter()
    pred, fold_of, n_train, plans = _fit_predict(at, spec, data, classifier, seed=seed, n_jobs=n_jobs,
                                                 max_train=max_train)
    yte = spec.y[spec.test_rows]
    hit = pred == yte
    window_acc = float(hit.mean()) if hit.size else float("nan")
    window_chance = _chance(yte)
    votes = _votes(at, spec, pred, yte, classifier, seed=seed, repetition=data.point.repetition)
    vote_acc = float((votes.pred == votes.true).mean()) if spec.vote else None
    vote_chance = _chance(votes.true) if spec.vote else None
    voted = majority_vote and spec.vote
    predictions, units, folds = _tables(at, spec, pred, fold_of, yte, votes, n_train)
    share = prediction_share(votes.pred if voted else pred)
    chance_used = vote_chance if voted else window_chance
    return EvalResult(
        task=spec.task, label=spec.label, protocol=spec.protocol, classifier=classifier,
        accuracy=vote_acc if voted else window_acc, chance=vote_chance if voted else window_chance,
        window_accuracy=window_acc, window_chance=window_chance, vote_accuracy=vote_acc, vote_chance=vote_chance,
        majority_vote=voted, n_train=max(n_train, default=0), n_test=int(spec.test_rows.size),
        folds=folds, units=units, predictions=predictions, point=data.point, plans=plans,
        gap_windows=spec.gap_windows, subsample=spec.subsample, seed=int(seed), seconds=time.perf_counter() - t0,
        prediction_share=share, notes=_notes(at, spec, data, plans, share, chance_used))


@dataclass(frozen=True, kw_only=True)
class EvaluateSpec:
    """How one evaluation runs: the attacker, the privacy setting under attack and the protocol.

    classifier: a name from `classifiers.CLASSIFIERS`. mechanism: None (clean) or a label such as "FPA",
    "CFPA-32", "DCFPA-64", "LPA"; epsilon: per participant for the whole release (accounting="participant"),
    or as in the paper (accounting="paper", labelled). k: "public" rule or an integer; increment_bound: DCFPA's,
    as a fraction of the range. train_on: "private" (the default: the attacker trains on its own independent
    release of its prior-knowledge data, same mechanism and ε, its own noise draw) | "clean" | "same-release"
    (the flawed protocol, to measure it); a TrainOn or its text. Without a mechanism there is no release to
    train on, so the default means clean; "same-release" without a mechanism is an error.
    gap: "window" (one window length) | "paper" (overlapping halves) | a number of windows.
    bounds: "public" (documented feature bounds), "auto" / "data" (observed range where needed, flagged) or a
    mapping {feature: (L, U)}. features / window_s: passed to `prepare` when the table is a DataFrame.
    """

    classifier: Classifier = Classifier.SVM
    majority_vote: bool = True
    subsample: int | None = None
    train_on: TrainOn | str = TrainOn.PRIVATE
    mechanism: str | None = None
    epsilon: float | None = None
    accounting: str = "participant"
    k: int | str = "public"
    increment_bound: float | None = None
    gap: str | int = "window"
    seed: int = 0
    n_jobs: int = 2
    features: Sequence[str] | None = None
    bounds: str | Mapping[str, tuple[float, float]] = "public"
    window_s: float | None = None
    max_train: int | None = DEFAULT_MAX_TRAIN
    folds: int | None = None
    repetition: int = 0


class EvaluateOptions(TypedDict, total=False):
    """The fields of EvaluateSpec as keyword arguments of `evaluate` (each overrides the spec's value)."""

    classifier: Classifier
    majority_vote: bool
    subsample: int | None
    train_on: TrainOn | str
    mechanism: str | None
    epsilon: float | None
    accounting: str
    k: int | str
    increment_bound: float | None
    gap: str | int
    seed: int
    n_jobs: int
    features: Sequence[str] | None
    bounds: str | Mapping[str, tuple[float, float]]
    window_s: float | None
    max_train: int | None
    folds: int | None
    repetition: int


S = TypeVar("S")


def with_overrides(spec: S, overrides: Mapping[str, object]) -> S:
    """Frozen spec and keyword overrides -> a copy with them set; an unknown name is a TypeError naming the valid
    ones (a typo must not silently run with a default)."""
    names = {f.name for f in fields(spec)}  # type: ignore[arg-type]
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise TypeError(f"unknown argument(s) {unknown}; {type(spec).__name__} has {', '.join(sorted(names))}")
    return replace(spec, **overrides)  # type: ignore[type-var]


def evaluate(table: pd.DataFrame | AttackTable, task: str, spec: EvaluateSpec | None = None,
             **overrides: Unpack[EvaluateOptions]) -> EvalResult:
    """Feature table, task ("task", "gender", "identity" or a label column) -> EvalResult (accuracy, chance, folds).

    The settings are an EvaluateSpec (defaults: the honest protocol against the strongest attacker); any of its
    fields can also be given as a keyword, which overrides the spec's value, so `evaluate(table, "identity",
    mechanism="FPA", epsilon=1.0)` needs no spec object. Deterministic for a given seed.
    """
    s = with_overrides(spec or EvaluateSpec(), overrides)
    if s.classifier not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {s.classifier!r}; choose from {', '.join(CLASSIFIERS)}")
    features = None if s.features is None else list(s.features)
    at = table if isinstance(table, AttackTable) else prepare(table, features=features, window_s=s.window_s)
    train_on = s.train_on
    scenario = TrainOn(train_on) if train_on in tuple(TrainOn) or isinstance(train_on, TrainOn) else train_on
    if s.mechanism is None and scenario is TrainOn.PRIVATE:  # clean data: no release to train on
        scenario = TrainOn.CLEAN
    point = Point(mechanism=s.mechanism, epsilon=s.epsilon, train_on=scenario, accounting=s.accounting, k=s.k,
                  increment_bound=s.increment_bound, repetition=s.repetition)
    rows = task_spec(at, task, gap=s.gap, subsample=s.subsample, seed=s.seed, repetition=s.repetition, folds=s.folds)
    data = PointData(at, point, bounds=resolve_bounds(at, s.bounds) if s.mechanism is not None else None, seed=s.seed)
    return run_task(at, rows, data, s.classifier, majority_vote=s.majority_vote, seed=s.seed, n_jobs=s.n_jobs,
                    max_train=s.max_train)
