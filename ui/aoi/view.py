"""Cached compute wrappers of the Areas of interest view, keyed on the data tokens and the parameters."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.aoi.bundled import bundled_aois
from eyedp_core.aoi.metrics import AoiMetric, MetricResult, private_metrics
from eyedp_core.aoi.observers import AoiBounds, ObserverTable, observer_table
from eyedp_core.aoi.shapes import Aoi
from eyedp_core.heatmaps import preview
from eyedp_core.heatmaps.preview import stimulus_names


@st.cache_resource(show_spinner=False, max_entries=16)
def fixations(fix_token: str, table_name: str, stim_name: str, width: int, height: int,
              _frame: pd.DataFrame | None) -> tuple[pd.DataFrame, str]:
    """The fixations of one stimulus (the Heatmaps view's selection rule), cached on the dataset token."""
    return preview.fixations_for_stimulus(_frame, table_name, stim_name, width, height)


@st.cache_data(show_spinner=False, max_entries=16)
def stimuli_with_fixations(fix_token: str, _frame: pd.DataFrame | None) -> frozenset[str] | None:
    """The names a fixation table's stimulus column holds (with and without extension), cached on its token; None
    for a table without one (it applies to any stimulus)."""
    if _frame is None or "stimulus" not in _frame.columns:
        return None
    return frozenset(n for s in pd.unique(_frame["stimulus"].dropna().astype(str)) for n in stimulus_names(s))


def has_fixations(fix_token: str, frame: pd.DataFrame | None, stim_name: str) -> bool:
    """Whether a fixation table has rows for the stimulus (the Heatmaps view's matching of names)."""
    names = stimuli_with_fixations(fix_token, frame)
    return names is None or bool(stimulus_names(stim_name) & names)


@st.cache_resource(show_spinner="Drawing the bundled stimuli's AOIs…")
def bundled(stim_name: str) -> tuple[Aoi, ...]:
    """The bundled AOIs of a stimulus (the simulator's regions; drawn once per process)."""
    return bundled_aois(stim_name)


# Shared object (st.cache_resource): nothing mutates it; an ε move reuses it.
@st.cache_resource(show_spinner=False, max_entries=32)
def observers(fix_token: str, stim_name: str, aois: tuple[Aoi, ...], bounds: tuple, _sub: pd.DataFrame) -> ObserverTable:
    """Clipped per-observer contributions for one stimulus, AOI set and bounds (the bounds as a tuple key)."""
    return observer_table(_sub, aois, AoiBounds(*bounds))


@st.cache_data(show_spinner=False, max_entries=64)
def preview_metrics(fix_token: str, stim_name: str, aois_key: str, bounds: tuple,
                    metrics: tuple[str, ...], epsilon: float, seed: int,
                    _table: ObserverTable) -> dict[AoiMetric, MetricResult]:
    """Seeded preview of the chosen metrics at ε (the page's privacy part: the only thing an ε move re-runs)."""
    res, _ = private_metrics(_table, [AoiMetric(m) for m in metrics], epsilon, np.random.default_rng(seed))
    return res
