"""eyedp_core.plan.allocate: the split never exceeds the cap under the stated accountant, reachable targets are
met (checked by fresh simulation, not by the model's own draws), and the ε and observers said to meet an unmet
target do meet it. The heatmap simulations draw the noise of the stated calibration independently of the
planning code (numpy normal draws at σ from dp.calibration) on the bundled sample's clean maps."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.dp.accounting import zcdp_to_dp
from eyedp_core.dp.calibration import gaussian_delta, gaussian_sigma
from eyedp_core.heatmaps.calibration import heatmap_sensitivity
from eyedp_core.heatmaps.maps import aggregate, gaze_maps
from eyedp_core.heatmaps.targets import hot_spots_kept
from eyedp_core.plan import (
    Accountant,
    AoiOutput,
    Cap,
    GazeSamplesOutput,
    HeatmapOutput,
    SeriesFormOutput,
    StudyPlan,
    Target,
    TargetMeasure,
    allocate,
    inputs_from_fixations,
)
from eyedp_core.timeseries.forms import Form

W, H = 1280, 800
Z = 3.9  # one-sided normal quantile: a correct model fails a check less than once in 20,000 runs
SIM = 400


@pytest.fixture(scope="module")
def sample() -> pd.DataFrame:
    return pd.read_parquet("sample_data/fixations.parquet")


def _plan(cap: float, kept: float, aoi_dwell: float | None = 0.5) -> StudyPlan:
    outs = [{"kind": "heatmap", "stimulus": "*", "width": W, "height": H, "target": {"hot_spots_kept": kept}}]
    if aoi_dwell is not None:
        outs.append({"kind": "aoi", "stimulus": "webpage", "n_aois": 4, "target": {"dwell_s": aoi_dwell}})
    return StudyPlan.from_dict({"study": "sample", "cap": {"epsilon": cap}, "outputs": outs})


def _clean_map(df: pd.DataFrame, o: HeatmapOutput) -> tuple[np.ndarray, int]:
    sub = df[df["stimulus"] == o.stimulus]
    gm = gaze_maps(sub, o.width, o.height, o.cell_px, observer_col="observer")
    return aggregate(gm, o.cap_m, o.cap_total), gm.n_observers


def _simulated_kept(clean: np.ndarray, o: HeatmapOutput, epsilon: float, n: int, seed: int) -> tuple[float, float]:
    """Mean hot spots kept over SIM fresh Gaussian draws at the calibrated σ for n observers, and its SE."""
    sens = heatmap_sensitivity(clean.size, n, o.cap_m, o.cap_total)
    sigma = gaussian_sigma(sens.l2, epsilon, o.delta)
    noisy = clean[None] + np.random.default_rng(seed).normal(0.0, sigma, (SIM, *clean.shape))
    kept = np.asarray(hot_spots_kept(clean, noisy, o.q))
    return float(kept.mean()), float(kept.std(ddof=1) / math.sqrt(SIM))


def test_reachable_targets_are_met_by_fresh_simulation(sample):
    plan, inputs = inputs_from_fixations(sample, _plan(40.0, 0.3))
    a = allocate(plan, None, inputs)
    assert a.all_targets_met and a.within_cap, a.sentence
    assert sum(r.epsilon for r in a.outputs) <= 40.0
    for r in a.outputs:
        assert r.target_met and r.epsilon >= r.epsilon_needed
        if isinstance(r.output, HeatmapOutput):
            clean, n = _clean_map(sample, r.output)
            assert n == 40
            mean, se = _simulated_kept(clean, r.output, r.epsilon, n, seed=1)
            assert mean >= 0.3 - Z * se, (r.label, mean, se)
        else:  # AOI dwell: the 95 % half-width of |Lap(b)|/n, b = Δ1/(ε/queries), Δ1 = min(k·5 s, 2·10 s)
            b = min(4 * 5.0, 2 * 10.0) / (r.epsilon / 2)
            err = np.abs(np.random.default_rng(2).laplace(0.0, b, 200_000)) / 40
            assert np.quantile(err, 0.95) == pytest.approx(r.utility.value, rel=0.02)
            assert r.utility.value <= 0.5
    assert "Every target is met" in a.sentence


def test_unreachable_targets_say_what_would_meet_them(sample):
    plan, inputs = inputs_from_fixations(sample, _plan(10.0, 0.5, aoi_dwell=None))
    a = allocate(plan, None, inputs)
    assert not a.all_targets_met
    assert "No allocation under the cap ε = 10" in a.sentence and "recruit about" in a.sentence
    assert [round(r.epsilon, 6) for r in a.outputs] == [round(10 / 3, 6)] * 3  # nothing met: an even split
    for i, r in enumerate(a.outputs):
        clean, n = _clean_map(sample, r.output)
        mean, se = _simulated_kept(clean, r.output, r.epsilon, n, seed=10 + i)
        assert mean < 0.5 - Z * se  # really unmet at its ε
        assert r.epsilon_needed is not None and r.epsilon_needed > r.epsilon
        # The ε needed at today's n meets the target; 80 % of it does not (the figure is not loose).
        mean, se = _simulated_kept(clean, r.output, r.epsilon_needed, n, seed=20 + i)
        assert mean >= 0.5 - Z * se, (r.label, mean)
        low, se_low = _simulated_kept(clean, r.output, 0.8 * r.epsilon_needed, n, seed=30 + i)
        assert low < 0.5 + Z * se_low
        # The observers needed at the allotted ε, simulated at that n (the planning model: N observers with
        # maps like these, so the clean map stays and the noise shrinks), meet it; 80 % of them do not.
        N = r.people_needed
        assert N is not None and N > n
        assert f"{N} observers at its ε" in r.what_would_meet()
        mean, se = _simulated_kept(clean, r.output, r.epsilon, N, seed=40 + i)
        assert mean >= 0.5 - Z * se, (r.label, N, mean)
        low, se_low = _simulated_kept(clean, r.output, r.epsilon, int(0.8 * N), seed=50 + i)
        assert low < 0.5 + Z * se_low
    assert f"recruit about {max(r.people_needed for r in a.outputs)} observers" in a.sentence


def test_pins_are_kept_and_over_the_cap_is_refused():
    pinned = HeatmapOutput(stimulus="a", width=100, height=100, epsilon=4.0)
    free = AoiOutput(n_aois=2, metrics=(AoiMetric.HIT_RATIO,), priority=3.0)
    free2 = GazeSamplesOutput(priority=1.0)
    a = allocate(StudyPlan("s", Cap(10.0), (pinned, free, free2)))
    assert [r.epsilon for r in a.outputs] == pytest.approx([4.0, 4.5, 1.5])
    assert a.within_cap and a.outputs[0].pinned
    over = allocate(StudyPlan("s", Cap(10.0), (pinned, HeatmapOutput(stimulus="b", width=9, height=9, epsilon=6.5),
                                               free)))
    assert not over.within_cap and "does not fit its cap" in over.sentence


def _reference_total(outputs, eps, cap: Cap) -> tuple[float, float, float]:
    """(basic ε, basic δ, zCDP ε by the textbook Bun–Steinke conversion) computed here from the outputs' laws."""
    basic = sum(eps)
    dlt = sum(o.delta for o, e in zip(outputs, eps) if isinstance(o, HeatmapOutput) and e > 0)
    rho = 0.0
    for o, e in zip(outputs, eps):
        if e <= 0:
            continue
        if isinstance(o, HeatmapOutput):
            rho += 1.0 / (2.0 * gaussian_sigma(1.0, e, o.delta) ** 2)
        else:
            rho += e * e / 2.0
    return basic, dlt, zcdp_to_dp(rho, cap.delta, method="bun-steinke")


