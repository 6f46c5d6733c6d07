"""One noise path: `run` returns the Calibrations its noise was drawn with, and the noise has their variance.

Tolerances: with a fixed seed and N Laplace draws, the sample variance has a relative standard error of
√(5/N) (Laplace kurtosis 6); every check below uses N ≥ 40 000 (≤ 1.2 %) and a 5 % tolerance.
"""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.dp.noise import from_calibration
from eyedp_core.dp.registry import TIME_SERIES, Mech
from eyedp_core.timeseries import mechanisms
from eyedp_core.timeseries.calibration import fpa_scale
from eyedp_core.timeseries.labels import SWEEP_LABELS, as_mech, parse_label
from eyedp_core.timeseries.preview import PreviewSetting, run_preview
from eyedp_core.timeseries.sensitivity import chunk_differences
from eyedp_core.timeseries.setting import MechanismSetting

TOL = 0.05


def _coefficient_noise(noisy: np.ndarray, clean: np.ndarray, k: int) -> np.ndarray:
    """Series (..., n) in, real parts of the noise on the k retained rfft bins (..., k) out."""
    diff = np.fft.rfft(noisy, axis=-1) - np.fft.rfft(mechanisms.truncate_spectrum(clean, k), axis=-1)
    return diff[..., :k].real


def test_lpa_noise_has_the_variance_of_the_returned_calibration(rng):
    """Would catch a shown calibration that is not the one drawn (a second route to b)."""
    x = np.full((400, 2, 100), 0.5)
    out = mechanisms.run(x, MechanismSetting(mech=Mech.LPA, epsilon=50.0), rng=rng, bounds=(np.zeros(2), np.array([1.0, 3.0])))
    assert len(out.groups) == 2  # one calibration per feature range
    for f in range(2):
        (group,) = out.used((slice(None), f))
        assert group.count == 400 and group.calibration.scale == pytest.approx(100 * (1 + 2 * f) / 50.0)
        noise = out.values[:, f] - x[:, f]
        assert noise.var() == pytest.approx(from_calibration(group.calibration).variance, rel=TOL)
    np.testing.assert_allclose(out.scale[..., 0], np.broadcast_to([2.0, 6.0], (400, 2)))


@pytest.mark.parametrize("mech", [Mech.FPA, Mech.CFPA])
def test_fft_coefficient_noise_has_the_variance_of_each_calibration(rng, mech):
    """Re parts of every retained bin carry Lap(λ), λ of that invocation's own calibration (tail included)."""
    t, chunk, k = 40, 32, 3
    x = np.broadcast_to(np.sin(np.arange(t) / 4.0) * 0.4 + 0.5, (20_000, t))
    out = mechanisms.run(x, MechanismSetting(mech=mech, epsilon=2.0, k=k, chunk=chunk), rng=rng, bounds=(0.0, 1.0))
    spans = [(0, t)] if mech is Mech.FPA else [(0, 32), (32, 40)]
    groups = out.used()
    assert [g.length for g in groups] == [e - s for s, e in spans]
    for (start, stop), group in zip(spans, groups, strict=True):
        n = stop - start
        assert group.calibration.scale == pytest.approx(fpa_scale(n, group.k, np.sqrt(n), 2.0))
        noise = _coefficient_noise(out.values[:, start:stop], x[:1, start:stop], group.k)
        assert noise.var() == pytest.approx(from_calibration(group.calibration).variance, rel=TOL)


def test_dcfpa_difference_noise_has_the_variance_of_its_calibration(rng):
    """DCFPA: the noise on the retained bins of the difference signal matches the calibration drawn with."""
    x = np.broadcast_to(np.linspace(0.2, 0.8, 32), (40_000, 32))
    out = mechanisms.run(x, MechanismSetting(mech="DCFPA", epsilon=5.0, k=2, chunk=32, increment_bound=0.1), rng=rng,
                         bounds=(0.0, 1.0))
    (group,) = out.groups
    assert group.calibration.sensitivity == pytest.approx(np.sqrt(1 + 4 * 31 * 0.01))
    noise = _coefficient_noise(chunk_differences(out.values, 32), chunk_differences(x[:1], 32), 2)
    assert noise.var() == pytest.approx(from_calibration(group.calibration).variance, rel=TOL)


def test_steil_faithful_returns_its_calibration_and_the_published_sampler_none(rng):
    """Steil's Laplace form exposes b = T'·R/ε; the published (non-DP) sampler exposes no calibration."""
    x = np.zeros((4000, 95))
    out = mechanisms.run(x, MechanismSetting(mech=Mech.STEIL, epsilon=2.0, w=10), rng=rng, bounds=(0.0, 1.0))
    (group,) = out.groups
    assert group.length == 10 and group.calibration.scale == pytest.approx(10 * 1.0 / 2.0)
    assert out.values.var() == pytest.approx(from_calibration(group.calibration).variance, rel=TOL)
    assert out.positions.shape == (4000, 10)
    pub = mechanisms.run(x, MechanismSetting(mech=Mech.STEIL_PUBLISHED, epsilon=2.0, w=10), rng=rng, bounds=(0.0, 1.0))
    assert pub.calibrations == () and not pub.is_dp and np.isnan(pub.scale).all()


