"""Heatmaps view: the privacy accounting box and the explicit "Export (private release)" action.

Previews never touch the ledger. An export draws fresh OpenDP noise (no seed) on the aggregate at cell
resolution, records a Release per export in the session's ledger (this view's releases are replaced by
the list of all its exports, so reruns never double-count) and offers CSV, PNG and metadata downloads.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.heatmaps import maps as heatmaps

from eyedp_core.io import uploads as io
from eyedp_core.dp.accounting import Release
from eyedp_core.dp.release import release_gaussian, release_laplace
from ui.heatmaps import view as hv
from ui import state
from ui.widgets import badge, fmt_num

VIEW = "Heatmaps"
MAX_EXPORT_CELLS = 300_000
SECONDS_PER_VALUE = 7e-6  # OpenDP's lattice samplers, measured


@st.cache_data(show_spinner=False, max_entries=64)
def opendp_sigma(l2: float, eps: float, delta: float, sigma0: float) -> float:
    """Δ2, (ε, δ) and the calibrated σ0 -> the smallest σ >= σ0 that OpenDP's own accounting certifies.

    OpenDP accounts its discrete Gaussian through zCDP, which is looser than the exact analytic
    calibration (docs/PRIVACY_MODEL.md §11); bisection on OpenDP's reported ε over a one-value domain."""
    def eps_of(sigma: float) -> float:
        return float(release_gaussian(np.zeros(1), sigma, sensitivity=l2, delta=delta)[1]["epsilon"])

    if eps_of(sigma0) <= eps:
        return sigma0
    lo, hi = sigma0, sigma0 * 1.05
    while eps_of(hi) > eps:
        lo, hi = hi, hi * 1.25
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if eps_of(mid) > eps else (lo, mid)
    return hi * (1 + 1e-6)


def export_scale(ctx: hv.Context) -> float:
    """Context -> the noise scale of the export: Laplace b, or a Gaussian σ that OpenDP certifies."""
    cal = ctx.preview.calibration
    if ctx.mechanism == "laplace":
        return cal.scale
    return opendp_sigma(ctx.sens.l2, ctx.eps, ctx.delta, cal.scale)


def _selection_epsilon(ctx: hv.Context) -> float:
    """ε spent by a DP choice of the cap m (0 when m is fixed or chosen by Algorithm 1)."""
    return float(ctx.tuned["epsilon"]) if ctx.tuned and ctx.tuned.get("how") == "dp" else 0.0


def accounting_box(ctx: hv.Context) -> None:
    """Unit of privacy, ε per observer for this stimulus, total over several stimuli, ledger so far."""
    st.subheader("Privacy accounting")
    left, right = st.columns([1.5, 1], gap="large")
    eps_sel = _selection_epsilon(ctx)
    with left:
        st.markdown(
            f"**Unit of privacy: one observer's whole gaze map on this stimulus.** Neighbouring datasets differ "
            f"by replacing one observer's entire (capped) map; the number of observers **n = {ctx.n}** is "
            f"public. This page releases **one stimulus** ('{ctx.stim.name}'): each observer is protected with "
            f"**ε = {fmt_num(ctx.eps)}, δ = {fmt_num(ctx.delta_used)}**"
            + (f", plus **ε = {fmt_num(eps_sel)}** for the private choice of m." if eps_sel else ".")
            + " Heatmaps of several stimuli from the same observers read the same people and **compose "
              "sequentially**: their ε (and δ) add up.")
        if ctx.tuned and ctx.tuned.get("how") == "algorithm1":
            st.warning(f"The cap m = {ctx.m:g} was chosen by Algorithm 1 on the private maps: tuned on private "
                       "data — the stated ε excludes the tuning. Fix m in advance or choose it privately "
                       "(Optimal cap panel).", icon=":material/warning:")
    with right:
        k = int(st.number_input("Stimuli released from these observers", 1, 500, 1, key="hm_k_stimuli",
                                help="Each stimulus' heatmap costs the (ε, δ) above; basic sequential "
                                     "composition adds them."))
        a, b = st.columns(2)
        a.metric("Total ε per observer", fmt_num(k * ctx.eps + eps_sel),
                 help=f"{k} × {fmt_num(ctx.eps)}" + (f" + {fmt_num(eps_sel)} (choice of m)" if eps_sel else ""))
        b.metric("Total δ per observer", fmt_num(k * ctx.delta_used), help=f"{k} × {fmt_num(ctx.delta_used)}")
        led_eps, led_delta = state.ledger().total()
        st.caption(f"Recorded in this session's ledger so far (every view, worst-case person): ε = "
                   f"{fmt_num(led_eps)}, δ = {fmt_num(led_delta)}. Previews are not recorded; exports are.")


