"""Time-series view, the top of the page: mechanism names in words, the per-person headline, the plain verdict
and the cached preview figure. Numbers come from the core (the plan and the preview run); this module words them.
"""
from __future__ import annotations

import math

import numpy as np
import streamlit as st

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries import expectation
from eyedp_core.timeseries.preview import PreviewSetting
from ui.numbers import Number
from ui.timeseries import figs, preview_image, view
from ui.timeseries.context import PRIVATE_EPS_NOTE, Ctx, fe
from ui.timeseries.data import Series
from ui.timeseries.preview_image import PreviewLayout

# Words first, acronym second: what each mechanism does, for readers who do not know Bozkir et al.'s names.
MECH_NAMES = {
    Mech.LPA: "Laplace noise on every sample (LPA)",
    Mech.FPA: "Fourier perturbation, whole series (FPA)",
    Mech.CFPA: "Fourier perturbation, chunked (CFPA)",
    Mech.DCFPA: "Fourier perturbation of differences, chunked (DCFPA)",
}
MODES = {"participant": "Total ε per person", "paper": "ε per chunk, as in the paper"}
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def mech_name(m: Mech) -> str:
    """Mechanism in, its name in words with the acronym in brackets out."""
    return MECH_NAMES.get(m, m.value)


def sci(v: float) -> str:
    """Number in, '1.2·10⁵' for large or tiny values, else 3 significant digits out (reads better than 1.2e+05)."""
    if v == 0 or not math.isfinite(v):
        return "0" if v == 0 else "∞"
    if 1000 <= abs(v) < 1e4:
        return f"{v:,.0f}"
    if 1e-3 <= abs(v) < 1000:
        return f"{v:.3g}"
    exp = int(math.floor(math.log10(abs(v))))
    mant = v / 10**exp
    return f"{mant:.2g}·10{str(exp).translate(_SUPERSCRIPT)}"


def plain(v: float) -> str:
    """Number in, '473,212' from 1,000 up to 10⁷, 4 significant digits below, '1.2·10⁸' above out."""
    if math.isfinite(v) and 1000 <= abs(v) < 1e7:
        return f"{v:,.0f}"
    return sci(v) if abs(v) >= 1e7 else f"{v:.4g}"


def numbers(c: Ctx) -> list[Number]:
    """The per-person total first (the guarantee for a person), then the paper's unit and the noise scale (shown
    as one ui.numbers row, re-sent on every move of ε, k and R)."""
    p, shown = c.plan, c.preview.shown[0]
    unit = "chunk" if p.unit == "chunk" else "series"
    chunks_txt = f" × {p.n_chunks} chunks" if p.unit == "chunk" else ""
    sym = "b" if c.setting.mech is Mech.LPA else "λ"
    return [
        Number("Total ε per person", fe(p.participant_total),
               "The guarantee for one participant: ε per call × features × chunks × recordings (sequential "
               "composition, docs/PRIVACY_MODEL.md §3)."),
        Number(f"ε per {unit}", f"{p.per_invocation:.4g}",
               f"What one mechanism call (one {unit} of one feature) spends: the paper's unit, as Bozkir et al. "
               "report it."),
        Number("Paper's claimed ε", fe(p.paper_total) if p.has_guarantee else "∞",
               "Σ over features, chunks counted in parallel, per recording — as Bozkir et al. report it. "
               "Not a bound for a person."),
        Number("Calls per person", f"{p.invocations:,}",
               f"{p.n_features} features{chunks_txt} × {p.n_recordings} recordings"),
        Number(f"Noise scale {sym}", plain(shown.calibration.scale),
               "The Laplace scale the preview's noise for the shown feature was drawn with; λ applies to Re and Im "
               f"of each kept Fourier coefficient (exact value {shown.calibration.scale:.6g})."),
    ]