def test_array_functions_are_the_run_path():
    """lpa/fpa/cfpa/dcfpa keep their signatures and return exactly run(...).values for the same generator."""
    x = np.random.default_rng(1).random((3, 2, 70))
    pairs = [
        (mechanisms.lpa(x, epsilon=1.0, bounds=(0, 1), rng=np.random.default_rng(5)), dict(mech=Mech.LPA)),
        (mechanisms.fpa(x, epsilon=1.0, k=3, bounds=(0, 1), rng=np.random.default_rng(5)),
         dict(mech=Mech.FPA, k=3)),
        (mechanisms.cfpa(x, epsilon=1.0, k=3, chunk=32, bounds=(0, 1), rng=np.random.default_rng(5)),
         dict(mech=Mech.CFPA, k=3, chunk=32)),
        (mechanisms.dcfpa(x, epsilon=1.0, k=3, chunk=32, bounds=(0, 1), rng=np.random.default_rng(5)),
         dict(mech=Mech.DCFPA, k=3, chunk=32)),
    ]
    for values, kw in pairs:
        again = mechanisms.run(x, MechanismSetting(epsilon=1.0, **kw), bounds=(0, 1), rng=np.random.default_rng(5))
        np.testing.assert_array_equal(values, again.values)


def test_data_derived_sensitivity_marks_every_calibration(rng):
    """A sensitivity read off the data: every calibration the noise was drawn with says it is not DP."""
    x = rng.random((5, 3, 64))
    out = mechanisms.run(x, MechanismSetting(mech=Mech.CFPA, epsilon=1.0, k=2, chunk=32, sensitivity_type="data-derived"),
                         rng=rng, sensitivity=np.array([1.0, 2.0]))
    assert len(out.groups) == 2 and not any(c.valid for c in out.calibrations)
    np.testing.assert_allclose(out.sensitivity, np.broadcast_to([1.0, 2.0], (5, 3, 2)))


def test_preview_shows_the_calibration_its_noise_was_drawn_with():
    """The page's calibration is the preview run's: same object values, and the noise has its variance."""
    x = np.full((300, 2, 150), 0.3)
    bounds = (np.zeros(2), np.array([1.0, 2.0]))
    setting = PreviewSetting(mech=Mech.LPA, chunk=None, epsilon=100.0, k=1, nmse_kind="range")
    prev = run_preview(x, setting, bounds=bounds, rng=np.random.default_rng(3), feature=1)
    (shown,) = prev.shown
    assert shown.calibration.scale == pytest.approx(150 * 2.0 / 100.0)
    noise = prev.noisy - 0.3
    assert noise.var() == pytest.approx(from_calibration(shown.calibration).variance, rel=TOL)
    np.testing.assert_allclose(prev.feature_scale, [1.5, 3.0])
    again = mechanisms.run(x, MechanismSetting(mech=Mech.LPA, epsilon=100.0), rng=np.random.default_rng(3), bounds=bounds)
    assert shown.calibration in again.calibrations


def test_cfpa_preview_shows_full_chunk_first_and_the_tail_second():
    """CFPA with a partial last chunk: the shown calibrations are the full chunk's, then the tail's own."""
    x = np.random.default_rng(2).random((4, 1, 100))
    setting = PreviewSetting(mech=Mech.CFPA, chunk=32, epsilon=1.0, k=4, nmse_kind="var")
    prev = run_preview(x, setting, bounds=(np.zeros(1), np.ones(1)), rng=np.random.default_rng(0), feature=0)
    assert [(g.length, g.k, g.count) for g in prev.shown] == [(32, 4, 12), (4, 3, 4)]
    assert prev.shown[1].calibration.scale == pytest.approx(np.sqrt(3 * 4) * 2.0)


def test_one_registry_of_time_series_names():
    """Labels and legacy names parse onto Mech; the sweep's default labels derive from the registry."""
    assert SWEEP_LABELS == ("LPA", "FPA", "CFPA-32", "CFPA-64", "CFPA-128",
                            "DCFPA-32", "DCFPA-64", "DCFPA-128")
    assert parse_label("cfpa-64") == (Mech.CFPA, 64)
    assert parse_label("Steil-published-10") == (Mech.STEIL_PUBLISHED, 10)
    assert parse_label("FPA") == (Mech.FPA, None) and parse_label("Steil") == (Mech.STEIL, None)
    assert all(as_mech(m.value.lower()) is m for m in TIME_SERIES)
    assert as_mech("steil-published") is Mech.STEIL_PUBLISHED
    for bad in ["CFPA", "FPA-3", "WAVELET-3", "CFPA-1"]:
        with pytest.raises(ValueError):
            parse_label(bad)


@pytest.mark.parametrize("mech", [Mech.DCFPA, Mech.LPA])
def test_one_run_shows_any_feature_as_a_fresh_run_would(mech):
    """The page keeps one run and picks the shown feature from it (preview_of): for every feature it must show
    what a fresh seeded run with that feature shows (noisy series, the paper's DCFPA, NMSE, calibrations)."""
    from eyedp_core.timeseries.preview import preview_of, run_all

    gen = np.random.default_rng(3)
    x = np.clip(0.5 + np.cumsum(gen.normal(0, 0.03, (6, 3, 96)), axis=-1), 0, 1)
    setting = PreviewSetting(mech=mech, chunk=32, epsilon=2.0, k=4, nmse_kind="var")
    bounds = (np.zeros(3), np.ones(3))
    kept = run_all(x, setting, bounds=bounds, rng=np.random.default_rng(11))
    for f in range(3):
        fresh = run_preview(x, setting, bounds=bounds, rng=np.random.default_rng(11), feature=f)
        shown = preview_of(kept, f)
        np.testing.assert_array_equal(shown.noisy, fresh.noisy)
        np.testing.assert_array_equal(shown.nmse_series, fresh.nmse_series)
        np.testing.assert_array_equal(shown.nmse_feature, fresh.nmse_feature)
        assert shown.shown == fresh.shown
        assert (shown.paper is None) == (mech is not Mech.DCFPA)
        if shown.paper is not None:
            np.testing.assert_array_equal(shown.paper, fresh.paper)
    assert not np.array_equal(preview_of(kept, 0).noisy, preview_of(kept, 1).noisy)
