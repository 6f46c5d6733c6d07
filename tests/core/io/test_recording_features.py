"""Recording.features and io.read_participants: a real recording reaches the attacks and the time-series
functions as it is (no renaming, no geometry conversion, the window length carried)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import attacks, io
from eyedp_core.io.errors import DataError
from eyedp_core.timeseries.signals import feature_tensor

REAL = Path(__file__).resolve().parents[4] / "shared" / "realdata"
GAZEBASE = REAL / "gazebase_sample" / "S_1001_S1_TEX.csv"
FGD = REAL / "uniss_fgd" / "fgd_fixations.csv.gz"
needs_real = pytest.mark.skipif(not (GAZEBASE.exists() and FGD.exists()), reason="needs ../shared/realdata")


@needs_real
def test_gazebase_samples_to_features_on_its_own_geometry() -> None:
    rec = io.read_recording(GAZEBASE)
    table = rec.features(5.0, 1.0)
    t = rec.samples["t_s"].to_numpy(float)
    span = t[-1] - t[0] + np.median(np.diff(t))
    assert len(table) == int(np.floor((span - 5.0) / 1.0 + 1e-9)) + 1  # every start 0, 1, ... with a whole window
    assert np.allclose(table["t_start_s"], np.arange(len(table)) * 1.0 + t[0])
    assert set(table["recording"]) == {"S_1001_S1_TEX.csv"} and table["participant"].nunique() == 1
    assert table.attrs["window_s"] == 5.0 and table.attrs["step_s"] == 1.0
    at = attacks.prepare(table)
    assert at.window_s == 5.0 and at.gap_windows == 5 and not at.notes  # no 30 s assumed
    assert "recording" in at.rec_keys
    # The geometry is the recording's (GazeBase 1680 × 1050 at 55 cm), not the sample screen: a fixation rate
    # and saccade amplitudes in degrees depend on it.
    other = io.read_recording(GAZEBASE, geometry=io.PRESETS["desktop_24"]).features(5.0, 1.0)
    assert not np.allclose(other["sacc_amp_mean_deg"], table["sacc_amp_mean_deg"], equal_nan=True)


def _fgd(n_stimuli: int = 14):
    rec = io.read_recording(FGD)
    keep = pd.unique(rec.samples["stimulus"])[:n_stimuli]
    return dataclasses.replace(rec, samples=rec.samples[rec.samples["stimulus"].isin(keep)])


def _fgd_genders() -> bytes:
    raw = pd.read_csv(FGD, usecols=["ParticipantName", "ParticipantGender"]).drop_duplicates()
    return raw.rename(columns={"ParticipantName": "Participant ID", "ParticipantGender": "Sex"}).to_csv(
        index=False).encode()


@needs_real
def test_fixation_recording_to_attacks_evaluate_without_renaming() -> None:
    rec = _fgd()
    people = io.read_participants(_fgd_genders(), "genders.csv")
    assert list(people.columns) == ["participant", "gender"] and len(people) == 20
    table = rec.features(2.0, 1.0, participants=people)
    assert {"participant", "recording", "window", "t_start_s", "gender"} <= set(table.columns)
    assert table["recording"].nunique() == 14 and table["participant"].nunique() == 20
    assert table["gender"].isin(["f", "m"]).all()
    # Windows start at the fixations' own start times (t_start_s read as start_s), not rebuilt from durations.
    first = rec.samples.groupby(["observer", "stimulus"])["t_start_s"].min()
    starts = table[table["window"] == 0].set_index(["participant", "recording"])["t_start_s"]
    assert np.allclose(starts.to_numpy(), first.reindex(starts.index).to_numpy())
    r = attacks.evaluate(table, "identity", classifier="svm", seed=1)
    assert r.n_test > 0 and 0 <= r.accuracy <= 1 and r.chance < 0.5
    g = attacks.evaluate(table, "gender", classifier="svm", seed=1)
    assert g.label == "gender" and g.n_test > 0
    assert "gender" in attacks.label_columns(table)
    assert "gender" not in attacks.prepare(table).features  # a label, never a feature
    x, recs = feature_tensor(table, ["fix_rate_hz"], length=2, fill="edge", order_col="window")
    assert x.shape == (table.groupby(["participant", "recording"]).ngroups, 1, 2)  # one series per recording


def test_read_participants_names_and_labels() -> None:
    csv = b"Participant ID,Age,Self-Identified Gender,Group,Notes\n1,30,Male,A,\n2,18,male,B,\n03,19,Female,A,\n"
    t = io.read_participants(csv, "demo.csv")
    assert list(t.columns) == ["participant", "age", "gender", "Group"]  # the empty column says nothing
    assert list(t["participant"]) == ["1", "2", "3"] and list(t["gender"]) == ["male", "male", "female"]
    assert list(t["age"]) == ["30", "18", "19"]  # text labels: an attack predicts them, none is a feature


@pytest.mark.parametrize("csv, match, row", [
    (b"name,gender\nA,f\n", "no column names the participant", None),
    (b"participant,gender\nA,\nB,\n", "nothing to predict", None),
    (b"participant,gender\nA,f\nB,m\nA,m\n", "participant 'A' has a second row", 4),
    (b"participant,gender\nA,f\n,m\n", "participant cell is empty", 3),
])
def test_read_participants_refuses_clearly(csv, match, row) -> None:
    with pytest.raises(DataError, match=match) as err:
        io.read_participants(csv, "p.csv")
    assert err.value.file == "p.csv" and err.value.row == row


def test_participants_that_match_no_one_are_refused() -> None:
    samples = pd.DataFrame({"participant": ["S1"] * 400, "t_s": np.arange(400) / 100.0,
                            "x": np.linspace(100, 900, 400), "y": np.full(400, 500.0)})
    rec = io.Recording(samples=samples, format="generic", source="s.csv")
    people = io.read_participants(b"participant,gender\nP1,f\n", "p.csv")
    with pytest.raises(DataError, match="none of the 1 participants of s.csv"):
        rec.features(1.0, participants=people)
    with pytest.raises(DataError, match="no recording is as long as one window of 10 s"):
        rec.features(10.0)


def test_the_suggested_window_fits_four_times_in_the_median_recording() -> None:
    from eyedp_core.io.windows import suggested_window_s

    def table(lengths_s):
        return pd.concat([pd.DataFrame({"participant": f"p{i}", "t_s": np.arange(0, L, 0.01), "x": 1.0, "y": 1.0})
                          for i, L in enumerate(lengths_s)])
    assert suggested_window_s(table([8.0, 10.0, 12.0])) == 2.5  # median ≈ 10 s -> 2.5 s
    assert suggested_window_s(table([400.0])) == 30.0  # capped at Steil et al.'s 30 s
    assert suggested_window_s(table([0.4])) == 0.5


def test_an_app_made_table_of_single_windows_points_to_the_window_form():
    """Time series: a feature table the app made with one window per recording says to make shorter windows on
    Your data (not to upload one row per window, which is for a table the user made)."""
    from eyedp_core.io.windows import features_from_table
    from ui.timeseries.data import SeriesProblem, inspect

    t = np.arange(0, 0.6, 0.004)
    gaze = pd.DataFrame({"participant": "p", "t_s": t, "x": 500 + 40 * (t > 0.3), "y": 400.0})
    table = features_from_table(gaze, None, 0.5, 0.5, source="short.csv")
    assert len(table) == 1
    with pytest.raises(SeriesProblem, match="single window.*make feature windows with a shorter window or step"):
        inspect("short-token", table)


def test_recordings_shorter_than_one_window_are_counted():
    """Recordings too short for one window give no rows; how many were left out travels with the table."""
    from eyedp_core.io.windows import features_from_table

    parts = [pd.DataFrame({"participant": p, "t_s": np.arange(0, dur, 0.01), "x": 500.0, "y": 400.0})
             for p, dur in (("a", 12.0), ("b", 3.0), ("c", 11.0), ("d", 1.0))]
    table = features_from_table(pd.concat(parts, ignore_index=True), None, 5.0, source="mixed.csv")
    assert sorted(set(table["participant"])) == ["a", "c"]
    assert table.attrs["recordings_too_short"] == 2
