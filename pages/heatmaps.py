"""Heatmaps: private gaze heatmaps with a per-observer cap (Liu et al.; docs/PRIVACY_MODEL.md §6)."""
from __future__ import annotations

import streamlit as st

from eyedp_core.data import samples
from eyedp_core.dp.registry import Family
from eyedp_core.heatmaps import preview
from eyedp_core.heatmaps.calibration import calibration_table, privacy_level, privacy_presets, privacy_warnings
from eyedp_core.heatmaps.maps import sigma_px_from_degrees
from eyedp_core.heatmaps.release import MapsSource
from ui import state
from ui.heatmaps import figs, panels, release, view
from ui.shell import ensure_shell
from ui.widgets import badge, calibration_box, fmt_num, log_slider, preview_watermark

ensure_shell()

CELLS = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 64, 80, 100]
MECHS = {family.value: label for family, label in figs.MECH_LABEL.items()}
METHODS = {"analytic": "analytic (exact, any ε)", "classical": "classical (ε < 1 only)"}
DEFAULT_C = {"count": 30.0, "duration": 8.0}

st.title("Heatmaps")
st.caption("Private gaze heatmaps after Liu et al.: each observer's gaze map is capped at m per cell, the maps "
           "are averaged, noise is added to the average, and the heatmap is smoothed afterwards (smoothing is "
           "post-processing and costs no privacy).")

# ---- data -----------------------------------------------------------------------------------
fix_ds = state.current("fixations")
stims = state.stimuli()
top = st.columns([1, 1.1, 2.2], gap="medium")
stim_name = top[0].selectbox("Stimulus", list(stims), key="hm_stimulus",
                             help="The bundled stimuli, then images uploaded on the Your data page.")
stim = stims[stim_name]
H, W = stim.image.shape[:2]
has_durations = fix_ds.frame is not None and "duration_ms" in fix_ds.frame.columns
weights = ["count", "duration"] if has_durations else ["count"]
weight = top[1].radio("Each fixation adds", weights, format_func=view.WEIGHTS.get, horizontal=True, key="hm_weight",
                      help="Dwell time makes the cap m and the map values seconds per cell.")
try:
    sub, how = preview.fixations_for_stimulus(fix_ds.frame, fix_ds.name, stim_name, W, H)
except ValueError as err:  # io.DataError is a ValueError: bad coordinates, no matching rows, too few observers
    st.error(str(err), icon=":material/error:")
    st.page_link("pages/your_data.py", label="Upload fixations or a stimulus image", icon=":material/upload_file:")
    st.stop()
n = int(sub["observer"].nunique())
top[2].caption(f"**{n} observers**, {len(sub):,} fixations on '{stim_name}' ({W} × {H} px), from {how}. "
               "Change the fixation table in the sidebar.")

# ---- settings -------------------------------------------------------------------------------
presets = privacy_presets(n)
st.session_state.setdefault("hm_preset", "okay")
if st.session_state["hm_preset"] in presets:  # a preset follows n: δ = n^-1.5 or 1/n for this data
    p = presets[st.session_state["hm_preset"]]
    st.session_state["hm_eps"], st.session_state["hm_delta"] = p.epsilon, p.delta


def _clear_preset() -> None:
    """A manual ε or δ move leaves the preset."""
    st.session_state["hm_preset"] = None


