"""Classifier protocols of Steil et al. (2019) and Bozkir et al. AS PUBLISHED: who reads, what, and which gender.

Kept for outside code and for reproducing the papers' numbers. These functions split re-identification into
halves whose neighbouring windows share samples and accept a test table from the same release as the
training table; new code uses `eyedp_core.attacks.evaluate`, whose default protocol avoids both (see
`eyedp_core.attacks.engine`).

* `reidentify` - attacker WITH prior knowledge: an RBF SVM (C = 1) on standardised window features,
  trained on the first half of every recording (participant x document) and tested on the second
  half; majority vote per recording.
* `classify_documents` - the utility task: document type, leave-one-participant-out (LOPO), majority
  vote per recording.
* `infer_gender` - attacker WITHOUT prior knowledge: gender, LOPO, majority vote per participant.

Every protocol takes a `train` table and optionally a separate `test` table with the same rows (e.g.
clean training data and a noisy release, or both noisy); `stride` keeps every s-th window, since
neighbouring 30-s windows at 0.5-s steps are near duplicates. Standardisation uses training
statistics only; missing values become the training mean. Ties in a vote go to the label whose
windows have the highest summed decision score.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.svm import SVC

from eyedp_core.gaze.feature_specs import FEATURE_NAMES

RECORDING = ("participant", "task")


@dataclass(frozen=True)
class AttackResult:
    """Outcome of one protocol: accuracies per window and after voting, chance level and tables.

    confusion: voted units, rows = true label, columns = predicted label (counts).
    per_group: one row per voting unit (keys, true, predicted, n_windows, window_accuracy).
    predictions: one row per test window (keys, window, true, predicted).
    """

    protocol: str
    window_accuracy: float
    vote_accuracy: float
    chance: float
    n_train: int
    n_test: int
    stride: int
    confusion: pd.DataFrame
    per_group: pd.DataFrame
    predictions: pd.DataFrame
    features: tuple[str, ...] = field(default_factory=tuple)


def feature_columns(table: pd.DataFrame, features: Sequence[str] | None = None) -> list[str]:
    """Feature table [, wanted names] -> the feature columns to use (known features present, not all NaN)."""
    names = list(features) if features is not None else [c for c in FEATURE_NAMES if c in table.columns]
    return [c for c in names if c in table.columns and np.isfinite(table[c].to_numpy(float)).any()]


def _strided(table: pd.DataFrame, stride: int) -> np.ndarray:
    """Table with a `window` column, stride -> boolean mask of the windows kept."""
    if stride < 1:
        raise ValueError(f"stride must be >= 1, got {stride!r}")
    return (table["window"].to_numpy() % stride) == 0


def _standardise(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Train and test matrices -> both standardised with training mean/sd; NaN/inf -> 0 (the mean)."""
    train = np.where(np.isfinite(train), train, np.nan)
    test = np.where(np.isfinite(test), test, np.nan)
    mu = np.nanmean(train, axis=0)
    sd = np.nanstd(train, axis=0)
    mu = np.where(np.isfinite(mu), mu, 0.0)
    sd = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
    return np.nan_to_num((train - mu) / sd), np.nan_to_num((test - mu) / sd)


