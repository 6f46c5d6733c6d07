""""Add to plan" buttons of the view pages: the page's current output, with its settings, into the session's plan."""
from __future__ import annotations

from enum import StrEnum
from typing import Any

import pandas as pd
import streamlit as st

from eyedp_core.aoi.observers import AoiBounds
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.gaze.contributions import contributions
from eyedp_core.gaze.feature_specs import FEATURE_SPECS
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.plan.schema import (
    AoiOutput,
    GazeSamplesOutput,
    HeatmapOutput,
    PlanOutput,
    SeriesFormOutput,
    Target,
    TargetMeasure,
)
from eyedp_core.timeseries.forms import Form
from eyedp_core.timeseries.signals import feature_columns
from ui import state
from ui.gazestream import controls
from ui.gazestream.view import KaleidoSettings
from ui.plan import finder, session
from ui.text import md_text

__all__ = ["SERIES_CHOICE_KEY", "SeriesChoice", "add_gaze", "added_note", "aoi_button", "aoi_output", "gaze_button", "gaze_output", "gaze_plan_box",
           "heatmap_button", "heatmap_output", "most_recordings", "series_button", "series_form", "series_output"]

SERIES_CHOICE_KEY = "ts_form_plan"  # the Time series release-forms panel's pick of the form its button adds


class SeriesChoice(StrEnum):
    """The release forms the Time series form comparison shows, as the plan's series-form output takes them."""

    SUMMARY = "summary"  # one mean per recording
    COARSE = "coarse"  # the panel's coarse windows per recording
    GROUP = "group"  # means over each task's participants


def series_form(choice: SeriesChoice, blocks: int) -> tuple[Form, int]:
    """The panel's pick and its coarse windows in, the (form, coarse windows) of that comparison row out."""
    if choice is SeriesChoice.GROUP:
        return Form.GROUP, 1
    return Form.RECORDING, int(blocks) if choice is SeriesChoice.COARSE else 1


def heatmap_output(stimulus: str, width: int, height: int, setting: HeatmapSetting) -> HeatmapOutput:
    """The Heatmaps page's stimulus, canvas and setting (grid, δ, noise, caps, kernel) in, the plan's heatmap output
    out (its ε is allotted by the plan, so the setting's ε is not carried)."""
    s = setting
    method = s.method
    if method not in (GaussianMethod.ANALYTIC, GaussianMethod.CLASSICAL):
        method = GaussianMethod.ANALYTIC  # a plan takes the calibrations valid on every grid
    return HeatmapOutput(stimulus=stimulus, width=int(width), height=int(height), cell_px=int(s.cell_px),
                         delta=float(s.delta), mechanism=Family.LAPLACE if s.mechanism is Family.LAPLACE
                         else Family.GAUSSIAN, method=method, cap_m=float(s.cap_m),
                         cap_total=None if s.cap_total is None else float(s.cap_total), sigma_px=float(s.sigma_px))


def aoi_output(stimulus: str, aois: tuple[Any, ...], metrics: tuple[Any, ...], bounds: AoiBounds) -> AoiOutput:
    """The Areas of interest page's stimulus, AOIs, metrics and bounds in, the plan's AOI output out."""
    return AoiOutput(stimulus=stimulus, shapes=tuple(aois), aois=tuple(a.name for a in aois),
                     metrics=tuple(metrics), bounds=bounds)


def _press(output: PlanOutput, key: str, what: str) -> None:
    st.button("Add to plan", key=key, icon=":material/playlist_add:", on_click=session.add_output,
              args=(output, state.epsilon_cap(), state.study()),
              help=f"Adds {md_text(what)} with the settings above to the study plan (Plan and release page), which splits "
                   "the cap per person over every output and releases them all in one click. An output already "
                   "in the plan is updated.")


def _button(output: PlanOutput, key: str, what: str) -> None:
    _press(output, key, what)
    added_note(output.label)


def added_note(label: str, link: bool = True) -> None:
    """After a press of Add to plan: that the output is in the plan, how many it holds, and (with `link`) the way
    to the Plan and release page."""
    if st.session_state.get(session.ADDED_KEY) == label:
        plan, _ = session.current()
        n = 0 if plan is None else len(plan.outputs)
        st.caption(f"'{md_text(label)}' is in the plan ({n:d} output{'s' if n != 1 else ''}).")
        if link:
            st.page_link("pages/plan.py", label="Open Plan and release", icon=":material/checklist:")