def _exact_single(o, e: float, delta: float) -> float:
    """The exact ε at δ of one release alone: a lower bound for any valid total that contains it."""
    if isinstance(o, HeatmapOutput):
        s = gaussian_sigma(1.0, e, o.delta)
        return 0.0 if gaussian_delta(s, 1.0, 1e-12) <= delta else brentq(
            lambda x: gaussian_delta(s, 1.0, x) - delta, 1e-12, e + 50)
    return max(0.0, e + 2 * math.log1p(-delta))  # Laplace: δ(ε') = 1 − e^{(ε' − ε)/2}


_outputs = st.lists(st.one_of(
    st.builds(lambda e, p, d: HeatmapOutput(stimulus="s", width=64, height=64, epsilon=e, priority=p, delta=d),
              st.none() | st.floats(0.05, 5.0), st.floats(0.2, 5.0), st.sampled_from([1e-7, 1e-6])),
    st.builds(lambda e, p: AoiOutput(n_aois=3, epsilon=e, priority=p), st.none() | st.floats(0.05, 5.0),
              st.floats(0.2, 5.0)),
    st.builds(lambda e, p: SeriesFormOutput(form=Form.RECORDING, epsilon=e, priority=p),
              st.none() | st.floats(0.05, 5.0), st.floats(0.2, 5.0))), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(_outputs, st.floats(0.5, 60.0), st.sampled_from(list(Accountant)))
def test_totals_never_exceed_the_cap(outputs, cap_eps, accountant):
    cap = Cap(cap_eps, 1e-5, accountant)
    a = allocate(StudyPlan("s", cap, tuple(outputs)))
    eps = [r.epsilon for r in a.outputs]
    basic, dlt, bun_steinke = _reference_total(outputs, eps, cap)
    assert a.total.basic_epsilon == pytest.approx(basic, rel=1e-12)
    assert all(r.epsilon == o.epsilon for r, o in zip(a.outputs, outputs) if o.epsilon is not None)
    if not a.within_cap:
        pins = [o for o in outputs if o.epsilon is not None]
        pin_total = _reference_total(pins, [o.epsilon for o in pins], cap)
        # The pins alone spend the cap (or more), leaving nothing for the unpinned outputs.
        assert (pin_total[0] >= cap_eps * (1 - 1e-12) if accountant is Accountant.BASIC
                else min(pin_total[0], pin_total[2]) > cap_eps * 0.98 or pin_total[1] > cap.delta)
        assert "does not fit its cap" in a.sentence
        return
    assert all(e > 0 for e in eps)
    assert a.total.epsilon <= cap_eps * (1 + 1e-12)
    if accountant is Accountant.BASIC:
        assert basic <= cap_eps * (1 + 1e-12) and dlt <= cap.delta
        if any(o.epsilon is None for o in outputs):
            assert basic == pytest.approx(cap_eps, rel=1e-6)  # the whole cap is spent
    else:
        # The zCDP total is valid (never below the tighter CKS conversion, never above the textbook one or basic)
        # and at least what the largest single release costs alone at the cap's δ.
        assert a.total.epsilon <= basic * (1 + 1e-12) and a.total.epsilon <= bun_steinke * (1 + 1e-9)
        assert a.total.epsilon >= max(_exact_single(o, e, cap.delta) for o, e in zip(outputs, eps)) * (1 - 1e-9)


def test_zcdp_beats_basic_composition_for_many_gaussian_heatmaps():
    outs = tuple(HeatmapOutput(stimulus=f"s{i}", width=64, height=64) for i in range(20))
    over = allocate(StudyPlan("s", Cap(10.0, 1e-5, Accountant.BASIC), outs))
    assert not over.within_cap and "δ add up to 2e-05" in over.sentence  # 20 × δ = 1e-6 exceed the cap's δ
    basic = allocate(StudyPlan("s", Cap(10.0, 1e-4, Accountant.BASIC), outs))
    zcdp = allocate(StudyPlan("s", Cap(10.0, 1e-5, Accountant.ZCDP), outs))
    assert basic.outputs[0].epsilon == pytest.approx(0.5)
    assert zcdp.outputs[0].epsilon > 1.5 * basic.outputs[0].epsilon  # the same cap affords far more per heatmap
    assert zcdp.total.epsilon <= 10.0 < zcdp.total.basic_epsilon
    assert zcdp.total.to_dict()["accountant"] == "zcdp"


def test_aoi_and_series_needs_follow_their_closed_forms():
    from eyedp_core.plan.models import PlanInputs, SeriesBasis
    from eyedp_core.timeseries.forms import FormSetting, calibrate, expected_db

    aoi = AoiOutput(n_aois=4, metrics=(AoiMetric.HIT_RATIO, AoiMetric.DWELL), target=Target(TargetMeasure.DWELL_S,
                                                                                            0.1))
    spread = np.array([0.04, 0.09])
    lo, hi = np.zeros(2), np.ones(2)
    series = SeriesFormOutput(form=Form.GROUP, target=Target(TargetMeasure.DB, 3.0))
    inputs = PlanInputs(observers={None: 40}, series={series.label: SeriesBasis(spread, lo, hi, (20, 20))})
    a = allocate(StudyPlan("s", Cap(4.0), (aoi, series)), None, inputs)
    ra, rs = a.outputs
    # AOI: 95 % half-width = Δ1·ln 20/(n·ε/2) with Δ1 = min(4·5, 2·10) = 20 s.
    assert ra.utility.value == pytest.approx(20 * math.log(20) / (40 * ra.epsilon / 2))
    assert ra.epsilon_needed == pytest.approx(20 * math.log(20) / (40 * 0.1 / 2))
    assert not ra.target_met and ra.people_needed == math.ceil(20 * math.log(20) / (ra.epsilon / 2 * 0.1))
    # Series group means: utility ∝ ε², so the ε needed has a closed form; the model is the page's expected_db.
    cal = calibrate(FormSetting(Form.GROUP, rs.epsilon), lo, hi, (20, 20))
    assert rs.utility.value == pytest.approx(expected_db(cal, spread))
    if rs.epsilon_needed is not None:
        at = calibrate(FormSetting(Form.GROUP, rs.epsilon_needed), lo, hi, (20, 20))
        assert expected_db(at, spread) == pytest.approx(3.0, abs=1e-9)


def test_dropping_a_met_output_is_offered_with_what_the_others_then_need(sample):
    """Three unreachable heatmaps beside a cheap AOI target: the AOI's target is met first, and the sentence also
    offers dropping it, with the observers the heatmaps then need at their larger even share of the cap."""
    plan, inputs = inputs_from_fixations(sample, _plan(10.0, 0.5))
    a = allocate(plan, None, inputs)
    aoi = a.outputs[-1]
    assert aoi.target_met and not any(r.target_met for r in a.outputs[:-1])
    alone = allocate(StudyPlan(plan.study, plan.cap, plan.outputs[:-1]), None, inputs)
    assert [r.epsilon for r in alone.outputs] == pytest.approx([10 / 3] * 3)
    m = max(r.people_needed for r in alone.outputs)
    assert m < min(r.people_needed for r in a.outputs[:-1])  # more ε each: fewer observers needed
    assert f"drop {aoi.label} and recruit about {m} observers" in a.sentence
    assert f"release only {aoi.label}" in a.sentence


def test_a_target_without_data_is_not_called_met():
    """A heatmap target whose basis map is not among the inputs gets its share of ε but no verdict."""
    plan = StudyPlan("s", Cap(5.0), (HeatmapOutput(stimulus="a", width=64, height=64,
                                                   target=Target(TargetMeasure.CC, 0.9)),
                                     AoiOutput(n_aois=2, target=Target(TargetMeasure.HIT_RATIO_POINTS, 50.0))))
    from eyedp_core.plan.models import PlanInputs

    a = allocate(plan, None, PlanInputs(observers={None: 100}))
    heat, aoi = a.outputs
    assert heat.target_met is None and heat.utility is None and heat.epsilon > 0
    assert aoi.target_met is True
    assert not a.all_targets_met
    assert "heatmap_a are not judged" in a.sentence


def test_a_finder_can_say_what_the_plan_affords(sample):
    """Three heatmaps and an AOI table, no targets: an even split of the cap, and each finder's sentence states
    ε per output, the outputs of its kind, the total against the cap and the expectation it affords."""
    plan = StudyPlan.from_dict({"study": "s", "cap": {"epsilon": 10}, "outputs": [
        {"kind": "heatmap", "stimulus": "*", "width": W, "height": H},
        {"kind": "aoi", "stimulus": "webpage", "n_aois": 4, "metrics": ["dwell"]}]})
    plan, inputs = inputs_from_fixations(sample, plan)
    a = allocate(plan, None, inputs)
    assert [r.epsilon for r in a.outputs] == pytest.approx([2.5] * 4)
    heat = a.row("heatmap_webpage")
    words = a.affordable("heatmap_webpage")
    assert words.startswith("With 3 heatmap outputs and 4 outputs in all under the cap ε = 10 per observer")
    assert f"can afford ε = 2.5, which gives hot spots kept {100 * heat.utility.value:.0f} % at expectation" in words
    aoi = a.row("aoi_dwell_webpage")
    # Dwell: Δ1 = min(4·5, 2·10) = 20 s, one query, n = 40: ± 20·ln 20/(40·2.5) s.
    assert aoi.utility.value == pytest.approx(20 * math.log(20) / (40 * 2.5))
    assert f"95 % half-width of ± {aoi.utility.value:.3g} s of dwell" in a.affordable("aoi_dwell_webpage")
    assert len(a.of_kind(HeatmapOutput.kind)) == 3
    with pytest.raises(KeyError, match="heatmap_comic"):
        a.row("heatmap_missing")


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 10.0, 50.0])
@pytest.mark.parametrize("delta", [1e-6, 1e-8])
def test_the_rho_a_plan_counts_covers_the_noise_opendp_draws(eps, delta):
    """The zCDP accountant counts ρ = Δ2²/(2σ²) at the continuous analytic σ of (ε, δ): OpenDP's export draws at
    least that σ, and converting that ρ back never gives less than ε (the conversion only loosens), so the ρ
    counted is at least the ρ of what is drawn."""
    from eyedp_core.dp.release import opendp_gaussian_sigma
    from eyedp_core.plan.accounting import release_rho

    o = HeatmapOutput(stimulus="a", width=64, height=64, delta=delta)
    l2 = 0.037
    sigma = gaussian_sigma(l2, eps, delta)
    rho = release_rho(o, eps)
    assert rho == pytest.approx(l2 * l2 / (2 * sigma * sigma), rel=1e-9)
    assert opendp_gaussian_sigma(l2, eps, delta, sigma) >= sigma
    assert zcdp_to_dp(rho, delta) >= eps * (1 - 1e-9)


