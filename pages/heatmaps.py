"""Heatmaps: private gaze heatmaps with a per-observer cap (Liu et al.; docs/PRIVACY_MODEL.md §6).

The page body draws only the title and the lead; everything that depends on a control is one fragment
(`_draw`), so a slider move re-runs that fragment and not the app shell. The accounting box and the export
are fragments inside it: their own widgets re-run only themselves."""
from __future__ import annotations

import streamlit as st

from eyedp_core.heatmaps import preview
from eyedp_core.heatmaps.calibration import privacy_warnings
from eyedp_core.heatmaps.release import MapsSource
import ui.share
from ui import runlog, state
from ui.fragment import fragment
from ui.heatmaps import noise, panels, previews, release, settings, view
from ui.shell import ensure_shell

ensure_shell()
runlog.note("page")
st.title("Heatmaps")
st.markdown("Private gaze heatmaps after Liu et al.: **the unit of privacy is one observer** — their whole gaze "
            "map on one stimulus. Each observer's map is capped at m per cell, the maps are averaged, noise is "
            "added to the average, and the heatmap is smoothed afterwards (smoothing is post-processing and costs "
            "no privacy).")


@fragment(name="study")
def _draw() -> None:
    """Data, settings, previews, noise scale, accounting, Explore and export."""
    fix_ds = state.current("fixations")
    stims = state.stimuli()
    top = st.columns([1, 1.1, 2.2], gap="medium")
    stim_name = top[0].selectbox("Stimulus", list(stims), key="hm_stimulus",
                                 help="The bundled stimuli, then images uploaded on the Your data page.")
    stim = stims[stim_name]
    H, W = stim.image.shape[:2]
    has_durations = fix_ds.frame is not None and "duration_ms" in fix_ds.frame.columns
    weights = ["count", "duration"] if has_durations else ["count"]
    weight = top[1].radio("Each fixation adds", weights, format_func=view.WEIGHTS.get, horizontal=True,
                          key="hm_weight", help="Dwell time makes the cap m and the map values seconds per cell.")
    try:
        sub, how = view.fixations_for_stimulus(fix_ds.token, fix_ds.name, stim_name, W, H, fix_ds.frame)
    except ValueError as err:  # io.DataError is a ValueError: bad coordinates, no matching rows, too few observers
        st.error(str(err), icon=":material/error:")
        st.page_link("pages/your_data.py", label="Upload fixations or a stimulus image", icon=":material/upload_file:")
        return
    n = int(sub["observer"].nunique())
    top[2].caption(f"**{n} observers**, {len(sub):,} fixations on '{stim_name}' ({W} × {H} px), from {how}. "
                   "Change the fixation table in the sidebar.")
    guarantee = st.container()
    s = settings.draw_settings(n, weight, upload=stim.source == "upload")

    key = (fix_ds.token, stim.token, s.cell, weight)
    try:
        gm = view.gaze_maps(*key, W, H, sub)
        sens = preview.maps_sensitivity(gm, s.cap_m, s.cap_total)
        clean = view.clean_maps(key, s.cap_m, s.cap_total, s.sigma_px, gm)
        prev = view.noisy_preview(key, s.cap_m, s.cap_total, s.sigma_px, s.epsilon, s.delta, s.mechanism,
                                  s.method, s.seed, clean, sens)
    except ValueError as err:
        st.error(f"These settings cannot be used: {err}", icon=":material/error:")
        return
    ctx = view.Context(fixations=fix_ds, stimulus=stim, maps_key=key, gaze_maps=gm,
                       source=MapsSource.of(gm, fixations=fix_ds.token, stimulus=stim.token, stimulus_name=stim_name),
                       sensitivity=sens, clean=clean, preview=prev, epsilon=s.epsilon, delta=s.delta,
                       mechanism=s.mechanism, method=s.method, cap_m=s.cap_m, cap_total=s.cap_total, cell_px=s.cell,
                       sigma_px=s.sigma_px, weight=weight, preview_seed=s.seed,
                       cap_choice=st.session_state.get(panels.CAP_CHOICE))
    guarantee.markdown(noise.guarantee_markdown(ctx))
    for w in privacy_warnings(s.epsilon, ctx.delta_used, n):
        st.warning(w, icon=":material/warning:")

    previews.preview_section(ctx)
    noise.noise_section(ctx)
    _accounting(ctx)
    _explore(ctx)
    st.divider()
    _export(ctx)
    ui.share.page_tools("heatmaps", ctx)  # settings JSON, script, what the report keeps of this view


@fragment
def _accounting(ctx: view.Context) -> None:
    """Unit of privacy, totals over several stimuli, ledger so far (its input re-runs only this part)."""
    release.accounting_box(ctx)


def _explore(ctx: view.Context) -> None:
    """The secondary panels, each computed only when chosen (ε-curves, cap, calculator, attack, planning).

    Not a fragment of its own: the Optimal cap panel's buttons set the cap m, which the whole study shows."""
    st.subheader("Explore")
    panel = st.segmented_control("Panel", list(panels.PANELS), format_func=panels.PANELS.get, key="hm_panel",
                                 label_visibility="collapsed")
    if panel is None:
        st.caption("Choose a panel to compute it: ε-curves (utility versus ε over repeated draws), the cap m that "
                   "minimises the expected error, the noise calculator, the difference attack, or planning for a "
                   "larger study. Each is computed when opened and then cached.")
        return
    panels.RUNNERS[panel](ctx)


@fragment
def _export(ctx: view.Context) -> None:
    """The explicit private release (its button re-runs only this part, then the app for the ledger)."""
    release.export_section(ctx)


_draw()
