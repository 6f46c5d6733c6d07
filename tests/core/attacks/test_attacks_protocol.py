"""The honest attack protocol (eyedp_core.attacks.evaluate / sweep) on tiny tables whose answers are known."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core import attacks
from eyedp_core.attacks.engine import Point, PointData, task_spec
from eyedp_core.attacks.privatize import plan_release, resolve_bounds

TASKS = ("textbook", "newspaper", "comic")
FEATS = ["fix_rate_hz", "fix_dur_mean_ms", "sacc_rate_hz", "sacc_amp_mean_deg", "blink_rate_per_min",
         "pupil_mean_mm"]
# Public bounds of FEATS (feature_specs): the constructed values live well inside them.
CENTRE = np.array([2.5, 1000.0, 3.0, 25.0, 30.0, 5.25])
SPREAD = np.array([0.2, 80.0, 0.25, 2.0, 2.5, 0.3])


def table(rng: np.random.Generator, *, person: float = 0.0, task: float = 0.0, gender: float = 0.0,
          noise: float = 1.0, people: int = 8, windows: int = 80, step_s: float = 0.5,
          gender_random: bool = False) -> pd.DataFrame:
    """Windows = centre + spread·(person offset + task offset + gender offset + i.i.d. noise)."""
    names = [f"P{i + 1:02d}" for i in range(people)]
    sex = np.array(["female", "male"] * (people // 2))
    if gender_random:
        sex = rng.permutation(sex)
    p_off = rng.normal(0, person, (people, len(FEATS)))
    t_off = rng.normal(0, task, (len(TASKS), len(FEATS)))
    g_off = rng.normal(0, 1, len(FEATS)) * gender
    frames = []
    for i, p in enumerate(names):
        for j, t in enumerate(TASKS):
            g = g_off if sex[i] == "female" else -g_off
            z = p_off[i] + t_off[j] + g + rng.normal(0, noise, (windows, len(FEATS)))
            df = pd.DataFrame(CENTRE + SPREAD * z, columns=FEATS)
            df.insert(0, "t_start_s", np.arange(windows) * step_s)
            df.insert(0, "window", np.arange(windows))
            df.insert(0, "task", t)
            df.insert(0, "gender", sex[i])
            df.insert(0, "participant", p)
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def _binomial_tol(p: float, n: int) -> float:
    return 4 * np.sqrt(p * (1 - p) / n) + 0.01


@pytest.mark.parametrize("clf", ["knn", "svm", "tree", "forest"])
def test_separable_people_and_documents_are_found_perfectly(rng, clf):
    ident = attacks.evaluate(table(rng, person=6.0, noise=0.02), "identity", classifier=clf, window_s=5.0)
    assert ident.window_accuracy == 1.0 and ident.accuracy == 1.0
    assert ident.chance == pytest.approx(1 / 8)
    doc = attacks.evaluate(table(rng, person=0.05, task=6.0, noise=0.02), "task", classifier=clf)
    assert doc.accuracy == 1.0 and doc.chance == pytest.approx(1 / 3)


def test_pure_noise_is_at_chance_within_binomial_tolerance(rng):
    tab = table(rng, person=0.0, noise=1.0, people=8, windows=120)
    res = attacks.evaluate(tab, "identity", classifier="knn", subsample=1, window_s=2.0)
    p = res.window_chance
    assert p == pytest.approx(1 / 8)
    assert abs(res.window_accuracy - p) <= _binomial_tol(p, res.n_test)
    doc = attacks.evaluate(tab, "task", classifier="svm", subsample=2)
    assert abs(doc.window_accuracy - doc.window_chance) <= _binomial_tol(doc.window_chance, doc.n_test)


def test_lopo_never_trains_on_the_test_participant(rng):
    # Gender is assigned at random and people differ strongly: the only way to beat chance is to have seen
    # the test person in training (k-NN would then find its own windows and its own gender).
    tab = table(rng, person=5.0, noise=0.3, people=12, gender_random=True)
    at = attacks.prepare(tab)
    spec = task_spec(at, "gender")
    people = at.frame["participant"].to_numpy()
    for name, tr, te in spec.folds:
        assert set(people[spec.train_rows][tr]).isdisjoint(people[spec.test_rows][te]), name
        assert set(people[spec.test_rows][te]) == {name}
    res = attacks.evaluate(at, "gender", classifier="knn")
    assert len(res.folds) == 12 and res.accuracy <= 0.8
    # A fold table that leaked the test person would make this trivial:
    leaked = attacks.evaluate(at, "identity", classifier="knn")
    assert leaked.accuracy == 1.0


def test_default_gap_leaves_no_shared_samples_and_the_paper_split_does(rng):
    tab = table(rng, windows=200, step_s=0.5)
    at = attacks.prepare(tab)  # 30-s windows every 0.5 s -> a gap of 60 windows
    assert at.gap_windows == 60
    for gap, shares in (("window", False), ("paper", True)):
        spec = task_spec(at, "identity", gap=gap, subsample=1)
        start = at.frame["t_start_s"].to_numpy()
        rec = at.rec
        tr_end = pd.Series(start[spec.train_rows] + at.window_s).groupby(rec[spec.train_rows]).max()
        te_start = pd.Series(start[spec.test_rows]).groupby(rec[spec.test_rows]).min()
        overlap = (te_start < tr_end).any()
        assert overlap == shares, gap
    # The gap also holds after subsampling and for explicit gaps in windows.
    spec = task_spec(at, "identity", gap=10, subsample=1)
    last_train = pd.Series(at.pos[spec.train_rows]).groupby(at.rec[spec.train_rows]).max()
    first_test = pd.Series(at.pos[spec.test_rows]).groupby(at.rec[spec.test_rows]).min()
    assert ((first_test - last_train) == 11).all()


def test_training_and_test_releases_use_independent_noise(rng):
    # Nobody differs from anybody: with k = 1 each released series is "a constant plus one noise draw",
    # so an attacker trained on the same draw identifies everyone from the noise alone.
    tab = table(rng, person=0.0, noise=0.05, people=8, windows=120)
    kw = dict(mechanism="FPA", epsilon=200.0, classifier="knn", window_s=2.0, k=1)
    same = attacks.evaluate(tab, "identity", train_on="same-release", **kw)
    indep = attacks.evaluate(tab, "identity", train_on="private", **kw)
    assert same.accuracy >= 0.9  # the flaw, reproduced
    assert indep.accuracy <= 2 * indep.chance
    # LOPO: the same rows released twice carry uncorrelated noise (and identical noise only when asked).
    at = attacks.prepare(tab)
    spec = task_spec(at, "task")
    bounds = resolve_bounds(at, "public")
    point = Point(mechanism="LPA", epsilon=1e4, train_on="private")
    xtr, xte, plans = PointData(at, point, bounds=bounds, seed=0).matrices(spec)
    clean = at.x[spec.test_rows]
    a, b = (xtr - clean).ravel(), (xte - clean).ravel()
    assert len(plans) == 2 and abs(np.corrcoef(a, b)[0, 1]) < 0.05
    xtr2, xte2, _ = PointData(at, Point(mechanism="LPA", epsilon=1e4, train_on="same-release"), bounds=bounds,
                              seed=0).matrices(spec)
    np.testing.assert_array_equal(xtr2, xte2)


def test_majority_vote_per_participant_and_recording(rng):
    tab = table(rng, person=1.0, noise=1.5, people=6, windows=90)
    res = attacks.evaluate(tab, "identity", classifier="knn", window_s=2.0, subsample=1)
    units = res.units.set_index(["participant", "task"])
    assert len(units) == 6 * 3 and units.index.is_unique  # one vote per participant and recording
    assert int(units["n_windows"].sum()) == res.n_test
    counts = res.predictions.groupby(["participant", "task"])["predicted"].value_counts().unstack(fill_value=0)
    for key, row in counts.iterrows():
        top = row[row == row.max()].index
        assert units.loc[key, "predicted"] in set(top)
    assert res.vote_accuracy == pytest.approx((units["true"] == units["predicted"]).mean())
    assert res.vote_accuracy > res.window_accuracy  # voting pools the windows' evidence
    flat = attacks.evaluate(tab, "identity", classifier="knn", window_s=2.0, subsample=1, majority_vote=False)
    assert flat.accuracy == flat.window_accuracy and flat.chance == flat.window_chance


def test_budget_split_and_k_in_words():
    plan = plan_release("CFPA-32", 10.0, n_features=48, length=600, recordings=np.array([3, 3, 2]))
    assert plan.n_chunks == 19
    np.testing.assert_allclose(plan.per_call * 48 * 19 * np.array([3, 3, 2]), 10.0)
    assert plan.participant_total == 10.0 and np.all(plan.k == 1)
    assert "k = 1" in plan.words and "one noisy constant per chunk of 32 windows" in plan.words
    fpa = plan_release("FPA", 1.0, n_features=48, length=600, recordings=np.array([3]))
    assert "one noisy constant per recording" in fpa.words
    paper = plan_release("CFPA-32", 0.48, n_features=48, length=600, recordings=np.array([3]), accounting="paper")
    assert paper.per_call[0] == pytest.approx(0.01)
    assert paper.participant_total == pytest.approx(0.48 * 19 * 3) and "true total" in paper.words
    roomy = plan_release("CFPA-32", 1e9, n_features=1, length=64, recordings=np.array([1]))
    assert roomy.k.max() > 1


def test_results_are_deterministic_and_independent_of_threads(rng):
    tab = table(rng, person=0.7, noise=1.0, people=6, windows=60)
    kw = dict(mechanism="DCFPA-32", epsilon=1e5, train_on="private", classifier="forest", seed=7)
    a = attacks.evaluate(tab, "gender", n_jobs=1, **kw)
    b = attacks.evaluate(tab, "gender", n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a.predictions, b.predictions)
    c = attacks.evaluate(tab, "gender", n_jobs=2, **{**kw, "seed": 8})
    assert not a.predictions["predicted"].equals(c.predictions["predicted"]) or a.accuracy == c.accuracy


def test_sweep_yields_rows_and_the_papers_table(rng):
    tab = table(rng, person=3.0, task=3.0, noise=0.5, people=6, windows=60)
    seen = []
    for row in attacks.sweep(tab, mechanisms=["FPA", "CFPA-32"], epsilons=[1.0, 1e6], classifiers=["knn", "tree"],
                             train_on=("clean", "private"), repetitions=2, n_jobs=1, window_s=2.0):
        seen.append(row)
    # clean (3 tasks x 2 classifiers) + 2 mechanisms x 2 eps x 2 scenarios x 2 reps x 3 tasks x 2 classifiers
    assert len(seen) == 6 + 2 * 2 * 2 * 2 * 3 * 2
    summary = attacks.summarise(seen)
    assert set(summary["runs"][summary["mechanism"] != "clean"]) == {2}
    tbl = attacks.paper_table(summary, "identity", train_on="private", classifiers=("knn", "svm", "tree", "forest"))
    assert list(tbl.index) == ["clean", "FPA", "CFPA-32"] and list(tbl.columns) == ["ε = 1", "ε = 1e+06"]
    cell = tbl.loc["FPA", "ε = 1"].split("|")
    assert len(cell) == 4 and cell[1] == "–" and float(cell[0]) <= 0.6


def test_tradeoff_finder_and_reverse_question():
    rows = []
    for eps, util, reid, gen in [(1, 0.40, 0.06, 0.50), (10, 0.70, 0.08, 0.52), (100, 0.85, 0.09, 0.55),
                                 (1000, 0.95, 0.60, 0.70)]:
        for task, acc, chance in (("task", util, 1 / 3), ("identity", reid, 0.05), ("gender", gen, 0.5)):
            rows.append(dict(mechanism="CFPA-32", epsilon=float(eps), train_on="clean", task=task, classifier="svm",
                             accuracy=acc, chance=chance, plan="… keeps k = 1 Fourier coefficient: every feature "
                             "becomes one noisy constant per chunk of 32 windows (noise sd ≈ 3× …)."))
    summary = pd.DataFrame(rows)
    (ans,) = attacks.find_tradeoff(summary, target=0.8, margin=0.05)
    assert ans.epsilons == (100.0,) and "ε = 100" in ans.sentence and "k = 1" in ans.sentence
    (none,) = attacks.find_tradeoff(summary, target=0.99, margin=0.05)
    assert none.low is None and "never reaches 0.99" in none.sentence
    eps, sentence = attacks.epsilon_for_accuracy(summary, 0.8)["CFPA-32"]
    assert 10 < eps < 100 and "between the grid points 10" in sentence


@pytest.mark.parametrize("bad, match", [
    (lambda t: t.drop(columns="participant"), "participant"),
    (lambda t: t[t["participant"] == "P01"], "two participants"),
])
def test_bad_tables_give_plain_errors(rng, bad, match):
    with pytest.raises(ValueError, match=match):
        attacks.evaluate(bad(table(rng, people=4, windows=40)), "identity")


def test_bad_arguments_give_plain_errors(rng):
    tab = table(rng, people=4, windows=40)
    with pytest.raises(ValueError, match="too short"):
        attacks.evaluate(tab, "identity")  # 40 windows cannot hold two parts and a 60-window gap
    tab = table(rng, people=4, windows=160)
    with pytest.raises(ValueError, match="no 'age' column"):
        attacks.evaluate(tab, "age")
    with pytest.raises(ValueError, match="gap"):
        attacks.evaluate(tab, "identity", gap="soon")
    with pytest.raises(ValueError, match="classifier"):
        attacks.evaluate(tab, "identity", classifier="magic")
    # "private" is the default and means clean data when there is no mechanism; the flawed protocol needs one.
    with pytest.raises(ValueError, match="needs a mechanism"):
        attacks.evaluate(tab, "identity", train_on="same-release")
    with pytest.raises(ValueError, match="positive ε"):
        attacks.evaluate(tab, "identity", mechanism="FPA")
    with pytest.raises(ValueError, match="chunk size"):
        attacks.evaluate(tab, "identity", mechanism="CFPA", epsilon=1.0)
    odd = tab.rename(columns={"pupil_mean_mm": "my_feature"})
    with pytest.raises(ValueError, match="no public bounds"):
        attacks.evaluate(odd, "identity", mechanism="FPA", epsilon=1.0)
    res = attacks.evaluate(odd, "identity", mechanism="FPA", epsilon=1.0, bounds="auto", classifier="knn")
    assert any("read off the data" in n for n in res.notes)


def test_any_label_column_and_uploaded_names(rng):
    tab = table(rng, person=0.5, task=4.0, noise=0.5, people=6, windows=60).rename(
        columns={"fix_rate_hz": "rate", "pupil_mean_mm": "pupil"})
    tab["difficulty"] = np.where(tab["task"] == "comic", "easy", "hard")
    at = attacks.prepare(tab)
    assert "difficulty" in at.labels and {"rate", "pupil"} <= set(at.features)
    res = attacks.evaluate(at, "difficulty", classifier="knn")
    assert res.protocol == "lopo" and res.accuracy >= 0.9 and res.chance == pytest.approx(2 / 3)
