"""The clean and noisy heatmaps side by side (one JPEG picture at display size) and, as one element under it, the
preview notice, the colour bar, the grid caption and the metrics.

Headline metrics (CC, hot spots kept, NMSE, MSE) lead with their expected value and 10–90 % band over
expectation.EXPECTATION_DRAWS seeded draws (a lucky draw must not set a decision); the preview draw's own metrics (CC, hot
spots kept, NMSE, MSE, KL, SIM) follow, labelled as this draw. The earth mover's distance, a linear program, is computed
only when asked for."""
from __future__ import annotations

import numpy as np
import streamlit as st

from eyedp_core.dp.registry import Family
from eyedp_core.heatmaps import expectation
from eyedp_core.heatmaps.expectation import Expected, HeadlineMetric
from eyedp_core.heatmaps.targets import DEFAULT_Q, hot_spots_kept
from ui.heatmaps import images, targets, view
from ui.heatmaps.settings import MECHS
from ui.numbers import Number, numbers_html
from ui.text import html_text
from ui.widgets import WATERMARK_HTML, fmt_num

EMD_KEY = "hm_emd"


def overlays(ctx: view.Context) -> None:
    """The clean and the noisy overlay side by side as ONE picture (images.pair_jpeg), their titles in its caption:
    one element per slider move."""
    clean_key = ("clean", ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px)
    noisy_key = ("noisy",) + preview_key(ctx)
    title = f"**Noisy heatmap** — {MECHS[ctx.mechanism]}, ε = {fmt_num(ctx.epsilon)}"
    if ctx.delta_used:
        title += f", δ = {fmt_num(ctx.delta_used)}"
    st.image(images.pair_jpeg(clean_key, noisy_key, ctx.stimulus.token, ctx.cell_px, ctx.clean.vmax,
                              ctx.stimulus.image, ctx.clean.smooth, ctx.preview.smooth), width="stretch",
             caption=f"Left: **Clean heatmap** (no noise — not publishable). Right: {title}.")


def grid_caption(ctx: view.Context) -> str:
    """Context -> the colour scale and the grid (cell size, kernel) in words."""
    gm = ctx.gaze_maps
    return (f"Both use the same colour scale, 0 to the clean map's maximum ({fmt_num(ctx.clean.vmax)} "
            f"{ctx.unit}); noisy cells below 0 are transparent and cells above the maximum take the top "
            f"colour. Grid {gm.grid_shape[0]} × {gm.grid_shape[1]} = {gm.n_cells:,} cells of {ctx.cell_px} px "
            f"on a {ctx.width} × {ctx.height} px stimulus; kernel σ = {ctx.degrees:g}° = {ctx.sigma_px:.1f} px."
            + (f" {gm.n_dropped} fixations without coordinates were left out." if gm.n_dropped else ""))


def numbers_markdown(ctx: view.Context) -> str:
    """Context -> the preview notice, the colour bar with the grid caption and the metrics row, as HTML for one
    markdown element (the page appends the noise scale and the accounting to it)."""
    return (WATERMARK_HTML + images.colour_bar_html(ctx.clean.vmax, view.BAR_UNITS[ctx.weight])
            + f'<div class="eyedp-note">{html_text(grid_caption(ctx))}</div>\n\n' + metrics_html(ctx))


def preview_key(ctx: view.Context) -> tuple:
    """Everything the noisy preview depends on (the cache key of its image and of its EMD)."""
    return (ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px, ctx.epsilon, ctx.delta, ctx.mechanism,
            ctx.method, ctx.preview_seed)


def emd_toggle() -> None:
    """The EMD switch (drawn by the `rare` part under the map sliders: a slider move does not re-send it)."""
    st.toggle("EMD", key=EMD_KEY,
              help="Earth mover's distance: how far gaze mass must move, in px. Solved as a linear program on the "
                   f"maps summed into at most {view.EMD_BINS} × {view.EMD_BINS} blocks, so it is computed only when "
                   "switched on.")


# A shared read-only object (st.cache_resource: no pickled copy of R fields per move).
@st.cache_resource(show_spinner=False, max_entries=8)
def unit_fields(maps_key: tuple, shape: tuple[int, int], sigma_px: float, cell: int, mechanism: Family) -> np.ndarray:
    """Gaze-map key, grid shape, kernel, cell and noise family -> the R smoothed unit-noise fields of the expectation
    (drawn once: an ε, δ or cap move only rescales them)."""
    fields = expectation.smoothed_unit_fields(shape, sigma_px, cell, mechanism,
                                              R=expectation.draws_for_cells(shape[0] * shape[1]))
    fields.setflags(write=False)
    return fields


