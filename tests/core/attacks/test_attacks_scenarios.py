"""The attacker scenarios: the independent-release attacker by default, collapse caught (not read as protection),
no inflation (disjoint, non-overlapping parts; independent noise draws), and the transition finder."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from eyedp_core import attacks
from eyedp_core.attacks import TrainOn
from eyedp_core.attacks.engine import Point, PointData, task_spec
from eyedp_core.attacks.privatize import resolve_bounds

NUISANCE = ["f2", "f3", "f4", "f5"]
BOUNDS = {f: (0.0, 100.0) for f in ["f1", *NUISANCE]}


def collapsing_table(seed: int = 0, people: int = 10, windows: int = 40) -> pd.DataFrame:
    """Two documents told apart by f1 (30 vs 70, sd 2); four nuisance features nearly constant on clean data
    (sd 0.001). A release adds noise of a few units to every feature: standardised with the CLEAN spread the
    nuisance features land thousands of sd away, where an RBF classifier trained on clean data answers one class;
    one trained on a release standardises with the noisy spread and still reads f1."""
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(people):
        for doc, centre in (("A", 30.0), ("B", 70.0)):
            x = np.c_[centre + rng.normal(0, 2.0, windows), 50 + rng.normal(0, 0.001, (windows, len(NUISANCE)))]
            df = pd.DataFrame(x, columns=["f1", *NUISANCE])
            df.insert(0, "window", np.arange(windows))
            df.insert(0, "task", doc)
            df.insert(0, "participant", f"P{i:02d}")
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


def people_table(seed: int = 1, people: int = 6, windows: int = 200) -> pd.DataFrame:
    """Six people with their own feature offsets, 30-s windows every 0.5 s (the re-identification gap is 60)."""
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(people):
        off = rng.normal(0, 10, 5)
        x = 50 + off + rng.normal(0, 1, (windows, 5))
        df = pd.DataFrame(x, columns=["f1", *NUISANCE])
        df.insert(0, "t_start_s", np.arange(windows) * 0.5)
        df.insert(0, "window", np.arange(windows))
        df.insert(0, "task", "read")
        df.insert(0, "participant", f"P{i:02d}")
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["window_s"] = 30.0
    return out


def test_clean_trained_collapses_where_the_release_trained_attacker_reads_the_release():
    t = collapsing_table()
    clean = attacks.evaluate(t, "task", mechanism="FPA", epsilon=300.0, bounds=BOUNDS, train_on="clean")
    strong = attacks.evaluate(t, "task", mechanism="FPA", epsilon=300.0, bounds=BOUNDS)
    # Clean-trained: one class for every recording, accuracy at chance (0.5) - collapse, flagged in words.
    assert clean.prediction_share == 1.0 and clean.accuracy == pytest.approx(0.5) and clean.chance == 0.5
    assert clean.collapsed and any("collapsed" in n for n in clean.notes)
    # Release-trained (the default): every document found, predictions balanced, not flagged.
    assert strong.train_on is TrainOn.PRIVATE and strong.accuracy >= 0.95
    assert strong.prediction_share == pytest.approx(0.5) and not strong.collapsed
    # The summary carries the flag, and the headline (strongest) takes the release-trained accuracy.
    rows = [r for scen in (TrainOn.PRIVATE, TrainOn.CLEAN)
            for r in attacks.run_point(attacks.prepare(t), Point("FPA", 300.0, train_on=scen), tasks=("task",),
                                       bounds=BOUNDS)]
    s = attacks.summarise(rows)
    assert s.set_index("train_on").loc["clean", "collapsed"] and not s.set_index("train_on").loc["private", "collapsed"]
    best = attacks.strongest(s)
    assert len(best) == 1 and best["train_on"].iloc[0] == "private" and best["accuracy"].iloc[0] >= 0.95


def test_prediction_share_and_the_collapse_rule():
    assert attacks.prediction_share(np.zeros(17, dtype=int)) == 1.0
    assert attacks.prediction_share(np.array([0, 1, 1, 2])) == 0.5
    assert np.isnan(attacks.prediction_share(np.array([], dtype=int)))
    assert attacks.collapsed(1.0, 0.5) and attacks.collapsed(0.9, 1 / 3)
    assert not attacks.collapsed(0.89, 0.5)  # below the 90 % line
    assert not attacks.collapsed(0.95, 0.95)  # the test set itself is that unbalanced: answering its majority is fair


def test_the_default_attacker_trains_on_its_own_independent_release():
    t = people_table()
    res = attacks.evaluate(t, "identity", mechanism="FPA", epsilon=1e5, bounds=BOUNDS)
    assert res.train_on is TrainOn.PRIVATE and res.point.train_on is TrainOn.PRIVATE
    assert len(res.plans) == 2  # the release under attack and the attacker's own release, same mechanism and ε
    assert res.plans[0].label == res.plans[1].label == "FPA" and res.plans[0].epsilon == res.plans[1].epsilon == 1e5
    # The attacker's rows are disjoint from the rows under attack, and its noise is its own draw.
    at = attacks.prepare(t)
    spec = task_spec(at, "identity")
    assert np.intersect1d(spec.train_part, spec.test_part).size == 0
    data = PointData(at, res.point, bounds=resolve_bounds(at, BOUNDS), seed=0)
    test_draw, _ = data._release(spec.test_part, "test")
    own_draw, _ = data._release(spec.test_part, "train")  # the same rows released in the attacker's role
    assert not np.allclose(test_draw, own_draw)
    # The clean-data evaluation (no mechanism) needs no release: the default then means clean.
    assert attacks.evaluate(t, "identity").train_on is TrainOn.CLEAN
    # Accepting the text and the enum alike.
    assert attacks.evaluate(t, "identity", mechanism="FPA", epsilon=1e5, bounds=BOUNDS,
                            train_on="private").accuracy == res.accuracy


def test_no_training_window_shares_a_sample_with_a_test_window():
    """Inflation check 1: the honest split leaves a gap of one window length between the parts."""
    at = attacks.prepare(people_table())
    spec = task_spec(at, "identity")
    start = at.frame["t_start_s"].to_numpy()
    for rec in np.unique(at.rec):
        tr = spec.train_rows[at.rec[spec.train_rows] == rec]
        te = spec.test_rows[at.rec[spec.test_rows] == rec]
        assert start[te].min() - start[tr].max() >= at.window_s  # windows [s, s + 30) cannot overlap
    paper = task_spec(at, "identity", gap="paper")  # the papers' halves do overlap: the flaw is measurable
    tr, te = paper.train_rows[at.rec[paper.train_rows] == 0], paper.test_rows[at.rec[paper.test_rows] == 0]
    assert start[te].min() - start[tr].max() < at.window_s


def test_one_noise_draw_reused_inflates_and_is_never_the_default():
    """Inflation check 2: training and testing on one release lets the noise identify people; the default does
    not, and is close to the clean-trained attacker's strength at a small ε (both near chance)."""
    t = people_table()
    kw = dict(mechanism="FPA", epsilon=1.0, bounds=BOUNDS, classifier="knn")
    same = attacks.evaluate(t, "identity", train_on="same-release", **kw)
    default = attacks.evaluate(t, "identity", **kw)
    assert same.accuracy >= 0.9 and default.accuracy <= 0.5 and default.chance == pytest.approx(1 / 6)
    assert any("SAME release" in n for n in same.notes)