def _release(ctx: hv.Context, scale: float) -> tuple[np.ndarray, dict]:
    """Context and noise scale -> (noisy aggregate from OpenDP, release metadata)."""
    if ctx.mechanism == "gaussian":
        return release_gaussian(ctx.clean.agg, scale, sensitivity=ctx.sens.l2, delta=ctx.delta)
    return release_laplace(ctx.clean.agg, scale, sensitivity=ctx.sens.l1)


def _record(ctx: hv.Context, eps_charged: float, label: str) -> None:
    """Add this export (and a DP choice of m, once) to the view's releases and the session ledger."""
    who = tuple(str(o) for o in ctx.gm.observers)
    exports: list[Release] = st.session_state.setdefault("hm_exports", [])
    recorded: set = st.session_state.setdefault("hm_recorded_selections", set())
    if ctx.tuned and ctx.tuned.get("how") == "dp" and ctx.tuned.get("id") not in recorded:
        exports.append(Release(view=VIEW, label=f"DP choice of the cap m = {ctx.m:g} ({ctx.tuned['method']})",
                               unit="observer", mechanism=ctx.tuned["method"], sensitivity_type="public",
                               epsilon=float(ctx.tuned["epsilon"]), participants=who))
        recorded.add(ctx.tuned.get("id"))
    exports.append(Release(view=VIEW, label=label, unit="observer",
                           mechanism=f"{ctx.mechanism} ({ctx.preview.calibration.method})",
                           sensitivity_type="public", epsilon=eps_charged,
                           delta=ctx.delta_used, participants=who,
                           tuned_on_private_data=bool(ctx.tuned and ctx.tuned.get("how") == "algorithm1")))
    state.ledger().replace_view(VIEW, exports)


def _files(ctx: hv.Context, released: np.ndarray, meta: dict) -> dict:
    """Released aggregate and metadata -> downloadable CSV, PNG (smoothed, post-processing) and JSON."""
    rows, cols = released.shape
    rr, cc = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    table = pd.DataFrame({"row": rr.ravel(), "col": cc.ravel(), "x0_px": cc.ravel() * ctx.cell,
                          "y0_px": rr.ravel() * ctx.cell, "value": released.ravel()})
    sm = heatmaps.smooth(released, ctx.sigma_px, ctx.cell)
    # The colour range comes from the released map itself: the clean map's maximum is private.
    vmax = float(np.quantile(np.clip(sm, 0, None), 0.999)) or 1.0
    png = hv.png_bytes(hv.composite(ctx.stim.token, ctx.stim.image, sm, ctx.cell, vmax, full_size=True))
    return {"csv": io.to_csv_bytes(table), "png": png, "json": json.dumps(meta, indent=2, default=str).encode()}