@st.cache_data(show_spinner=False, max_entries=64)
def expected_metrics(key: tuple, scale: float, q: float, _clean_smooth: np.ndarray,
                     _fields: np.ndarray) -> dict[HeadlineMetric, Expected]:
    """Clean-map key (maps key, caps, kernel, noise family), the calibration's noise scale and q -> each headline
    metric's mean and 10–90 % band over the seeded draws (the preview seed is not in the key: it does not move)."""
    return expectation.expected_metrics(_clean_smooth, _fields, scale, q=q)


def expected(ctx: view.Context, q: float) -> dict[HeadlineMetric, Expected]:
    """Context and hot-spot share q -> the expected headline metrics at the page's setting (cached)."""
    fields = unit_fields(ctx.maps_key, ctx.gaze_maps.grid_shape, ctx.sigma_px, ctx.cell_px, ctx.mechanism)
    key = (ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px, ctx.mechanism)
    return expected_metrics(key, float(ctx.preview.calibration.scale), float(q), ctx.clean.smooth, fields)


def _pct(v: float) -> str:
    """A share as a whole percentage ('16 %')."""
    return f"{100 * v:.0f} %"


def expected_numbers(ctx: view.Context, q: float) -> list[Number]:
    """The expected CC, hot spots kept, NMSE and MSE with their 10–90 % bands, as numbers labelled 'Expected …'."""
    exp = expected(ctx, q)
    R = exp[HeadlineMetric.CC].draws
    why = (f"Mean over {R} seeded draws of this setting's noise (seeds fixed: changing the preview seed does not "
           "move it); in brackets the 10–90 % band of single draws, what one release may give.")
    fmts = {HeadlineMetric.CC: lambda v: f"{v:.2f}", HeadlineMetric.HOT_SPOTS: _pct,
            HeadlineMetric.NMSE: lambda v: f"{v:.3g}", HeadlineMetric.MSE: lambda v: f"{v:.3g}"}
    labels = {HeadlineMetric.CC: "Expected CC", HeadlineMetric.HOT_SPOTS: "Expected hot spots kept",
              HeadlineMetric.NMSE: "Expected NMSE", HeadlineMetric.MSE: "Expected MSE"}
    out = []
    for m, f in fmts.items():
        e = exp[m]
        value = "n/a" if not np.isfinite(e.mean) else f"{f(e.mean)} (10–90 %: {f(e.low)}–{f(e.high)})"
        out.append(Number(labels[m], value, why))
    return out


def metrics_html(ctx: view.Context) -> str:
    """The expected CC, hot spots kept, NMSE and MSE with their bands first; then this preview draw's CC and NMSE,
    MSE, KL, SIM; EMD when its switch is on (method stated): two HTML rows in one element (with the noise scale under
    it: all are re-sent on every slider move)."""
    met = ctx.preview.metrics
    q = targets.q_value()
    kept = met["hot_spots"] if q == DEFAULT_Q else hot_spots_kept(ctx.clean.smooth, ctx.preview.smooth, q)
    head = (f'<div class="eyedp-note">Expected over {expectation.draws_for_cells(ctx.gaze_maps.n_cells)} seeded draws '
            "of this setting (10–90 % band of single draws):</div>\n\n")
    draw_head = (f'\n\n<div class="eyedp-note">This preview draw (seed {ctx.preview_seed}, the map above): one draw, '
                 "luck included.</div>\n\n")
    shown = [
        Number("CC", f"{met['cc']:.3f}", "Pearson correlation with the clean heatmap (1 = identical)."),
        Number("Hot spots kept", f"{100 * kept:.0f} %",
               f"Share of the clean heatmap's top {100 * q:g} % of cells (its hot spots) that are also among the noisy "
               "heatmap's top cells (1 = every hot spot kept). q is set in the Target finder panel."),
        Number("NMSE", f"{met['nmse']:.3g}", "‖noisy − clean‖² / ‖clean‖² (0 = perfect, 1 = as bad as an empty map)."),
        Number("MSE", f"{met['mse']:.3g}", f"Mean squared difference per cell ({ctx.short_unit}²)."),
        Number("KL (nats)", f"{met['kl']:.3g}", "KL divergence of the clean from the noisy distribution (0 = same)."),
        Number("SIM", f"{met['sim']:.3f}", "Histogram intersection of the two distributions (1 = identical)."),
    ]
    if st.session_state.get(EMD_KEY, False):
        val = view.emd_px(preview_key(ctx), ctx.cell_px, ctx.clean.smooth, ctx.preview.smooth)
        shown.append(Number("EMD (px)", f"{val:.0f}",
                            f"On at most {view.EMD_BINS} × {view.EMD_BINS} blocks of the smoothed maps."))
    return head + numbers_html(expected_numbers(ctx, q)) + draw_head + numbers_html(shown)
