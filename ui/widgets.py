"""Small widgets every view shares: log-scale sliders, formula boxes, badges, the preview watermark."""
from __future__ import annotations

import math
from typing import Any

import streamlit as st

from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.registry import Family
from ui.text import html_text, md_text

# Round mantissas per decade, so that 1, 0.1, 3, 10 … are reachable exactly on a log slider.
_MANTISSAS = {3: (1, 2, 5), 6: (1, 1.5, 2, 3, 5, 7), 10: (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8)}


def log_values(lo: float, hi: float, per_decade: int = 6) -> list[float]:
    """Bounds -> round, log-spaced values (1-1.5-2-3-5-7 per decade) from lo to hi inclusive."""
    mant = _MANTISSAS.get(per_decade, _MANTISSAS[6])
    decades = range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
    vals = {float(f"{m * 10.0 ** d:.6g}") for d in decades for m in mant}
    return sorted({v for v in vals if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)} | {float(lo), float(hi)})


def fmt_num(v: float) -> str:
    """Number -> compact text for slider ticks and captions."""
    if v == 0:
        return "0"
    if abs(v) < 1e-3 or abs(v) >= 1e5:
        return f"{v:.1e}"
    return f"{v:.3g}"


def badge(text: str, kind: str = "dp") -> str:
    """Text and kind (dp | notdp | paper | preview) -> HTML of a coloured badge."""
    return f'<span class="eyedp-badge {html_text(kind)}">{md_text(text)}</span>'  # inline HTML: markdown inside'


def calibration_box(cal: Calibration, title: str | None = None) -> None:
    """Show a noise calibration: formula, the numbers plugged in, and what it guarantees."""
    head = title or f"{cal.mechanism.capitalize()} noise — {cal.method}"
    kind = "dp" if cal.valid else "notdp"
    label = cal.guarantee if cal.valid else "does not give the stated guarantee"
    st.markdown(f"**{head}** {badge(label, kind)}", unsafe_allow_html=True)
    st.latex(cal.formula_tex)
    st.latex(cal.plugged_tex)
    if cal.mechanism == Family.LAPLACE:  # any family name may come in (time-series calibrations too)
        st.caption(f"Laplace scale b = {fmt_num(cal.scale)}; standard deviation √2·b = {fmt_num(cal.std)}.")
    else:
        st.caption(f"Gaussian standard deviation σ = {fmt_num(cal.std)}.")
    if cal.note:
        (st.caption if cal.valid else st.warning)(cal.note)


WATERMARK_HTML = ('<div class="eyedp-watermark">PREVIEW — NOT A PRIVATE RELEASE (seeded numpy noise; use Export for a '
                  'release)</div>')


def preview_watermark() -> None:
    """The persistent notice that a seeded preview is not a private release (docs/PRIVACY_MODEL.md §11)."""
    st.markdown(WATERMARK_HTML, unsafe_allow_html=True)


def value_in_force(key: str, default: Any) -> Any:
    """The value a control must declare when drawn: the session's, else `default`. A control drawn again after
    runs that did not draw it (an Explore panel shown again) shows its declared value in the browser, while the
    page reads the session's."""
    v = st.session_state.get(key)
    return default if v is None else v


def index_in_force(key: str, options: list) -> int:
    """The index a radio or selectbox must declare when drawn: the session's option's (see value_in_force)."""
    v = st.session_state.get(key)
    return options.index(v) if v in options else 0


def log_options(lo: float, hi: float, per_decade: int = 6, extra: tuple[float, ...] = ()) -> list[float]:
    """Bounds, density and exact extra values -> the sorted options of a log select-slider (log_slider)."""
    return sorted(set(log_values(lo, hi, per_decade)) | {float(v) for v in extra if lo <= v <= hi})


def _nearest_log(options: list[float], v: float) -> float:
    """The option nearest to `v` on a log scale."""
    return min(options, key=lambda o: abs(math.log(o) - math.log(v)))


def snap_to_options(key: str, options: list[float]) -> None:
    """Put the session's value of `key`, when set and not one of `options`, on the nearest option: options can
    depend on the data (n), and the widget must stay valid when the data change."""
    cur = st.session_state.get(key)
    if cur is not None and cur not in options:
        st.session_state[key] = _nearest_log(options, float(cur))


def log_slider(label: str, lo: float, hi: float, default: float, key: str, per_decade: int = 6, *,
               extra: tuple[float, ...] = (), **widget: Any) -> float:
    """A select-slider over round log-spaced values (plus exact `extra` ones, e.g. a preset's δ = n^-1.5);
    `widget`: st.select_slider's own options (help, on_change, disabled), passed on as they are."""
    vals = log_options(lo, hi, per_decade, extra)
    snap_to_options(key, vals)
    return float(st.select_slider(label, options=vals, value=value_in_force(key, _nearest_log(vals, default)),
                                  format_func=fmt_num, key=key, **widget))


# Words for very large factors: a teacher reads "more than a million to one", not "4.9e+08".
_BIG_WORDS = ((1e12, "a trillion"), (1e9, "a billion"), (1e6, "a million"))


def odds_words(factor: float) -> str:
    """Odds factor (≥ 1, e.g. e^ε) -> bounded words: '2.72 to one', '22,026 to one', 'more than a million to one'."""
    if math.isnan(factor) or factor < 0:
        raise ValueError(f"an odds factor is a non-negative number, got {factor!r}")
    for bound, words in _BIG_WORDS:
        if factor > bound:
            return f"more than {words} to one"
    if factor >= 100:
        return f"{round(factor):,} to one"
    return f"{factor:.3g} to one"


def bounded_percent(p: float, decimals: int = 1) -> str:
    """Probability in [0, 1] -> a percentage that never rounds to a false 100 % or 0 % ('> 99.9 %', '< 0.1 %')."""
    if math.isnan(p) or not 0.0 <= p <= 1.0:
        raise ValueError(f"a probability lies in [0, 1], got {p!r}")
    step = 10.0 ** -decimals
    text = f"{100 * p:.{decimals}f}"
    if p < 1.0 and float(text) >= 100.0:
        return f"> {100 - step:.{decimals}f} %"
    if p > 0.0 and float(text) <= 0.0:
        return f"< {step:.{decimals}f} %"
    if p in (0.0, 1.0):
        return f"{100 * p:.0f} %"
    return f"{text} %"
