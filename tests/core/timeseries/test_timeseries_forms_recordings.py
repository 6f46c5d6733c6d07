"""Release forms on tables with several recordings per participant and no task column (docs/PRIVACY_MODEL.md §14).

The app makes such tables from fixations (io.windows: 40 participants × 3 stimuli or sessions). What one person
contributes is counted from the table's structure (gaze.contributions), and a group mean averages each person's
recordings first, so for two neighbours differing in one participant entirely the L1 change of the released
(pre-noise, range-scaled) vector is at most the stated Δ1 and the worst-case pair attains it, for both forms.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core.gaze.contributions import contributions
from eyedp_core.gaze.feature_specs import feature_bounds
from eyedp_core.io.windows import features_from_table, suggested_window_s
from eyedp_core.timeseries import forms
from eyedp_core.timeseries.signals import feature_columns, feature_tensor
from tests.core.timeseries.app_made import feature_windows

PEOPLE, RECORDINGS, BLOCKS = 40, 3, 4


def _series(table: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame, np.ndarray, np.ndarray]:
    """App-made table -> (series at T = the longest recording, recordings table, public bounds) of the features
    with a value in every window (those the Time-series page releases)."""
    names = [c for c in feature_columns(table) if np.isfinite(table[c].to_numpy(float)).all()]
    x, recs = feature_tensor(table, names, fill="edge")
    lo, hi = feature_bounds(names)
    return x, recs, np.asarray(lo, float), np.asarray(hi, float)


@pytest.fixture(scope="module", params=["stimulus", "session"])
def app_made(request) -> tuple[pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray, np.ndarray]:
    table = feature_windows(PEOPLE, RECORDINGS, session=request.param == "session")
    assert "task" not in table.columns
    return (table, *_series(table))


def _scaled_l1(a: forms.FormRelease, b: forms.FormRelease, lo: np.ndarray, hi: np.ndarray) -> float:
    return float((np.abs(a.clean - b.clean) / (hi - lo)[None, :, None]).sum())


def test_the_count_comes_from_the_structure_not_from_the_tasks(app_made):
    table, x, recs, lo, hi = app_made
    counted = contributions(table)
    assert counted.max_recordings == RECORDINGS and counted.n_participants == PEOPLE
    assert counted.n_recordings == PEOPLE * RECORDINGS == x.shape[0]
    assert forms.max_recordings(recs) == RECORDINGS
    # Counting tasks (there are none) said 1: such a setting is refused rather than calibrated too small.
    with pytest.raises(ValueError, match="3 recordings"):
        forms.compare_forms(x, lo, hi, recs, forms.FormComparison(epsilon=1.0, blocks=BLOCKS, recordings_per_person=1,
                                                                   feature_index=0))


def test_contributions_count_trials_inside_a_task_and_empty_cells_as_their_own_recording():
    t = pd.DataFrame({"participant": ["a", "a", "a", "a", "b", "b", "c"],
                      "task": ["r", "r", "r", "v", "r", "r", "r"],
                      "trial": [1, 1, 2, 1, 1, None, 1]})
    c = contributions(t)
    assert c.keys == ("task", "trial") and c.per_participant.to_dict() == {"a": 3, "b": 2, "c": 1}
    assert c.max_recordings == 3 and c.n_recordings == 6
    assert contributions(t[["participant"]]).max_recordings == 1
    with pytest.raises(ValueError, match="participant"):
        contributions(t.drop(columns="participant"))


@pytest.mark.parametrize("form", [forms.Form.RECORDING, forms.Form.GROUP])
def test_one_participant_changed_entirely_moves_the_release_by_the_stated_sensitivity(app_made, form):
    """Worst-case neighbours (P00 at L everywhere vs at U everywhere) attain the stated Δ1 exactly; 200 random
    neighbours (P00 replaced by another person's recordings, or by random levels) stay at or below it."""
    table, x, recs, lo, hi = app_made
    f = lo.size
    per_person = contributions(table).max_recordings
    setting = forms.FormSetting(form, 1.0, BLOCKS, per_person)
    rows = np.flatnonzero(recs["participant"].to_numpy() == "P00")
    assert rows.size == RECORDINGS
    low, high = x.copy(), x.copy()
    low[rows], high[rows] = lo[None, :, None] - 1.0, hi[None, :, None] + 1.0
    a = forms.release(setting, low, lo, hi, recs, np.random.default_rng(0))
    b = forms.release(setting, high, lo, hi, recs, np.random.default_rng(0))
    stated = a.calibration.l1_sensitivity
    # The formulas with the counted numbers: 3 recordings × B × F, or B × F / 40 people (not / 120 recordings).
    want = RECORDINGS * BLOCKS * f if form is forms.Form.RECORDING else BLOCKS * f / PEOPLE
    assert stated == pytest.approx(want, rel=1e-12)
    assert _scaled_l1(a, b, lo, hi) == pytest.approx(stated, rel=1e-9)
    rng = np.random.default_rng(17)
    base = forms.release(setting, x, lo, hi, recs, np.random.default_rng(0))
    worst = 0.0
    for i in range(200):
        y = x.copy()
        if i % 2:
            other = np.flatnonzero(recs["participant"].to_numpy() == f"P{1 + i % (PEOPLE - 1):02d}")
            y[rows] = x[other]
        else:
            span = (hi - lo)[None, :, None]
            y[rows] = lo[None, :, None] + span * (1.4 * rng.beta(0.3, 0.3, (rows.size, f, 1)) - 0.2)
        worst = max(worst, _scaled_l1(base, forms.release(setting, y, lo, hi, recs, np.random.default_rng(0)),
                                      lo, hi))
    assert worst <= stated * (1 + 1e-9)


def test_a_person_with_more_recordings_moves_a_group_mean_by_one_person_share():
    """Unequal recordings: P00 has 3, everyone else 1. Averaging P00's recordings first keeps P00's weight at
    1/N people; the recordings-weighted mean would move by 3/(N + 2) > 1/N, above the stated Δ1."""
    table = feature_windows(10, RECORDINGS)
    keep = (table["participant"] == "P00") | table["recording"].eq(table["recording"].min())
    table = table[keep]
    x, recs, lo, hi = _series(table)
    assert forms.max_recordings(recs) == RECORDINGS and len(recs) == 10 + 2
    setting = forms.FormSetting(forms.Form.GROUP, 1.0, 1, RECORDINGS)
    rows = np.flatnonzero(recs["participant"].to_numpy() == "P00")
    low, high = x.copy(), x.copy()
    low[rows], high[rows] = lo[None, :, None] - 1.0, hi[None, :, None] + 1.0
    a = forms.release(setting, low, lo, hi, recs, np.random.default_rng(0))
    b = forms.release(setting, high, lo, hi, recs, np.random.default_rng(0))
    assert a.calibration.group_sizes == (10,)
    assert a.calibration.l1_sensitivity == pytest.approx(lo.size / 10)
    assert _scaled_l1(a, b, lo, hi) == pytest.approx(lo.size / 10, rel=1e-9)
    assert lo.size * RECORDINGS / 12 > lo.size / 10  # what a mean over the 12 recordings would have moved


def test_compare_forms_states_the_counted_sensitivities(app_made):
    """The rows the page shows: 105-style numbers (3 × F) and F/40, not F and F/120."""
    table, x, recs, lo, hi = app_made
    question = forms.FormComparison(epsilon=1.0, blocks=BLOCKS, recordings_per_person=contributions(table).max_recordings,
                                    feature_index=0)
    rows = forms.compare_forms(x, lo, hi, recs, question)
    f = lo.size
    by = {(r.setting.form, r.setting.blocks, r.features): r for r in rows}
    assert by[(forms.Form.RECORDING, 1, f)].l1_sensitivity == RECORDINGS * f
    assert by[(forms.Form.RECORDING, BLOCKS, f)].l1_sensitivity == RECORDINGS * BLOCKS * f
    assert by[(forms.Form.GROUP, 1, f)].l1_sensitivity == pytest.approx(f / PEOPLE)
    assert by[(forms.Form.GROUP, 1, 1)].l1_sensitivity == pytest.approx(1 / PEOPLE)


OSIE = Path(__file__).resolve().parents[3].parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"


def test_real_fixations_of_many_images_per_observer_count_every_image():
    """OSIE (15 observers free-viewing images, fixations, no task column), its first 40 images made into feature
    windows as Your data does (the suggested window, half-window step): 40 recordings per observer, and the
    worst-case neighbours move both forms by exactly the stated Δ1 (40·F and F/15)."""
    if not OSIE.exists():
        pytest.skip(f"real recordings not found at {OSIE}")
    fix = pd.read_csv(OSIE).rename(columns={"subject": "participant", "image": "stimulus"})
    fix = fix[fix["stimulus"].isin(sorted(fix["stimulus"].unique())[:40])]
    w = suggested_window_s(fix)
    table = features_from_table(fix, None, w, w / 2, source=OSIE.name)
    counted = contributions(table)
    assert (counted.max_recordings, counted.n_participants) == (40, 15)
    x, recs, lo, hi = _series(table)
    rows = np.flatnonzero(recs["participant"].to_numpy() == recs["participant"].iloc[0])
    low, high = x.copy(), x.copy()
    low[rows], high[rows] = lo[None, :, None] - 1.0, hi[None, :, None] + 1.0
    for form, want in ((forms.Form.RECORDING, 40 * lo.size), (forms.Form.GROUP, lo.size / 15)):
        setting = forms.FormSetting(form, 1.0, 1, counted.max_recordings)
        a = forms.release(setting, low, lo, hi, recs, np.random.default_rng(0))
        b = forms.release(setting, high, lo, hi, recs, np.random.default_rng(0))
        assert a.calibration.l1_sensitivity == pytest.approx(want)
        assert _scaled_l1(a, b, lo, hi) == pytest.approx(want, rel=1e-9)
