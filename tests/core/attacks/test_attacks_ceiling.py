"""Measured under the bound: every attack accuracy lies under the ceiling its release allows any attacker, and a
mechanism whose noise is ten times too small (injected here) is caught as a defect."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eyedp_core import attacks
from eyedp_core.attacks import ceiling as ceil
from eyedp_core.attacks import privatize
from eyedp_core.dp import risk

BOUNDS = {"f1": (0.0, 100.0)}


def gender_table(people: int = 40, windows: int = 120, seed: int = 3) -> pd.DataFrame:
    """One feature that tells gender apart (20 vs 80 on a public range of 0-100), one recording per person, so
    each person's release is ONE mechanism call: the ceiling is e^ε/(1 + e^ε) at a balanced prior."""
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(people):
        g = "f" if i % 2 else "m"
        df = pd.DataFrame({"f1": (80.0 if g == "f" else 20.0) + rng.normal(0, 2.0, windows)})
        df.insert(0, "t_start_s", np.arange(windows) * 0.5)
        df.insert(0, "window", np.arange(windows))
        df.insert(0, "gender", g)
        df.insert(0, "task", "read")
        df.insert(0, "participant", f"P{i:02d}")
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["window_s"] = 30.0
    return out


def _gender_summary(eps: float) -> pd.DataFrame:
    rows = list(attacks.sweep(gender_table(), tasks=["gender"], mechanisms=["FPA"], epsilons=[eps],
                              classifiers=["svm"], train_on=["private"], bounds=BOUNDS, include_clean=False))
    return ceil.add_ceilings(attacks.summarise(rows))


def test_one_call_per_person_has_the_pure_epsilon_ceiling():
    s = _gender_summary(1.0)
    r = s.iloc[0]
    assert tuple(map(tuple, r["calls"])) == ((1, 1.0),) and r["n_units"] == 40 and r["n_classes"] == 2
    assert r["ceiling"] == pytest.approx(math.e / (1 + math.e), abs=1e-9)
    assert not r["defect"]


def test_noise_ten_times_too_small_is_flagged(monkeypatch):
    """FPA drawing noise of a tenth of its calibrated scale (ε per call × 10 inside, the plan still says ε):
    gender is read far above e/(1 + e), and the binomial test flags it."""
    real = privatize.fpa

    def miscalibrated(series, *, epsilon, **kw):
        return real(series, epsilon=np.asarray(epsilon) * 10.0, **kw)

    monkeypatch.setattr(privatize, "fpa", miscalibrated)
    s = _gender_summary(1.0)
    r = s.iloc[0]
    assert r["accuracy"] > 0.9 > r["ceiling"]
    assert r["defect"] and r["p_above"] < ceil.DEFECT_LEVEL
    words = ceil.defect_sentences(s)
    assert len(words) == 1 and "above the ceiling 0.731" in words[0] and "binomial" in words[0]


def test_ceiling_rules_against_their_risk_functions():
    """K classes: K · majority share · singling-out; two classes: the attribute bound at the majority share."""
    t = risk.TradeOff.pure(0.01, 300)
    assert ceil.ceiling([(300, 0.01)], 20, 0.05) == pytest.approx(risk.singling_out(t, 20), abs=1e-12)
    assert ceil.ceiling([(300, 0.01)], 20, 0.1) == pytest.approx(min(1, 2 * risk.singling_out(t, 20)), abs=1e-12)
    assert ceil.ceiling([(300, 0.01)], 2, 0.6) == pytest.approx(risk.attribute_inference(t, 0.6), abs=1e-12)
    # Several kinds of people: the worst of them.
    both = ceil.ceiling([(300, 0.01), (100, 0.03)], 20, 0.05)
    assert both == pytest.approx(max(ceil.ceiling([(300, 0.01)], 20, 0.05), ceil.ceiling([(100, 0.03)], 20, 0.05)))
    assert math.isnan(ceil.ceiling([], 20, 0.05))


def test_binomial_flag_needs_more_than_noise():
    """0.80 over 10 units above a ceiling of 0.73 is within noise; 0.95 over 200 units is not."""
    s = pd.DataFrame({"task": ["gender"] * 2, "mechanism": ["FPA"] * 2, "epsilon": [1.0, 1.0],
                      "train_on": ["private"] * 2, "accuracy": [0.8, 0.95], "chance": [0.5, 0.5],
                      "n_units": [10, 200], "n_classes": [2, 2], "calls": [((1, 1.0),), ((1, 1.0),)]})
    out = ceil.add_ceilings(s)
    assert out["above"].tolist() == [True, True]
    assert out["defect"].tolist() == [False, True]
    from scipy.stats import binom

    assert out["p_above"].iloc[0] == pytest.approx(binom.sf(7, 10, math.e / (1 + math.e)))
