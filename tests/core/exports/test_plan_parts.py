"""A study plan's series forms and gaze samples released as exports (exports.forms, exports.plan_parts): the
stated sensitivity of a series form covers a participant with several recordings (worst-case neighbours attain
it), its OpenDP noise has the scale its manifest states, and a gaze-samples output is charged its allotted ε."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.batch.cli import main
from eyedp_core.data.bundled import SAMPLE_DIR, load_sample
from eyedp_core.exports.forms import release_form_table
from eyedp_core.exports.plan_parts import (
    PartTables,
    check_series_part,
    gaze_entry,
    gaze_input,
    part_inputs,
    release_gaze_part,
    series_input,
    series_setting,
)
from eyedp_core.gaze.contributions import contributions
from eyedp_core.io.errors import DataError
from eyedp_core.plan.schema import GazeSamplesOutput, SeriesFormOutput, StudyPlan
from eyedp_core.timeseries.forms import Form
from tests.core.timeseries.app_made import feature_windows

PEOPLE, RECORDINGS, BLOCKS = 30, 3, 2


@pytest.fixture(scope="module")
def app_made() -> pd.DataFrame:
    table = feature_windows(PEOPLE, RECORDINGS)
    assert "task" not in table.columns
    return table


def _scaled_l1(a: np.ndarray, b: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    return float((np.abs(a - b) / (hi - lo)[None, :, None]).sum())


@pytest.mark.parametrize("form", [Form.RECORDING, Form.GROUP])
def test_the_stated_sensitivity_covers_a_participant_with_several_recordings(app_made, form) -> None:
    """P00 (3 recordings) at L everywhere vs at U everywhere: the released forms' clean values move by exactly the
    Δ1 the manifest states (3 × B × F per recording, B × F / N for a group mean over people)."""
    m = contributions(app_made).max_recordings
    assert m == RECORDINGS
    out = SeriesFormOutput(form=form, blocks=BLOCKS, recordings_per_person=m, length=6)
    series = series_input(app_made, out)
    rows = np.flatnonzero(series.recs["participant"].to_numpy() == "P00")
    assert rows.size == RECORDINGS
    low, high = series.x.copy(), series.x.copy()
    low[rows] = series.lo[None, :, None] - 1.0
    high[rows] = series.hi[None, :, None] + 1.0
    setting = series_setting(out, 1.0)
    a = release_form_table(setting, type(series)(series.names, series.lo, series.hi, low, series.recs))
    b = release_form_table(setting, type(series)(series.names, series.lo, series.hi, high, series.recs))
    stated = a.manifest["calibration"]["l1_sensitivity_ranges"]
    f = len(series.names)
    assert stated == pytest.approx(RECORDINGS * BLOCKS * f if form is Form.RECORDING else BLOCKS * f / PEOPLE)
    assert a.manifest["calibration"]["recordings_per_person_counted"] == m
    assert _scaled_l1(a.clean, b.clean, series.lo, series.hi) == pytest.approx(stated, rel=1e-9)


def test_a_per_recording_form_counting_too_few_recordings_is_refused(app_made) -> None:
    out = SeriesFormOutput(form=Form.RECORDING, recordings_per_person=1, length=6)
    series = series_input(app_made, out)
    with pytest.raises(ValueError, match=r"a participant has 3 recordings in the feature table, but the plan counts 1"):
        check_series_part(out, series)
    with pytest.raises(ValueError, match="3 recordings"):
        release_form_table(series_setting(out, 1.0), series)
    parts = part_inputs([out], PartTables(features=app_made))
    assert out.label not in parts.series and "3 recordings" in parts.missing[out.label]


def test_series_form_noise_matches_its_manifest_scale() -> None:
    """Unseeded OpenDP noise: (released − clean) / b_f per value is Laplace(1). KS p > 1e-6, and the sample sd
    within 6 standard errors of √2 (Laplace: Var(s²) ≈ (κ − 1)σ⁴/n with κ = 6, so SE(s) ≈ σ·√5/(2√n))."""
    out = SeriesFormOutput(form=Form.RECORDING, blocks=10, recordings_per_person=3, length=600)
    series = series_input(load_sample("reading_features"), out)
    rel = release_form_table(series_setting(out, 2.0), series)
    scale = np.array([rel.manifest["calibration"]["feature_scale"][n] for n in series.names])
    z = ((rel.noisy - rel.clean) / scale[None, :, None]).ravel()
    n = z.size
    assert n >= 20_000
    assert stats.kstest(z, stats.laplace.cdf).pvalue > 1e-6
    sd, se = z.std(ddof=1), np.sqrt(2.0) * np.sqrt(5.0) / (2.0 * np.sqrt(n))
    assert abs(sd - np.sqrt(2.0)) < 6 * se
    # The stated scale is Δ1'/ε in ranges times R_f: Δ1 = 3 × 10 × F, inflated only by the lattice and float slack.
    f = len(series.names)
    b = rel.manifest["calibration"]["scale"]
    assert b == pytest.approx(3 * 10 * f / 2.0, rel=1e-6) and b >= 3 * 10 * f / 2.0
    np.testing.assert_allclose(scale, (series.hi - series.lo) * b, rtol=1e-12)
    # The table: one row per recording and coarse window, its values the noisy ones, no private length column.
    assert len(rel.table) == len(series.recs) * 10 and "length" not in rel.table.columns
    np.testing.assert_allclose(rel.table[list(series.names)].to_numpy(),
                               rel.noisy.transpose(0, 2, 1).reshape(-1, f), rtol=1e-12)
    assert rel.manifest["noise"]["seeded"] is False and rel.manifest["noise"]["library"] == "opendp"


def test_gaze_samples_are_charged_their_allotted_epsilon() -> None:
    """Kaleido's ε per window is set so that its person-level bound ε_w·Σ⌈n_s/w⌉·d_max/r is the allotted ε (never
    above it); the ledger entry and the manifest say the same."""
    out = GazeSamplesOutput(w=60, r=50.0)
    gaze = gaze_input(load_sample("gaze_streams"), out, (1280, 800))
    entry = gaze_entry(out, 3.0, gaze, "s")
    windows = gaze.frame.groupby(["participant", "task"]).size().floordiv(-60).mul(-1).groupby(level=0).sum().max()
    assert entry.count == windows
    d = np.hypot(1280, 800) / 50.0
    assert entry.epsilon == pytest.approx(3.0 / windows, rel=1e-12)
    assert entry.epsilon * entry.count <= 3.0 and entry.epsilon * entry.count == pytest.approx(3.0, rel=1e-12)
    part = release_gaze_part(out, 3.0, gaze, "gaze_samples_eps3")
    assert set(part.files) == {"gaze_samples_eps3.csv", "gaze_samples_eps3.json"}
    assert part.manifest["epsilon_per_person"] == pytest.approx(3.0, rel=1e-12)
    assert part.manifest["epsilon"] == pytest.approx(3.0 / (windows * d), rel=1e-12)


def test_the_plan_file_fields_of_series_forms_and_gaze_samples_round_trip_and_are_checked() -> None:
    text = ('{"cap": {"epsilon": 4}, "outputs": [{"kind": "series_form", "features": ["fix_rate_hz"], "length": 50},'
            ' {"kind": "gaze_samples", "w": 30, "r": 20, "width_px": 1920, "height_px": 1080}]}')
    plan = StudyPlan.from_json(text)
    s, g = plan.outputs
    assert (s.features, s.length) == (("fix_rate_hz",), 50)
    assert (g.w, g.r, g.width_px, g.height_px, g.t_skip) == (30, 20.0, 1920, 1080, 12)
    assert StudyPlan.from_json(plan.to_json()) == plan
    bad = {'"width_px": 1920': "width_px", '"length": 0': "outputs[0].length", '"features": "x"': "outputs[0].features",
           '"h": 1': "outputs[0].h", '"blocks": 9, "length": 5': "outputs[0].blocks"}
    for field, where in bad.items():
        kind = "gaze_samples" if field.startswith(('"width', '"h"')) else "series_form"
        with pytest.raises(DataError, match=where.replace("[", r"\[").replace("]", r"\]")):
            StudyPlan.from_json('{"cap": {"epsilon": 4}, "outputs": [{"kind": "%s", %s}]}' % (kind, field))


def test_the_batch_refuses_a_series_table_it_cannot_release_and_writes_nothing(tmp_path, capsys) -> None:
    """--series given, but the plan names a feature the table lacks: exit 2 naming the output, no folder."""
    plan = tmp_path / "plan.json"
    plan.write_text('{"cap": {"epsilon": 4}, "outputs": [{"kind": "heatmap", "stimulus": "comic", "width": 1280, '
                    '"height": 800}, {"kind": "series_form", "features": ["no_such_feature"]}]}')
    out = tmp_path / "bundle"
    code = main(["plan", "--plan", str(plan), "--input", str(SAMPLE_DIR / "fixations.parquet"),
                 "--series", str(SAMPLE_DIR / "reading_features.parquet"), "--out", str(out)])
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert "series_group_1w cannot be released" in err and "no_such_feature" in err
