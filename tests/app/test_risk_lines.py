"""The risk line under every page's guarantee, and ε calibrated to a risk target (AppTest; PRIVACY_MODEL §16).

Each page's figures are recomputed here from the noise the page shows (σ or b, Δ) with eyedp_core.dp.risk and
compared with the line's; calibrated ε: it meets the target and ε·1.01 does not."""
from __future__ import annotations

import math
import re

import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from eyedp_core.dp import risk
from eyedp_core.dp.risk import TradeOff
from eyedp_core.dp.risk_views import line_risk
from eyedp_core.dp.risk_words import LINE_FPR
from tests.apptest import open_app

RISK = re.compile(r"At this ε, an attacker who knows everything else can tell whether a given (\w+) was in the data "
                  r"with at most ((?:> )?[\d.]+) % true positives at 5 % false positives; singling one out of (\d+) "
                  r"\((\d+) \w+ in the loaded data, a roster taken as public\) succeeds at most ((?:> )?[\d.]+) % of "
                  r"the time, against ([\d.]+) % by guessing")


def _line(at) -> tuple[str, str, int, str]:
    """The page's risk line -> (unit, TPR %, n, singling out %) as printed."""
    texts = [str(e.value) for kind in ("markdown", "caption", "info", "warning") for e in getattr(at, kind)]
    found = [m for t in texts for m in RISK.finditer(t)]
    assert len(found) == 1, f"expected one risk line, found {len(found)}"
    m = found[0]
    assert m.group(3) == m.group(4)
    n = int(m.group(3))
    assert float(m.group(6)) == pytest.approx(100 / n, rel=5e-3)
    return m.group(1), m.group(2), n, m.group(5)


def _same(printed: str, v: float) -> bool:
    """Whether a printed percentage is probability v as the line rounds it (3 significant digits; '> 99.9' above
    99.95 % short of certainty)."""
    if printed.startswith("> "):
        return 0.9995 <= v < 1.0
    return float(printed) == pytest.approx(float(f"{100 * v:.3g}"), abs=1e-9)


def _check(at, t: TradeOff, unit: str, n: int) -> None:
    """The page's line equals the figures of trade-off t for n people of that unit."""
    got_unit, tpr, got_n, single = _line(at)
    assert (got_unit, got_n) == (unit, n)
    assert _same(tpr, risk.tpr_at(t, LINE_FPR)), tpr
    one_pure = t.curve is risk.Curve.APPROX and t.count == 1
    assert _same(single, _pure_singling(t, n) if one_pure else risk.singling_out(t, n)), single


def _pure_singling(t: TradeOff, n: int) -> float:
    """Singling out under one pure-ε curve: e^ε/(e^ε + n − 1) (§16; the generic route takes seconds there)."""
    assert t.delta == 0
    e = math.exp(min(t.epsilon, 700.0))
    return e / (e + n - 1)


def _set_target(at, prefix: str, kind: str, key: str, pct: int) -> None:
    """Switch the risk target on through its widgets, choose the risk and its ceiling (in %)."""
    at.toggle(key=f"{prefix}_risk_on").set_value(True).run()
    at.segmented_control(key=f"{prefix}_risk_kind").set_value(kind).run()
    at.slider(key=key).set_value(pct).run()
    assert not at.exception, at.exception


def _target_off(at, prefix: str) -> None:
    """Switch the risk target off again."""
    at.toggle(key=f"{prefix}_risk_on").set_value(False).run()
    assert not at.exception, at.exception


# --------------------------------------------------------------------------------------------------- Heatmaps

HM = "pages/heatmaps.py"


@pytest.fixture(scope="module")
def hm():
    """One session on Heatmaps."""
    return open_app(HM, timeout=240)


def _hm_ctx(at):
    """The page's σ (or b) and Δ as the Noise scale numbers show them, with ε."""
    from tests.apptest import shown_numbers

    nums = dict(shown_numbers(at, metrics=False))
    return nums


def test_heatmaps_line_from_the_gaussian_shown(hm):
    """Gaussian: μ = Δ₂/σ from the numbers under the overlays, composed over 3 stimuli as √3·μ."""
    hm.session_state["hm_k_stimuli"] = 3
    hm.run()
    nums = _hm_ctx(hm)
    sigma, l2 = float(nums["Noise σ per cell"]), float(nums["Δ₂ (L2 sensitivity)"])
    mu = l2 / sigma * math.sqrt(3)
    t = TradeOff(risk.Curve.GAUSSIAN, mu=mu)
    _check(hm, t, "observer", 40)
    assert _same(_line(hm)[1], 1 - norm.cdf(norm.ppf(0.95) - mu))
    hm.session_state["hm_k_stimuli"] = 1
    hm.run()


