"""Heatmaps: private gaze heatmaps with a per-observer cap (Liu et al.; docs/PRIVACY_MODEL.md §6).

The page body draws only the title and the lead. Nested fragments draw the rest, so that a control re-runs
only what depends on it (the innermost holds the controls moved most often):
- `study` (stimulus, weighting): lays out the page's containers, then runs `rare`;
- `rare` (noise family, calibration, seed, screen geometry, the number of stimuli): runs `grid`;
- `grid` (cell size, kernel, caps): the clean overlay, its colour bar and caption, the export (its text depends
  on the grid only), and `privacy`;
- `privacy` (level, ε, δ): the guarantee, the noisy overlay and metrics, the noise scale, the accounting, the
  open Explore panel and the open share box (its switch is drawn by `rare`).
Each writes into containers laid out by `study` (Streamlit keeps a fragment's writes to an outside container in
place on its re-runs), so the guarantee still leads and the controls sit together in one box, while an ε move
re-sends neither the map controls nor the clean overlay."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui.share
from eyedp_core.heatmaps.calibration import privacy_warnings
from eyedp_core.heatmaps.preview import TooFewObservers
from ui import runlog, state
from ui.fragment import fragment
from ui.heatmaps import noise, panels, previews, release, settings, view
from ui.shell import ensure_shell
from ui.text import md_text
from ui.widgets import preview_watermark

ensure_shell()
runlog.note("page")
st.title("Heatmaps")
st.markdown("Private gaze heatmaps after Liu et al.: **the unit of privacy is one observer** — their whole gaze "
            "map on one stimulus. Each observer's map is capped at m per cell, the maps are averaged, noise is "
            "added to the average, and the heatmap is smoothed afterwards (smoothing is post-processing and costs "
            "no privacy).")


@dataclass(frozen=True, eq=False)
class Slots:
    """The containers `study` lays out, in page order; `grid` and `privacy` fill them."""

    guarantee: DeltaGenerator
    privacy_col: DeltaGenerator
    noise_col: DeltaGenerator
    grid_col: DeltaGenerator
    geometry: DeltaGenerator
    clean: DeltaGenerator
    noisy: DeltaGenerator
    below: DeltaGenerator
    noise: DeltaGenerator
    derivation: DeltaGenerator
    accounting: DeltaGenerator
    stimuli: DeltaGenerator
    explore: DeltaGenerator
    export: DeltaGenerator
    share: DeltaGenerator
    share_switch: DeltaGenerator
    share_box: DeltaGenerator


def _layout(upload: bool) -> Slots:
    """The page's containers under the data row (headings are static: drawn once per study run)."""
    guarantee = st.container()
    with st.container(border=True):
        cp, cm, cg = st.columns([1.15, 0.9, 1.25], gap="large")
        geometry = st.expander("Screen geometry (converts the kernel width from degrees to pixels)", expanded=upload)
    preview_watermark()
    clean, noisy = st.columns(2, gap="small")
    below = st.container()
    noise_c = st.container()  # the metrics, the "Noise scale" heading and its sentence: one element per ε move
    derivation = noise.derivation_expander()  # opening it re-runs the study; `privacy` fills it while open
    st.subheader("Privacy accounting")
    accounting, stimuli = st.columns([1.5, 1], gap="large")
    st.subheader("Explore")
    panel = st.segmented_control("Panel", list(panels.PANELS), format_func=panels.PANELS.get, key="hm_panel",
                                 label_visibility="collapsed")  # a choice re-runs the study: panels are heavy anyway
    if panel is None:
        st.caption("Choose a panel to compute it: ε-curves (utility versus ε over repeated draws), the cap m that "
                   "minimises the expected error, the noise calculator, the difference attack, or planning for a "
                   "larger study. Each is computed when opened and then cached.")
    explore = st.container()
    st.divider()
    st.subheader("Export (private release)")
    export = st.container()
    return Slots(guarantee=guarantee, privacy_col=cp, noise_col=cm, grid_col=cg, geometry=geometry, clean=clean,
                 noisy=noisy, below=below, noise=noise_c, derivation=derivation,
                 accounting=accounting, stimuli=stimuli, explore=explore,
                 export=export, share=st.container(), share_switch=st.container(), share_box=st.container())