def _summary(accounting: str = "participant") -> pd.DataFrame:
    """A hand-made summary: utility recovers from ε = 100, re-identification leaves chance from ε = 1000 (private)
    while the clean-trained attacker sits at chance (collapsed) everywhere."""
    rows = []
    for eps, task_acc, id_priv in ((1.0, 0.33, 0.05), (10.0, 0.5, 0.06), (100.0, 0.85, 0.08), (1000.0, 0.9, 0.3),
                                   (10000.0, 0.95, 0.8)):
        for scen, ident, task in (("private", id_priv, task_acc), ("clean", 0.05, 0.33)):
            rows.append(dict(mechanism="FPA", epsilon=eps, train_on=scen, accounting=accounting, repetition=0,
                             task="identity", classifier="svm", accuracy=ident, chance=0.05, window_accuracy=ident,
                             window_chance=0.05, vote_accuracy=ident, participant_epsilon=eps, per_call_epsilon=eps,
                             k=1, seconds=0.1, plan="", prediction_share=1.0 if scen == "clean" else 0.2))
            rows.append(dict(rows[-1], task="task", accuracy=task, chance=1 / 3, window_accuracy=task,
                             vote_accuracy=task, prediction_share=1.0 if scen == "clean" else 0.4))
    for task, acc, chance in (("identity", 0.95, 0.05), ("task", 0.95, 1 / 3)):
        rows.append(dict(mechanism="clean", epsilon=None, train_on="clean", accounting=accounting, repetition=0,
                         task=task, classifier="svm", accuracy=acc, chance=chance, window_accuracy=acc,
                         window_chance=chance, vote_accuracy=acc, participant_epsilon=None, per_call_epsilon=None,
                         k=None, seconds=0.1, plan="", prediction_share=0.3))
    return attacks.summarise(pd.DataFrame(rows))


