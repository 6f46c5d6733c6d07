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
from eyedp_core.dp.risk_views import LINE_FPR, line_risk, repeated
from tests.apptest import open_app

RISK = re.compile(r"At this ε, an attacker who knows everything else can tell whether a given (\w+) was in the data "
                  r"with at most ([\d.]+) % true positives at 5 % false positives; singling one out of (\d+) "
                  r"\((\d+) \w+ in the loaded data, a roster taken as public\) succeeds at most ([\d.]+) % of the "
                  r"time, against ([\d.]+) % by guessing")


def _line(at) -> tuple[str, float, int, float]:
    """The page's risk line -> (unit, TPR %, n, singling out %)."""
    texts = [str(e.value) for kind in ("markdown", "caption", "info") for e in getattr(at, kind)]
    found = [m for t in texts for m in RISK.finditer(t)]
    assert len(found) == 1, f"expected one risk line, found {len(found)}"
    m = found[0]
    assert m.group(3) == m.group(4)
    n = int(m.group(3))
    assert float(m.group(6)) == pytest.approx(100 / n, rel=5e-3)
    return m.group(1), float(m.group(2)), n, float(m.group(5))


def _pct(v: float) -> float:
    """A probability as the line rounds it (3 significant digits)."""
    return float(f"{100 * v:.3g}")


def _check(at, t: TradeOff, unit: str, n: int) -> None:
    """The page's line equals the figures of trade-off t for n people of that unit."""
    got_unit, tpr, got_n, single = _line(at)
    assert (got_unit, got_n) == (unit, n)
    assert tpr == pytest.approx(_pct(risk.tpr_at(t, LINE_FPR)), abs=1e-9)
    assert single == pytest.approx(_pct(risk.singling_out(t, n)) if t.curve is not risk.Curve.APPROX
                                   else _pct(_pure_singling(t, n)), abs=1e-9)


def _pure_singling(t: TradeOff, n: int) -> float:
    """Singling out under a pure-ε curve: e^ε/(e^ε + n − 1) (§16); the pages' (ε, δ) lines here have δ = 0."""
    assert t.delta == 0
    e = math.exp(min(t.epsilon, 700.0))
    return e / (e + n - 1)


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
    _, tpr, _, _ = _line(hm)
    assert tpr == pytest.approx(_pct(1 - norm.cdf(norm.ppf(0.95) - mu)), abs=1e-9)
    hm.session_state["hm_k_stimuli"] = 1
    hm.run()


def test_heatmaps_line_from_the_laplace_shown(hm):
    """Laplace: ε = Δ₁/b from the numbers shown, the Laplace curve itself (one stimulus)."""
    hm.session_state["hm_mech"] = "laplace"
    hm.run()
    nums = _hm_ctx(hm)
    b, l1 = float(nums["Laplace scale b"]), float(nums["Δ₁ (L1 sensitivity)"])
    _check(hm, TradeOff.laplace(l1, b), "observer", 40)
    hm.session_state["hm_mech"] = "gaussian"
    hm.run()


@pytest.mark.parametrize(("kind", "key", "pct"), [("true positives at 5 % false positives", "hm_risk_tpr", 20),
                                                 ("singling one person out", "hm_risk_singling_out", 10)])
def test_heatmaps_calibrate_to_risk(hm, kind, key, pct):
    """A risk target sets ε: the page's own σ at that ε meets the target, and ε·1.01 (recalibrated) does not."""
    from eyedp_core.dp.calibration import calibrate_gaussian

    hm.session_state["hm_risk_on"] = True
    hm.session_state["hm_risk_kind"] = kind
    hm.session_state[key] = pct
    hm.run()
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
    hm.session_state["hm_risk_on"] = False
    hm.run()
    assert not hm.select_slider(key="hm_eps").disabled


def test_repeated_is_used_for_the_stimuli():
    """The composition the Heatmaps line uses for k stimuli is μ√k (a sanity anchor for the page test)."""
    assert repeated(TradeOff.gaussian(1.0, 2.0), 4).mu == pytest.approx(1.0)
