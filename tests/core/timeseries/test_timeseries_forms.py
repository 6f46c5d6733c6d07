"""Release forms with small per-person sensitivity (eyedp_core.timeseries.forms, docs/PRIVACY_MODEL.md §14).

Neighbours are one PARTICIPANT changed completely (every recording, every feature). For each form: the largest
change of the output over many random neighbours (in range units, L1) stays below the stated Δ1 and the
worst-case neighbour attains it; the noise is Laplace with the stated scale (KS test, fixed seed); the closed-form
crossing ε and number of people reproduce the target.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.timeseries import forms

LO = np.array([0.0, -2.0, 10.0])
HI = np.array([1.0, 2.0, 400.0])
P, TASKS, T = 9, ("a", "b", "c"), 40


def _data(rng: np.random.Generator, p: int = P) -> tuple[np.ndarray, pd.DataFrame]:
    """p participants × 3 tasks × 3 features × T, values reaching beyond the bounds (clamping is exercised)."""
    recs = pd.DataFrame([(f"P{i}", t) for i in range(p) for t in TASKS], columns=["participant", "task"])
    span = (HI - LO)[None, :, None]
    x = LO[None, :, None] - 0.2 * span + 1.4 * span * rng.random((len(recs), LO.size, T))
    return x, recs


def _l1_change(a: np.ndarray, b: np.ndarray) -> float:
    return float((np.abs(a - b) / (HI - LO)[None, :, None]).sum())


SETTINGS = [forms.FormSetting(forms.Form.RECORDING, 1.0, 1, len(TASKS)),
            forms.FormSetting(forms.Form.RECORDING, 1.0, 4, len(TASKS)),
            forms.FormSetting(forms.Form.GROUP, 1.0, 1, len(TASKS)),
            forms.FormSetting(forms.Form.GROUP, 1.0, 3, len(TASKS))]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: f"{s.form}-{s.blocks}")
def test_one_participant_changed_completely_moves_the_output_by_at_most_the_stated_sensitivity(setting):
    rng = np.random.default_rng(7)
    x, recs = _data(rng)
    base = forms.release(setting, x, LO, HI, recs, np.random.default_rng(0))
    stated = base.calibration.l1_sensitivity
    worst = 0.0
    for _ in range(300):
        who = f"P{rng.integers(P)}"
        y = x.copy()
        rows = np.flatnonzero(recs["participant"].to_numpy() == who)
        # A random new person: each recording and feature at a level drawn near the bounds (U-shaped, also
        # beyond them), plus within-series jitter, so random neighbours come near the worst case.
        level = LO[None, :, None] + (HI - LO)[None, :, None] * (1.4 * rng.beta(0.3, 0.3, (rows.size, LO.size, 1)) - 0.2)
        y[rows] = level + 0.05 * (HI - LO)[None, :, None] * rng.standard_normal((rows.size, LO.size, T))
        worst = max(worst, _l1_change(forms.release(setting, y, LO, HI, recs, np.random.default_rng(0)).clean,
                                      base.clean))
    assert worst <= stated + 1e-9
    # The worst case: a person at L everywhere becomes a person at U everywhere — attains Δ1 exactly.
    lowp = x.copy()
    rows = np.flatnonzero(recs["participant"].to_numpy() == "P0")
    lowp[rows] = LO[None, :, None] - 1.0
    highp = lowp.copy()
    highp[rows] = HI[None, :, None] + 1.0
    a = forms.release(setting, lowp, LO, HI, recs, np.random.default_rng(0)).clean
    b = forms.release(setting, highp, LO, HI, recs, np.random.default_rng(0)).clean
    assert _l1_change(a, b) == pytest.approx(stated, rel=1e-12)
    assert worst >= 0.5 * stated  # random neighbours come near the stated bound


def test_stated_sensitivities_follow_the_formulas():
    sizes = (9, 9, 9)
    rec = forms.calibrate(forms.FormSetting(forms.Form.RECORDING, 2.0, 4, 3), LO, HI)
    assert rec.l1_sensitivity == 3 * 4 * 3 and rec.scale == pytest.approx(36 / 2.0)
    np.testing.assert_allclose(rec.feature_scale, (HI - LO) * 18.0)
    grp = forms.calibrate(forms.FormSetting(forms.Form.GROUP, 2.0, 1, 3), LO, HI, sizes)
    assert grp.l1_sensitivity == pytest.approx(3 * 3 / 9) and grp.scale == pytest.approx(0.5)
    # The noise per value of a group mean shrinks as 1/N.
    big = forms.calibrate(forms.FormSetting(forms.Form.GROUP, 2.0, 1, 3), LO, HI, (90, 90, 90))
    assert big.scale == pytest.approx(grp.scale / 10)


@pytest.mark.parametrize("setting", SETTINGS[::2], ids=lambda s: str(s.form))
def test_noise_is_laplace_with_the_stated_scale(setting):
    """KS test of (noisy − clean)/b_f against Laplace(0, 1): fixed seed, p-value above 0.01."""
    x, recs = _data(np.random.default_rng(3), p=60)
    draws = []
    for seed in range(40 if setting.form is forms.Form.GROUP else 4):
        r = forms.release(setting, x, LO, HI, recs, np.random.default_rng(seed))
        draws.append(((r.noisy - r.clean) / r.calibration.feature_scale[None, :, None]).ravel())
    z = np.concatenate(draws)
    assert z.size >= 300
    assert stats.kstest(z, "laplace").pvalue > 0.01
    assert np.std(z) == pytest.approx(np.sqrt(2), rel=0.1)


def test_crossing_epsilon_and_people_reach_the_target():
    x, recs = _data(np.random.default_rng(5))
    spread = forms.person_spread(x, LO, HI)
    for target in (0.0, 6.0):
        for setting in SETTINGS[::2]:
            cal = forms.release(setting, x, LO, HI, recs, np.random.default_rng(0)).calibration
            eps = forms.crossing_epsilon(cal, spread, target)
            again = forms.calibrate(forms.FormSetting(setting.form, eps, 1, 3), LO, HI, cal.group_sizes)
            assert forms.expected_db(again, spread) == pytest.approx(target, abs=1e-9)
        cal = forms.calibrate(SETTINGS[2], LO, HI, (P, P, P))
        n = forms.crossing_people(cal, spread, target)
        bigger = forms.calibrate(SETTINGS[2], LO, HI, (n, n, n)) if n == int(n) else None
        scale_n = cal.scale * P / n
        assert 10 * np.log10(np.mean(spread / (2 * ((HI - LO) * scale_n) ** 2))) == pytest.approx(target, abs=1e-9)
        assert bigger is None or bigger.scale == pytest.approx(scale_n)
    assert forms.crossing_people(forms.calibrate(SETTINGS[0], LO, HI), spread) == float("inf")


def test_expected_utility_matches_monte_carlo():
    """The analytic NMSE 2·b_f²/V_f against the NMSE of 400 seeded releases (within 5 %)."""
    x, recs = _data(np.random.default_rng(11), p=30)
    setting = forms.FormSetting(forms.Form.RECORDING, 50.0, 1, 3)
    spread = forms.person_spread(x, LO, HI)
    mse = np.zeros(LO.size)
    for seed in range(400):
        r = forms.release(setting, x, LO, HI, recs, np.random.default_rng(seed))
        mse += ((r.noisy - r.clean) ** 2).mean(axis=(0, 2)) / 400
    want = 10 * np.log10(np.mean(spread / mse))
    assert forms.expected_db(r.calibration, spread) == pytest.approx(want, abs=0.25)


def test_sentences_say_what_makes_the_setting_usable():
    x, recs = _data(np.random.default_rng(5))
    spread = forms.person_spread(x, LO, HI)
    low = forms.calibrate(forms.FormSetting(forms.Form.GROUP, 0.01, 1, 3), LO, HI, (P, P, P))
    text = forms.usable_sentence(low, spread)
    assert "reaches 0 dB from ε =" in text and "At ε = 0.01 per person it needs about" in text
    high = forms.calibrate(forms.FormSetting(forms.Form.RECORDING, 1e6, 1, 3), LO, HI)
    assert "usable now" in forms.usable_sentence(high, spread)
    with pytest.raises(ValueError):
        forms.calibrate(forms.FormSetting(forms.Form.GROUP, 1.0, 1, 3), LO, HI, ())


def test_sweep_crossing_sentences_interpolate_on_the_log_axis():
    from eyedp_core.timeseries.experiments import crossing_sentences

    table = pd.DataFrame({"mode": "participant", "mechanism": ["A"] * 3 + ["B"] * 3 + ["C"] * 3,
                          "epsilon": [1.0, 10.0, 100.0] * 3,
                          "utility_db": [-30.0, -10.0, 10.0, -50.0, -40.0, -30.0, 5.0, 6.0, 7.0]})
    a, b, c = crossing_sentences(table, "participant")
    assert a == "A: reaches 0 dB from ε ≈ 31.6."  # halfway between 10 and 100 on the log axis
    assert b.startswith("B: below 0 dB up to ε = 100 (best -30.0 dB)")
    assert c.startswith("C: at or above 0 dB over the whole range")


def test_one_recording_gives_a_sentence_not_an_error():
    """No spread between recordings (a single one): utility is -inf, crossings infinite, a plain sentence."""
    x, recs = _data(np.random.default_rng(1), p=1)
    x, recs = x[:1], recs.iloc[:1]
    spread = forms.person_spread(x, LO, HI)
    for form in forms.Form:
        cal = forms.calibrate(forms.FormSetting(form, 1.0, 1, 1), LO, HI, (1,) if form is forms.Form.GROUP else ())
        assert forms.crossing_epsilon(cal, spread) == float("inf")
        assert "no spread" in forms.usable_sentence(cal, spread)
    rows = forms.compare_forms(x, LO, HI, recs, forms.FormComparison(epsilon=1.0, blocks=1, recordings_per_person=1,
                                                                       feature_index=0))
    assert "No release form reaches" in forms.overall_sentence(rows, 0.0, (0.001, 1e4))