m_key = panels.M_KEYS[weight]
with st.container(border=True):
    cp, cm, cg = st.columns([1.15, 0.9, 1.25], gap="large")
    with cp:
        st.segmented_control("Privacy level (Liu et al. §3.2)", list(presets), key="hm_preset",
                             format_func=lambda k: k.capitalize(),
                             help=" · ".join(f"{v.label}" for v in presets.values()))
        eps = log_slider("ε — privacy loss (log scale)", 0.01, 100.0, 1.0, "hm_eps", extra=(1.0, 3.0),
                         on_change=_clear_preset, help="Smaller ε = stronger privacy = more noise.")
        mech_now = st.session_state.get("hm_mech", Family.GAUSSIAN.value)  # its radio is drawn later in this run
        pure = Family(mech_now) is Family.LAPLACE  # Laplace noise is ε-DP: δ is not used
        delta = log_slider("δ — failure probability (log scale)", 1e-12, 0.5, n ** -1.5, "hm_delta",
                           extra=(1.0 / n, n ** -1.5), per_decade=3, on_change=_clear_preset,
                           disabled=pure, help=f"Keep δ well below 1/n = {fmt_num(1 / n)}; the paper "
                                               "uses n^-1.5. Not used by Laplace noise (pure ε-DP).")
        delta_used = preview.delta_spent(mech_now, delta)
        level = privacy_level(eps, delta_used, n)
        kind = {"good": "dp", "okay": "paper", "poor": "notdp"}.get(level, "preview")
        st.markdown(f"Level: {badge(level, kind)} ε = {fmt_num(eps)}, δ = {fmt_num(delta_used)}"
                    f"{' (Laplace: pure ε-DP)' if pure else ''}, n = {n}", unsafe_allow_html=True)
    with cm:
        mech = st.radio("Noise", list(MECHS), format_func=MECHS.get, horizontal=True, key="hm_mech")
        method = "analytic"  # the Gaussian calibration (also used for Gaussian curves when Laplace is shown)
        if Family(mech) is Family.GAUSSIAN:
            asked = st.radio("Gaussian calibration", list(METHODS), format_func=METHODS.get, key="hm_method")
            method = preview.gaussian_method(asked, eps)
            if method != asked:
                st.info("The classical calibration is proven only for ε < 1; the analytic one is used.",
                        icon=":material/info:")
        seed = int(st.number_input("Preview noise seed", 0, 1_000_000, 0, key="hm_seed",
                                   help="Previews use seeded numpy noise: the same seed gives the same noise "
                                        "pattern at every ε. Exports use fresh OpenDP noise."))
    with cg:
        cell = int(st.select_slider("Cell size (px)", CELLS, value=32, key="hm_cell",
                                    help="Gaze maps are counted on square cells; coarser cells mean fewer "
                                         "cells r and less noise per cell."))
        deg = st.slider("Kernel width σ (degrees of visual angle)", 0.0, 4.0, 1.5, 0.1, key="hm_deg",
                        help="Gaussian smoothing after the noise (post-processing). 0 = no smoothing.")
        st.session_state.setdefault(m_key, 1 if weight == "count" else 0.5)  # no value=: buttons may set m
        if weight == "count":
            m = float(st.slider("Cap m (fixations per observer per cell)", 1, 20, key=m_key))
        else:
            m = float(st.select_slider("Cap m (seconds per observer per cell)", panels.DURATION_CAPS, key=m_key))
        use_c = st.toggle("Also cap each observer's total at C", value=True, key="hm_use_c",
                          help="docs/PRIVACY_MODEL.md §6.1: with totals ≤ C the L2 sensitivity is at most √(2mC)/n.")
        cap_total = None
        if use_c:
            unit = "fixations" if weight == "count" else "seconds"
            cap_total = float(st.number_input(f"Total cap C ({unit} per observer)", min_value=0.01, max_value=1e6,
                                              value=DEFAULT_C[weight], key=f"hm_c_{weight}",
                                              help="A public number fixed in advance (e.g. trial length × "
                                                   "fixation rate), not read off the data."))
    with st.expander("Screen geometry (converts the kernel width from degrees to pixels)",
                     expanded=stim.source == "upload"):
        g0 = samples.SAMPLE_SCREEN
        g = st.columns(3)
        wpx = int(g[0].number_input("screen width (px)", 100, 20000, g0.width_px, key="hm_wpx"))
        wcm = float(g[1].number_input("screen width (cm)", 5.0, 1000.0, float(g0.width_cm), key="hm_wcm"))
        dist = float(g[2].number_input("viewing distance (cm)", 10.0, 1000.0, float(g0.distance_cm),
                                       key="hm_dist"))
        sigma_px = sigma_px_from_degrees(deg, wpx, wcm, dist)
        st.caption(f"σ = {deg:g}° = {sigma_px:.1f} px (assuming the stimulus was shown at its own pixel size).")