def test_heatmaps_line_from_the_laplace_shown(hm):
    """Laplace: ε = Δ₁/b from the numbers shown, the Laplace curve itself (one stimulus)."""
    hm.session_state["hm_mech"] = "laplace"
    hm.run()
    nums = _hm_ctx(hm)
    b, l1 = float(nums["Laplace scale b"]), float(nums["Δ₁ (L1 sensitivity)"])
    _check(hm, TradeOff.laplace(l1, b), "observer", 40)
    hm.session_state["hm_k_stimuli"] = 4  # four ε-DP maps: the optimal composition of ε-DP releases
    hm.run()
    _check(hm, TradeOff.pure(l1 / b, 4), "observer", 40)
    hm.session_state["hm_k_stimuli"] = 1
    hm.session_state["hm_mech"] = "gaussian"
    hm.run()


@pytest.mark.parametrize(("kind", "key", "pct"), [("true positives at 5 % false positives", "hm_risk_tpr", 20),
                                                 ("singling one person out", "hm_risk_singling_out", 10)])
def test_heatmaps_calibrate_to_risk(hm, kind, key, pct):
    """A risk target sets ε: the page's own σ at that ε meets the target, and ε·1.01 (recalibrated) does not."""
    from eyedp_core.dp.calibration import calibrate_gaussian

    _set_target(hm, "hm", kind, key, pct)
    assert not hm.exception, hm.exception
    assert hm.select_slider(key="hm_eps").disabled
    said = next(str(m.value) for m in hm.markdown if str(m.value).startswith("**Calibrated to risk:**"))
    nums = _hm_ctx(hm)
    sigma, l2 = float(nums["Noise σ per cell"]), float(nums["Δ₂ (L2 sensitivity)"])
    delta = float(hm.select_slider(key="hm_delta").value)
    # The ε the page runs at, recovered from the σ it shows (6 digits): the analytic σ is decreasing in ε.
    exact = math.exp(brentq(lambda x: calibrate_gaussian(l2, math.exp(x), delta).std - sigma, -5.0, 5.0,
                            xtol=1e-9))
    shown = float(re.search(r"ε = ([\d.]+)", said).group(1))
    assert shown == pytest.approx(exact, rel=5e-3)

    def value(s: float) -> float:
        t = TradeOff.gaussian(l2, s)
        return risk.tpr_at(t, LINE_FPR) if key == "hm_risk_tpr" else line_risk(t, 40).singling_out

    assert value(sigma) <= pct / 100 + 1e-9
    assert value(calibrate_gaussian(l2, exact, delta).std) <= pct / 100 + 1e-6
    assert value(calibrate_gaussian(l2, exact * 1.01, delta).std) > pct / 100
    _target_off(hm, "hm")
    assert not hm.select_slider(key="hm_eps").disabled


# ------------------------------------------------------------------------------------------------ Time series

TS = "pages/time_series.py"


@pytest.fixture(scope="module")
def ts():
    """One session on Time series."""
    return open_app(TS, timeout=240)


def _ts_calls(at) -> tuple[int, float]:
    """The calls per person and ε per call, from the numbers the page shows."""
    from tests.apptest import shown_numbers

    nums = dict(shown_numbers(at, metrics=False))
    calls = int(nums["Calls per person"].replace(",", ""))
    per = next(float(v) for k, v in nums.items() if k.startswith("ε per "))
    return calls, per


def test_time_series_line_composes_every_call(ts):
    """A participant's total: the calls (features × chunks × recordings), each ε-DP at the ε per call shown, composed."""
    calls, per = _ts_calls(ts)
    assert calls > 1
    _check(ts, TradeOff.pure(per, calls), "participant", 20)


@pytest.mark.parametrize(("kind", "key", "pct"), [("true positives at 5 % false positives", "ts_risk_tpr", 30),
                                                 ("singling one person out", "ts_risk_singling_out", 15)])
