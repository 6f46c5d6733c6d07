"""Classifier protocols on synthetic feature tables whose answer is known by construction."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core.attacks import protocols as attacks

TASKS = ("textbook", "newspaper", "comic")


def _table(rng: np.random.Generator, person_sd: float = 1.0, task_sd: float = 1.0, gender_sd: float = 1.0,
           noise_sd: float = 0.5, n_people: int = 8, n_windows: int = 60, n_features: int = 6,
           task_shared: bool = True) -> pd.DataFrame:
    """Windows = person offset + task offset (shared or person-specific) + gender offset + AR(1) noise."""
    people = [f"P{i + 1:02d}" for i in range(n_people)]
    gender = np.array(["female", "male"] * (n_people // 2))
    person = rng.normal(0, person_sd, (n_people, n_features))
    task = rng.normal(0, task_sd, (len(TASKS), n_features))
    g = rng.normal(0, 1, n_features) * gender_sd
    rows = []
    for i, p in enumerate(people):
        for j, t in enumerate(TASKS):
            t_eff = task[j] if task_shared else rng.normal(0, task_sd, n_features)
            e = rng.normal(0, noise_sd, (n_windows, n_features))
            x = person[i] + t_eff + (g if gender[i] == "female" else -g) + e
            names = ["fix_rate_hz", "fix_dur_mean_ms", "sacc_rate_hz", "sacc_amp_mean_deg",
                     "blink_rate_per_min", "pupil_mean_mm"]
            df = pd.DataFrame(x, columns=names[:n_features])
            df.insert(0, "window", np.arange(n_windows))
            df.insert(0, "task", t)
            df.insert(0, "gender", gender[i])
            df.insert(0, "participant", p)
            rows.append(df)
    return pd.concat(rows, ignore_index=True)


def test_reidentify_separable_people(rng):
    tab = _table(rng, person_sd=3.0, noise_sd=0.3)
    res = attacks.reidentify(tab, stride=2)
    assert res.window_accuracy > 0.95 and res.vote_accuracy == 1.0
    assert res.chance == pytest.approx(1 / 8)
    # 8 people x 3 documents, second halves (windows 30..59), every 2nd window.
    assert res.n_test == 8 * 3 * 15 and res.n_train == 8 * 3 * 15
    assert res.predictions["window"].min() == 30
    assert int(res.confusion.to_numpy().sum()) == len(res.per_group) == 24
    assert np.trace(res.confusion.to_numpy()) == 24
    assert res.features == ("fix_rate_hz", "fix_dur_mean_ms", "sacc_rate_hz", "sacc_amp_mean_deg",
                            "blink_rate_per_min", "pupil_mean_mm")


def test_reidentify_without_person_signal_is_near_chance(rng):
    tab = _table(rng, person_sd=0.0, gender_sd=0.0, noise_sd=1.0)
    res = attacks.reidentify(tab, stride=1)
    assert res.window_accuracy < 0.25  # chance 0.125; 720 test windows


def test_noisy_test_table_lowers_accuracy_gradually(rng):
    tab = _table(rng, person_sd=2.0, noise_sd=0.5)
    feats = [c for c in tab.columns if c not in ("participant", "gender", "task", "window")]
    accs = []
    for scale in (0.0, 1.0, 3.0, 10.0):
        noisy = tab.copy()
        noisy[feats] = noisy[feats] + rng.normal(0, scale, noisy[feats].shape)
        accs.append(attacks.reidentify(tab, noisy, stride=2).window_accuracy)
    assert accs[0] > 0.9 and accs[-1] < 0.3
    assert all(a >= b - 0.02 for a, b in zip(accs, accs[1:], strict=False))


def test_documents_lopo_generalises_only_shared_patterns(rng):
    shared = attacks.classify_documents(_table(rng, task_sd=2.0, task_shared=True), stride=3)
    assert shared.vote_accuracy > 0.95 and shared.chance == pytest.approx(1 / 3)
    assert set(shared.per_group.columns) >= {"participant", "task", "true", "predicted", "n_windows"}
    # Task patterns that are private to each person cannot transfer to a left-out person: if the
    # left-out person leaked into training, this would be far above chance.
    private = attacks.classify_documents(_table(rng, task_sd=2.0, task_shared=False), stride=3)
    assert private.window_accuracy < 0.55


def test_gender_lopo_and_demographics(rng):
    tab = _table(rng, person_sd=0.5, gender_sd=1.5, n_people=10)
    res = attacks.infer_gender(tab, stride=3)
    assert res.vote_accuracy >= 0.9 and len(res.per_group) == 10
    assert res.chance == pytest.approx(0.5)
    demo = tab.groupby("participant")["gender"].first().reset_index()
    res2 = attacks.infer_gender(tab.drop(columns="gender"), stride=3, demographics=demo)
    assert res2.vote_accuracy == res.vote_accuracy
    none = attacks.infer_gender(_table(rng, gender_sd=0.0, n_people=10), stride=3)
    assert none.vote_accuracy <= 0.8


def test_stride_missing_values_and_errors(rng):
    tab = _table(rng, person_sd=3.0)
    assert attacks.reidentify(tab, stride=5).n_test == 8 * 3 * 6
    tab["pupil_mean_mm"] = np.nan  # an absent feature is dropped
    tab.loc[::7, "fix_rate_hz"] = np.nan  # gaps become the training mean
    res = attacks.reidentify(tab, stride=2)
    assert "pupil_mean_mm" not in res.features and res.vote_accuracy == 1.0
    with pytest.raises(ValueError, match="stride"):
        attacks.reidentify(tab, stride=0)
    with pytest.raises(ValueError, match="lacks"):
        attacks.classify_documents(tab.drop(columns="task"))
    assert set(attacks.PROTOCOLS) == {"reidentification", "document_type", "gender"}
