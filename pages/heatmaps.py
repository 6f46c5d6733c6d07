"""Heatmaps: private gaze heatmaps with a per-observer cap (Liu et al.; docs/PRIVACY_MODEL.md §6).

The page body draws only the title and the lead. Nested fragments draw the rest, so that a control re-runs
only what depends on it (the innermost holds the controls moved most often):
- `study` (stimulus, weighting): the data row, the region of the parts, then the page's tail (the derivation,
  Explore, Export and scale-out boxes, the share switch), then runs `rare` in that region;
- `rare` (total cap C, the EMD switch, noise family, calibration, seed, screen geometry, the number of stimuli):
  runs `grid`, then its controls;
- `grid` (cell size, kernel, cap m): runs `privacy`, then its sliders, and the export (its text depends on the grid
  only) in the tail;
- `privacy` (level, ε, δ): the guarantee, its controls, the clean and noisy overlays side by side and one
  element of numbers under them (colour bar, metrics, noise scale, accounting).
Each part calls the part nested in it first and then writes into its own region only (a fragment's region is
one block: writes into containers laid out outside it cost a message each per run), so the guarantee leads and
an ε move re-sends the privacy region alone. The tail's lazy boxes (the derivation, an Explore panel, the
scale-out box, the share box) are filled by `privacy` only while they are open."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui.share
from eyedp_core.heatmaps.calibration import privacy_warnings
from eyedp_core.heatmaps.preview import TooFewObservers
from eyedp_core.plan.schema import OutputKind
from ui import risk_line, runlog, state
from ui.fragment import fragment
from ui.heatmaps import noise, panels, previews, release, risk, settings, view
from ui.plan import finder
from ui.plan.add import heatmap_button
from ui.shell import ensure_shell
from ui.text import md_text

ensure_shell()
runlog.note("page")
st.title("Heatmaps")
st.markdown("Private gaze heatmaps after Liu et al.: **the unit of privacy is one observer** — their whole gaze "
            "map on one stimulus. Each observer's map is capped at m per cell, the maps are averaged, noise is "
            "added to the average, and the heatmap is smoothed afterwards (smoothing is post-processing and costs "
            "no privacy).")


@dataclass(frozen=True, eq=False)
class Slots:
    """The containers of the page's tail that `study` lays out; the parts fill them (the lazy ones while open)."""

    derivation: DeltaGenerator
    explore: DeltaGenerator
    export: DeltaGenerator
    scale: DeltaGenerator
    share_box: DeltaGenerator


def _tail() -> Slots:
    """The page's containers after the parts' region (headings are static: drawn once per study run)."""
    derivation = noise.derivation_expander()  # opening it re-runs the study; `privacy` fills it while open
    st.subheader("Explore")
    panel = st.segmented_control("Panel", list(panels.PANELS), format_func=panels.PANELS.get, key="hm_panel",
                                 label_visibility="collapsed")  # a choice re-runs the study: panels are heavy anyway
    if panel is None:
        st.caption(panels.PANEL_HINT)
    explore = st.container()
    st.divider()
    st.subheader("Export (private release)")
    export = st.container()
    scale = release.scale_out_expander()  # opening it re-runs the study; `privacy` fills it while open
    # Drawn here, so that switching it re-runs the study: `privacy` can first write into the box's container only
    # in a run that created it (Streamlit reserves an outside container's place for a fragment in such a run).
    ui.share.share_toggle()
    return Slots(derivation=derivation, explore=explore, export=export, scale=scale, share_box=st.container())


@fragment(name="study")
def _study() -> None:
    """Data row; then the parts' region and the page's tail (stimulus and weighting change all of it)."""
    fix_ds = state.current("fixations")
    settings.start_from_screen(fix_ds)  # the table's screen (given on Your data) sets the kernel's pixels
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
    region = st.container()  # the parts' region, above the tail laid out next
    slots = _tail()
    with region:
        _rare(study, slots, stim.source == "upload")


def _context(study: view.Study) -> view.Context | None:
    """The view's context at the current settings (at the ε a risk target sets, when one does), or None after an
    error message."""
    try:
        s = settings.read_settings(study.n_observers, study.weight)
        ctx = view.context(study, s)
        eps = risk.target_epsilon(ctx, s)
        return ctx if eps is None else view.context(study, risk.settings_at(s, eps))
    except ValueError as err:
        st.error(f"These settings cannot be used: {md_text(err)}", icon=":material/error:")
        return None


