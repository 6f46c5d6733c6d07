"""The clean and noisy heatmaps side by side (JPEG images at display size), their colour bar and the metrics.

Headline metrics (CC, NMSE, MSE, KL, SIM) come with every move; the earth mover's distance, a linear program,
is computed only when asked for."""
from __future__ import annotations

import streamlit as st

from ui.heatmaps import images, view
from ui.heatmaps.settings import MECHS
from ui.widgets import fmt_num, preview_watermark


def preview_section(ctx: view.Context) -> None:
    """Clean vs noisy overlay, colour bar, caption, metrics."""
    clean, prev, gm = ctx.clean, ctx.preview, ctx.gaze_maps
    preview_watermark()
    left, right = st.columns(2, gap="small")
    clean_key = ("clean", ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px)
    left.markdown("**Clean heatmap** (no noise — not publishable)")
    left.image(images.cached_overlay_jpeg(clean_key, ctx.stimulus.token, ctx.cell_px, clean.vmax,
                                          ctx.stimulus.image, clean.smooth), width="stretch")
    title = f"**Noisy heatmap** — {MECHS[ctx.mechanism]}, ε = {fmt_num(ctx.epsilon)}"
    if ctx.delta_used:
        title += f", δ = {fmt_num(ctx.delta_used)}"
    right.markdown(title)
    noisy_key = ("noisy",) + preview_key(ctx)
    right.image(images.cached_overlay_jpeg(noisy_key, ctx.stimulus.token, ctx.cell_px, clean.vmax,
                                           ctx.stimulus.image, prev.smooth), width="stretch")
    st.html(images.colour_bar_html(clean.vmax, view.BAR_UNITS[ctx.weight]))
    st.caption(f"Both use the same colour scale, 0 to the clean map's maximum ({fmt_num(clean.vmax)} {ctx.unit}); "
               f"noisy cells below 0 are transparent and cells above the maximum take the top colour. Grid "
               f"{gm.grid_shape[0]} × {gm.grid_shape[1]} = {gm.n_cells:,} cells of {ctx.cell_px} px on a "
               f"{ctx.width} × {ctx.height} px stimulus; kernel σ = {ctx.sigma_px:.1f} px."
               + (f" {gm.n_dropped} fixations without coordinates were left out." if gm.n_dropped else ""))
    _metrics(ctx)


def preview_key(ctx: view.Context) -> tuple:
    """Everything the noisy preview depends on (the cache key of its image and of its EMD)."""
    return (ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px, ctx.epsilon, ctx.delta, ctx.mechanism,
            ctx.method, ctx.preview_seed)


def _metrics(ctx: view.Context) -> None:
    """CC and NMSE first, then MSE, KL, SIM; EMD on request (method stated)."""
    met = ctx.preview.metrics
    # One horizontal container instead of six columns: fewer elements re-sent on every slider move.
    row = st.container(horizontal=True, gap="large", horizontal_alignment="distribute")
    mc = [row] * 6
    mc[0].metric("CC", f"{met['cc']:.3f}", help="Pearson correlation with the clean heatmap (1 = identical).")
    mc[1].metric("NMSE", f"{met['nmse']:.3g}",
                 help="‖noisy − clean‖² / ‖clean‖² (0 = perfect, 1 = as bad as an empty map).")
    mc[2].metric("MSE", f"{met['mse']:.3g}", help=f"Mean squared difference per cell ({ctx.short_unit}²).")
    mc[3].metric("KL (nats)", f"{met['kl']:.3g}",
                 help="KL divergence of the clean from the noisy distribution (0 = same).")
    mc[4].metric("SIM", f"{met['sim']:.3f}", help="Histogram intersection of the two distributions (1 = identical).")
    with row:
        if st.toggle("EMD", key="hm_emd",
                     help="Earth mover's distance: how far gaze mass must move, in px. Solved as a linear "
                          f"program on the maps summed into at most {view.EMD_BINS} × {view.EMD_BINS} blocks, "
                          "so it is computed only when switched on."):
            val = view.emd_px(preview_key(ctx), ctx.cell_px, ctx.clean.smooth, ctx.preview.smooth)
            st.metric("EMD (px)", f"{val:.0f}",
                      help=f"On at most {view.EMD_BINS} × {view.EMD_BINS} blocks of the smoothed maps.")
