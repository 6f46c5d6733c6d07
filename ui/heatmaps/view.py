"""Heatmaps view: cached calls of the core (eyedp_core.heatmaps) and the page's context.

Everything expensive is cached with st.cache_data, keyed on the dataset tokens (fixations and stimulus)
plus the parameters; the large objects (tables, gaze maps, maps) travel as underscore arguments, which
Streamlit does not hash. The noisy preview (noise draw + smoothing + metrics) is cheap and is not cached,
so an ε move costs a noise draw on the cell grid and never rebuilds gaze maps or curves.
"""
from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps import attacks, cap, curves, maps, preview, saliency
from eyedp_core.heatmaps.calibration import HeatmapSensitivity, HeatmapSetting
from eyedp_core.heatmaps.preview import CleanMaps, NoisyPreview
from eyedp_core.heatmaps.release import CapChoice, MapsSource
from ui.state import Dataset

CAP_CHOICE_KEY = "hm_m_tuned"  # = panels.CAP_CHOICE: the last CapChoice read off some data
DISPLAY_WIDTH = 960  # overlay images are sent to the browser at most this wide (JPEG)
WEIGHTS = {"count": "fixation count", "duration": "dwell time (s)"}
UNITS = {"count": "fixations per observer per cell", "duration": "seconds per observer per cell"}
BAR_UNITS = {"count": "fixations / observer / cell", "duration": "s / observer / cell"}


# --------------------------------------------------------------------------------------------
# cached calls of the core


# A shared object (st.cache_resource: no pickled copy of every observer's map per run); nothing mutates it.
@st.cache_resource(show_spinner="Building gaze maps…", max_entries=24)
def gaze_maps(fix_token: str, stim_token: str, cell: int, weight: str, width: int, height: int,
              _sub: pd.DataFrame) -> maps.GazeMaps:
    """Fixations of one stimulus (keyed by tokens), cell size and weighting -> per-observer GazeMaps."""
    return maps.gaze_maps(_sub, width, height, cell, weight)


@st.cache_resource(show_spinner=False, max_entries=16)
def fixations_for_stimulus(fix_token: str, table_name: str, stim_name: str, width: int, height: int,
                           _frame: pd.DataFrame | None) -> tuple[pd.DataFrame, str]:
    """preview.fixations_for_stimulus, cached on the dataset token (shared, never mutated: a slider move
    does not filter and bounds-check the table again). Errors are not cached: they are raised every time."""
    return preview.fixations_for_stimulus(_frame, table_name, stim_name, width, height)


# The maps below are cached as shared objects (st.cache_resource: no pickle copy per run); nothing mutates them.
@st.cache_resource(show_spinner="Aggregating…", max_entries=48)
def clean_maps(key: tuple, m: float, cap_total: float | None, sigma_px: float, _gm: maps.GazeMaps) -> CleanMaps:
    """Gaze-map key, caps and kernel σ in px -> CleanMaps (aggregate, smoothed, colour range)."""
    return preview.clean_maps(_gm, m, cap_total, sigma_px)


@st.cache_data(show_spinner="Evaluating Algorithm 1 (expected MSE per cap)…", max_entries=24)
def cap_curve(key: tuple, cap_total: float | None, eps: float, delta: float, mechanism: Family,
              method: GaussianMethod, m_values: tuple[float, ...], _gm: maps.GazeMaps) -> cap.CapCurve:
    """Gaze-map key, caps, privacy settings and candidate caps -> Liu's Algorithm 1 curve (NOT private)."""
    stds = cap.noise_std_for_caps(_gm.n_observers, _gm.n_cells, m_values, eps, delta, mechanism, method, cap_total)
    return cap.optimal_cap(_gm, m_values=np.asarray(m_values, dtype=float), noise_std=stds)


@st.cache_resource(show_spinner=False, max_entries=8)
def noisy_preview(key: tuple, setting: HeatmapSetting, seed: int, _clean: CleanMaps,
                  _sens: HeatmapSensitivity) -> NoisyPreview:
    """Gaze-map key, the setting (caps, kernel, privacy; its cell size is the key's) and seed -> the seeded preview
    without EMD (cached: moving a slider back and forth redraws from the cache)."""
    return preview.noisy_preview(_clean, _sens, setting, seed=seed, emd_bins=None)


