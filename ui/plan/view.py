"""Cached compute of the Plan and release page, keyed on the fixation table's token and the plan's JSON."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.heatmaps import maps, preview
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.plan.allocate import Allocation, allocate
from eyedp_core.plan.inputs import inputs_from_fixations
from eyedp_core.plan.models import SeriesBasis
from eyedp_core.plan.schema import HeatmapOutput, StudyPlan

__all__ = ["PREVIEW_SEED", "allocation", "heatmap_preview"]

PREVIEW_SEED = 1  # the pictures are seeded previews: the same plan shows the same noise field


@st.cache_data(show_spinner="Splitting the cap over the plan's outputs…", max_entries=16)
def allocation(fix_token: str, table_name: str, plan_json: str, _frame: pd.DataFrame, series_key: str = "",
               _series: Mapping[str, SeriesBasis] | None = None) -> Allocation:
    """Fixation table (by token), the plan's text and the series forms' model inputs (keyed by `series_key`: the
    feature table's token) in, `allocate(plan, plan.cap, inputs)` on them out, as the release's own allocation
    (DataError when a stimulus of the plan has no fixations)."""
    plan, inputs = inputs_from_fixations(_frame, StudyPlan.from_json(plan_json), table_name=table_name)
    if _series:
        inputs = replace(inputs, series=dict(_series))
    return allocate(plan, plan.cap, inputs)


@st.cache_data(show_spinner=False, max_entries=16)
def heatmap_preview(fix_token: str, table_name: str, output_json: str, epsilon: float, seed: int,
                    _output: HeatmapOutput, _frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, float]:
    """One heatmap output at its allotted ε in, (clean smoothed map, seeded noisy smoothed map, CC) out: numpy
    noise from a seeded Generator (a PREVIEW, never released), as on the Heatmaps page."""
    o = _output
    sub, _ = preview.fixations_for_stimulus(_frame, table_name, o.stimulus, o.width, o.height)
    gm = maps.gaze_maps(sub, o.width, o.height, o.cell_px, "count", observer_col="observer")
    clean = preview.clean_maps(gm, o.cap_m, o.cap_total, o.sigma_px)
    sens = preview.maps_sensitivity(gm, o.cap_m, o.cap_total)
    setting = HeatmapSetting(epsilon, o.delta, o.mechanism, preview.gaussian_method(o.method, epsilon), o.cap_m,
                             o.cap_total, o.cell_px, o.sigma_px)
    noisy = preview.noisy_preview(clean, sens, setting, seed=seed, emd_bins=None)
    return clean.smooth, noisy.smooth, float(noisy.metrics.get("cc", float("nan")))