def test_time_series_calibrate_to_risk(ts, kind, key, pct):
    """A risk target sets ε per person: the composed calls at that ε meet it, at ε·1.01 they do not."""
    _set_target(ts, "ts", kind, key, pct)
    assert not ts.exception, ts.exception
    assert ts.select_slider(key="ts_eps").disabled
    calls, per = _ts_calls(ts)
    eps = per * calls  # the total per person the page now runs at (participant mode)

    def value(total: float) -> float:
        t = TradeOff.pure(total / calls, calls)
        return risk.tpr_at(t, LINE_FPR) if key == "ts_risk_tpr" else risk.singling_out(t, 20)

    assert value(eps * (1 - 1e-3)) <= pct / 100  # the per-call ε is shown to 4 digits
    assert value(eps * 1.01) > pct / 100
    said = next(str(m.value) for m in ts.markdown if str(m.value).startswith("**Calibrated to risk:**"))
    assert float(re.search(r"ε = ([\d.]+)", said).group(1)) == pytest.approx(eps, rel=5e-3)
    _target_off(ts, "ts")


# ------------------------------------------------------------------------------------------- Areas of interest


def test_aoi_line_composes_the_sums():
    """ε per observer split equally over the sums: each sum ε/q-DP (Laplace b = Δ₁/(ε/q)), composed."""
    at = open_app("pages/areas_of_interest.py", timeout=240)
    summary = next(str(m.value) for m in at.markdown if "noisy sums" in str(m.value))
    q = int(re.search(r"split equally over (\d+) noisy sums", summary).group(1))
    n = int(re.search(r"\*\*(\d+) observers", summary).group(1))
    eps = float(at.select_slider(key="aoi_epsilon").value)
    _check(at, TradeOff.pure(eps / q, q) if q > 1 else TradeOff.laplace(1.0, q / eps), "observer", n)


# ------------------------------------------------------------------------------------------------ Gaze samples


def test_gaze_samples_kaleido_line_is_the_person_bound():
    """Kaleido: the person-level ε its promise states, read as (ε, 0)."""
    at = open_app("pages/gaze_samples.py", timeout=240)
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    card = next(str(m.value) for m in at.markdown if "person-level bound" in str(m.value))
    person = float(re.search(r"its person-level ε = ([\d.e+]+)\)", card).group(1))
    stated = float(re.search(r"over r\) = ([\d.e+]+) — no protection", card).group(1))
    assert person == pytest.approx(stated, rel=5e-3)
    _check(at, TradeOff.approx(person), "participant", 10)


# -------------------------------------------------------------------------------------------------------- Home


def test_home_line_follows_the_teaching_slider():
    """Home: a pure ε about one of the fixation table's 40 people; the figures move with the slider."""
    at = open_app("pages/home.py", timeout=120)
    for eps in (1.0, 3.0):
        at.select_slider(key="home_eps").set_value(eps).run()
        _check(at, TradeOff.approx(eps), "person", 40)


def test_heatmaps_export_charges_the_calibrated_epsilon(hm):
    """With a risk target on, an export is charged the ε the target set (not the slider's): that ε keeps the
    target with the page's analytic σ and ε·1.01 does not."""
    from eyedp_core.dp.calibration import calibrate_gaussian

    _set_target(hm, "hm", "true positives at 5 % false positives", "hm_risk_tpr", 25)
    slider_eps = float(hm.select_slider(key="hm_eps").value)
    before = len(hm.session_state["eyedp_ledger"].releases)
    hm.button(key="hm_export").click().run()
    assert not hm.exception, hm.exception
    rels = hm.session_state["eyedp_ledger"].releases
    assert len(rels) == before + 1
    eps, delta = rels[-1].epsilon, rels[-1].delta
    assert eps != pytest.approx(slider_eps, rel=1e-3)
    l2 = float(_hm_ctx(hm)["Δ₂ (L2 sensitivity)"])
    tpr = lambda e: risk.tpr_at(TradeOff.gaussian(l2, calibrate_gaussian(l2, e, delta).std), LINE_FPR)  # noqa: E731
    assert tpr(eps) <= 0.25 + 1e-9 < tpr(eps * 1.01)
    _target_off(hm, "hm")


def test_time_series_records_the_calibrated_epsilon(ts):
    """With a risk target on, 'Record in the privacy ledger' charges the ε per person the target set."""
    _set_target(ts, "ts", "singling one person out", "ts_risk_singling_out", 6)
    calls, _ = _ts_calls(ts)
    ts.button(key="ts_record").click().run()
    assert not ts.exception, ts.exception
    rel = ts.session_state["eyedp_ledger"].releases[-1]
    total = rel.epsilon * rel.count
    assert total != pytest.approx(float(ts.select_slider(key="ts_eps").value), rel=1e-3)
    single = lambda e: risk.singling_out(TradeOff.pure(e / calls, calls), 20)  # noqa: E731
    assert single(total) <= 0.06 + 1e-9 < single(total * 1.01)
    _target_off(ts, "ts")