def _fit_predict(xtr: np.ndarray, ytr: np.ndarray,
                 xte: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training data, labels, test data -> (predicted labels, decision scores, class order)."""
    a, b = _standardise(xtr, xte)
    clf = SVC(kernel="rbf", C=1.0, gamma="scale", decision_function_shape="ovr")
    clf.fit(a, ytr)
    scores = clf.decision_function(b)
    if scores.ndim == 1:  # binary: one column, positive = classes_[1]
        scores = np.stack([-scores, scores], axis=1)
    return clf.classes_[np.argmax(scores, axis=1)], scores, clf.classes_


def _vote(pred: pd.DataFrame, keys: list[str], scores: np.ndarray, classes: np.ndarray) -> pd.DataFrame:
    """Per-window predictions (+ scores), voting keys -> one row per unit with the majority label."""
    onehot = (pred["predicted"].to_numpy()[:, None] == classes[None, :]).astype(float)
    # Tie-break: a tiny share of the summed decision score, never enough to overturn a count.
    score_sum = pd.DataFrame(scores).groupby([pred[k].to_numpy() for k in keys]).sum().to_numpy()
    votes = pd.DataFrame(onehot).groupby([pred[k].to_numpy() for k in keys]).sum()
    s = score_sum - score_sum.min()
    tally = votes.to_numpy() + 1e-6 * s / (s.max() + 1e-12)
    winner = classes[np.argmax(tally, axis=1)]
    g = pred.groupby(keys, sort=True)
    out = g.agg(true=("true", "first"), n_windows=("true", "size")).reset_index()
    hit = (pred["true"] == pred["predicted"]).astype(float)
    out["window_accuracy"] = hit.groupby([pred[k] for k in keys], sort=True).mean().to_numpy()
    out["predicted"] = winner
    return out


def _result(protocol: str, pred: pd.DataFrame, keys: list[str], scores: np.ndarray, classes: np.ndarray,
            n_train: int, stride: int, features: list[str]) -> AttackResult:
    """Per-window predictions -> AttackResult with votes, confusion matrix and chance level."""
    units = _vote(pred, keys, scores, classes)
    labels = sorted(set(units["true"]) | set(units["predicted"]))
    confusion = pd.crosstab(pd.Categorical(units["true"], labels), pd.Categorical(units["predicted"], labels),
                            rownames=["true"], colnames=["predicted"], dropna=False)
    chance = float(units["true"].value_counts(normalize=True).max())
    window_acc = float((pred["true"] == pred["predicted"]).mean())
    vote_acc = float((units["true"] == units["predicted"]).mean())
    return AttackResult(protocol, window_acc, vote_acc, chance, n_train, len(pred), stride, confusion, units,
                        pred, tuple(features))


def _check(train: pd.DataFrame, test: pd.DataFrame, needed: Sequence[str]) -> None:
    for name, t in (("train", train), ("test", test)):
        miss = [c for c in needed if c not in t.columns]
        if miss:
            raise ValueError(f"{name} table lacks column(s) {miss}")


def reidentify(train: pd.DataFrame, test: pd.DataFrame | None = None, stride: int = 5,
               features: Sequence[str] | None = None) -> AttackResult:
    """Feature table(s) -> re-identification with prior knowledge (first half trains, second half tests)."""
    test = train if test is None else test
    keys = [k for k in RECORDING if k in train.columns]
    _check(train, test, keys + ["window"])
    cols = feature_columns(train, features)

    def half(t: pd.DataFrame, first: bool) -> np.ndarray:
        n = t.groupby(keys, sort=False)["window"].transform("size").to_numpy()
        rank = t.groupby(keys, sort=False)["window"].rank(method="first").to_numpy() - 1
        return (rank < n // 2) if first else (rank >= n // 2)

    tr = train[half(train, True) & _strided(train, stride)]
    te = test[half(test, False) & _strided(test, stride)]
    yhat, scores, classes = _fit_predict(tr[cols].to_numpy(float), tr["participant"].to_numpy(),
                                         te[cols].to_numpy(float))
    pred = te[keys + ["window"]].reset_index(drop=True)
    pred = pred.assign(true=te["participant"].to_numpy(), predicted=yhat)
    return _result("reidentification", pred, keys, scores, classes, len(tr), stride, cols)


def _lopo(protocol: str, label: str, vote_keys: list[str], train: pd.DataFrame, test: pd.DataFrame,
          stride: int, features: Sequence[str] | None) -> AttackResult:
    """Leave-one-participant-out SVM predicting `label`, voting per `vote_keys`."""
    _check(train, test, ["participant", "window", label])
    cols = feature_columns(train, features)
    tr = train[_strided(train, stride)]
    te = test[_strided(test, stride)]
    p_tr, p_te = tr["participant"].to_numpy(), te["participant"].to_numpy()
    xtr, xte = tr[cols].to_numpy(float), te[cols].to_numpy(float)
    ytr = tr[label].to_numpy()
    preds, scores_all, n_train = [], [], 0
    classes_all = np.array(sorted(set(ytr)))
    for p in pd.unique(p_te):  # 20 folds
        fold_tr, fold_te = p_tr != p, p_te == p
        yhat, scores, classes = _fit_predict(xtr[fold_tr], ytr[fold_tr], xte[fold_te])
        full = np.full((yhat.size, classes_all.size), -np.inf)
        full[:, np.searchsorted(classes_all, classes)] = scores
        n_train = max(n_train, int(fold_tr.sum()))
        extra = ["task"] if "task" in te.columns and "task" not in vote_keys else []
        part = te.loc[fold_te, vote_keys + extra + ["window"]].reset_index(drop=True)
        preds.append(part.assign(true=te.loc[fold_te, label].to_numpy(), predicted=yhat))
        scores_all.append(np.where(np.isfinite(full), full, np.nanmin(scores) - 1))
    pred = pd.concat(preds, ignore_index=True)
    return _result(protocol, pred, vote_keys, np.vstack(scores_all), classes_all, n_train, stride, cols)


def classify_documents(train: pd.DataFrame, test: pd.DataFrame | None = None, stride: int = 20,
                       features: Sequence[str] | None = None) -> AttackResult:
    """Feature table(s) -> document-type classification, LOPO, majority vote per recording."""
    test = train if test is None else test
    return _lopo("document_type", "task", ["participant", "task"], train, test, stride, features)


def infer_gender(train: pd.DataFrame, test: pd.DataFrame | None = None, stride: int = 20,
                 features: Sequence[str] | None = None,
                 demographics: pd.DataFrame | None = None) -> AttackResult:
    """Feature table(s) [+ demographics] -> gender inference, no prior knowledge (LOPO, vote per person)."""
    test = train if test is None else test
    if demographics is not None:
        g = demographics.set_index("participant")["gender"]
        train = train.assign(gender=train["participant"].map(g))
        test = test.assign(gender=test["participant"].map(g))
    return _lopo("gender", "gender", ["participant"], train, test, stride, features)


PROTOCOLS = {
    "reidentification": (reidentify, "who is it? trained on the first half of each recording (prior "
                                     "knowledge)"),
    "document_type": (classify_documents, "which document? leave-one-participant-out (utility task)"),
    "gender": (infer_gender, "which gender? leave-one-participant-out (no prior knowledge)"),
}

__all__ = ["AttackResult", "PROTOCOLS", "RECORDING", "classify_documents", "feature_columns", "infer_gender", "reidentify"]
