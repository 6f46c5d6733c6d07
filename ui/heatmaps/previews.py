"""The clean and noisy heatmaps side by side (one JPEG picture at display size) and, as one element under it, the
preview notice, the colour bar, the grid caption and the metrics.

Headline metrics (CC, hot spots kept, NMSE, MSE, KL, SIM) come with every move; the earth mover's distance, a linear program,
is computed only when asked for."""
from __future__ import annotations

import streamlit as st

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


def metrics_html(ctx: view.Context) -> str:
    """CC and NMSE first, then MSE, KL, SIM; EMD when its switch is on (method stated): one HTML row (one element
    with the noise scale under it: both are re-sent on every slider move)."""
    met = ctx.preview.metrics
    q = targets.q_value()
    kept = met["hot_spots"] if q == DEFAULT_Q else hot_spots_kept(ctx.clean.smooth, ctx.preview.smooth, q)
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
    return numbers_html(shown)
