"""The risk line under every page's guarantee, and the "calibrate to risk" controls (docs/PRIVACY_MODEL.md §16).

The figures come from eyedp_core.dp.risk_views (memoised there); this module words them and draws the controls.
n is the number of people in the loaded data: the roster size, which the line says it takes as public."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from eyedp_core.dp.risk import Curve, TradeOff
from eyedp_core.dp.risk_views import RiskTarget, combined, epsilon_for_risk, line_risk, repeated
from eyedp_core.dp.risk_words import LINE_FPR, risk_line
from ui.widgets import fmt_num

ROSTER = "in the loaded data"
SOURCE = "docs/PRIVACY_MODEL.md §16"
# The target slider's range and start per risk, in percent: from just above guessing to near certainty.
TARGET_RANGE = {RiskTarget.TPR: (6, 95, 20), RiskTarget.SINGLING_OUT: (1, 95, 10)}
TARGET_WORDS = {RiskTarget.TPR: "true positives at 5 % false positives, at most",
                RiskTarget.SINGLING_OUT: "singling one person out, at most"}


def person_total(release: TradeOff, count: int, extra_epsilons: tuple[float, ...] = ()) -> TradeOff:
    """One release's trade-off, the releases per person and further pure-ε charges in, the person's total out."""
    return combined([repeated(release, count), *(TradeOff.approx(e) for e in extra_epsilons)])


def line(t: TradeOff, n: int, unit: str, scope: str = "") -> str:
    """A person's composed trade-off, roster size, unit and what the total covers -> the line (markdown)."""
    text = risk_line(line_risk(t, n), unit, ROSTER).removesuffix(".")
    return f"{text} ({SOURCE}).{(' ' + scope) if scope else ''}"


def no_bound_line(why: str) -> str:
    """Why no ε holds -> the line that says no attacker's risk is bounded (markdown)."""
    return f"No ceiling on any attacker's success holds here: {why} ({SOURCE})."


def target_controls(prefix: str, n: int) -> tuple[RiskTarget, float] | None:
    """Key prefix and roster size -> the chosen (risk, level) when the page calibrates ε to a risk, else None.

    Drawn as one toggle; its two controls appear while it is on."""
    if not st.toggle("Calibrate ε to a risk target", key=f"{prefix}_risk_on",
                     help="Set what any attacker may achieve at most; the page uses the largest ε that keeps "
                          f"to it (computed from the page's own noise calibration, {SOURCE})."):
        return None
    row = st.container(horizontal=True, gap="medium", vertical_alignment="bottom")
    # Plain strings as options (settings files and links carry the stored value as text).
    kind = RiskTarget(row.segmented_control("Risk", [t.value for t in RiskTarget], default=RiskTarget.TPR.value,
                                            required=True, key=f"{prefix}_risk_kind", format_func=_kind_label))
    lo, hi, start = TARGET_RANGE[kind]
    lo = max(lo, int(100 / n) + 1) if kind is RiskTarget.SINGLING_OUT else lo
    key = f"{prefix}_risk_{kind.name.lower()}"
    if key in st.session_state and not lo <= st.session_state[key] <= hi:  # the roster moved the floor
        st.session_state[key] = min(max(st.session_state[key], lo), hi)
    pct = row.slider(f"{TARGET_WORDS[kind]} (%)", lo, hi, max(start, lo), key=key,
                     help="Guessing alone gives 5 % true positives at 5 % false positives, and 1/n for singling "
                          "out: a target must lie above those.")
    return kind, pct / 100.0


def _kind_label(kind: str) -> str:
    """Risk (its stored value) -> its control label."""
    return "True positives at 5 % FPR" if RiskTarget(kind) is RiskTarget.TPR else "Singling out"


@st.cache_data(max_entries=256, show_spinner=False)
def calibrated_epsilon(key: tuple, target: RiskTarget, level: float, n: int, lo: float, hi: float,
                       _forward: Callable[[float], TradeOff]) -> float | None:
    """Cache key (everything `_forward` reads), the risk, its level, n and the ε slider's range -> the largest ε in
    that range that keeps to it (None: not even the smallest)."""
    return epsilon_for_risk(_forward, target, level, n, lo=lo, hi=hi)


