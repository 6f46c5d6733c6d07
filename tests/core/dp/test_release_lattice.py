"""Release mode puts every noised value on OpenDP's lattice before the noise (docs/PRIVACY_MODEL.md §11.2):
no residue of the input modulo the lattice survives in an export, the feature table has T rows per recording
whatever the true lengths, and the manifests carry the calibration the core computed."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import opendp.prelude as dp
import pandas as pd
import pytest

from eyedp_core.data import bundled
from eyedp_core.dp.lattice import FLOAT_INFLATION, lattice_k, round_to_lattice
from eyedp_core.dp.registry import Mech
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports import release_feature_table, release_gaze_samples
from eyedp_core.gazestream.kaleido import kaleido_plan
from eyedp_core.gazestream.streams import prepare_streams
from eyedp_core.timeseries.calibration import fpa_calibration, lpa_calibration
from eyedp_core.timeseries.mechanisms import run
from eyedp_core.timeseries.setting import MechanismSetting
from eyedp_core.timeseries.signals import feature_columns, feature_tensor

EXPORTS = 20  # exports per neighbour in the residue tests (each is a fresh, unseeded OpenDP release)


def _residue(values: np.ndarray, step: float) -> np.ndarray:
    """Values and a lattice step in, each value's distance from the nearest lattice point, in steps, out."""
    q = np.asarray(values, dtype=float) / step
    return np.abs(q - np.round(q))


def test_round_to_lattice_is_exact_rounding() -> None:
    rng = np.random.default_rng(5)
    v = rng.normal(0, 100, 200)
    for k in (-45, -20, 0, 3):
        out = round_to_lattice(v, k)
        step = Fraction(2) ** k
        for a, b in zip(v.tolist(), out.tolist(), strict=True):
            exact = Fraction(a) / step
            assert Fraction(b) / step == round(exact)  # an integer number of steps, the nearest one


def test_release_source_perturb_puts_every_noised_value_on_the_lattice() -> None:
    rng = np.random.default_rng(6)
    values = rng.uniform(-3, 3, (40, 8))  # float64: low bits below any lattice step we use
    scale = np.where(np.arange(8) < 6, 0.5, 0.0)  # the last two columns are not noised
    ks = np.where(np.arange(40) < 20, -42, -30)[:, None]
    src = ReleaseSource()
    out = src.perturb("laplace", values, scale, ks)
    noised = np.broadcast_to(scale > 0, values.shape)
    for k in (-42, -30):
        rows = np.broadcast_to(ks == k, values.shape) & noised
        assert _residue(out[rows], 2.0 ** k).max() == 0.0
        assert _residue(values[rows], 2.0 ** k).max() > 0.01  # the input itself is not on it
    np.testing.assert_array_equal(out[~noised], values[~noised])  # scale 0: untouched
    assert src.values_drawn == int(noised.sum())
    # The noise is the claimed Laplace: |out − v| has mean b = 0.5 (within 15 % over 240 values).
    assert np.abs(out[noised] - values[noised]).mean() == pytest.approx(0.5, rel=0.15)


def _two_recordings(values: np.ndarray) -> tuple[np.ndarray, pd.DataFrame]:
    recs = pd.DataFrame({"participant": ["A", "B"], "length": [values.shape[-1]] * 2})
    return values, recs


