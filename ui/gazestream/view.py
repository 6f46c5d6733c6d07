"""Gaze-samples view: cached wrappers around eyedp_core.gazestream (keyed on the data token and the parameters).

Large objects travel as underscore arguments (Streamlit does not hash them); the token stands for them.
Every preview draw builds its Generator from the page's seed and the method's number, so the same
settings always give the same preview, and one method's slider never re-draws another method's noise.
Each method's utility/privacy row is cached on its own settings: moving Kaleido's ε recomputes only the
Kaleido row. Large results (protected tables, figures) are cached with st.cache_resource: shared, never
copied (st.cache_data would unpickle a 144,000-row table on every hit, ~90 ms) — callers never mutate them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream import display, streams
from eyedp_core.gazestream.deniability import PDResult, PDSettings, event_synth_pd
from eyedp_core.gazestream.evaluate import Reference, evaluate, reference, reidentification
from eyedp_core.gazestream.events import EventParams, event_params
from eyedp_core.gazestream.kaleido import kaleido_plan, kaleido_run, window_sums
from eyedp_core.gazestream.synth import SynthResult, k_same_synth
from ui.gazestream import figs, scanpath_image
from ui.gazestream.methods import METHOD_COLORS, METHOD_LABELS, ORIGINAL_COLOR
from ui.text import html_text

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
class RawKey:
    """What one stream's event views are cached on: the data token, the stream, the detector and its threshold."""

    token: str
    stream: str
    method: str
    threshold: float


@dataclass(frozen=True)
class Trail:
    """The time point the compared scanpaths reach (s) and how many seconds of them are drawn before it."""

    t_end: float
    seconds: float


def rng_for(seed: int, method: str) -> np.random.Generator:
    """Preview seed and method -> its own reproducible Generator (docs/PRIVACY_MODEL.md §11: preview only)."""
    return np.random.default_rng([int(seed), STREAM_IDS[method]])


@st.cache_resource(show_spinner="Checking the gaze samples…", max_entries=16)
def prepared(token: str, width_px: int, height_px: int, _frame: pd.DataFrame) -> streams.PreparedStreams:
    """Raw gaze table (keyed by token) and screen size -> checked streams with notes (StreamError if unusable)."""
    return streams.prepare_streams(_frame, width_px=width_px, height_px=height_px)


@st.cache_resource(show_spinner="Detecting events…", max_entries=32)
def detect(key: RawKey, geometry: Geometry, _one: pd.DataFrame) -> pd.DataFrame:
    """One participant's samples -> event table (cached on data token, stream, detector and threshold)."""
    return display.detect_for_display(_one, geometry, key.method, key.threshold)


@st.cache_resource(show_spinner="Fitting event parameters (fixations, saccade velocity profiles)…", max_entries=8)
def params(token: str, geometry: Geometry, _frame: pd.DataFrame) -> EventParams:
    """Checked samples -> event parameters of every stream (I-VT, 30 deg/s)."""
    return event_params(_frame, geometry)


@st.cache_resource(show_spinner="Running Kaleido on every stream…", max_entries=32)
def kaleido(token: str, s: KaleidoSettings, seed: int, bounds: tuple[int, int], _frame: pd.DataFrame) -> pd.DataFrame:
    """Checked samples and settings -> published table (x, y, eps, tested, new_point), all streams."""
    pub = s.min_pub_share * (s.epsilon - s.epsilon / s.h)
    plan = kaleido_plan(epsilon=s.epsilon, w=s.w, l_thresh=s.l_thresh, t_skip=s.t_skip, r=s.r, h=s.h, min_pub=pub)
    _, table = kaleido_run(_frame, plan, rng_for(seed, "kaleido"), bounds)
    return table


@st.cache_resource(show_spinner="Running k-same-synth…", max_entries=16)
def synth(token: str, k: int, seed: int, geometry: Geometry, _frame: pd.DataFrame,
          _ep: EventParams) -> SynthResult:
    """Checked samples and k -> SynthResult (ValueError when too few identities)."""
    return k_same_synth(_frame, k, rng_for(seed, "synth"), geometry=geometry, events=_ep)


@st.cache_resource(show_spinner="Running the plausible-deniability test…", max_entries=16)
def deniability(token: str, form: str, s: PDSettings, seed: int, geometry: Geometry, _frame: pd.DataFrame,
                _ep: EventParams) -> PDResult:
    """Checked samples, form and settings -> PDResult."""
    return event_synth_pd(_frame, s, rng_for(seed, f"pd-{form}"), form=form, geometry=geometry, events=_ep)