def calibrated_words(eps: float | None, target: RiskTarget, level: float, unit: str) -> str:
    """The calibrated ε (None: no ε meets the target) -> one line for the page (markdown)."""
    what = f"{TARGET_WORDS[target]} {100 * level:.0f} %"
    if eps is None:
        return (f"**Calibrated to risk:** no ε on the slider keeps {what}: the target is at or too close to what "
                "guessing alone achieves. The ε slider's value stays in use.")
    return (f"**Calibrated to risk:** ε = {fmt_num(eps)} per {unit} is the largest that keeps {what} "
            "(the ε slider is not used while this is on; the ledger and exports use this ε).")


def formulas(t: TradeOff, n: int) -> tuple[str, ...]:
    """A person's composed trade-off and n -> the LaTeX behind the risk line's two figures, numbers plugged in."""
    r = line_risk(t, n)
    tpr = rf"\mathrm{{TPR}}(5\,\%) = {100 * r.tpr_at(LINE_FPR):.4g}\,\%"
    single = (r"P(\text{single out}) \le \min_{\varepsilon'} \frac{e^{\varepsilon'} + (n-1)\,\delta(\varepsilon')}"
              rf"{{e^{{\varepsilon'}} + n - 1}} = {100 * r.singling_out:.4g}\,\%\quad (n = {n},\ 1/n = "
              rf"{100 / n:.3g}\,\%)")
    if t.curve is Curve.GAUSSIAN:
        head = (rf"\mu = \Delta_2/\sigma\ (\times\sqrt{{k}}\text{{ for }}k\text{{ releases}}) = {t.mu:.4g},\quad "
                r"\mathrm{TPR}(\alpha) = 1 - \Phi\big(\Phi^{-1}(1-\alpha) - \mu\big)",
                r"\delta(\varepsilon') = \Phi\big(-\tfrac{\varepsilon'}{\mu} + \tfrac{\mu}{2}\big) - "
                r"e^{\varepsilon'}\,\Phi\big(-\tfrac{\varepsilon'}{\mu} - \tfrac{\mu}{2}\big)")
    elif t.curve is Curve.LAPLACE and t.count == 1:
        head = (rf"\varepsilon = \Delta_1/b = {t.epsilon:.4g},\quad \mathrm{{TPR}}(\alpha) = 1 - "
                r"F\big(F^{-1}(1-\alpha) - \varepsilon\big)\ (F\text{: standard Laplace CDF})",
                r"\delta(\varepsilon') = 1 - e^{(\varepsilon' - \varepsilon)/2}")
    elif t.count > 1:
        head = (rf"k = {t.count}\ \text{{releases of }}\varepsilon = {t.epsilon:.4g}:\ L = \varepsilon\,(2K - k),\ "
                r"K \sim \mathrm{Bin}\big(k, \tfrac{e^{\varepsilon}}{1 + e^{\varepsilon}}\big)\text{ under } P,\ "
                r"\mathrm{Bin}\big(k, \tfrac{1}{1 + e^{\varepsilon}}\big)\text{ under } Q",
                r"\mathrm{TPR}(\alpha)\text{: Neyman–Pearson on } L;\quad \delta(\varepsilon') = "
                r"\textstyle\sum_{\ell > \varepsilon'} \big(P(L = \ell) - e^{\varepsilon'} Q(L = \ell)\big)")
    else:
        head = (rf"(\varepsilon, \delta) = ({t.epsilon:.4g}, {t.delta:.3g}):\ \mathrm{{TPR}}(\alpha) = "
                r"\min\big(1,\ \delta + e^{\varepsilon}\alpha,\ 1 - e^{-\varepsilon}(1 - \delta - \alpha)\big)",
                r"\delta(\varepsilon') = \delta + (1 - \delta)\,\frac{(e^{\varepsilon} - e^{\varepsilon'})_+}"
                r"{1 + e^{\varepsilon}}")
    return (*head, tpr, single)


def draw_formulas(t: TradeOff, n: int) -> None:
    """The formulas behind the risk line, typeset, with their source."""
    st.markdown("**What this allows an attacker** (the risk line's figures)")
    for f in formulas(t, n):
        st.latex(f)
    st.caption(f"Trade-off curves (f-DP) and the singling-out bound: {SOURCE}.")