def _form_hint(c: Ctx) -> str:
    """-> ' Or release …: it reaches 0 dB from ε ≈ … per person, … (More views → Release forms).' (the release
    form with the smallest crossing for the shown feature; the crossing does not depend on the current ε, the words
    say whether the current ε already reaches it)."""
    d = c.series
    per_person = c.info.n_recordings  # counted recordings per person, as the main accounting (not the tasks)
    label, eps_star = _best_form(view.data_key(c.token, d.names, d.lo, d.hi, d.length), per_person, c.feature_index,
                                 c.keys, d)
    if not label:
        return ""
    eps = float(c.plan.participant_total)
    now = f" — usable at your ε = {fe(eps)}" if eps >= eps_star else ""
    return (f" Or release {label}: it reaches 0 dB from ε ≈ {eps_star:.3g} per person{now} (0 dB: noise as large as "
            f"the spread between people), {PRIVATE_EPS_NOTE} (More views → Release forms).")


# Keyed on the short data key: the hint is read on every move of ε while the verdict says "useless", and hashing the
# released names and bounds (form_rows' key) costs more than the lookup.
@st.cache_resource(max_entries=16, show_spinner=False)
def _best_form(data_key: str, per_person: int, feature: int, _keys: tuple, _d: Series) -> tuple[str, float]:
    """Data key (view.data_key: `_keys` and the bounds of `_d`), recordings per person, shown feature -> (the
    release form with the smallest 0-dB crossing, that ε); ('', inf) when no form reaches 0 dB."""
    # Ten coarse windows, or one per window of a shorter series (a recording of T windows has at most T parts).
    blocks = min(10, _d.length)
    rows = view.form_rows(view.SeriesKey.of(_keys, _d.lo, _d.hi), 1.0, blocks, per_person, feature, 0.0, _d.x,
                          _d.recs)
    best = min(rows, key=lambda r: r.crossing_epsilon)
    if not math.isfinite(best.crossing_epsilon):
        return "", math.inf
    return best.label, float(best.crossing_epsilon)


# A shared read-only object (st.cache_resource): the R runs of a setting are drawn once, every ε reads them.
@st.cache_resource(max_entries=8, show_spinner=False)
def nmse_model(data_key: str, setting: PreviewSetting, _x: np.ndarray, _lo: np.ndarray,
               _hi: np.ndarray) -> expectation.NmseModel:
    """Data key (view.data_key of `_x` and the bounds), the setting (mechanism, chunk, k, NMSE kind, sensitivity
    type) -> the expectation's R seeded runs as an NMSE model in 1/ε (eyedp_core.timeseries.expectation)."""
    return expectation.nmse_model(_x, (_lo, _hi), setting)


def expected_db(c: Ctx) -> expectation.ExpectedDb:
    """Context in, the expected median utility over the features (dB) with its 10–90 % band at the page's setting
    (seeded runs independent of the preview seed; cached per setting, an ε move only rescales)."""
    d, s = c.series, c.setting
    sens = "data-derived" if c.sensitivity_type == "data-derived" else "public"
    # The model covers every ε: the key holds a fixed ε, so moving ε reuses the cached runs.
    setting = PreviewSetting(mech=s.mech, chunk=s.chunk, epsilon=1.0, k=int(s.k), nmse_kind=s.nmse_kind,
                             sensitivity_type=sens)
    model = nmse_model(view.data_key(c.token, d.names, d.lo, d.hi, d.length), setting, d.x, d.lo, d.hi)
    return expectation.expected_median_db(model, float(c.plan.per_invocation))


def _db_words(e: expectation.ExpectedDb, draw: float) -> str:
    """Expected median dB, its band and the preview draw's in words ('expected median utility -54 dB …')."""
    return (f"expected median utility {e.mean:.0f} dB over the features (10–90 % of single runs: {e.low:.0f} to "
            f"{e.high:.0f} dB, over {e.runs} seeded runs; this preview draw: median utility {draw:.0f} dB)")