@fragment(name="rare")
def _rare(study: view.Study, slots: Slots, upload: bool) -> None:
    """`grid` first of all; then the controls changed rarely: the total cap C, the EMD switch, noise family,
    calibration, seed, screen geometry and the number of stimuli (outermost, so that a map or privacy move does not
    re-send them).

    Each part calls the part nested in it before it writes anything: a fragment's identity includes the position
    it is called at, which must not change between the study's run and a part's own re-runs."""
    _grid(study, slots)
    # Typed or switched, not slid: drawn here, right under the map sliders, so a slider move does not re-send them.
    settings.draw_total_cap(study.weight)
    previews.emd_toggle()
    settings.draw_noise(upload)
    release.stimuli_input()


@fragment(name="grid")
def _grid(study: view.Study, slots: Slots) -> None:
    """`privacy` first of all; then the map controls and the export."""
    _privacy(study, slots)
    settings.draw_grid(study.weight)
    ctx = _context(study)
    if ctx is not None:
        with slots.export:  # its text follows the grid, not ε; its button re-runs this part with the settings now
            release.export_section(ctx)
            heatmap_button(ctx)  # this stimulus' heatmap into the study plan (Plan and release page)


@fragment(name="privacy")
def _privacy(study: view.Study, slots: Slots) -> None:
    """The guarantee, the level, ε and δ, the two overlays and the numbers under them; the open lazy boxes of the
    tail (the EMD switch, the panels' own controls and the share box re-run this part too)."""
    settings.apply_preset(study.n_observers)  # before the context: a preset sets ε and δ
    ctx = _context(study)
    if ctx is not None:
        # The guarantee and the level line in one element (re-sent on every ε move).
        st.markdown(noise.guarantee_markdown(ctx) + "\n\n" + risk.risk_markdown(ctx) + "\n\n"
                    + settings.level_markdown(risk.settings_at(settings.read_settings(ctx.n_observers, ctx.weight),
                                                                  ctx.epsilon), ctx.n_observers),
                    unsafe_allow_html=True)
        for w in privacy_warnings(ctx.epsilon, ctx.delta_used, ctx.n_observers):
            st.warning(w, icon=":material/warning:")
    by_hand = risk.controls(study.n_observers, None if ctx is None else risk.target_epsilon_of(ctx))
    settings.draw_privacy(study.n_observers, eps_disabled=not by_hand)
    if ctx is None:
        return
    previews.overlays(ctx)
    # Everything under the overlays that changes with ε in one element, ending with the heading of the controls
    # drawn next by `grid` and `rare` (one element fewer per move).
    st.markdown(previews.numbers_markdown(ctx) + noise.noise_markdown(ctx) + release.accounting_markdown(ctx)
                + "\n\n### Map and noise settings", unsafe_allow_html=True)
    release.tuned_warning(ctx)
    if slots.derivation.open:  # drawn only when opened: its formulas and table stay off a slider move's path
        with slots.derivation:
            noise.derivation(ctx)
            risk_line.draw_formulas(risk.person(ctx), ctx.n_observers)
    panel = st.session_state.get("hm_panel")
    if panel is not None:  # uses every setting: drawn (from its cache) here, where an ε move re-runs it
        with slots.explore:
            if panel == "target":  # the finder states what the session's study plan affords this stimulus
                panels.RUNNERS[panel](ctx, plan_note=finder.note(ctx.fixations, OutputKind.HEATMAP,
                                                                 finder.heatmap_label(ctx.stimulus.name)))
            else:
                panels.RUNNERS[panel](ctx)
    if slots.scale.open:  # uses ε: filled here, where an ε move re-runs it
        with slots.scale:
            release.scale_out_body(ctx)
    ui.share.remember("heatmaps", ctx)  # what the report and the share box keep of this view
    if st.session_state.get(ui.share.OPEN_KEY, False):
        with slots.share_box:
            ui.share.share_box("heatmaps", ctx)  # settings JSON, script


_study()
