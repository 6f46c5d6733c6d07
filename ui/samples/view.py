"""Gaze-samples view: cached wrappers around eyedp_core.samples (keyed on the data token and the parameters).

Large objects travel as underscore arguments (Streamlit does not hash them); the token stands for them.
Every preview draw builds its Generator from the page's seed and the method's number, so the same
settings always give the same preview, and one method's slider never re-draws another method's noise.
Each method's utility/privacy row is cached on its own settings: moving Kaleido's ε recomputes only the
Kaleido row.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eyedp_core.gaze.events import ScreenGeometry
from eyedp_core.samples import display, streams
from eyedp_core.samples.deniability import PDResult, event_synth_pd
from eyedp_core.samples.evaluate import Reference, evaluate, reference, reidentification
from eyedp_core.samples.events import EventParams, event_params
from eyedp_core.samples.kaleido import kaleido_run
from eyedp_core.samples.synth import SynthResult, k_same_synth
from ui.samples import figs

# Stable numbers that separate the methods' random streams under one preview seed.
STREAM_IDS = {"kaleido": 1, "synth": 2, "pd-published": 3, "pd-randomised": 4}
WINDOW_S = 10.0  # re-identification windows (s)


@dataclass(frozen=True)
class KaleidoSettings:
    """The Kaleido sliders (w, t_skip in samples; r, l_thresh in px)."""

    epsilon: float
    w: int
    t_skip: int
    r: float
    l_thresh: float
    h: float
    min_pub_share: float  # smallest publication budget, as a share of ε − ε/h


@dataclass(frozen=True)
class PDSettings:
    """The plausible-deniability sliders."""

    k: int
    gamma: float
    eps0: float
    max_tries: int


def rng_for(seed: int, method: str) -> np.random.Generator:
    """Preview seed and method -> its own reproducible Generator (docs/PRIVACY_MODEL.md §11: preview only)."""
    return np.random.default_rng([int(seed), STREAM_IDS[method]])


@st.cache_data(show_spinner="Checking the gaze samples…", max_entries=16)
def prepared(token: str, width_px: int, height_px: int, _frame: pd.DataFrame) -> streams.PreparedStreams:
    """Raw gaze table (keyed by token) and screen size -> checked streams with notes (StreamError if unusable)."""
    return streams.prepare_streams(_frame, width_px=width_px, height_px=height_px)


@st.cache_data(show_spinner="Detecting events…", max_entries=32)
def detect(token: str, who: str, method: str, threshold: float, geometry: ScreenGeometry,
           _one: pd.DataFrame) -> pd.DataFrame:
    """One participant's samples -> event table (cached on data token, participant and thresholds)."""
    return display.detect_for_display(_one, geometry, method, threshold)


@st.cache_data(show_spinner="Fitting event parameters (fixations, saccade velocity profiles)…", max_entries=8)
def params(token: str, geometry: ScreenGeometry, _frame: pd.DataFrame) -> EventParams:
    """Checked samples -> event parameters of every stream (I-VT, 30 deg/s)."""
    return event_params(_frame, geometry)


@st.cache_data(show_spinner="Running Kaleido on every stream…", max_entries=32)
def kaleido(token: str, s: KaleidoSettings, seed: int, bounds: tuple[int, int], _frame: pd.DataFrame) -> pd.DataFrame:
    """Checked samples and settings -> published table (x, y, eps, tested, new_point), all streams."""
    pub = s.min_pub_share * (s.epsilon - s.epsilon / s.h)
    _, table = kaleido_run(_frame, epsilon=s.epsilon, w=s.w, l_thresh=s.l_thresh, t_skip=s.t_skip, r=s.r, h=s.h,
                           rng=rng_for(seed, "kaleido"), min_pub=pub, bounds=bounds)
    return table


@st.cache_data(show_spinner="Running k-same-synth…", max_entries=16)
def synth(token: str, k: int, seed: int, geometry: ScreenGeometry, _frame: pd.DataFrame,
          _ep: EventParams) -> SynthResult:
    """Checked samples and k -> SynthResult (ValueError when too few identities)."""
    return k_same_synth(_frame, k, rng_for(seed, "synth"), geometry=geometry, events=_ep)


@st.cache_data(show_spinner="Running the plausible-deniability test…", max_entries=16)
def deniability(token: str, form: str, s: PDSettings, seed: int, geometry: ScreenGeometry, _frame: pd.DataFrame,
                _ep: EventParams) -> PDResult:
    """Checked samples, form and settings -> PDResult."""
    return event_synth_pd(_frame, k=s.k, gamma=s.gamma, rng=rng_for(seed, f"pd-{form}"), form=form, eps0=s.eps0,
                          max_tries=s.max_tries, geometry=geometry, events=_ep)


@st.cache_data(show_spinner="Measuring the original stream (heatmap, fixations, clean attacker)…", max_entries=8)
def clean_reference(token: str, geometry: ScreenGeometry, _original: pd.DataFrame) -> Reference:
    """Clean samples -> the clean side of every figure, computed once per dataset."""
    return reference(_original, geometry=geometry, window_s=WINDOW_S)


@st.cache_data(show_spinner="Measuring utility and re-identification…", max_entries=48)
def figures(token: str, method: str, settings: object, seed: int, geometry: ScreenGeometry,
            _original: pd.DataFrame, _protected: pd.DataFrame) -> dict[str, float]:
    """One method's protected samples (keyed by method, settings and seed) -> its utility/privacy figures."""
    ref = clean_reference(token, geometry, _original)
    return dict(evaluate(_original, _protected, ref=ref).__dict__)


@st.cache_data(show_spinner="Measuring the unprotected baseline…", max_entries=8)
def baseline(token: str, geometry: ScreenGeometry, _original: pd.DataFrame) -> dict[str, float]:
    """Clean samples -> re-identification accuracy without protection (and chance)."""
    acc, chance, n = reidentification(_original, None, ref=clean_reference(token, geometry, _original))
    return dict(displacement_deg=0.0, heatmap_cc=1.0, fixation_rate_change=0.0, fixation_duration_change=0.0,
                reid_accuracy=acc, reid_chance=chance, reid_windows=n)


@st.cache_data(max_entries=64, show_spinner=False)
def raw_figures(token: str, stream_key: str, method: str, threshold: float, geometry: ScreenGeometry,
                span: tuple[float, float], who: str, _one: pd.DataFrame, _ev: pd.DataFrame
                ) -> tuple[go.Figure, go.Figure, tuple[int, int, int]]:
    """One stream's samples and events in a time window (keyed by token, stream, detector, threshold, window) ->
    (raw trace, scanpath, counts of fixations, saccades and blinks in the window)."""
    part, evw = display.visible(_one, _ev, span)
    fx, sc, bl = (evw[evw["type"] == k] for k in ("fixation", "saccade", "blink"))
    return (figs.raw_trace(part, fx, bl, who), figs.raw_scanpath(part, fx, geometry),
            (len(fx), len(sc), len(bl)))


def pick(frame: pd.DataFrame, who: object, stim_name: str | None, sel: str | None) -> pd.DataFrame:
    """Rows of the chosen participant (and stimulus/task, when the table has that column), same columns."""
    mask = frame["participant"] == who
    if stim_name is not None and sel is not None and sel in frame.columns:
        mask &= frame[sel].astype(str) == stim_name
    return frame[mask]