def heatmap_button(ctx: Any) -> None:
    """Heatmaps page: add this stimulus' heatmap (grid, caps, kernel, noise family, δ) to the plan."""
    out = heatmap_output(ctx.stimulus.name, ctx.width, ctx.height, ctx.setting)
    _button(out, "hm_add_plan", f"the heatmap of '{ctx.stimulus.name}'")
    if ctx.weight != "count":  # the plan's models and its bundle are fixation-count maps (as the batch command's)
        st.caption("A plan's heatmaps weigh each fixation once (counts); this page's duration weighting is not "
                   "carried into the plan.")


def aoi_button(ctx: Any) -> None:
    """Areas of interest page: add these AOIs' chosen metrics (outlines, bounds) to the plan."""
    if not ctx.metrics:
        return
    _button(aoi_output(ctx.stimulus, ctx.aois, ctx.metrics, ctx.bounds), "aoi_add_plan",
            f"the AOI metrics of '{ctx.stimulus}'")


def most_recordings(features: pd.DataFrame) -> int:
    """-> recordings of the participant with the most in a feature-window table, counted from its structure (as the
    Time series page counts them), so that a per-recording form's Δ1 covers that participant."""
    return contributions(features).max_recordings if "participant" in features.columns else 1


def series_output(choice: SeriesChoice, blocks: int, features: pd.DataFrame, names: tuple[str, ...],
                  spec: tuple[int, bool, float]) -> SeriesFormOutput:
    """The Time series panel's pick, coarse windows, feature table and released features (empty: the plan's
    default, every feature with public bounds) and (public T, by task, target dB) in, the plan's series form out."""
    form, b = series_form(choice, blocks)
    length, by_task, target_db = spec
    bounded = {f for f in feature_columns(features) if f in FEATURE_SPECS}
    # Every bounded feature is the plan's default: left unnamed, the plan's text stays short enough for a link.
    carried = () if set(names) == bounded else tuple(names)
    return SeriesFormOutput(form=form, blocks=b, recordings_per_person=most_recordings(features), by_task=by_task,
                            features=carried, length=int(length),
                            target=Target(TargetMeasure.DB, float(target_db)))


def series_button(output: SeriesFormOutput, what: str) -> None:
    """Time series page: add this release form (coarse windows, recordings per person, target dB) to the plan (the
    note that it was added is the caller's, under the row the button shares with the form's picker)."""
    _press(output, "ts_add_plan", what)


def gaze_output(kaleido: KaleidoSettings, screen: tuple[int, int] | None) -> GazeSamplesOutput:
    """Kaleido's settings (window, skip, radius, threshold, h, floor) and the screen in px (None: the session's) in,
    the plan's gaze-samples output out."""
    k = kaleido
    w, h = (None, None) if screen is None else (int(screen[0]), int(screen[1]))
    return GazeSamplesOutput(w=int(k.w), r=float(k.r), t_skip=int(k.t_skip), l_thresh=float(k.l_thresh),
                             h=float(k.h), min_pub_share=float(k.min_pub_share), width_px=w, height_px=h)


def add_gaze(screen: tuple[int, int] | None, cap: float, study: str) -> None:
    """Add gaze samples with the Gaze samples page's Kaleido settings as they are at the click (its sliders move
    inside a fragment, so a value captured at the page's last full run could be stale)."""
    session.add_output(gaze_output(controls.kaleido_kept(), screen), cap, study)


def gaze_button(screen: tuple[int, int]) -> None:
    """Gaze samples page: add gaze samples (Kaleido's settings, this screen) to the plan."""
    st.button("Add to plan", key="gs_add_plan", icon=":material/playlist_add:", on_click=add_gaze,
              args=(screen, state.epsilon_cap(), state.study()),
              help="Adds the gaze samples, released with Kaleido at the settings of the Protect view and this "
                   "screen, to the study plan (Plan and release page). An output already in the plan is updated.")
    added_note(GazeSamplesOutput().label)


def gaze_plan_box(screen: tuple[int, int]) -> None:
    """Under Kaleido's part of the Gaze samples page: its "Add to plan" button and the plan's sentence."""
    gaze_button(screen)
    st.markdown(finder.gaze_text(state.current("fixations")))