def test_feature_export_leaves_no_residue_for_float64_neighbours() -> None:
    """A neighbouring pair: participant A's float64 series replaced by the same series rounded to float32.
    The released DC coefficient (32 × the exported value of a CFPA-32, k = 1 chunk) is on the lattice in every
    export of both, so the residue modulo the lattice cannot tell them apart. (ε = 100 per chunk keeps the noise
    far from the clamp bounds, so the exported values are the released coefficients / 32.)"""
    rng = np.random.default_rng(12)
    x64 = rng.uniform(0.5, 1.5, (2, 1, 64))
    x32 = x64.copy()
    x32[0] = x32[0].astype(np.float32).astype(float)  # the neighbour: A's record replaced
    residues = {}
    for name, x in (("float64", x64), ("float32", x32)):
        res = []
        for _ in range(EXPORTS):
            rel = release_feature_table(*_two_recordings(x), ("f",), np.array([0.0]), np.array([2.0]),
                                        setting=MechanismSetting(mech=Mech.CFPA, chunk=32, k=1, epsilon=100.0),
                                        participant_epsilon=400.0, invocations=4)
            row = rel.manifest["calibration"][0]
            step = row["lattice_step"]
            lam = fpa_calibration(32, MechanismSetting(mech=Mech.CFPA, k=1, epsilon=100.0), value_range=2.0).scale
            assert step == 2.0 ** lattice_k(lam, 1, lam * 100.0)  # the lattice the core promises for λ, m = 1, Δ1
            dc = rel.table["f"].to_numpy()[[0, 32, 64, 96]] * 32  # exact: irfft of a DC-only chunk is DC/32
            res.append(_residue(dc, step))
        residues[name] = np.concatenate(res)
    # The float64 input's DC coefficient has a residue (the float32 one has none): a leak would show.
    dc_in = np.fft.rfft(x64[0, 0, :32])[0].real
    assert _residue([dc_in], step)[0] > 1e-3
    assert _residue([np.fft.rfft(x32[0, 0, :32])[0].real], step)[0] == 0.0
    assert residues["float64"].max() == 0.0 and residues["float32"].max() == 0.0


@pytest.mark.parametrize(("mech", "chunk", "k"), [(Mech.LPA, None, 1), (Mech.FPA, None, 3), (Mech.CFPA, 32, 3),
                                                  (Mech.DCFPA, 32, 2), (Mech.STEIL, None, 1)])
def test_every_release_path_draws_on_its_lattice(monkeypatch, mech: Mech, chunk: int | None, k: int) -> None:
    """Every value a time-series release hands to OpenDP comes back as a point of the lattice of its
    invocation's LatticeCalibration (LPA, the FFT family with Re/Im parts, Steil)."""
    seen = []
    original = ReleaseSource.perturb

    def spy(self, family, values, scale, lattice):
        out = original(self, family, values, scale, lattice)
        s = np.broadcast_to(np.asarray(scale, float), np.shape(values))
        ks = np.broadcast_to(np.asarray(lattice), np.shape(values))
        seen.append((out[s > 0], ks[s > 0], np.asarray(values)[s > 0]))
        return out

    monkeypatch.setattr(ReleaseSource, "perturb", spy)
    rng = np.random.default_rng(2)
    x = rng.uniform(0.1, 1.9, (3, 2, 70))  # T = 70: CFPA/DCFPA get a tail chunk of 6
    private = run(x, MechanismSetting(mech=mech, epsilon=1.0, k=k, chunk=chunk, w=1), rng=ReleaseSource(),
                  bounds=(np.zeros(2), np.full(2, 2.0)))
    assert seen and private.lattice is not None
    lattice_ks = {lc.k for lc in private.lattice}
    for out, ks, values in seen:
        assert set(np.unique(ks).tolist()) <= lattice_ks
        assert _residue(out, 2.0 ** ks).max() == 0.0
        if mech in (Mech.LPA, Mech.STEIL):
            assert _residue(values, 2.0 ** ks).max() > 0  # the input samples themselves are not on it


def test_gaze_export_leaves_no_residue_for_float64_neighbours() -> None:
    """Kaleido release: a stream with float64 sub-pixel positions and its neighbour rounded to 1/16 px; every
    published coordinate of every export of both is a lattice point."""
    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"] == "P01"].head(1200).reset_index(drop=True)
    base = prepare_streams(g, width_px=1280, height_px=800).frame
    rng = np.random.default_rng(4)
    fine = base.copy()
    fine["x"] = fine["x"] + rng.uniform(0, 1, len(fine))
    fine["y"] = fine["y"] + rng.uniform(0, 1, len(fine))
    coarse = fine.copy()
    coarse[["x", "y"]] = np.round(coarse[["x", "y"]] * 16) / 16
    for frame in (fine, coarse):
        for _ in range(5):
            plan = kaleido_plan(epsilon=5.0, w=60, l_thresh=60, t_skip=12, r=50, h=2.0, min_pub=0.15)
            rel = release_gaze_samples(frame, plan, (1280, 800))
            step = rel.manifest["calibration"]["lattice_step_px"]
            assert step == 2.0 ** (math.floor(math.log2(50)) - 40)
            xy = rel.table[["x", "y"]].to_numpy()
            assert len(xy) > 0 and _residue(xy, step).max() == 0.0
    assert np.nanmax(_residue(fine["x"].to_numpy(), step)) > 1e-3  # the input is not on the lattice


