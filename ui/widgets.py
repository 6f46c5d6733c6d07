"""Small widgets every view shares: log-scale sliders, formula boxes, badges, the preview watermark."""
from __future__ import annotations

import math

import numpy as np
import streamlit as st

from eyedp_core.mechanisms import Calibration


def log_values(lo: float, hi: float, per_decade: int = 6) -> list[float]:
    """Bounds -> rounded, log-spaced values (two significant digits) for a log-scale slider."""
    n = int(round(math.log10(hi / lo) * per_decade)) + 1
    vals = np.geomspace(lo, hi, n)
    out = sorted({float(f"{v:.2g}") for v in vals})
    return out


def fmt_num(v: float) -> str:
    """Number -> compact text for slider ticks and captions."""
    if v == 0:
        return "0"
    if abs(v) < 1e-3 or abs(v) >= 1e5:
        return f"{v:.1e}"
    return f"{v:.3g}"


def log_slider(label: str, lo: float, hi: float, default: float, key: str, help: str | None = None,
               per_decade: int = 6) -> float:
    """A select-slider over log-spaced values; returns the chosen float."""
    vals = log_values(lo, hi, per_decade)
    start = min(vals, key=lambda v: abs(math.log(v) - math.log(default)))
    return float(st.select_slider(label, options=vals, value=start, format_func=fmt_num, key=key, help=help))


def badge(text: str, kind: str = "dp") -> str:
    """Text and kind (dp | notdp | paper | preview) -> HTML of a coloured badge."""
    return f'<span class="eyedp-badge {kind}">{text}</span>'


def calibration_box(cal: Calibration, title: str | None = None) -> None:
    """Show a noise calibration: formula, the numbers plugged in, and what it guarantees."""
    head = title or f"{cal.mechanism.capitalize()} noise — {cal.method}"
    kind = "dp" if cal.valid else "notdp"
    label = cal.guarantee if cal.valid else "does not give the stated guarantee"
    st.markdown(f"**{head}** {badge(label, kind)}", unsafe_allow_html=True)
    st.latex(cal.formula_tex)
    st.latex(cal.plugged_tex)
    if cal.mechanism == "laplace":
        st.caption(f"Laplace scale b = {fmt_num(cal.scale)}; standard deviation √2·b = {fmt_num(cal.std)}.")
    else:
        st.caption(f"Gaussian standard deviation σ = {fmt_num(cal.std)}.")
    if cal.note:
        (st.caption if cal.valid else st.warning)(cal.note)


def preview_watermark() -> None:
    """The persistent notice that a seeded preview is not a private release (MECHANISMS.md §11)."""
    st.markdown(
        '<div class="eyedp-watermark">PREVIEW — NOT A PRIVATE RELEASE (seeded numpy noise; use Export for a release)</div>',
        unsafe_allow_html=True,
    )


def coming_soon(text: str) -> None:
    """A note saying which capability of this view is still being built."""
    st.info(text, icon=":material/construction:")