# ---- compute --------------------------------------------------------------------------------
key = (fix_ds.token, stim.token, cell, weight)
try:
    gm = view.gaze_maps(*key, W, H, sub)
    sens = preview.maps_sensitivity(gm, m, cap_total)
    clean = view.clean_maps(key, m, cap_total, sigma_px, gm)
    prev = preview.noisy_preview(clean, sens, epsilon=eps, delta=delta, mechanism=mech, method=method, seed=seed,
                                 sigma_px=sigma_px, cell_px=cell)
except ValueError as err:
    st.error(f"These settings cannot be used: {err}", icon=":material/error:")
    st.stop()
ctx = view.Context(fixations=fix_ds, stimulus=stim, maps_key=key, gaze_maps=gm,
                   source=MapsSource.of(gm, fixations=fix_ds.token, stimulus=stim.token, stimulus_name=stim_name),
                   sensitivity=sens, clean=clean, preview=prev, epsilon=eps, delta=delta, mechanism=mech,
                   method=method, cap_m=m, cap_total=cap_total, cell_px=cell, sigma_px=sigma_px, weight=weight,
                   preview_seed=seed, cap_choice=st.session_state.get(panels.CAP_CHOICE))
for w in privacy_warnings(eps, ctx.delta_used, n):
    st.warning(w, icon=":material/warning:")

# ---- clean vs noisy -------------------------------------------------------------------------
preview_watermark()
left, right = st.columns(2, gap="small")
left.plotly_chart(ctx.overlay(clean.smooth, clean.vmax, "Clean heatmap (no noise — not publishable)", 420,
                              cache_key=("clean", key, m, cap_total, sigma_px)),
                  key="hm_clean_chart")
noisy_title = f"Noisy heatmap — {MECHS[mech]}, ε = {fmt_num(eps)}" + ("" if pure else f", δ = {fmt_num(delta)}")
right.plotly_chart(ctx.overlay(prev.smooth, clean.vmax, noisy_title, 420), key="hm_noisy_chart")
st.caption(f"Both use the same colour scale, 0 to the clean map's maximum ({fmt_num(clean.vmax)} {ctx.unit}); "
           f"noisy cells below 0 are shown as 0 and above the maximum as the top colour. Grid {gm.grid_shape[0]} × "
           f"{gm.grid_shape[1]} = {gm.n_cells:,} cells of {cell} px; kernel σ = {sigma_px:.1f} px."
           + (f" {gm.n_dropped} fixations without coordinates were left out." if gm.n_dropped else ""))
met = prev.metrics
mc = st.columns(6)
mc[0].metric("CC", f"{met['cc']:.3f}", help="Pearson correlation with the clean heatmap (1 = identical).")
mc[1].metric("MSE", f"{met['mse']:.3g}", help=f"Mean squared difference per cell ({ctx.short_unit}²).")
mc[2].metric("NMSE", f"{met['nmse']:.3g}",
              help="‖noisy − clean‖² / ‖clean‖² (0 = perfect, 1 = as bad as an empty map).")
mc[3].metric("KL (nats)", f"{met['kl']:.3g}",
              help="KL divergence of the clean from the noisy distribution (0 = same).")
mc[4].metric("SIM", f"{met['sim']:.3f}", help="Histogram intersection of the two distributions (1 = identical).")
mc[5].metric("EMD (px)", f"{met['emd_px']:.0f}",
              help="Earth mover's distance: how far gaze mass must move, in px.")

# ---- noise scale ----------------------------------------------------------------------------
st.subheader("Noise scale")
cal = prev.calibration
st.markdown(f"**Sensitivity of the capped mean map** — neighbours replace one observer's whole map, n = {n} is "
            f"public, entries are capped at m = {m:g}"
            f"{f' and totals at C = {fmt_num(cap_total)}' if cap_total else ''} (Δ₂ is set by the {sens.binding}).")
