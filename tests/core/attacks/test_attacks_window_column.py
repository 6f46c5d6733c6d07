"""The window length travels as a column of the feature table (io.windows), so tables combined with pd.concat or
written to CSV and read back keep it: attacks.prepare finds the honest gap between training and test parts from
it (⌈window / step⌉ windows), not from Steil et al.'s 30-s default."""
from __future__ import annotations

import io
import math

import pandas as pd
import pytest

from eyedp_core.attacks.tables import WINDOW_COLUMN, prepare, window_length
from eyedp_core.timeseries.signals import feature_columns
from tests.core.timeseries.app_made import feature_windows


@pytest.fixture(scope="module")
def parts() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two app-made tables (10-s windows every 5 s) of different people, as made from two uploads."""
    a = feature_windows(6, 2)
    b = feature_windows(6, 2).assign(participant=lambda t: "Q" + t["participant"])
    b.attrs = {**b.attrs, "source": "second.csv"}
    return a, b


def test_concatenated_tables_keep_the_window_length_and_the_honest_gap(parts):
    a, b = parts
    both = pd.concat([a, b], ignore_index=True)
    assert "window_s" not in both.attrs  # the frame metadata is gone, as pd.concat drops differing attrs
    at = prepare(both)
    assert at.window_s == 10.0 and at.step_s == pytest.approx(5.0)
    assert at.gap_windows == math.ceil(10.0 / 5.0) == 2  # 30 s assumed would give 6 and skew the attack
    assert prepare(both.drop(columns=WINDOW_COLUMN)).gap_windows == 6  # what the lost attrs used to cost
    assert prepare(both).n_recordings == 24 and not any("window length taken as" in n for n in at.notes)
    assert WINDOW_COLUMN not in at.features and WINDOW_COLUMN not in feature_columns(both)


def test_a_csv_round_trip_keeps_it_and_an_explicit_length_wins(parts):
    a, _ = parts
    back = pd.read_csv(io.StringIO(a.to_csv(index=False)))
    assert back.attrs == {} and window_length(back) == (10.0, "column")
    assert window_length(back, 20.0) == (20.0, "given") and prepare(back, window_s=20.0).gap_windows == 4
    assert window_length(back.drop(columns=WINDOW_COLUMN)) == (30.0, "default")


def test_mixed_or_broken_window_lengths_are_refused_clearly(parts):
    a, b = parts
    mixed = pd.concat([a, b.assign(window_s=20.0)], ignore_index=True)
    with pytest.raises(ValueError, match="mixes windows of 10, 20 s"):
        prepare(mixed)
    with pytest.raises(ValueError, match="positive number of seconds"):
        prepare(a.assign(window_s=-1.0))