def test_the_transition_names_its_scenario_and_the_gap():
    s = _summary()
    assert s[(s["train_on"] == "clean") & (s["mechanism"] == "FPA")]["collapsed"].all()
    (t,) = attacks.find_transitions(s)
    assert t.attack_leaves == 1000.0 and t.attack_task == "identity" and t.attack_scenario == "private"
    assert t.utility_recovers == 100.0 and t.complete
    assert "attacker trained on its own private release" in t.sentence and "ε per person" in t.sentence
    assert "from ε = 100 to below 1,000 the task works" in t.sentence
    assert attacks.epsilons_to_add([t]) == {}
    # The finder reads the strongest scenario and says so, and that ε was tuned on the private data.
    (answer,) = attacks.find_tradeoff(s, target=0.8, margin=0.05)
    assert answer.epsilons == (100.0,)
    assert "strongest attacker" in answer.sentence and "not itself private" in answer.sentence
    # Read with the clean-trained scenario alone, the collapsed attacker would have called every ε safe.
    (naive,) = attacks.find_tradeoff(s, target=0.3, margin=0.05, train_on="clean")
    assert naive.epsilons == (1.0, 10.0, 100.0, 1000.0, 10000.0)


def test_a_grid_without_a_crossing_extends_itself_up_to_the_limit_and_paper_accounting_says_so():
    s = _summary("paper")
    low = s[(s["epsilon"] <= 10.0) | (s["mechanism"] == "clean")]
    (t,) = attacks.find_transitions(low)
    assert t.attack_leaves is None and t.utility_recovers is None and not t.complete
    assert "up to ε = 10 as in the paper" in t.sentence and "neither" in t.sentence
    assert attacks.epsilons_to_add([t]) == {"FPA": 100.0}
    top = s[s["epsilon"] == 10000.0].assign(epsilon=1e6)
    (t,) = attacks.find_transitions(pd.concat([low, top]), target=0.99)  # the task never reaches 0.99
    assert attacks.epsilons_to_add([t]) == {}  # at the limit (10⁶): the sentence says where it stopped
    assert "does not reach 0.99 for good up to ε = 1e+06" in t.sentence


def test_far_below_chance_is_flagged_and_the_finder_does_not_read_it_as_protection():
    assert attacks.below_chance(0.0, 0.5) and not attacks.below_chance(0.45, 0.5) and not attacks.below_chance(0.0, 0.05)
    s = _summary()
    # A gender attack scoring 0.2 against chance 0.5 at every ε (the leave-one-person-out majority artefact).
    extra = s[s["task"] == "task"].assign(task="gender", chance=0.5, accuracy=0.2, below_chance=True, collapsed=False)
    (answer,) = attacks.find_tradeoff(pd.concat([s, extra]), target=0.8, margin=0.05)
    assert answer.epsilons == (100.0,) and "Caution: at ε = 100" in answer.sentence
    summary = attacks.summarise(pd.DataFrame([dict(mechanism="FPA", epsilon=1.0, train_on="private", task="gender",
                                                   classifier="svm", accuracy=0.0, chance=0.5, window_accuracy=0.0,
                                                   k=1, participant_epsilon=1.0, plan="", prediction_share=0.5)]))
    assert bool(summary["below_chance"].iloc[0]) and not bool(summary["collapsed"].iloc[0])


def test_the_page_estimates_a_run_from_the_baseline_and_extends_only_open_mechanisms():
    from ui.attacks.view import RunSettings, estimate_seconds, extension_points

    base = pd.DataFrame({"task": ["task", "identity"], "seconds": [1.0, 0.5]})
    one = RunSettings(mechanisms=("FPA",), epsilons=(1.0,), scenarios=("private",), classifiers=("svm",),
                      tasks=("task", "identity"))
    two = RunSettings(mechanisms=("FPA",), epsilons=(1.0, 10.0), scenarios=("private", "clean"),
                      classifiers=("svm",), tasks=("task", "identity"))
    # Private: a new fit per setting (2 × the baseline's 1.5 s); clean-trained: predictions only (0.5 ×).
    assert estimate_seconds(base, one) == pytest.approx(2.0 * 1.5)
    assert estimate_seconds(base, two) == pytest.approx(2 * (2.0 + 0.5) * 1.5)
    assert estimate_seconds(base, two, cached=8) == 0.0
    assert extension_points(two, []) == []  # nothing run yet
    # The hand-made summary's rows up to ε = 10 show no crossing: the next point is ε = 100, both scenarios.
    s = _summary()
    raw = s[(s["epsilon"] <= 10.0) | (s["mechanism"] == "clean")].assign(repetition=0)
    pts = extension_points(two, raw.to_dict("records"))
    assert [(p.mechanism, p.epsilon, p.train_on.value) for p in pts] == [("FPA", 100.0, "private"),
                                                                          ("FPA", 100.0, "clean")]
    assert extension_points(dataclasses.replace(two, extend=False), raw.to_dict("records")) == []