s1, s2 = st.columns(2, gap="large")
with s1:
    st.latex(sens.l2_tex)
    st.latex(sens.l2_plugged)
with s2:
    st.latex(sens.l1_tex)
    st.latex(sens.l1_plugged)
table = calibration_table(sens, eps, delta)
liu = next(c for c in table if c.method == "liu-thm-3.4")
gaussian = Family(mech) is Family.GAUSSIAN
u, v = st.columns([1.6, 1], gap="large")
with u:
    calibration_box(cal, f"{MECHS[mech]} noise used here" + ("" if pure else f" — {cal.method} calibration"))
with v:
    a, b = st.columns(2)
    a.metric("Δ₂ (L2 sensitivity)", f"{sens.l2:.6g}")
    b.metric("Δ₁ (L1 sensitivity)", f"{sens.l1:.6g}")
    if gaussian:
        a.metric("Noise σ per cell", f"{cal.std:.6g}")
        b.metric("Liu Thm 3.4 σ (paper)", f"{liu.std:.6g}", help="As in the paper; see below.")
    else:
        a.metric("Laplace scale b", f"{cal.scale:.6g}")
        b.metric("Noise std √2·b", f"{cal.std:.6g}", help="Liu et al.'s 'noise level' σ_L.")
p_, q = st.columns([1.6, 1], gap="large")
with p_:
    if gaussian:
        calibration_box(liu, "As in the paper: Liu et al. Theorem 3.4")
    else:
        st.markdown("**As in the paper: Liu et al. Theorem 3.5** " + badge("σ_L is a standard deviation", "paper"),
                    unsafe_allow_html=True)
        paper = (r"\frac{\sqrt{2}\,m\,r}{\varepsilon\, n}" if cap_total is None
                 else r"\sqrt{2}\,\frac{\Delta_1}{\varepsilon}")
        st.latex(rf"\sigma_L \ge {paper} = {cal.std:.6g} = \sqrt{{2}}\,b")
        if cap_total is not None:
            st.caption("The paper has Δ₁ = m·r/n; with the total cap C, Δ₁ = min(m·r, 2C)/n.")
with q:
    if gaussian:
        st.markdown(f"**Paper vs correct:** Liu's σ = {fmt_num(liu.std)} is {liu.std / cal.std:.2f}× the "
                    f"{cal.method} σ = {fmt_num(cal.std)}. Theorem 3.4's proof is wrong in general (docs/PRIVACY_MODEL.md "
                    "§6.2): its σ is enough only when r ≥ r*, and then it adds more noise than needed.")
    else:
        st.markdown(f"**Scale or standard deviation?** Liu's 'noise level' σ_L = {fmt_num(cal.std)} is the "
                    f"standard deviation √2·b. Passing σ_L as numpy's Laplace *scale* adds √2× too much noise; "
                    f"passing b = {fmt_num(cal.scale)} where a standard deviation is expected adds too little "
                    "(unsafe).")
with st.expander("All calibrations side by side (analytic, classical, Liu Thm 3.4, Laplace)"):
    st.dataframe([{"mechanism": c.mechanism, "calibration": c.method, "scale (σ or b)": c.scale, "std": c.std,
                   "guarantee": c.guarantee if c.valid else "NOT the stated guarantee", "note": c.note}
                  for c in table], hide_index=True)

release.accounting_box(ctx)

# ---- secondary panels (only the chosen one runs) -------------------------------------------
st.subheader("Explore")
st.session_state.setdefault("hm_panel", "curves")
panel = st.segmented_control("Panel", list(panels.PANELS), format_func=panels.PANELS.get, key="hm_panel",
                             on_change=panels.keep_a_panel, label_visibility="collapsed")
panels.remember_panel(panel)
panels.RUNNERS[panel or "curves"](ctx)

st.divider()
release.export_section(ctx)

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page
ui.share.page_tools("heatmaps", globals().get("ctx"))  # None if the view context moved into a fragment