def export_section(ctx: hv.Context) -> None:
    """The explicit private release: OpenDP noise at cell resolution, ledger entry, downloads."""
    st.subheader("Export (private release)")
    r = ctx.gm.n_cells
    cal = ctx.preview.calibration
    if r > MAX_EXPORT_CELLS:
        st.error(f"The grid has {r:,} cells; exports are limited to {MAX_EXPORT_CELLS:,} cells (OpenDP draws "
                 f"about {1 / SECONDS_PER_VALUE / 1e3:.0f}k values per second). Choose a coarser cell size, e.g. "
                 f"{math.ceil(math.sqrt(ctx.width * ctx.height / MAX_EXPORT_CELLS))} px or more.",
                 icon=":material/block:")
        return
    scale = export_scale(ctx)
    raised = (f" — {scale / cal.scale:.3f}× the {cal.method} σ = {fmt_num(cal.scale)} of the preview, because "
              "OpenDP accounts its discrete Gaussian through zCDP, which needs a little more noise for the same "
              "(ε, δ) (docs/PRIVACY_MODEL.md §11)") if scale > cal.scale * (1 + 1e-5) else ""
    st.markdown(
        f"Releases the noisy aggregate of '{ctx.stim.name}' at cell resolution ({r:,} cells of {ctx.cell} px, "
        f"about {max(r * SECONDS_PER_VALUE, 0.1):.1f} s) with **fresh OpenDP noise** (discrete lattice sampler, "
        f"cryptographic RNG, no seed — not the preview above): {cal.mechanism.capitalize()} noise with "
        f"{'σ' if cal.mechanism == 'gaussian' else 'scale b'} = {fmt_num(scale)}{raised}. The release is "
        "recorded in the session's ledger (Report page) for every observer of this stimulus.")
    if st.button("Export (private release)", type="primary", key="hm_export", icon=":material/ios_share:"):
        with st.spinner(f"Drawing OpenDP noise for {r:,} cells…"):
            try:
                released, meta = _release(ctx, scale)
            except ValueError as err:
                st.error(f"The release failed: {err}")
                return
        eps_lib = meta.get("epsilon")
        eps_charged = max(ctx.eps, float(eps_lib)) if eps_lib is not None else ctx.eps
        label = (f"heatmap of '{ctx.stim.name}' ({released.shape[0]}×{released.shape[1]} cells of {ctx.cell} px, "
                 f"m = {ctx.m:g}{', C = ' + fmt_num(ctx.cap_total) if ctx.cap_total else ''})")
        meta.update(view=VIEW, stimulus=ctx.stim.name, unit="observer (whole gaze map on this stimulus)",
                    n_observers=ctx.n, cell_px=ctx.cell, grid_shape=list(released.shape), cap_m=ctx.m,
                    cap_total=ctx.cap_total, weight=ctx.weight, epsilon_requested=ctx.eps,
                    delta_requested=ctx.delta_used, calibration=cal.method, preview_scale=cal.scale,
                    epsilon_charged=eps_charged,
                    l1_sensitivity=ctx.sens.l1, l2_sensitivity=ctx.sens.l2,
                    tuned_on_private_data=bool(ctx.tuned and ctx.tuned.get("how") == "algorithm1"),
                    png_note=f"PNG: smoothed with σ = {ctx.sigma_px:.1f} px after the release (post-processing)")
        _record(ctx, eps_charged, label)
        st.session_state["hm_export_result"] = {"label": label, "eps": eps_charged, "eps_lib": eps_lib,
                                                "files": _files(ctx, released, meta)}
        st.rerun()  # the sidebar's ledger summary was drawn before this run recorded the release
    res = st.session_state.get("hm_export_result")
    if res:
        lib = (f" (OpenDP's own accounting of the release: ε = {fmt_num(res['eps_lib'])}; the ledger charges the "
               "larger of this and the requested ε)") if res["eps_lib"] is not None else ""
        st.success(f"Released {res['label']}; ledger charged ε = {fmt_num(res['eps'])}{lib}.",
                   icon=":material/check_circle:")
        st.markdown(badge("PRIVATE RELEASE (OpenDP)", "dp"), unsafe_allow_html=True)
        a, b, c = st.columns(3)
        a.download_button("Noisy aggregate (CSV)", res["files"]["csv"], "eyedp_heatmap_release.csv", "text/csv",
                          key="hm_dl_csv")
        b.download_button("Heatmap image (PNG)", res["files"]["png"], "eyedp_heatmap_release.png", "image/png",
                          key="hm_dl_png")
        c.download_button("Release metadata (JSON)", res["files"]["json"], "eyedp_heatmap_release.json",
                          "application/json", key="hm_dl_json")
        st.image(res["files"]["png"], width=640,
                 caption="The released map, smoothed after the release (post-processing); colour range from the "
                         "released map itself, since the clean map's maximum is private.")