@st.cache_resource(show_spinner="Measuring the original stream (heatmap, fixations, clean attacker)…",
                   max_entries=8)
def clean_reference(token: str, geometry: Geometry, _original: pd.DataFrame) -> Reference:
    """Clean samples -> the clean side of every figure, computed once per dataset."""
    return reference(_original, geometry=geometry, window_s=WINDOW_S)


@st.cache_data(show_spinner="Measuring utility…", max_entries=64)
def figures(token: str, method: Mech, settings: object, seed: int, geometry: Geometry,
            _original: pd.DataFrame, _protected: pd.DataFrame) -> dict[str, float]:
    """One method's protected samples (keyed by method, settings and seed) -> its utility figures (the
    re-identification attack is `reid`, run only when asked for)."""
    ref = clean_reference(token, geometry, _original)
    f = dict(evaluate(_original, _protected, ref=ref, attack=False).__dict__)
    del f["reid_accuracy"], f["reid_windows"]  # not measured here: `reid` fills them in
    return f


@st.cache_resource(max_entries=4, show_spinner=False)
def reid_store(token: str) -> dict:
    """Data token -> the re-identification results measured so far (method, settings, seed) -> (acc, windows)."""
    return {}


def reid(token: str, method: Mech | None, settings: object, seed: int, geometry: Geometry, _original: pd.DataFrame,
         _protected: pd.DataFrame | None, run: bool) -> tuple[float, int] | None:
    """The attack on one method's protected samples (method and _protected None: the clean data) -> (accuracy, windows attacked); when
    not measured yet, measured only if `run` (it trains nothing new but extracts every window's features)."""
    store = reid_store(token)
    key = (method, settings, seed, geometry)
    if key not in store and run:
        acc, _, n = reidentification(_original, _protected, ref=clean_reference(token, geometry, _original))
        store[key] = (acc, n)
    return store.get(key)


def baseline(token: str, geometry: Geometry, _original: pd.DataFrame, n_people: int) -> dict[str, float]:
    """Clean samples -> the unprotected row: perfect utility, chance 1/n (the attack itself is `reid`)."""
    return dict(displacement_deg=0.0, heatmap_cc=1.0, fixation_rate_change=0.0, fixation_duration_change=0.0,
                reid_chance=1.0 / n_people if n_people else float("nan"))


@st.cache_resource(max_entries=64, show_spinner=False)
def raw_figure(kind: str, key: RawKey, geometry: Geometry, span: tuple[float, float], who: str, _one: pd.DataFrame,
               _ev: pd.DataFrame) -> tuple[go.Figure, tuple[int, int, int]]:
    """One stream's samples and events in a time window (keyed by token, stream, detector, threshold, window) ->
    (the raw trace when kind is "time", else the scanpath; counts of fixations, saccades and blinks in the window)."""
    part, fx, sc, bl = _window(_one, _ev, span)
    fig = figs.raw_trace(part, fx, bl, html_text(who)) if kind == "time" else figs.raw_scanpath(part, fx, geometry)
    return fig, (len(fx), len(sc), len(bl))


def _window(one: pd.DataFrame, ev: pd.DataFrame, span: tuple[float, float]) -> tuple[pd.DataFrame, ...]:
    """A stream's samples and events -> the samples in the time window and its fixations, saccades and blinks."""
    part, evw = display.visible(one, ev, span)
    return (part, *(evw[evw["type"] == k] for k in ("fixation", "saccade", "blink")))


@st.cache_resource(max_entries=64, show_spinner=False)
def raw_picture(key: RawKey, span: tuple[float, float], _one: pd.DataFrame,
                _ev: pd.DataFrame) -> tuple[bytes, tuple[int, int, int]]:
    """Like `raw_figure` for kind "time", as a JPEG (ui/gazestream/scanpath_image.raw_trace_image), cached the same way:
    (the picture, counts of fixations, saccades and blinks in the window)."""
    part, fx, sc, bl = _window(_one, _ev, span)
    shown = figs.thin(part)
    pupil = shown["pupil"].to_numpy(float) if "pupil" in shown.columns else None
    jpeg = scanpath_image.raw_trace_image(shown["t_s"].to_numpy(float), shown["x"].to_numpy(float),
                                          shown["y"].to_numpy(float), pupil, fx[["t_start_s", "t_end_s"]].to_numpy(float),
                                          bl[["t_start_s", "t_end_s"]].to_numpy(float))
    return jpeg, (len(fx), len(sc), len(bl))