def verdict(c: Ctx) -> tuple[str, str]:
    """Context in, (kind 'useless' | 'rough' | 'usable', one plain sentence) out: the kind and the words follow the
    expected median utility over seeded runs, so a lucky preview draw cannot set them; the draw is named beside."""
    p, prev = c.plan, c.preview
    with np.errstate(divide="ignore", invalid="ignore"):
        db = -10.0 * np.log10(prev.nmse_feature)
    draw = float(np.nanmedian(db)) if np.isfinite(db).any() else float("nan")
    exp = expected_db(c)
    med = exp.mean if math.isfinite(exp.mean) else draw
    lo, hi = c.bounds_f
    scale = prev.shown[0].calibration.scale
    name = mech_name(c.setting.mech)
    who = f"a total of **ε = {fe(p.participant_total)} per person**"
    split = f"split over {p.invocations:,} mechanism calls (ε = {p.per_invocation:.3g} each)"
    words = _db_words(exp, draw) if math.isfinite(exp.mean) else f"median utility {draw:.0f} dB over the features"
    if not math.isfinite(med) or med < 0:
        ratio = 10 ** (-med / 10) if math.isfinite(med) else math.inf
        # A series made constant by its bounds has zero variance: its NMSE, and the median, can be infinite.
        times = ("many" if not math.isfinite(ratio) else
                 f"about 10{str(int(round(-med / 10))).translate(_SUPERSCRIPT)}" if ratio >= 100 else f"{ratio:.1f}")
        why = (f"its noise scale {sci(scale)} dwarfs the feature's whole range ({lo:g} to {hi:g})"
               if scale > 10 * (hi - lo) else "its noise is larger than the features' own variation")
        return "useless", (
            f"At {who}, {split}, {name} is useless on this data: {why}, so the released series is noise ({words}, "
            f"an error {times} times the signal's variance). Raise ε, release fewer features or a shorter T before "
            "publishing anything." + _form_hint(c))
    if med < 10:
        return "rough", (
            f"At {who}, {split}, {name} keeps only a rough trace of the signal: {words}, the error is "
            f"{10 ** (-med / 10):.0%} of the signal's variance.")
    return "usable", (
        f"At {who}, {split}, {name} keeps the signal: {words}, an error of {10 ** (-med / 10):.1%} of the signal's "
        "variance.")


# cache_resource: the same Figure object is handed back (Streamlit only serialises it), which saves unpickling and
# re-validating the figure on every move back to a setting seen before.
@st.cache_resource(max_entries=64, show_spinner=False)
def preview_figure(axes: figs.TimeAxes, clean: np.ndarray, noisy: np.ndarray, paper: np.ndarray | None, label: str,
                   true_length: int, chunk: int | None, zoom: tuple[float, float] | None):
    """The preview chart, cached on its (small) inputs: moving a slider back and forth re-uses the figure."""
    return figs.preview_figure(axes, clean, noisy, paper, label, true_length, chunk, zoom)


@st.cache_resource(max_entries=64, show_spinner=False)
def preview_png(key: tuple, _t: np.ndarray, _clean: np.ndarray, _noisy: np.ndarray, _paper: np.ndarray | None,
                layout: PreviewLayout) -> bytes:
    """The preview as PNG bytes, cached on `key` (the preview run's cache key and the shown row) and the drawing
    options; the same bytes again let the browser keep the image."""
    return preview_image.preview_png(_t, _clean, _noisy, _paper, layout)


def legend_html(label: str, dcfpa_paper: bool) -> str:
    """Mechanism label in, the preview image's legend as coloured line glyphs (HTML) out."""
    from ui import theme

    items = [(theme.color_for(label, 1), f"noisy: {label}" + (" (cumulative sum, correct)" if dcfpa_paper else "")),
             (theme.CLEAN, "clean (clamped to the bounds)")]
    if dcfpa_paper:
        items.insert(0, (theme.DANGER, "DCFPA as printed in the paper (x̃ₜ = d̃ₜ + d̃ₜ₋₁) — wrong"))
    return " &nbsp; ".join(f"<span style='color:{c};font-weight:700'>━━</span> {name}" for c, name in items)
