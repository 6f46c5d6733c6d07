""""Add to plan" buttons of the view pages: the page's current output, with its settings, into the session's plan."""
from __future__ import annotations

from typing import Any

import streamlit as st

from eyedp_core.aoi.observers import AoiBounds
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.plan.schema import AoiOutput, HeatmapOutput, PlanOutput
from ui import state
from ui.plan import session
from ui.text import md_text

__all__ = ["aoi_button", "aoi_output", "heatmap_button", "heatmap_output"]


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


def _button(output: PlanOutput, key: str, what: str) -> None:
    st.button("Add to plan", key=key, icon=":material/playlist_add:", on_click=session.add_output,
              args=(output, state.epsilon_cap(), state.study()),
              help=f"Adds {md_text(what)} with the settings above to the study plan (Plan and release page), which splits "
                   "the cap per person over every output and releases them all in one click. An output already "
                   "in the plan is updated.")
    if st.session_state.get(session.ADDED_KEY) == output.label:
        plan, _ = session.current()
        n = 0 if plan is None else len(plan.outputs)
        st.caption(f"'{md_text(output.label)}' is in the plan ({n:d} output{'s' if n != 1 else ''}).")
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