def _features_with_lengths(lengths: dict[str, int], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"participant": p, "task": "reading", "window": w, "f": rng.uniform(0, 2)}
            for p, n in lengths.items() for w in range(n)]
    return pd.DataFrame(rows)


def test_feature_export_has_t_rows_per_recording_whatever_the_lengths() -> None:
    t = 64
    tables = []
    for lengths, seed in (({"A": 64, "B": 40, "C": 90}, 1), ({"A": 20, "B": 64, "C": 33}, 2)):
        x, recs = feature_tensor(_features_with_lengths(lengths, seed), ["f"], length=t)
        rel = release_feature_table(x, recs, ("f",), np.array([0.0]), np.array([2.0]),
                                    setting=MechanismSetting(mech=Mech.CFPA, chunk=32, k=2, epsilon=1.0),
                                    participant_epsilon=6.0, invocations=6)
        assert rel.table.groupby(["participant", "task"]).size().eq(t).all()
        assert rel.manifest["parameters"]["rows_per_recording"] == t
        tables.append(rel.table)
    # The shape and every non-noise column are the same for both datasets: the lengths are not released.
    assert tables[0].shape == tables[1].shape
    pd.testing.assert_frame_equal(tables[0][["participant", "task", "window"]],
                                  tables[1][["participant", "task", "window"]])


@pytest.mark.parametrize(("mech", "chunk", "k"), [(Mech.CFPA, 32, 2), (Mech.DCFPA, 32, 3), (Mech.LPA, None, 1)])
def test_feature_manifest_numbers_equal_the_core_calibration(mech: Mech, chunk: int | None, k: int) -> None:
    f = bundled.load_sample("reading_features")
    names = tuple(feature_columns(f))[:3]
    x, recs = feature_tensor(f, names, length=100)  # CFPA/DCFPA: 3 chunks of 32 and a tail of 4
    x, recs = x[:4], recs.iloc[:4]
    lo, hi = np.nanmin(x, axis=(0, 2)) - 1.0, np.nanmax(x, axis=(0, 2)) + 1.0
    eps = 0.5
    chunks = 1 if mech is Mech.LPA else 4
    rel = release_feature_table(x, recs, names, lo, hi, setting=MechanismSetting(mech=mech, chunk=chunk, k=k, epsilon=eps),
                                participant_epsilon=eps * 3 * chunks * 4, invocations=3 * chunks * 4)
    man = rel.manifest
    assert man["epsilon_per_person"] == pytest.approx(eps * 3 * chunks * 4)
    assert "participant" in man["neighbouring_relation"] and man["unit_of_privacy"] == "participant"
    preview = run(x, MechanismSetting(mech=mech, epsilon=eps, k=k, chunk=chunk), rng=np.random.default_rng(0), bounds=(lo, hi))
    page_scales = {round(c.scale, 12) for c in preview.calibrations}  # what the page shows as λ (or b)
    rows = man["calibration"]
    assert {(r["feature"], r["transform_length"]) for r in rows} == (
        {(n, 100) for n in names} if mech is Mech.LPA else {(n, L) for n in names for L in (32, 4)})
    for r in rows:
        n, rng_f = r["transform_length"], float(hi[names.index(r["feature"])] - lo[names.index(r["feature"])])
        if mech is Mech.LPA:
            lam, m, rho = lpa_calibration(n, eps, value_range=rng_f).scale, n, 0.0
        else:
            kk = min(k, n // 2 + 1)
            lam = fpa_calibration(n, MechanismSetting(mech=mech, k=kk, epsilon=eps), value_range=rng_f).scale
            m = 2 * kk - 1 - (1 if n % 2 == 0 and kk > n // 2 else 0)
            # FFT error bound √m·64·u·⌈log2 n⌉·n·M (M: largest |bound|, 2M for differences), twice, over Δ1.
            big = max(abs(lo[names.index(r["feature"])]), abs(hi[names.index(r["feature"])]))
            big *= 2 if mech is Mech.DCFPA else 1
            err = math.sqrt(m) * 64 * 2.0**-53 * math.ceil(math.log2(n)) * n * big
            rho = max(FLOAT_INFLATION, 2 * err / (lam * eps))
        assert r["scale_formula"] == pytest.approx(lam, rel=1e-12)
        assert round(r["scale_formula"], 12) in page_scales
        assert r["sensitivity"] == pytest.approx(lam * eps, rel=1e-12)  # Δ1 of the noised values
        assert r["values_per_invocation"] == m and r["float_inflation"] == pytest.approx(rho, rel=1e-12)
        assert r["lattice_k"] == lattice_k(lam, m, lam * eps)
        assert r["lattice_step"] == 2.0 ** r["lattice_k"]
        d_release = lam * eps * (1 + rho) + m * 2.0 ** r["lattice_k"]
        assert r["release_sensitivity"] == pytest.approx(d_release, rel=1e-12)
        assert r["scale"] == pytest.approx(d_release / eps, rel=1e-12)
        assert r["invocations"] == len(recs) * (1 if mech is Mech.LPA or n == 4 else 3)
        # OpenDP's own privacy map agrees: the scale on this lattice is ε-DP for the inflated distance
        # (it adds the rounding m·2^k itself).
        meas = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False), size=m),
                                 dp.l1_distance(T=float), scale=r["scale"], k=r["lattice_k"])
        assert meas.map(lam * eps * (1 + rho)) <= eps * (1 + 1e-12)


