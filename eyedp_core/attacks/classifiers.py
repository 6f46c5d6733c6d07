"""The classifiers of Steil et al. and Bozkir et al., standardised with training statistics.

Bozkir et al. (journal version): SVM with RBF kernel, C = 1 and automatic kernel scale; k-NN with k = 11
and a random tie breaker among tied groups; decision tree; random forest with 10 trees. Training data are
scaled to zero mean and unit variance and the same parameters are applied to the test data. Missing
values become the training mean (0 after scaling).

Three speed-ups keep the answers unchanged or are labelled:
* every model but k-NN (whose ties are broken at random per window) predicts each distinct test window once;
* the SVM merges identical training windows into one point weighted by its count (libsvm's per-sample
  C·w is exactly the primal objective of the duplicates); "automatic kernel scale" is scikit-learn's
  gamma = 1 / (features · variance) computed on all training windows, duplicates included. Heavily
  privatised series (one constant per recording) are mostly duplicates;
* "svm-fast" is a different model, offered for large n with its accuracy shown next to the SVM's:
  a Nyström approximation of the same RBF kernel (400 landmarks) and a linear SVM, C = 1.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem
from sklearn.neighbors import NearestNeighbors
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

__all__ = ["CLASSIFIERS", "PAPER_ORDER", "Classifier", "Fitted", "fit"]


class Classifier(StrEnum):
    """The one registry of classifier names (the values are what settings, links and tables store)."""

    KNN = "knn"
    SVM = "svm"
    TREE = "tree"
    FOREST = "forest"
    SVM_FAST = "svm-fast"


CLASSIFIERS: dict[Classifier, str] = {
    Classifier.KNN: "k-NN (k = 11, random tie-breaking)",
    Classifier.SVM: "SVM (RBF kernel, C = 1, automatic kernel scale)",
    Classifier.TREE: "decision tree",
    Classifier.FOREST: "random forest (10 trees)",
    Classifier.SVM_FAST: "SVM approximation (Nyström RBF, 400 landmarks, linear SVM, C = 1) for large n",
}
# The column order of the papers' tables: k-NN | SVM | DT | RF.
PAPER_ORDER: tuple[Classifier, ...] = (Classifier.KNN, Classifier.SVM, Classifier.TREE, Classifier.FOREST)
K_NEIGHBOURS = 11
N_TREES = 10
NYSTROEM_COMPONENTS = 400


def _moments(train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Training matrix -> per-column mean and sd over its finite values (sd 1 where constant or empty)."""
    finite = np.isfinite(train)
    n = finite.sum(axis=0)
    mu = np.where(finite, train, 0.0).sum(axis=0) / np.maximum(n, 1)
    dev = np.where(finite, train - mu, 0.0)
    sd = np.sqrt((dev * dev).sum(axis=0) / np.maximum(n, 1))
    return mu, np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)


def _gamma(a: np.ndarray) -> float:
    var = float(a.var())
    return 1.0 / (a.shape[1] * var) if var > 0 else 1.0


def _svm(a: np.ndarray, y: np.ndarray) -> SVC:
    rows, counts = np.unique(np.c_[a, y], axis=0, return_counts=True)
    model = SVC(C=1.0, kernel="rbf", gamma=_gamma(a), cache_size=500)
    if rows.shape[0] < 0.9 * a.shape[0]:
        return model.fit(rows[:, :-1], rows[:, -1].astype(int), sample_weight=counts.astype(float))
    return model.fit(a, y)


@dataclass(frozen=True, eq=False)
class Fitted:
    """A trained classifier with the training statistics it standardises new windows with."""

    name: Classifier
    n_classes: int
    mean: np.ndarray
    sd: np.ndarray
    model: Any  # the scikit-learn estimator (None when training held one class only)
    only_class: int | None = None
    labels: np.ndarray | None = None  # k-NN: training labels

    def predict(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Test windows, generator (k-NN ties) -> predicted integer labels."""
        if x.shape[0] == 0:
            return np.zeros(0, dtype=int)
        if self.only_class is not None:
            return np.full(x.shape[0], self.only_class)
        b = np.nan_to_num((np.where(np.isfinite(x), x, np.nan) - self.mean) / self.sd)
        if self.name == Classifier.KNN:
            idx = self.model.kneighbors(b, return_distance=False)
            counts = np.zeros((b.shape[0], self.n_classes))
            np.add.at(counts, (np.repeat(np.arange(b.shape[0]), idx.shape[1]), self.labels[idx].ravel()), 1.0)
            # Uniform jitter below 1 never overturns a strict majority and picks uniformly among tied classes.
            return np.argmax(counts + 0.5 * rng.random(counts.shape), axis=1)
        # Deterministic models answer identical windows alike: releases that keep one coefficient turn a whole
        # recording (or chunk) into one repeated row, so predicting the distinct rows only is exact and cheap.
        rows, inverse = np.unique(b, axis=0, return_inverse=True)
        if rows.shape[0] > 0.7 * b.shape[0]:
            rows, inverse = b, None
        if self.name == Classifier.SVM_FAST:
            feats, lin = self.model
            out = lin.predict(feats.transform(rows)).astype(int)
        else:
            out = self.model.predict(rows).astype(int)
        return out if inverse is None else out[np.ravel(inverse)]


def fit(name: Classifier, xtr: np.ndarray, ytr: np.ndarray, *, n_classes: int, seed: int) -> Fitted:
    """Classifier name, training windows and integer labels -> Fitted (standardised with training statistics)."""
    if name not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {name!r}; choose from {', '.join(CLASSIFIERS)}")
    mean, sd = _moments(xtr)
    present = np.unique(ytr)
    if present.size <= 1:  # one class in training: every classifier can only answer it
        return Fitted(name, n_classes, mean, sd, None, only_class=int(present[0]) if present.size else 0)
    a = np.nan_to_num((np.where(np.isfinite(xtr), xtr, np.nan) - mean) / sd)
    if name == Classifier.KNN:
        nn = NearestNeighbors(n_neighbors=min(K_NEIGHBOURS, a.shape[0])).fit(a)
        return Fitted(name, n_classes, mean, sd, nn, labels=np.asarray(ytr, dtype=int))
    if name == Classifier.SVM:
        model: Any = _svm(a, ytr)
    elif name == Classifier.TREE:
        model = DecisionTreeClassifier(random_state=seed).fit(a, ytr)
    elif name == Classifier.FOREST:
        model = RandomForestClassifier(n_estimators=N_TREES, random_state=seed, n_jobs=1).fit(a, ytr)
    else:
        feats = Nystroem(kernel="rbf", gamma=_gamma(a), n_components=min(NYSTROEM_COMPONENTS, a.shape[0]),
                         random_state=seed).fit(a)
        lin = LinearSVC(C=1.0, dual="auto", random_state=seed, max_iter=2000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # noisy data: the last iterations change nothing
            lin.fit(feats.transform(a), ytr)
        model = (feats, lin)
    return Fitted(name, n_classes, mean, sd, model)
