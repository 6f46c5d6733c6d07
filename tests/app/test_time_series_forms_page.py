"""Time series page (AppTest): the release-forms panel, the A/B comparison and declared tighter bounds."""
from __future__ import annotations

import re

import numpy as np
import pytest

from eyedp_core.data.bundled import load_sample
from eyedp_core.gaze.feature_specs import feature_bounds
from eyedp_core.timeseries import forms
from eyedp_core.timeseries.signals import feature_tensor
from tests.apptest import open_app, page_text


@pytest.fixture(scope="module")
def forms_page():
    at = open_app("pages/time_series.py")
    at.segmented_control(key="ts_panel").set_value("forms").run()
    assert not at.exception, at.exception
    return at


def test_forms_panel_shows_a_crossing_inside_the_range_and_matches_the_core(forms_page):
    """On the sample at the defaults (ε = 1 per person): the page names the smallest crossing ε, inside the
    slider's range, and the numbers equal eyedp_core.timeseries.forms on the same data."""
    text = page_text(forms_page)
    m = re.search(r"Smallest ε per person reaching 0 dB: ([0-9.e+]+), with (.+?)\.", text)
    assert m, text[:2000]
    eps_star = float(m.group(1))
    assert 0.001 <= eps_star <= 10000
    # Independent recomputation on the bundled sample (all features, public bounds, T = 600, 3 tasks).
    df = load_sample("reading_features")
    names = [c for c in df.columns if c not in ("participant", "gender", "task", "window", "t_start_s")]
    x, recs = feature_tensor(df, names, length=600, fill="edge", order_col="window")
    lo, hi = feature_bounds(names)
    rows = forms.compare_forms(x, lo, hi, recs, forms.FormComparison(epsilon=1.0, blocks=10, recordings_per_person=3,
                                                                     feature_index=names.index("sacc_large_ratio")))
    best = min(r.crossing_epsilon for r in rows)
    assert eps_star == pytest.approx(best, rel=1e-2)
    assert "participants per task" in text and "reaches 0 dB from ε =" in text
    tables = [t.value for t in forms_page.table]
    assert any("release form" in getattr(t, "columns", []) for t in tables)


def test_forms_target_moves_the_crossing(forms_page):
    forms_page.number_input(key="ts_form_target").set_value(10.0).run()
    assert not forms_page.exception
    m = re.search(r"Smallest ε per person reaching 10 dB: ([0-9.e+]+)", page_text(forms_page))
    assert m
    m0 = re.search(r"reaching 0 dB", page_text(forms_page))
    assert m0 is None
    forms_page.number_input(key="ts_form_target").set_value(0.0).run()


def test_ab_panel_compares_two_settings_in_one_sentence():
    at = open_app("pages/time_series.py")
    at.segmented_control(key="ts_panel").set_value("ab").run()
    assert not at.exception, at.exception
    text = page_text(at)
    # Default B: same mechanism as A (CFPA-32), ε = 10 against A's 1: more utility for 10× the ε.
    assert re.search(r"B \(CFPA-32, k = \d+\) gives [0-9.]+ dB more utility than A \(CFPA-32, k = \d+\) for 10× A's ε",
                     text), text[:3000]
    assert text.count("guarantee: ε-DP (pure) per invocation") == 2
    from eyedp_core.dp.registry import Mech

    at.selectbox(key="ts_b_mech").set_value(Mech.FPA).run()
    at.slider(key="ts_b_k").set_value(200).run()
    assert not at.exception, at.exception
    at.selectbox(key="ts_b_mech").set_value(Mech.CFPA).run()  # k = 200 no longer fits a chunk of 32
    assert not at.exception, at.exception
    assert at.slider(key="ts_b_k").value == 17
    assert "B (CFPA-32, k = 17)" in page_text(at)


def test_declared_tighter_bounds_are_used_and_wider_ones_refused():
    at = open_app("pages/time_series.py")
    at.text_area(key="ts_tighter").set_value("sacc_large_ratio 0 0.6\npupil_mean_mm 1 9\nnope 0 1").run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "pupil_mean_mm" in text and "wider than its public bound" in text
    assert "nope" in text and "not a feature" in text
    at.segmented_control(key="ts_panel").set_value("table").run()
    frame = [d.value for d in at.dataframe if "feature" in d.value.columns and "L" in d.value.columns][0]
    row = frame[frame["feature"].str.startswith("sacc_large_ratio")].iloc[0]
    assert row["U"] == pytest.approx(0.6) and row["bounds"] == "declared"
    pupil = frame[frame["feature"].str.startswith("pupil_mean_mm")].iloc[0]
    assert pupil["U"] == pytest.approx(8.0) and pupil["bounds"] == "public"
    assert np.isfinite(row["clamped %"])


def test_utility_panel_says_when_each_mechanism_becomes_usable():
    """The default sweep (4 mechanisms) ends with one sentence per mechanism on its 0-dB crossing."""
    at = open_app("pages/time_series.py")
    at.segmented_control(key="ts_panel").set_value("utility").run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "When each becomes usable" in text
    for label in ("LPA", "FPA", "CFPA-32", "DCFPA-32"):
        assert re.search(rf"{label}: (reaches 0 dB from ε ≈|below 0 dB up to ε =|at or above 0 dB)", text), label
    assert at.multiselect(key="ts_sweep_mechs").value == ["LPA", "FPA", "CFPA-32", "DCFPA-32"]


def test_useless_verdict_points_at_the_release_form_that_becomes_usable():
    """At the defaults the full series is useless; the verdict names the release form and its crossing ε."""
    at = open_app("pages/time_series.py")
    text = page_text(at)
    m = re.search(r"Or release (.+?): it reaches 0 dB from ε ≈ ([0-9.e+]+) per person", text)
    assert m, text[:3000]
    assert "shown feature only" in m.group(1) and 0.001 <= float(m.group(2)) <= 10000