def test_a_series_form_gets_the_time_series_pages_numbers():
    """A group-means output built from series by series_basis: its expected dB and the ε crossing its target are
    the Time series form comparison's own numbers (compare_forms) at the allotted ε."""
    from eyedp_core.plan import series_basis
    from eyedp_core.plan.models import PlanInputs
    from eyedp_core.timeseries.forms import Form as F
    from eyedp_core.timeseries.forms import FormComparison, compare_forms

    rng = np.random.default_rng(4)
    recs = pd.DataFrame({"participant": [f"P{i:02d}" for i in range(12) for _ in range(2)],
                         "task": ["read", "watch"] * 12})
    x = rng.normal(0.5, 0.2, (24, 3, 40)) + rng.normal(0, 0.3, (24, 3, 1))
    lo, hi = np.zeros(3), np.ones(3)
    with pytest.raises(ValueError, match="2 recordings here"):
        series_basis(x, lo, hi, recs, SeriesFormOutput(form=F.GROUP))
    out = SeriesFormOutput(form=F.GROUP, recordings_per_person=2, target=Target(TargetMeasure.DB, 1.0))
    inputs = PlanInputs(series={out.label: series_basis(x, lo, hi, recs, out)})
    a = allocate(StudyPlan("s", Cap(2.0), (out,)), None, inputs)
    (r,) = a.outputs
    assert r.epsilon == pytest.approx(2.0)
    row = next(w for w in compare_forms(x, lo, hi, recs, FormComparison(epsilon=2.0, blocks=1, recordings_per_person=2,
                                                                      feature_index=0, target_db=1.0))
               if w.setting.form is F.GROUP and w.features == 3)
    assert r.utility.value == pytest.approx(row.utility_db, rel=1e-12)
    assert r.target_met is False and row.utility_db < 1.0  # −3.0 dB at ε = 2
    assert r.epsilon_needed == pytest.approx(row.crossing_epsilon, rel=1e-12)
    assert r.people_needed == math.ceil(row.crossing_people)
