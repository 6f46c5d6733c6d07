"""io.read_recording on the public recordings in ../shared/realdata (read by path, never copied here).

One test per dataset: the format is detected, the tidy table has the canonical columns, and what was dropped
or blanked (signal loss, padding, empty cells) is counted. Skipped with a reason when shared/ is absent.
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from eyedp_core import io

REALDATA = Path(__file__).resolve().parents[3].parent / "shared" / "realdata"
pytestmark = pytest.mark.skipif(not REALDATA.is_dir(),
                                reason=f"real recordings not found at {REALDATA} (shared/ must sit beside the repo)")


def _gz_head(path: Path, n: int) -> bytes:
    """First n data lines (plus the header) of a gzip CSV, re-compressed in memory."""
    with gzip.open(path, "rb") as fh:
        return gzip.compress(b"".join(fh.readline() for _ in range(n + 1)))


def test_uniss_fgd_tobii_studio_samples_and_their_fixations():
    """Tobii Studio columns: detected, ms clock, media pixels, mean pupil, fixations from FixationIndex."""
    data = _gz_head(REALDATA / "uniss_fgd" / "fgd_samples.csv.gz", 60_000)
    rec = io.read_recording(data, filename="fgd_samples.csv.gz")
    s, fmt = rec
    assert fmt == "tobii" and len(s) == 60_000 and s["participant"].iloc[0] == "00"
    assert 0.0025 < float(np.median(np.diff(s["t_s"]))) < 0.0045  # ~300 Hz
    assert s["x"].dropna().between(-60, 630).mean() > 0.99 and 0.01 < s["x"].isna().mean() < 0.1
    fix = rec.fixations()
    assert len(fix) > 400 and fix["duration_ms"].median() > 100 and "t_start_s" in fix.columns


def test_uniss_fgd_fixation_table_keeps_start_times_and_drops_empty_positions():
    """The derived fixation table: start_ts becomes t_start_s (ms), rows without x/y dropped and counted."""
    rec = io.read_recording(REALDATA / "uniss_fgd" / "fgd_fixations.csv.gz")
    f = rec.samples
    assert rec.kind == "fixations" and rec.counts["dropped_missing"] == 210 and len(f) == 20_112 - 210
    assert f["observer"].nunique() == 20 and f["stimulus"].nunique() == 119
    assert f["t_start_s"].iloc[0] == pytest.approx(20.207)


def test_saccades_eyelink_asc():
    """The ALSOA1 ASC file: 250 Hz right eye, 84 trials, fixations from EFIX, display 640 x 480."""
    rec = io.read_recording(REALDATA / "saccades_testdata" / "example_eyelink_events.txt")
    s = rec.samples
    assert rec.format == "eyelink_asc" and len(s) == 29_578 and rec.screen_px == (640, 480)
    assert s["trial"].nunique() == 84 and float(np.median(np.diff(s["t_s"]))) == pytest.approx(0.004)
    assert set(s["event"]) >= {"fixation", "saccade", "blink"}
    assert len(rec.fixations()) == 266 and len(rec.events) == 266 + 213 + 23  # EFIX, ESACC, EBLINK lines


def test_saccades_generic_csv_and_preprocessed_text_with_geometry_header():
    """Headerless example.csv (250 Hz) and s1_actioncliptest (preamble with the set-up, 1 kHz µs clock)."""
    ex = io.read_recording(REALDATA / "saccades_testdata" / "example.csv")
    assert ex.format == "generic" and len(ex.samples) == 148
    clip = io.read_recording(REALDATA / "saccades_testdata" / "s1_actioncliptest00001.txt")
    assert len(clip.samples) == 8_591 and clip.geometry is not None and clip.geometry.width_px == 576
    assert clip.counts["lost_xy_zero"] == 187
    assert float(np.median(np.diff(clip.samples["t_s"]))) == pytest.approx(0.001)


def test_gazebase_degrees_become_pixels_with_its_geometry():
    """GazeBase: detected, degrees (y up) converted with the GazeBase set-up, far off-screen samples counted."""
    rec = io.read_recording(REALDATA / "gazebase_sample" / "S_1001_S1_TEX.csv")
    s = rec.samples
    assert rec.format == "gazebase" and len(s) == 60_233 and rec.geometry == io.PRESETS["gazebase"]
    assert s["x"].median() == pytest.approx(840, abs=60) and rec.counts["off_screen"] > 0
    # Reading goes down the page: y in pixels grows over the first 30 s.
    assert s["y"].iloc[:5000].median() < s["y"].iloc[25000:30000].median()


def test_lund2013_zero_timestamps_signal_loss_and_missing_clock():
    """Lund 2013: trailing zero timestamps dropped, x = y = 0 blanked, 'dots' rows without a clock dropped (a
    zero stamp in a recording without a clock is padding too; tests/app/test_sample_clock.py keeps them with a rate)."""
    rec = io.read_recording(REALDATA / "lund2013" / "lund2013_samples.csv.gz")
    c = rec.counts
    assert c["zero_time_dropped"] == 13 and c["lost_xy_zero"] > 3000 and c["dropped_missing"] == 21_326
    # Left: the 5 images and 4 videos; no moving-dot trial (trial1, trial17) without its clock.
    assert len(rec.samples) == 383_225 - 21_326 - 13 and rec.samples["stimulus"].nunique() == 9
    assert not {"trial1", "trial17"} & set(rec.samples["stimulus"])


def test_sbsat_trial_report_as_features_and_osie_fixations():
    """SB-SAT trial report: booleans/text skipped, empty cells dropped and counted; OSIE fixations as is."""
    sb = io.read_recording(REALDATA / "sbsat" / "18sat_trialfinal.csv", options=io.ReadOptions(kind="features"))
    assert sb.kind == "features" and sb.samples["participant"].nunique() == 95
    assert "Trial_Recycled_" not in sb.samples.columns and sb.counts["dropped_missing"] > 0
    osie = io.read_recording(REALDATA / "osie" / "osie_fixations.csv.gz")
    assert osie.kind == "fixations" and len(osie.samples) == 98_321 and osie.samples["observer"].nunique() == 15