@fragment(name="study")
def _study() -> None:
    """Data row; then the map controls and everything under them (stimulus and weighting change all of it)."""
    fix_ds = state.current("fixations")
    settings.start_from_upload_geometry(fix_ds)  # the screen given on Your data sets the kernel's pixels
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
    except TooFewObservers as err:  # the data are fine: one reader gives no mean over observers
        st.info(md_text(err), icon=":material/info:")
        st.page_link("pages/your_data.py", label="Upload fixations of more observers", icon=":material/upload_file:")
        return
    except ValueError as err:  # io.DataError is a ValueError: bad coordinates, no matching rows
        st.error(md_text(err), icon=":material/error:")
        st.page_link("pages/your_data.py", label="Upload fixations or a stimulus image", icon=":material/upload_file:")
        return
    study = view.Study(fixations=fix_ds, stimulus=stim, stimulus_name=stim_name, weight=weight,
                       fixations_on_stimulus=sub, how=how)
    top[2].caption(f"**{study.n_observers} observers**, {len(sub):,} fixations on '{md_text(stim_name)}' ({W} × {H} px), "
                   f"from {md_text(how)}. Change the fixation table in the sidebar.")
    slots = _layout(stim.source == "upload")
    with st.container():  # the parts' own (empty) regions sit at the end of the page, not in a column of the box
        _rare(study, slots)


def _context(study: view.Study, where: DeltaGenerator) -> view.Context | None:
    """The view's context at the current settings, or None after an error message in `where`."""
    try:
        return view.context(study, settings.read_settings(study.n_observers, study.weight))
    except ValueError as err:
        where.error(f"These settings cannot be used: {md_text(err)}", icon=":material/error:")
        return None


@fragment(name="rare")
def _rare(study: view.Study, slots: Slots) -> None:
    """`grid` first of all; then the controls changed rarely: noise family, calibration, seed, screen geometry
    and the number of stimuli (outermost, so that a map or privacy move does not re-send them).

    Each part calls the part nested in it before it writes anything, and writes only into the page's
    containers: a fragment's identity includes the position it is called at, which must not change between the
    study's run and a part's own re-runs (else its writes to the page's containers find no reserved place)."""
    _grid(study, slots)
    settings.draw_noise(slots.noise_col)
    settings.draw_geometry(slots.geometry)
    with slots.share_switch:  # here, not in `privacy`: an ε move does not re-send it
        ui.share.share_toggle()
    with slots.stimuli:
        release.stimuli_input()


@fragment(name="grid")
def _grid(study: view.Study, slots: Slots) -> None:
    """`privacy` first of all; then the map controls, the clean overlay with its colour bar, and the export."""
    _privacy(study, slots)
    with slots.grid_col:
        settings.draw_grid(study.weight)
    ctx = _context(study, slots.below)
    if ctx is not None:
        with slots.clean:
            previews.clean_part(ctx, slots.below)
        with slots.export:  # its text follows the grid, not ε; its button re-runs this part with the settings now
            release.export_section(ctx)


@fragment(name="privacy")
def _privacy(study: view.Study, slots: Slots) -> None:
    """Level, ε and δ; the guarantee and everything that follows them (the EMD switch, the panels' own controls
    and the share box re-run this part too)."""
    with slots.privacy_col:
        settings.draw_privacy(study.n_observers)
    ctx = _context(study, slots.guarantee)
    if ctx is None:
        return
    with slots.guarantee:
        # The guarantee and the level line in one element (re-sent on every ε move).
        st.markdown(noise.guarantee_markdown(ctx) + "\n\n"
                    + settings.level_markdown(settings.read_settings(ctx.n_observers, ctx.weight), ctx.n_observers),
                    unsafe_allow_html=True)
        for w in privacy_warnings(ctx.epsilon, ctx.delta_used, ctx.n_observers):
            st.warning(w, icon=":material/warning:")
    with slots.noisy:
        previews.noisy_part(ctx)
    with slots.noise:
        noise.noise_section(ctx, slots.derivation, lead=previews.metrics_html(ctx))
    release.accounting_box(ctx, slots.accounting)
    panel = st.session_state.get("hm_panel")
    if panel is not None:  # uses every setting: drawn (from its cache) here, where an ε move re-runs it
        with slots.explore:
            panels.RUNNERS[panel](ctx)
    with slots.share:
        release.scale_out_section(ctx)  # uses ε: drawn here, where an ε move re-runs it
    ui.share.remember("heatmaps", ctx)  # what the report and the share box keep of this view
    if st.session_state.get(ui.share.OPEN_KEY, False):
        with slots.share_box:
            ui.share.share_box("heatmaps", ctx)  # settings JSON, script


_study()