EMD_BINS = 32  # the earth mover's distance is solved on at most 32 x 32 blocks (saliency.emd)


@st.cache_data(show_spinner="Solving the earth mover's distance…", max_entries=16)
def emd_px(preview_key: tuple, cell: int, _clean_smooth: np.ndarray, _noisy_smooth: np.ndarray) -> float:
    """Key of a preview, cell size and the two smoothed maps -> EMD in px on a ≤ 32 × 32 block grid."""
    return saliency.emd(_clean_smooth, _noisy_smooth, max_bins=EMD_BINS, cell=cell)


CURVE_CACHE_SIZE = 24


@st.cache_resource(show_spinner=False)
def _curve_store() -> OrderedDict:
    """Process-wide LRU store of ε-curve tables (st.cache_data cannot replay a progress bar drawn outside)."""
    return OrderedDict()


def curve_table(ctx: "Context", eps_list: tuple[float, ...], R: int, q: float,
                progress: Callable[[float], None] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """Context, ε grid, draws R and the hot-spot share q -> (tidy ε-curve table, notes) from seeded preview noise.

    Cached on the tokens and parameters; `progress` is called only when the curves are computed."""
    store = _curve_store()
    k = (ctx.maps_key, ctx.cap_m, ctx.cap_total, ctx.sigma_px, eps_list, ctx.delta, ctx.method, R, ctx.preview_seed, q)
    if k in store:
        store.move_to_end(k)
        return store[k]
    df = curves.eps_curves(ctx.clean.agg, ctx.sensitivity, ctx.setting,
                           curves.CurveSpec(epsilons=tuple(eps_list), R=R, hot_spots_q=q),
                           np.random.default_rng(ctx.preview_seed), progress=progress)
    store[k] = (df, list(df.attrs.get("notes", [])))
    while len(store) > CURVE_CACHE_SIZE:
        store.popitem(last=False)
    return store[k]


@st.cache_data(show_spinner="Running the difference attack…", max_entries=24)
def attack_table(key: tuple, target: int, setting: HeatmapSetting, seed: int, _gm: maps.GazeMaps) -> pd.DataFrame:
    """Gaze-map key, target row, the setting (caps, ε, δ, Gaussian method) and seed -> one row per mechanism
    (attack_demo)."""
    return attacks.attack_demo(_gm, target, setting, np.random.default_rng(seed))


@st.cache_data(show_spinner="Simulating study sizes…", max_entries=24)
def planning(key: tuple, setting: HeatmapSetting, n_values: tuple[int, ...], delta_rule: str, R: int, seed: int,
             _clean: CleanMaps) -> pd.DataFrame:
    """Map key, the setting (privacy, caps, cell size, kernel), hypothetical study sizes N and the δ rule for
    them -> plan_study table (planning only)."""
    return curves.plan_study(_clean.agg, list(n_values), setting, np.random.default_rng(seed),
                             delta_of_n=preview.delta_for_sizes(delta_rule, setting.delta), R=R)


# --------------------------------------------------------------------------------------------
# what the page hands to its panels


@dataclass(frozen=True, eq=False, kw_only=True)
class Context:
    """Everything the secondary panels and the export need from the page's current settings."""

    fixations: Dataset
    stimulus: Dataset
    maps_key: tuple  # (fixations token, stimulus token, cell, weight): the gaze-map cache key
    gaze_maps: maps.GazeMaps
    source: MapsSource  # whose data the maps read
    sensitivity: HeatmapSensitivity
    clean: CleanMaps
    preview: NoisyPreview
    epsilon: float
    delta: float
    mechanism: Family
    method: GaussianMethod
    cap_m: float
    cap_total: float | None
    cell_px: int
    sigma_px: float
    degrees: float
    weight: str
    preview_seed: int
    cap_choice: CapChoice | None  # the last choice of m read off some data (None: m was only ever set by hand)

    @property
    def n_observers(self) -> int:
        """Number of observers (public)."""
        return self.gaze_maps.n_observers

    @property
    def setting(self) -> HeatmapSetting:
        """The page's heatmap setting: privacy parameters, noise, caps, cell size and kernel."""
        return HeatmapSetting(self.epsilon, self.delta, self.mechanism, self.method, self.cap_m, self.cap_total,
                              self.cell_px, self.sigma_px)

    @property
    def delta_used(self) -> float:
        """δ the preview/export spends: the chosen δ for Gaussian noise, 0 for Laplace (pure ε-DP)."""
        return preview.delta_spent(self.mechanism, self.delta)

    @property
    def selection_epsilon(self) -> float:
        """ε of a DP choice of m made on these very data (0 when m is fixed or was chosen elsewhere)."""
        return self.cap_choice.selection_epsilon(self.source, self.weight, self.cap_m) if self.cap_choice else 0.0

    @property
    def tuned_on_private_data(self) -> bool:
        """Whether the cap in use came from Algorithm 1 on private maps."""
        return bool(self.cap_choice and self.cap_choice.tuned_on_private_data(self.weight, self.cap_m))

    @property
    def width(self) -> int:
        """Stimulus width in px."""
        return self.gaze_maps.width

    @property
    def height(self) -> int:
        """Stimulus height in px."""
        return self.gaze_maps.height

    @property
    def unit(self) -> str:
        """Unit of a map value: fixations or seconds per observer per cell."""
        return UNITS[self.weight]

    @property
    def short_unit(self) -> str:
        """Short unit of the cap m and of map values."""
        return "fixations" if self.weight == "count" else "s"


# --------------------------------------------------------------------------------------------
# the study (data chosen on the page) and the context every part rebuilds from the settings


CONTEXTS_KEY = "eyedp_hm_contexts"  # this session's last contexts, keyed by study and settings


@dataclass(frozen=True, eq=False, kw_only=True)
class Study:
    """The data the page's top row chose: fixations, stimulus, weighting and the stimulus' fixations."""

    fixations: Dataset
    stimulus: Dataset
    stimulus_name: str
    weight: str
    fixations_on_stimulus: pd.DataFrame
    how: str  # how the fixations were matched to the stimulus (shown in the caption)

    @functools.cached_property
    def n_observers(self) -> int:
        """Number of observers with fixations on the stimulus (public)."""
        return int(self.fixations_on_stimulus["observer"].nunique())


def context(study: Study, s) -> Context:
    """Study and settings (ui.heatmaps.settings.Settings) -> the page's Context, memoised per session: the map
    part and the privacy part share one build per move. Raises ValueError for settings the core refuses."""
    cap_choice = st.session_state.get(CAP_CHOICE_KEY)
    k = (id(study), s, id(cap_choice))
    memo = st.session_state.setdefault(CONTEXTS_KEY, OrderedDict())
    if k in memo:
        memo.move_to_end(k)
        return memo[k][1]
    fix_ds, stim = study.fixations, study.stimulus
    H, W = stim.image.shape[:2]
    key = (fix_ds.token, stim.token, s.cell, study.weight)
    gm = gaze_maps(*key, W, H, study.fixations_on_stimulus)
    sens = preview.maps_sensitivity(gm, s.cap_m, s.cap_total)
    clean = clean_maps(key, s.cap_m, s.cap_total, s.sigma_px, gm)
    setting = HeatmapSetting(s.epsilon, s.delta, s.mechanism, s.method, s.cap_m, s.cap_total, s.cell, s.sigma_px)
    prev = noisy_preview(key, setting, s.seed, clean, sens)
    ctx = Context(fixations=fix_ds, stimulus=stim, maps_key=key, gaze_maps=gm,
                  source=MapsSource.of(gm, fixations=fix_ds.token, stimulus=stim.token,
                                       stimulus_name=study.stimulus_name),
                  sensitivity=sens, clean=clean, preview=prev, epsilon=s.epsilon, delta=s.delta,
                  mechanism=s.mechanism, method=s.method, cap_m=s.cap_m, cap_total=s.cap_total, cell_px=s.cell,
                  sigma_px=s.sigma_px, degrees=s.degrees, weight=study.weight, preview_seed=s.seed,
                  cap_choice=cap_choice)
    memo[k] = (study, ctx)  # the study is kept with its id so that the id is not reused while memoised
    while len(memo) > 4:
        memo.popitem(last=False)
    return ctx