def test_gaze_manifest_numbers_equal_the_core_calibration() -> None:
    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02"])].groupby("participant").head(600).reset_index(drop=True)
    df = prepare_streams(g, width_px=1280, height_px=800).frame
    eps, w, t_skip, r, h = 2.0, 60, 12, 40.0, 2.0
    plan = kaleido_plan(epsilon=eps, w=w, l_thresh=60, t_skip=t_skip, r=r, h=h, min_pub=0.1)
    rel = release_gaze_samples(df, plan, (1280, 800))
    man, cal = rel.manifest, rel.manifest["calibration"]
    step = 2.0 ** (math.floor(math.log2(r)) - 40)
    radius = r + 3 * step
    eps_test = eps / (h * math.ceil(w / t_skip))
    assert cal["lattice_step_px"] == step and cal["release_radius_px"] == radius
    assert cal["test_noise_scale_px"] == pytest.approx(radius / eps_test, rel=1e-12)
    schedule = [(eps - eps / h) / 2 ** i for i in range(1, 9) if (eps - eps / h) / 2 ** i >= 0.1]
    assert cal["publication_epsilon_schedule"] == pytest.approx(schedule, rel=1e-12)
    assert cal["publication_epsilon_per_px"] == pytest.approx([e / radius for e in schedule], rel=1e-12)
    windows = math.ceil(600 / w)
    assert cal["windows_per_person"] == windows == rel.windows_per_person
    assert man["epsilon_per_person"] == pytest.approx(eps * windows * math.hypot(1280, 800) / r, rel=1e-12)
    assert man["unit_of_privacy"] == "w-event" and "window of w" in man["neighbouring_relation"]


def test_randomise_in_release_mode_rounds_first_and_planar_on_raw_points_is_refused() -> None:
    from eyedp_core.dp.noise import GaussianMechanism, LaplaceMechanism
    from eyedp_core.dp.planar import PlanarLaplaceMechanism, planar_laplace

    values = np.random.default_rng(9).uniform(0, 1, 64)
    mech = LaplaceMechanism(epsilon=1.0, sensitivity=2.0)
    cal = mech.release_lattice(values.size)
    assert cal.k == lattice_k(2.0, 64, 2.0)
    assert cal.scale == pytest.approx((2.0 + 64 * 2.0 ** cal.k) / 1.0, rel=1e-15)
    out = mech.randomise(values, ReleaseSource())
    assert _residue(out, cal.step).max() == 0.0 and _residue(values, cal.step).max() > 1e-3
    with pytest.raises(TypeError, match="OpenDP's own accounting"):
        GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0).randomise(values, ReleaseSource())
    with pytest.raises(TypeError, match="lattice"):
        PlanarLaplaceMechanism(epsilon=0.1).randomise(np.zeros((3, 2)), ReleaseSource())
    with pytest.raises(TypeError, match="lattice"):
        planar_laplace(np.zeros((3, 2)), 0.1, ReleaseSource())