@st.cache_data(max_entries=64, show_spinner=False)
def summary(key: RawKey, geometry: Geometry, t0: float, t1: float, _ev: pd.DataFrame) -> dict[str, str]:
    """One stream's events (keyed like `detect`) and a time window t0 < t1 -> the four headline numbers of the
    events that start in it, formatted."""
    return display.window_summary(_ev, (t0, t1))


def pick(frame: pd.DataFrame, who: object, stim_name: str | None, sel: str | None) -> pd.DataFrame:
    """Rows of the chosen participant (and stimulus/task, when the table has that column), same columns."""
    mask = frame["participant"] == who
    if stim_name is not None and sel is not None and sel in frame.columns:
        mask &= frame[sel].astype(str) == stim_name
    return frame[mask]


@st.cache_resource(max_entries=256, show_spinner=False)
def one_of(token: str, method: Mech, settings: object, seed: int, who: str, stim_name: str | None, sel: str | None,
           _frame: pd.DataFrame) -> pd.DataFrame:
    """A method's protected table (keyed by method, settings and seed) -> the chosen stream's rows (cached: the
    mask over every stream costs a few ms per move)."""
    return pick(_frame, who, stim_name, sel)


@st.cache_resource(max_entries=16, show_spinner=False)
def stimulus_uri(name: str, fingerprint: tuple, _image: np.ndarray) -> str:
    """A stimulus image (keyed by name and a fingerprint of its pixels) -> its JPEG data URI, encoded once."""
    return figs.image_uri(_image)


def fingerprint(image: np.ndarray) -> tuple:
    """An image -> a cheap key: its shape and a hash of a sparse grid of its pixels."""
    return image.shape, hash(np.ascontiguousarray(image[::37, ::37]).tobytes())


@st.cache_resource(max_entries=128, show_spinner=False)
def compare_figure(key: tuple, trail: Trail, method: Mech, geometry: Geometry, who: str, stimulus_uri: str | None,
                   _original: pd.DataFrame, _protected: pd.DataFrame) -> go.Figure:
    """The original and protected streams (keyed by `key`: token, method, settings, seed, stream) and a time
    point -> the trailing scanpaths figure (cached: moving back to a time point re-sends an identical figure)."""
    a = display.trail(_original, trail.t_end, trail.seconds)
    b = display.trail(_protected, trail.t_end, trail.seconds)
    return figs.compare_scanpath(a, b, method, geometry, compare_title(html_text(who), method, trail), stimulus_uri)


def compare_title(who: str, method: Mech, trail: Trail) -> str:
    """The scanpaths' title: who, which method, which seconds."""
    start = min(max(trail.t_end - trail.seconds, 0.0), trail.t_end)  # the trail never reaches before time 0
    return f"{who}: original and {METHOD_LABELS[method]}, {start:.1f}–{trail.t_end:.1f} s (PREVIEW)"


@st.cache_resource(max_entries=256, show_spinner=False)
def compare_picture(key: tuple, trail: Trail, method: Mech, geometry: Geometry, stimulus_uri: str | None,
                    _original: pd.DataFrame, _protected: pd.DataFrame) -> bytes:
    """Like `compare_figure`, as a JPEG over the stimulus (cached: the time slider re-sends known pictures)."""
    a = display.trail(_original, trail.t_end, trail.seconds)
    b = display.trail(_protected, trail.t_end, trail.seconds)
    colors = (ORIGINAL_COLOR, METHOD_COLORS[method])
    return scanpath_image.scanpath_jpeg(a[["x", "y"]].to_numpy(float), b[["x", "y"]].to_numpy(float),
                                        ("original", METHOD_LABELS[method]), colors,
                                        (geometry.width_px, geometry.height_px), stimulus_uri)


@st.cache_resource(max_entries=64, show_spinner=False)
def budget_figure(key: tuple, s: KaleidoSettings, _one: pd.DataFrame) -> tuple[go.Figure, np.ndarray, np.ndarray]:
    """One stream's Kaleido output (named by `key`: data, stream, seed) and its settings -> (budget chart, window
    sums, new-point flags), built once."""
    eps = _one["eps"].to_numpy(float)
    ws = window_sums(eps, s.w)
    new = _one["new_point"].to_numpy(bool)
    fig = figs.budget_chart(_one["t_s"].to_numpy(float), ws, new, s.epsilon, s.w, s.epsilon / s.h)
    return fig, ws, new
